"""Tab follows what the eye reads: the control panel top to bottom, then the button bar, the
block maps and their legends (after the button that flips a lesson's drive and results, on
a short screen), the charts (or a lesson's results), then the lesson panel.
Qt's own order is the order the widgets were made, so "Colour by" (made with the map tools,
after the lesson panel) came last, and a control made later (drive B's map, a lesson page)
went to the end. The order is set again on each Tab or Shift+Tab, so every state (first
screen, a lesson step, compare mode) gets it without each of them having to ask.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

TAB_KEYS = (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)


def regions(window) -> list[QWidget]:
    """The window's parts in reading order (those it has)."""
    names = ("controls_scroll", "stage_flip", "map_area", "lower", "lesson_dock")
    return [part for part in (getattr(window, n, None) for n in names) if part is not None]


def tabbable(window: QWidget) -> list[QWidget]:
    """The widgets of window that take focus by Tab, in the focus chain's present order."""
    out: list[QWidget] = []
    w = window.nextInFocusChain()
    while w is not window and w is not None and len(out) < 2000:
        if w.window() is window and w.focusProxy() is None \
                and w.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus:
            out.append(w)
        w = w.nextInFocusChain()
    return out


def _rows(widgets: list[QWidget], window: QWidget) -> list[QWidget]:
    """widgets in rows top to bottom, each row left to right; a row is the widgets whose
    middles each lie within the other's height (a tall button beside a short combo is one
    row; a scroll area is not in a row with the controls inside it)."""
    boxes = []
    for w in widgets:
        top_left = w.mapTo(window, w.rect().topLeft())
        boxes.append((top_left.y(), top_left.y() + max(1, w.height()), top_left.x(), w))
    boxes.sort(key=lambda b: (b[0], b[2]))
    out: list[QWidget] = []
    while boxes:
        top, bottom = boxes[0][0], boxes[0][1]
        middle = (top + bottom) / 2
        row = [b for b in boxes
               if b[0] <= middle < b[1] and top <= (b[0] + b[1]) / 2 < bottom]
        row_ids = {id(b[3]) for b in row}
        boxes = [b for b in boxes if id(b[3]) not in row_ids]
        out += [b[3] for b in sorted(row, key=lambda b: b[2])]
    return out


def reading_order(window: QWidget) -> list[QWidget]:
    """The tabbable widgets of window, part by part (regions), visible ones by where they
    sit; hidden ones (another page of a stack) keep their order at their part's end."""
    parts = regions(window)
    groups: list[list[QWidget]] = [[] for _ in range(len(parts) + 1)]
    for w in tabbable(window):
        at = next((i for i, p in enumerate(parts) if p is w or p.isAncestorOf(w)), len(parts))
        groups[at].append(w)
    out: list[QWidget] = []
    for group in groups:
        shown = [w for w in group if w.isVisibleTo(window)]
        out += _rows(shown, window) + [w for w in group if not w.isVisibleTo(window)]
    return out


def apply(window: QWidget) -> None:
    """Put the focus chain of window in reading order."""
    order = reading_order(window)
    if order == tabbable(window):
        return
    for a, b in zip(order, order[1:], strict=False):
        QWidget.setTabOrder(a, b)


class TabKeys(QObject):
    """Sets the order just before Tab or Shift+Tab moves the focus in the window. When a
    control gave focus to the window itself (Enter in a field hands it back so that the
    plain keys are the window's again), the next Tab goes on from that control rather than
    from the window's first one."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self.resume: QWidget | None = None
        QApplication.instance().focusChanged.connect(self._changed)

    def _changed(self, old, new) -> None:
        window = self.window
        self.resume = old if new is window and isinstance(old, QWidget) \
            and old.window() is window else None

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        # every event of the application passes here: the class test is cheap, the type's
        # enum is not (as in shortcuts.py)
        if isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress \
                and event.key() in TAB_KEYS \
                and isinstance(obj, QWidget) and obj.window() is self.window:
            apply(self.window)
            back = self.resume
            if obj is self.window and back is not None and back.isVisible():
                back.setFocus(Qt.FocusReason.OtherFocusReason)  # Tab goes on from it
        return False

    def settle(self) -> None:
        apply(self.window)


def install(window: QWidget) -> None:
    window._tab_keys = TabKeys(window)
    app = QApplication.instance()
    app.installEventFilter(window._tab_keys)
    window.destroyed.connect(lambda _o=None, f=window._tab_keys: app.removeEventFilter(f))
    # set on the first Tab only: set as soon as the window was built (even from the event
    # loop), the reordered chain crashed Qt in the next window's style-sheet restyle
