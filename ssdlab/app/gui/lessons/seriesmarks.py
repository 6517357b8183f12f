"""How a lesson chart tells its configurations apart without colour: each has a marker
shape, a dash pattern (lines) or a hatching (bars) of its own, drawn the same in the chart
and in the legend under it. Four runs of lesson 2 once differed by colour alone: solid
lines with round dots, two of them blue."""

from __future__ import annotations

import base64

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPen, QPolygonF

SHAPES = ("circle", "square", "triangle", "diamond", "down", "cross")
# in pen widths, as Qt counts dashes; the first solid
DASHES: tuple[tuple[float, ...] | None, ...] = (
    None, (1.0, 1.5), (5.0, 1.5, 1.0, 1.5), (6.0, 2.5), (3.0, 1.2, 1.0, 1.2, 1.0, 1.2),
    (1.0, 3.0))
HATCHES = (Qt.BrushStyle.SolidPattern, Qt.BrushStyle.BDiagPattern,
           Qt.BrushStyle.CrossPattern, Qt.BrushStyle.FDiagPattern,
           Qt.BrushStyle.DiagCrossPattern, Qt.BrushStyle.Dense3Pattern)


def line_pen(i: int, colour: str, width: float) -> QPen:
    """Configuration i's line: its colour, width (px) and dash."""
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    pattern = DASHES[i % len(DASHES)]
    if pattern is not None:
        pen.setDashPattern(list(pattern))
    return pen


def bar_brush(i: int, colour: str) -> QBrush:
    """Configuration i's bars: its colour, hatched apart from the others."""
    return QBrush(QColor(colour), HATCHES[i % len(HATCHES)])


def _draw_marker(p: QPainter, shape: str, centre: QPointF, r: float) -> None:
    x, y = centre.x(), centre.y()
    if shape == "circle":
        p.drawEllipse(centre, r, r)
    elif shape == "square":
        p.drawRect(QRectF(x - r, y - r, 2 * r, 2 * r))
    elif shape == "cross":
        p.drawRect(QRectF(x - r, y - r / 3, 2 * r, 2 * r / 3))
        p.drawRect(QRectF(x - r / 3, y - r, 2 * r / 3, 2 * r))
    else:
        points = {"triangle": [(0, -r), (r, r), (-r, r)],
                  "diamond": [(0, -r), (r, 0), (0, r), (-r, 0)],
                  "down": [(-r, -r), (r, -r), (0, r)]}[shape]
        p.drawPolygon(QPolygonF([QPointF(x + dx, y + dy) for dx, dy in points]))


def marker_image(i: int, colour: str, px: int) -> QImage:
    """Configuration i's marker, px square, for QXYSeries.setLightMarker."""
    img = QImage(px, px, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(colour))
    _draw_marker(p, SHAPES[i % len(SHAPES)], QPointF(px / 2, px / 2), px / 2 - 0.5)
    p.end()
    return img


def legend_sample(i: int, colour: str, px: int, bars: bool, width: float) -> str:
    """Configuration i's sample for a rich-text legend: its line with its marker, or a
    hatched square, px high, as an inline image."""
    img = QImage(3 * px if not bars else px, px, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    if bars:
        p.setPen(QPen(QColor(colour), 1))
        p.setBrush(bar_brush(i, colour))
        p.drawRect(QRectF(0.5, 0.5, px - 1, px - 1))
    else:
        p.setPen(line_pen(i, colour, width))
        p.drawLine(QPointF(0, px / 2), QPointF(3 * px, px / 2))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(colour))
        _draw_marker(p, SHAPES[i % len(SHAPES)], QPointF(1.5 * px, px / 2), px / 3)
    p.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    img.save(buffer, "PNG")
    encoded = base64.b64encode(bytes(data)).decode("ascii")
    return f'<img src="data:image/png;base64,{encoded}">'
