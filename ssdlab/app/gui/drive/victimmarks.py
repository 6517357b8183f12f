"""The GC victim's shape on the block map: crossed out, so it never depends on its hue alone
(ssdlab/app/palette.py VICTIM_MARK says why). Drawn over the map's image in every colouring, the
heat maps too, wherever a block is at least MIN_CELL_PX wide.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from ssdlab.app.palette import VICTIM_MARK

from ..run.snapshot import CODE_VICTIM, Snapshot
from .mapview import Viewport

MIN_CELL_PX = 4  # below this a block is too small for a shape: its colour alone shows


def victim_cells(snap: Snapshot | None, view: Viewport | None, margin: int,
                 skip: int = -1) -> list[QRectF]:
    """Widget rectangles of the victims on screen (empty when blocks are too small); skip:
    a victim marked otherwise (gcmarks.py outlines the GC a snapshot names)."""
    if snap is None or view is None or view.scale.value < MIN_CELL_PX:
        return []
    victims = np.flatnonzero(snap.codes[:snap.blocks] == CODE_VICTIM)
    return block_cells(victims[victims != skip], view, margin)


def block_cells(blocks: np.ndarray, view: Viewport, margin: int) -> list[QRectF]:
    """Widget rectangles of those of these blocks the map shows now (the victims, the SLC
    cache's blocks: slcmarks.py)."""
    if not blocks.size:
        return []
    s = view.scale.value
    r0, r1, c0, c1 = view.visible()
    rows, cols = np.divmod(blocks, view.cols)
    on = (rows >= r0) & (rows < r1) & (cols >= c0) & (cols < c1)
    return [QRectF(margin + view.ox + c * s, margin + view.oy + r * s, s, s)
            for r, c in zip(rows[on].tolist(), cols[on].tolist(), strict=True)]


def paint(p: QPainter, cells: list[QRectF], page_level: bool) -> None:
    """Cross each victim out, or, drawn as pages, outline it in black and white dashes."""
    if not cells:
        return
    stroke, halo = QColor(VICTIM_MARK["stroke"]), QColor(VICTIM_MARK["halo"])
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(Qt.BrushStyle.NoBrush)
    for cell in cells:
        width = max(1.5, cell.width() / 10)
        inner = cell.adjusted(1 + width, 1 + width, -width, -width)
        if page_level:
            p.setPen(QPen(halo, width))
            p.drawRect(inner)
            dashed = QPen(stroke, width)
            dashed.setDashPattern([2.0, 2.0])
            p.setPen(dashed)
            p.drawRect(inner)
            continue
        lines = [QLineF(inner.topLeft(), inner.bottomRight()),
                 QLineF(QPointF(inner.right(), inner.top()),
                        QPointF(inner.left(), inner.bottom()))]
        for colour, w in ((halo, width * 2), (stroke, width)):
            pen = QPen(colour, w)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            p.setPen(pen)
            p.drawLines(lines)
    p.restore()
