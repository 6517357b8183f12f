"""Blocks of tagged data on the block map (placement handles, model/flash/placement.py): a
corner flag inside the bottom left of each block that a handle other than 0 opened, so the
hot data a host tagged is told by a shape, not a hue. Drawn over the map's image in every
colouring, wherever a block is at least MIN_CELL_PX wide, as the victims' crosses and the
SLC cache's tabs are (a tab sits along the top, the cross in the middle: the flag stays
clear of both)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPolygonF

from ssdlab.app.palette import VICTIM_MARK

from ..run.snapshot import Snapshot, tagged_blocks
from .mapview import Viewport
from .victimmarks import MIN_CELL_PX, block_cells

LEGEND_TEXT = "tagged hot data (placement handle 1)"
HALO_CELL_PX = 10  # a cell at least this wide has room for the flag's white band


def handle_cells(snap: Snapshot | None, view: Viewport | None, margin: int) -> list[QRectF]:
    """Widget rectangles of the tagged blocks on screen (empty on a drive without placement
    handles, or when blocks are too small for a shape)."""
    if (snap is None or snap.handles is None or view is None
            or view.scale.value < MIN_CELL_PX):
        return []
    return block_cells(tagged_blocks(snap), view, margin)


def paint(p: QPainter, cells: list[QRectF]) -> None:
    """A black right triangle in the bottom-left corner of each cell, inside it (the cell's
    first pixel row and column are the map's gap): legs a third of the cell, with a white
    band along its long side so it shows on dark blocks too; in cells under HALO_CELL_PX,
    where a band would cover the block, legs half the cell and no band."""
    if not cells:
        return
    stroke, halo = QColor(VICTIM_MARK["stroke"]), QColor(VICTIM_MARK["halo"])
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    for cell in cells:
        inner = cell.width() - 1
        x, y = cell.left() + 1, cell.bottom()
        if inner >= HALO_CELL_PX:
            leg = inner / 3
            _triangle(p, halo, x, y, leg + 1.5)
        else:
            leg = max(2.0, inner / 2)
        _triangle(p, stroke, x, y, leg)
    p.restore()


def _triangle(p: QPainter, colour: QColor, x: float, y: float, leg: float) -> None:
    """A right triangle with its right angle at (x, y), legs along the bottom and left."""
    p.setBrush(colour)
    p.drawPolygon(QPolygonF([QPointF(x, y), QPointF(x, y - leg), QPointF(x + leg, y)]))
