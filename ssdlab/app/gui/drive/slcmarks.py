"""Blocks of the SLC cache on the block map: a tab along the top of each, so a cache block
is told by its shape, not by a hue (model/flash/slccache.py: a block used one bit per cell,
holding a third or a quarter of the pages). Drawn over the map's image in every colouring,
wherever a block is at least MIN_CELL_PX wide, as the victims' crosses are.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter

from ssdlab.app.palette import VICTIM_MARK

from ..run.snapshot import Snapshot
from .mapview import Viewport
from .victimmarks import MIN_CELL_PX, block_cells

LEGEND_TEXT = "SLC cache block (1 bit per cell)"


def slc_cells(snap: Snapshot | None, view: Viewport | None, margin: int) -> list[QRectF]:
    """Widget rectangles of the cache's blocks on screen (empty without a cache, or when
    blocks are too small for a shape)."""
    if snap is None or snap.slc is None or view is None or view.scale.value < MIN_CELL_PX:
        return []
    return block_cells(np.flatnonzero(snap.slc[:snap.blocks] != 0), view, margin)


def paint(p: QPainter, cells: list[QRectF]) -> None:
    """A black tab in a white rim along the top of each cell: half its width, a sixth of
    its height (at least 2 px), clear of the victim's cross in the middle."""
    if not cells:
        return
    stroke, halo = QColor(VICTIM_MARK["stroke"]), QColor(VICTIM_MARK["halo"])
    for cell in cells:
        h = max(2.0, cell.height() / 6)
        tab = QRectF(cell.left() + cell.width() / 4, cell.top() + 1, cell.width() / 2, h)
        p.fillRect(tab.adjusted(-1, -1, 1, 1), halo)
        p.fillRect(tab, stroke)
