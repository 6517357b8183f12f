"""The block map following a lesson's GCs at teaching pace: a lesson's map is small (it shares
the window with the lesson and its results), so at its fitted size a block is a few pixels
and its pages cannot be drawn. While following, each GC that begins (its "mark" phase, with
the drive's pages) zooms the map in until a page is a few pixels wide, closer when the
victim and the blocks its pages go to still fit together; the view then shows the victim at
mark and erase and the blocks its pages went to at move, each with the others when they fit
beside it. The victim's valid pages, the stale ones and the copies are then what the student
sees. When the following ends (the GCs to watch were shown, skipped, or the run ended) the
map shows the whole drive again, if it was the one that zoomed. A drive whose pages the
fitted map already draws is left alone.

Outside that following, a map the person zoomed in keeps its zoom and moves only to bring
the GC a snapshot names on screen: a breakpoint's victim, a GC stepped through (the victim
and the blocks its pages went to, as many as fit), each phase at teaching pace. Zoomed in at
a lecture, the breakpoint outlined a block off screen and the steps after it cleaned blocks
nobody saw.
"""

from __future__ import annotations

from ..run.snapshot import Snapshot
from .mapview import Viewport

TEACH_PAGE_PX = 5  # pixels per page side the map zooms to at most: pages plain to see
NAMED = ("mark", "move", "erase", "breakpoint", "stepped")  # the phases that name a GC


def on_screen(view: Viewport, b: int) -> bool:
    """Block b is wholly inside the view."""
    s = view.scale.value
    r, c = divmod(int(b), view.cols)
    x, y = view.ox + c * s, view.oy + r * s
    return x >= 0 and y >= 0 and x + s <= view.width and y + s <= view.height


def keep_in_view(view: Viewport | None, snap: Snapshot) -> bool:
    """A map zoomed in by the person: move it (at the same zoom) to show the GC snap names
    when it is not on screen, the blocks the pages go to first while they move; True when
    it moved."""
    if view is None or not view.zoomed or snap.gc_phase not in NAMED \
            or not 0 <= snap.gc_victim < snap.blocks:
        return False
    victim, dests = snap.gc_victim, [b for b in snap.gc_destinations if b < snap.blocks]
    first = dests if snap.gc_phase == "move" and dests else [victim]
    if all(on_screen(view, b) for b in first):
        return False
    view.show_blocks(list(dict.fromkeys([*first, victim, *dests])))
    return True


def _fits(view: Viewport, level: int, blocks: list[int]) -> bool:
    """Whether the blocks fit on screen together at zoom `level`, a block to spare at each
    side for their labels."""
    s = view.rungs[level].value
    rows, cols = zip(*(divmod(int(b), view.cols) for b in blocks), strict=True)
    return ((max(cols) - min(cols) + 3) * s <= view.width
            and (max(rows) - min(rows) + 3) * s <= view.height)


def zoom_level(view: Viewport, blocks: list[int]) -> int | None:
    """The zoom level to follow a GC of these blocks (victim first) at: pages at most
    TEACH_PAGE_PX wide, the closest at which all the blocks fit, else the closest at which
    the victim does, else the farthest that draws pages. None when no level draws pages or
    the whole drive already does."""
    drawn = [i for i, s in enumerate(view.rungs) if view.page_px(s)]
    if not drawn or drawn[0] == 0:
        return None
    levels = [i for i in drawn if view.page_px(view.rungs[i]) <= TEACH_PAGE_PX] or drawn[:1]
    for group in (blocks, blocks[:1]):
        fit = [i for i in levels if _fits(view, i, group)]
        if fit:
            return max(fit)
    return levels[0]


class GcFollow:
    """What a BlockMap (blockmap.py) follows; see the module docstring. It keeps no
    reference to the map (a cycle through a widget is left for Python's collector, which
    may run in a simulation thread, where deleting a widget crashes Qt)."""

    def __init__(self):
        self.on = False
        self.zoomed = False  # the map is zoomed because a GC was followed
        self._kept = None  # the GC keep_in_view last brought on screen, once for each

    def set(self, on: bool) -> bool:
        """Follow the GCs the snapshots name (on), or stop; True when the map should show
        the whole drive again (it zoomed to follow)."""
        self.on = on
        was, self.zoomed = self.zoomed, self.zoomed and on
        return was and not on

    def snapshot(self, view: Viewport | None, snap: Snapshot) -> bool:
        """A new snapshot for a map whose view (fitted to the drive) is `view`: True when
        the view moved to follow a GC's phase (or, not following, to keep a GC the
        snapshot names on screen: keep_in_view)."""
        if not self.on:
            # once for each GC moment: the same moment again (a pan asks the worker for
            # its pages, which publishes it afresh) must not pull the view back
            moment = (snap.gc_phase, snap.gc_victim, snap.counters.get("erases"))
            if not snap.gc_phase or moment == self._kept:
                return False
            self._kept = moment
            return keep_in_view(view, snap)
        if not (view is not None and snap.gc_phase in ("mark", "move", "erase")
                and snap.pages is not None and snap.page_blocks is None
                and 0 <= snap.gc_victim < snap.blocks):
            return False
        victim, dests = snap.gc_victim, [b for b in snap.gc_destinations if b < snap.blocks]
        if snap.gc_phase == "mark":
            level = zoom_level(view, [victim, *dests])
            if level is None:
                return False
            view.level = level
        elif not self.zoomed:
            return False
        # the blocks the phase is about first: where the pages go while they move
        first = dests if snap.gc_phase == "move" and dests else [victim]
        view.show_blocks(list(dict.fromkeys([*first, victim, *dests])), clamp=False)
        self.zoomed = True
        return True
