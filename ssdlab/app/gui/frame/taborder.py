"""Tab follows what the eye reads, part by part: the control panel top to bottom, the button
that flips a lesson's drive and results (or two drives and their charts) on a short screen
(F7's), the button bar, the block maps and their legends, the charts (or a lesson's
results), the lesson panel, then the status bar's button; within a part, rows top to
bottom (appearance/focuschain.py).
After the last control Tab comes round to the first, Shift+Tab the other way, lap after lap,
whatever the state (first screen, a lesson step, a run, compare mode, presentation mode).

The order is worked out afresh from the widgets on each move (Workbench.focusNextPrevChild
calls move), never stored in Qt's focus chain: see focuschain.py for what the chain did.
Qt moves the focus the same way when the focused control is hidden or disabled, so that
too goes to the next control in this order (the lesson panel steers its own first:
lessons/keepfocus.py).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget
from shiboken6 import isValid

from ..appearance.focuschain import controls, rows

# the window's parts in reading order: (name, the window's attribute holding it); a widget
# belongs to the first part that holds it (the button bar sits inside the map area)
PARTS = (("control panel", "controls_scroll"), ("stage flip", "stage_flip"),
         ("buttons", "button_bar"), ("block map", "map_area"), ("charts", "lower"),
         ("lesson panel", "lesson_dock"))
STATUS = "status"


def parts(window) -> list[tuple[str, QWidget]]:
    """(name, widget) of each part the window has, in reading order, the status bar last."""
    out = [(name, getattr(window, attr, None)) for name, attr in PARTS]
    status = window.statusBar() if hasattr(window, "statusBar") else None
    # only widgets: another kind of window answers some names with a method (QWidget.lower)
    return [(name, w) for name, w in [*out, (STATUS, status)] if isinstance(w, QWidget)]


def regions(window) -> list[QWidget]:
    """The window's parts in reading order (those it has)."""
    return [w for _name, w in parts(window)]


def part_of(window, w: QWidget | None) -> str:
    """The name of the part holding w ("" when none does)."""
    return next((name for name, p in parts(window)
                 if w is not None and (p is w or p.isAncestorOf(w))), "")


def reading_order(window: QWidget, also: QWidget | None = None) -> list[QWidget]:
    """The controls Tab reaches in window now, part by part, each part in rows; also: a
    widget to place among them whatever its state (focuschain.controls)."""
    found = controls(window, also)
    names = [name for name, _p in parts(window)]
    groups: dict[str, list[QWidget]] = {name: [] for name in [*names, ""]}
    for w in found:
        groups[part_of(window, w)].append(w)
    return [w for name in groups for w in rows(groups[name], window)]


def neighbour(window: QWidget, of: QWidget | None, forward: bool) -> QWidget | None:
    """The control after (forward) or before of in reading order, coming round at the ends;
    the first or last when of is not a control of the window (the window itself)."""
    inside = of is not None and of is not window and window.isAncestorOf(of)
    order = reading_order(window, of if inside else None)
    others = [w for w in order if w is not of]
    if not others:
        return None
    if not inside:
        return others[0] if forward else others[-1]
    at = order.index(of)
    return order[(at + (1 if forward else -1)) % len(order)]


def show_whole(w: QWidget) -> None:
    """Scroll every scroll area round w so that w shows (a control panel or lesson panel
    taller than the window: Qt scrolls only when Tab started inside the same area), and
    the whole of the window's part that holds it where the area has room for it (where
    the main area scrolled on a short screen, F6 to the charts showed their tabs with the
    chart, its legend and the note under the status bar). An area is moved only as far as
    that needs, and not at all along a side where w's part seen through the areas inside
    it shows already, or is longer than the area and shows in part: F6 to the control panel
    (its own scroll area, taller than the room) scrolled the main area round it 12 px to
    centre it, though it showed (issue 36)."""
    part = next((p for _name, p in parts(w.window()) if p is w or p.isAncestorOf(w)), None)
    seen = w.rect()  # w's part the areas inside the current one let through, in w's px
    area = w.parentWidget()
    while area is not None:
        if isinstance(area, QScrollArea) and area.widget() is not None \
                and area.widget().isAncestorOf(w):
            inner = area.widget()
            if part is not None and part is not w and inner.isAncestorOf(part) \
                    and part.height() <= area.viewport().height():
                _scroll_to(area, QRect(part.mapTo(inner, QPoint(0, 0)), part.size()), 0)
            _scroll_to(area, QRect(w.mapTo(inner, seen.topLeft()), seen.size()))
            view = area.viewport()
            shown = QRect(w.mapFrom(view, QPoint(0, 0)), view.size())
            seen = seen.intersected(shown)
            if seen.isEmpty():
                return
        area = area.parentWidget()


def _scroll_to(area: QScrollArea, rect: QRect, margin: int = 4) -> None:
    """Scroll area so that rect (in its widget's px) shows, each axis on its own."""
    view = area.viewport()
    at = -area.widget().pos()
    for bar, lo, size, room, now in (
            (area.horizontalScrollBar(), rect.left(), rect.width(), view.width(), at.x()),
            (area.verticalScrollBar(), rect.top(), rect.height(), view.height(), at.y())):
        hi = lo + size
        if lo >= now and hi <= now + room:
            continue  # shows whole already
        if size > room and lo < now + room and hi > now:
            continue  # longer than the area, and shows in part: leave it
        if size + 2 * margin > room:
            bar.setValue(lo)
        elif lo < now:
            bar.setValue(lo - margin)
        else:
            bar.setValue(hi + margin - room)


def focus(w: QWidget) -> None:
    """w takes the focus as Tab gives it (a screen reader hears it; a line edit selects its
    text), scrolled into view first (the focus ring is drawn where it is then)."""
    show_whole(w)
    w.setFocus(Qt.FocusReason.TabFocusReason)


def move(window: QWidget, forward: bool) -> bool:
    """Tab (forward) or Shift+Tab in window: the focus to the next or previous control;
    True when it moved. From the window itself (a test or a part that gave focus back)
    Tab goes on from the control that had it last."""
    now = QApplication.focusWidget()
    if now is window or now is None:
        keys = getattr(window, "_tab_keys", None)
        now = keys.resume if keys is not None and keys.resume is not None \
            and isValid(keys.resume) else None
    to = neighbour(window, now, forward)
    if to is None:
        return False
    focus(to)
    return True


class TabKeys(QObject):
    """Remembers the control that last had the focus before the window itself took it."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self.resume: QWidget | None = None
        QApplication.instance().focusChanged.connect(self._changed)

    def _changed(self, old, new) -> None:
        window = self.window
        if new is window and isinstance(old, QWidget) and old.window() is window:
            self.resume = old
        elif isinstance(new, QWidget) and new is not window and new.window() is window:
            self.resume = None


def install(window: QWidget) -> None:
    window._tab_keys = TabKeys(window)

