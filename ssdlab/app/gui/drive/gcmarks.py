"""The garbage collection a snapshot names, drawn over the block map (blockmap.py): the victim
outlined solid with a label ("victim: 9 valid pages"), the blocks its pages moved to outlined
dashed with a label ("copied to"); a block off the map (zoomed in elsewhere) is named at the
map's edge nearest it. Shape and words, not colour alone: each outline is a light
line on a dark one, so it shows on every block colour, in both colour profiles.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from ..run.snapshot import Snapshot
from .mapview import Viewport

OUTLINE_PX = 3  # the light line; the dark one under it is twice as wide
LIGHT, DARK = QColor("#FFFFFF"), QColor("#000000")
# what a destination's label says: before the move the pages are still on their way
DEST_LABELS = {"mark": "pages go here", "breakpoint": "pages go here",
               "stepped": "its pages now"}
OFF_LABELS = {"mark": "pages go to", "breakpoint": "pages go to", "stepped": "pages now in"}


def victim_label(snap: Snapshot) -> str:
    """What the victim's label says at this moment of its GC."""
    n = snap.gc_valid
    pages = f"{n} valid page{'s' if n != 1 else ''}"
    return {"mark": f"victim: {pages}", "move": f"victim: moving {pages}",
            "erase": "victim: erased", "breakpoint": f"victim: {pages}",
            "stepped": "cleaned"}.get(snap.gc_phase, "victim")


def block_rect(view: Viewport, margin: int, b: int,
               size: tuple[int, int] | None = None) -> QRectF:
    """Block b's rectangle in the widget: its cell, or (size) the block drawn as pages."""
    s = view.scale.value
    r, c = divmod(b, view.cols)
    w, h = size or (s, s)
    return QRectF(margin + view.ox + c * s, margin + view.oy + r * s, w, h)


def _outline(p: QPainter, rect: QRectF, dashed: bool, thin: bool = False) -> None:
    """thin: round a block drawn as pages, whose neighbour is a pixel away (the usual
    outline covered the neighbour's first column of pages)."""
    line = OUTLINE_PX / 2 if thin else OUTLINE_PX
    grow = line / 2 + 1 if thin else OUTLINE_PX + 1
    r = rect.adjusted(-grow, -grow, grow, grow)
    for colour, width in ((DARK, 2 * line), (LIGHT, line)):
        pen = QPen(colour, width)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r)


def _label(p: QPainter, rect: QRectF, text: str, short: str, bounds,  # noqa: PLR0913
           avoid: QRectF | None = None) -> QRectF:
    """A dark tag with light text under the block (above it at the bottom of the map, or
    where it would cover the tag `avoid`); the long text wrapped onto lines the map's width
    holds, whole, and the short one only where a word of it is wider than the map. Once
    the short text alone: a destination off a zoomed map ("pages go to block 12, off the
    map") was wider than a lesson's map at 18 pt and said only "to". Returns where the
    tag went."""
    fm = p.fontMetrics()
    room = int(bounds.width()) - 10
    wrap = int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap)
    if max((fm.horizontalAdvance(word) for word in text.split()), default=0) > room:
        text = short
    lines = fm.boundingRect(QRect(0, 0, max(room, 1), 1 << 16), wrap, text)
    w, h = lines.width() + 10, lines.height() + 4
    x = max(min(rect.center().x() - w / 2, bounds.right() - w), bounds.left())
    below = QRectF(x, rect.bottom() + OUTLINE_PX + 3, w, h)
    above = QRectF(x, rect.top() - OUTLINE_PX - 3 - h, w, h)
    tag = below
    if below.bottom() > bounds.bottom() or (avoid is not None and below.intersects(avoid)):
        tag = above
    if tag.top() < bounds.top() or tag.bottom() > bounds.bottom():
        # zoomed in, the block reaches past the map's edges: the tag inside the map, over
        # the part of the block in view ("cleaned" was cut at the map's top edge)
        y = min(max(tag.top(), bounds.top()), bounds.bottom() - h)
        tag = QRectF(x, max(y, bounds.top()), w, h)
    if avoid is not None and tag.intersects(avoid):
        # no room on a small map: the dashed outline marks the block, and the words under
        # the map name it (tally.gc_words)
        return tag
    p.setPen(QPen(LIGHT, 1))
    p.setBrush(DARK)
    p.drawRoundedRect(tag, 3, 3)
    p.drawText(tag, wrap, text)
    return tag


def draw(p: QPainter, snap: Snapshot, view: Viewport, margin: int, bounds,
         size: tuple[int, int] | None = None) -> None:
    """Outline and label the GC snapshot `snap` names (nothing when it names none); size:
    a block's (width, height) when the map draws pages, else None (blocks fill cells)."""
    if snap.gc_victim < 0 or snap.gc_victim >= snap.blocks:
        return
    font = QFont(p.font())
    font.setBold(True)
    p.setFont(font)
    area = QRectF(bounds)
    thin = size is not None
    victim = block_rect(view, margin, snap.gc_victim, size)
    dests = [(b, block_rect(view, margin, b, size)) for b in snap.gc_destinations
             if 0 <= b < snap.blocks]
    for _, d in dests:
        if d.intersects(area):
            _outline(p, d, dashed=True, thin=thin)
    if victim.intersects(area):
        _outline(p, victim, dashed=False, thin=thin)
        tag = _label(p, victim, victim_label(snap), f"victim ({snap.gc_valid})", bounds)
    else:  # zoomed in elsewhere (a lesson shows where the pages go): said, at the edge
        tag = _label(p, victim, f"victim: block {snap.gc_victim}, off the map",
                     "victim: off map", bounds)
    for b, d in dests:
        text = DEST_LABELS.get(snap.gc_phase, "copied to")
        if not d.intersects(area):
            text = f"{OFF_LABELS.get(snap.gc_phase, 'copied to')} block {b}, off the map"
        _label(p, d, text, "to", bounds, tag)
