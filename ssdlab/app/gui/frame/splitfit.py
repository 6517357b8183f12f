"""The map half of the window's vertical splitter never gets less height than its words
need at its width.

A splitter gives each half its minimum size hint, which counts each wrapped line once: when
the progress line or the drives' titles wrap to a second line (a breakpoint's notice, a
lesson's "A: first drive write of overwrites" over a narrow map), the half got less than
its contents need and the layout squashed the tally's rows into each other and cut the
map's legend off under the splitter (a lesson's third legend row). The half's layout knows
its height for its width (totalHeightForWidth); this keeps the splitter at or above it,
taking the room from the charts while they keep their own minimum. Over the charts alone
(stageflip.py) the half is exactly that tall.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QSplitter

from ..drive.tally import QWIDGETSIZE_MAX


class SplitFit(QObject):
    """Watches the upper half of `split` (a vertical QSplitter of two) and raises the split
    when the half needs more height for its width than it has."""

    def __init__(self, split: QSplitter):
        super().__init__(split)
        self.split = split
        # the upper half exactly as tall as its words, no taller: over the charts alone its
        # maps are hidden, and a splitter would keep its share of the height, empty
        self.exact = False
        self._again = QTimer(self)
        self._again.setSingleShot(True)
        self._again.timeout.connect(self.fit)
        split.widget(0).installEventFilter(self)

    def need(self) -> int:
        """Height the upper half's contents need at its width (0: no wrapped text)."""
        top = self.split.widget(0)
        layout = top.layout()
        if layout is None or not layout.hasHeightForWidth():
            return top.minimumSizeHint().height() if self.exact else 0
        return layout.totalHeightForWidth(top.width())

    def fit(self) -> None:
        top, low = self.split.widget(0), self.split.widget(1)
        if not top.isVisible():
            return
        sizes = self.split.sizes()
        total = sum(sizes)
        need = self.need()
        room = total - low.minimumSizeHint().height()  # the charts keep their minimum
        want = min(need, room)
        if total and (sizes[0] < want or self.exact and sizes[0] != want):
            self.split.setSizes([want, total - want])
        most = need if self.exact else QWIDGETSIZE_MAX
        if top.maximumHeight() != most:
            top.setMaximumHeight(most)
        # and as its least height: where the charts cannot give it all, the window (or the
        # main area, which scrolls on a short screen) grows rather than the half's rows
        # lying over each other (a lesson's tally under its map at 1.5x scaling)
        if top.minimumHeight() != need:
            top.setMinimumHeight(need)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Resize):
            self._again.start(0)  # once the layout has the new text
        return False
