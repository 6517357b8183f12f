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

from ..appearance import focuschain

TAB_KEYS = (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)


def regions(window) -> list[QWidget]:
    """The window's parts in reading order (those it has)."""
    names = ("controls_scroll", "stage_flip", "map_area", "lower", "lesson_dock")
    return [part for part in (getattr(window, n, None) for n in names) if part is not None]


def tabbable(window: QWidget) -> list[QWidget]:
    """The widgets of window that take focus by Tab, in the order of the widget tree (never
    read from Qt's focus chain: appearance/focuschain.py says why)."""
    return focuschain.tab_stops(window)


def reading_order(window: QWidget) -> list[QWidget]:
    """The tabbable widgets of window, part by part (regions), visible ones by where they
    sit; hidden ones (another page of a stack) at their part's end, in the widget tree's order."""
    parts = regions(window)
    groups: list[list[QWidget]] = [[] for _ in range(len(parts) + 1)]
    for w in tabbable(window):
        at = next((i for i, p in enumerate(parts) if p is w or p.isAncestorOf(w)), len(parts))
        groups[at].append(w)
    out: list[QWidget] = []
    for group in groups:
        shown = [w for w in group if w.isVisibleTo(window)]
        hidden = [w for w in group if not w.isVisibleTo(window)]
        out += focuschain.rows(shown, window) + hidden
    return out


def apply(window: QWidget) -> None:
    """Put the focus chain of window in reading order."""
    # set every time: the chain is never read back (focuschain.py), and setting an order
    # it already has changes nothing
    order = reading_order(window)
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
