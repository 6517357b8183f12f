"""Blocks of tagged data on the block map (placement handles, model/flash/placement.py): a
corner flag at the bottom left of each block that a handle other than 0 opened, so the hot
data a host tagged is told by a shape, not a hue. Drawn over the map's image in every
colouring, wherever a block is at least MIN_CELL_PX wide, as the victims' crosses and the
SLC cache's tabs are (a tab sits along the top, the cross in the middle: the flag stays
clear of both).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPolygonF

from ssdlab.app.palette import VICTIM_MARK

from ..run.snapshot import Snapshot, tagged_blocks
from .mapview import Viewport
from .victimmarks import MIN_CELL_PX, block_cells

LEGEND_TEXT = "tagged hot data (placement handle 1)"


def handle_cells(snap: Snapshot | None, view: Viewport | None, margin: int) -> list[QRectF]:
    """Widget rectangles of the tagged blocks on screen (empty on a drive without placement
    handles, or when blocks are too small for a shape)."""
    if (snap is None or snap.handles is None or view is None
            or view.scale.value < MIN_CELL_PX):
        return []
    return block_cells(tagged_blocks(snap), view, margin)


def paint(p: QPainter, cells: list[QRectF]) -> None:
    """A black right triangle in a white rim in the bottom-left corner of each cell, its
    legs a third of the cell's side (at least 3 px)."""
    if not cells:
        return
    stroke, halo = QColor(VICTIM_MARK["stroke"]), QColor(VICTIM_MARK["halo"])
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    for cell in cells:
        leg = max(3.0, cell.width() / 3)
        x, y = cell.left() + 1, cell.bottom()
        for colour, grow in ((halo, 1.0), (stroke, 0.0)):
            p.setBrush(colour)
            p.drawPolygon(QPolygonF([QPointF(x - grow, y + grow),
                                     QPointF(x - grow, y - leg - 2 * grow),
                                     QPointF(x + leg + 2 * grow, y + grow)]))
    p.restore()
