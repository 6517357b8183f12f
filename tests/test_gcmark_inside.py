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


def test_a_tag_too_long_for_the_map_wraps_whole_rather_than_saying_to(qapp):
    """At teaching pace a lesson's map follows the GC zoomed in, and a destination off the
    map is named at its edge ("pages go to block 12, off the map"): at 18 pt that was wider
    than the map, and the tag said only "to". It wraps onto lines the map holds, every
    word of it drawn, the tag inside the map."""
    from PySide6.QtGui import QFont, QFontMetrics

    image = QImage(300, 300, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    font = QFont(p.font())
    font.setPointSize(18)
    font.setBold(True)
    p.setFont(font)
    bounds = QRectF(0, 0, 300, 300)
    text = "pages go to block 12, off the map"
    try:
        drawn = []
        p.drawText = lambda rect, flags, words: drawn.append(words)  # what the tag says
        tag = gcmarks._label(p, QRectF(120, 120, 20, 20), text, "to", bounds)
    finally:
        p.end()
    assert drawn == [text]  # whole, not "to"
    fm = QFontMetrics(font)
    assert fm.horizontalAdvance(text) > bounds.width()  # one line would not fit
    assert tag.height() >= 2 * fm.height()  # so it takes two lines or more
    assert bounds.contains(tag)
