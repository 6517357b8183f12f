"""A GC block's tag ("cleaned", "victim") stays inside the map when the map is zoomed in
and the block reaches past its top or bottom edge (it was cut at the top)."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from ssdlab.app.gui.drive import gcmarks


def test_the_tag_stays_inside_the_map(qapp):
    image = QImage(400, 200, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    bounds = QRectF(0, 0, 400, 200)
    try:
        for block in (QRectF(100, -300, 180, 480),  # past both edges: zoomed far in
                      QRectF(100, -150, 120, 300),  # past the top, its foot near the bottom
                      QRectF(100, 5, 60, 190)):  # no room under it, none above it
            tag = gcmarks._label(p, block, "cleaned", "cleaned", bounds)
            assert bounds.contains(tag), (block, tag)
    finally:
        p.end()
