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
"""

from __future__ import annotations

from ..run.snapshot import Snapshot
from .mapview import Viewport

TEACH_PAGE_PX = 5  # pixels per page side the map zooms to at most: pages plain to see


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

    def set(self, on: bool) -> bool:
        """Follow the GCs the snapshots name (on), or stop; True when the map should show
        the whole drive again (it zoomed to follow)."""
        self.on = on
        was, self.zoomed = self.zoomed, self.zoomed and on
        return was and not on

    def snapshot(self, view: Viewport | None, snap: Snapshot) -> bool:
        """A new snapshot for a map whose view (fitted to the drive) is `view`: True when
        the view moved to follow a GC's phase."""
        if not (self.on and view is not None and snap.gc_phase in ("mark", "move", "erase")
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
