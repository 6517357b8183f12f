"""The tally goes under the map where the map area is too narrow for it beside the map.

At 1.5x scaling on a 1366 x 768 screen in presentation type (911 logical px), a lesson's
one large drive left the map area 571 px beside the lesson panel, with the control panel
already folded: the map at its least (224 px) and the tally beside it (424 px) needed 650,
so the map area scrolled sideways and the tally's figures were cut at the right
("1,0..."). Under the map the tally needs no more width than itself; the map area then
scrolls only downwards, as a page that reflows does.

Only where the map area scrolls (a short screen, appearance/scrollfit.py): elsewhere it is
as wide as it needs and the tally stays beside the map. The rule asks whether the tally
fits beside the map, wherever it is now, so the choice never flips back and forth.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer

from . import dockedlessons


class _Watch(QObject):
    """Measures again once the map area's size or contents settled."""

    def __init__(self, w):
        super().__init__(w)
        self.w = w
        self._again = QTimer(self)
        self._again.setSingleShot(True)
        self._again.timeout.connect(lambda: fit(w))
        w.central_fit.installEventFilter(self)
        w.central_fit.widget().installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self._again.start(0)
        return False


def install(w) -> None:
    _Watch(w)


def fit(w) -> None:
    """Each shown tally under its map exactly when the map area is narrower than it would
    need with the tallies beside their maps; then the lesson panel gives the map area the
    width it still needs, if it can (the tally's figures widen for the drive a lesson's
    run brings, and lesson 8's map area stayed 14 px short after its run)."""
    _stack(w)
    dockedlessons.narrow_lessons(w)


def _stack(w) -> None:
    area = w.central_fit
    views = [v for v in w.views if v.tally.isVisibleTo(w)]
    if not views:
        return
    # what the tallies under their maps save now is what beside them would add back
    beside_px = area.least().width() + sum(v.beside_px() for v in views if v.stacked())
    # a window as wide as it needs is narrower than that only for a moment, mid-layout
    under = area.scrolls() and beside_px > area.viewport().width()
    for view in views:
        if view.stacked() != under:
            view.stack(under)
            # the splitters between the map and the scroll area kept their children's old
            # least size (the tally laid over the map's foot): each is told again
            part = view.widget
            while part is not None and part is not area:
                part.updateGeometry()
                part = part.parentWidget()
