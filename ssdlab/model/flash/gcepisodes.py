"""Garbage collections read back from the engine's event log, phase by phase, so a display can
play one at a pace a person can follow: the victim marked (mark), its valid pages moved to
their new block (move), then the erase (erase).

The engine reports a GC as events (state.EV_VICTIM, EV_COPY per page moved, EV_ERASE), and
a block-mapped drive's merge (mappings "block" and "fast": a logical block's valid pages
gathered into a fresh block, its old block erased) as EV_MERGE, EV_COPY per page moved and
the old block's EV_ERASE, played as the same three phases. This module replays a batch's
events forward on copies of the page map, block states, valid counts and counters taken
before the batch, and keeps the drive as it stood at each phase. Nothing is simulated here:
the events are the engine's own record, so a GC that ends the batch leaves the replay at the
drive after the batch (tests/test_gc_episodes.py checks that). Plain data, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .state import (
    BLOCK_FREE,
    BLOCK_FULL,
    BLOCK_OPEN,
    BLOCK_VICTIM,
    EV_COPY,
    EV_ERASE,
    EV_INVALIDATE,
    EV_MERGE,
    EV_PROGRAM,
    EV_VICTIM,
    FREE_PAGE,
    INVALID_PAGE,
)

PHASES = ("mark", "move", "erase")
# the counters a phase carries (what a tally of the run shows; GCs done, as the engine
# counts them: once the victim is erased)
TALLY = ("host_writes", "nand_writes", "gc_copies", "erases", "gc_victims")


@dataclass(frozen=True)
class GcEpisode:
    """One garbage collection: block `victim` held `valid_pages` valid pages when chosen;
    they moved from physical pages `sources` to `targets` (same order), then the victim was
    erased for the `erase_count`-th time. kind: "gc", or "merge" (a block-mapped drive
    rewrote logical block `victim`'s data whole: valid_pages is the pages it copied, from the
    victim or, under "fast", from the log, beside the host's new ones)."""

    victim: int
    valid_pages: int
    sources: tuple[int, ...]
    targets: tuple[int, ...]
    erase_count: int
    pages_per_block: int
    kind: str = "gc"

    @property
    def destinations(self) -> tuple[int, ...]:
        """The blocks the moved pages went to, in the order they were first used."""
        return tuple(dict.fromkeys(t // self.pages_per_block for t in self.targets))


@dataclass(frozen=True, eq=False)
class GcPhase:
    """The drive at one phase of `episode`: `name` is one of PHASES; p2l (int32 per
    physical page, the engine's encoding), bstate (int8 per block), valid (int32 per block)
    and counters (TALLY names, pages) as they stood then. p2l, bstate and valid are None for
    a GC beyond gc_phases' `limit` (counted, never shown)."""

    name: str
    episode: GcEpisode
    p2l: np.ndarray | None
    bstate: np.ndarray | None
    valid: np.ndarray | None
    counters: dict[str, int] = field(default_factory=dict)


class _Replay:
    """The drive's page map, block states, valid counts and counters, moved on by events."""

    def __init__(self, p2l, bstate, valid, counters, ppb, lb2pb=None):
        self.p2l = np.array(p2l, dtype=np.int32)
        self.bstate = np.array(bstate, dtype=np.int8)
        self.valid = np.array(valid, dtype=np.int32)
        self.counters = {k: int(counters[k]) for k in TALLY}
        self.ppb = ppb
        # block and fast mappings: where each logical block's data block is (-1: none)
        self.lb2pb = None if lb2pb is None else np.array(lb2pb, dtype=np.int32)

    def program(self, ppn: int, lpn: int) -> None:
        b = ppn // self.ppb
        if self.bstate[b] == BLOCK_FREE:
            # a block-mapped drive takes a free block as a logical block's data block (the
            # engine marks it full, with no event) when that logical block has none; under
            # "fast" any other free block written is a log block, open until it fills
            lb = lpn // self.ppb
            data = (self.lb2pb is not None and self.lb2pb[lb] < 0
                    and ppn % self.ppb == lpn % self.ppb)
            self.bstate[b] = BLOCK_FULL if data else BLOCK_OPEN
            if data:
                self.lb2pb[lb] = b
        self.p2l[ppn] = lpn
        self.valid[b] += 1
        self.counters["nand_writes"] += 1
        if ppn % self.ppb == self.ppb - 1:  # a stream fills its blocks in order
            self.bstate[b] = BLOCK_FULL

    def stale(self, ppn: int) -> None:
        self.p2l[ppn] = INVALID_PAGE
        self.valid[ppn // self.ppb] -= 1

    def erase(self, b: int) -> None:
        self.p2l[b * self.ppb:(b + 1) * self.ppb] = FREE_PAGE
        self.valid[b] = 0
        self.bstate[b] = BLOCK_FREE
        self.counters["erases"] += 1

    def phase(self, name: str, keep: bool = True) -> tuple:
        if not keep:  # a GC only counted: its counters, no copy of the drive
            return (name, None, None, None, dict(self.counters))
        return (name, self.p2l.copy(), self.bstate.copy(), self.valid.copy(),
                dict(self.counters))


def gc_phases(p2l: np.ndarray, bstate: np.ndarray, valid: np.ndarray, counters: dict,
              events: np.ndarray, pages_per_block: int, lb2pb: np.ndarray | None = None,
              limit: int | None = None) -> list[GcPhase]:
    """Every GC in `events` (rows of kind, a, b, c, in the order the engine wrote them) as
    three GcPhase each, given the drive before the first event: p2l, bstate and valid copied
    from its arrays (Drive.arrays) and counters from Drive.counters(). lb2pb: a block or
    fast mapping's Drive.arrays.lb2pb before the events (its merges are GCs of kind
    "merge"); None under page mapping. limit: only the first `limit` GCs' phases carry the
    drive (a "fast" merge of a full log may rewrite a hundred blocks at once)."""
    r = _Replay(p2l, bstate, valid, counters, pages_per_block, lb2pb)
    out: list[GcPhase] = []
    open_gc = None  # (victim, valid pages, sources, targets, phases so far, kind)

    def keep() -> bool:
        return limit is None or len(out) < 3 * limit

    for kind, a, b, c in np.asarray(events, dtype=np.int64).reshape(-1, 4).tolist():
        if kind == EV_PROGRAM:
            r.program(a, b)
            r.counters["host_writes"] += 1
        elif kind == EV_INVALIDATE:
            r.stale(a)
        elif kind == EV_VICTIM:
            r.bstate[a] = BLOCK_VICTIM
            open_gc = (a, b, [], [], [r.phase("mark", keep())], "gc")
        elif kind == EV_MERGE and r.lb2pb is not None:
            # a = old block (-1: the logical block had none), b = the block receiving its
            # pages (a fresh one the engine marked full, or a log block switched in whole)
            r.bstate[b] = BLOCK_FULL
            r.lb2pb[c] = b
            if a >= 0:
                r.bstate[a] = BLOCK_VICTIM  # for the display: the block being rewritten
                open_gc = (a, -1, [], [], [r.phase("mark", keep())], "merge")
        elif kind == EV_COPY:
            r.stale(a)
            r.program(b, c)
            r.counters["gc_copies"] += 1
            if open_gc is not None:
                open_gc[2].append(a)
                open_gc[3].append(b)
        elif kind == EV_ERASE:
            victim = open_gc is not None and open_gc[0] == a
            kept = victim and open_gc[4][0][1] is not None
            if victim:
                open_gc[4].append(r.phase("move", kept))
            r.erase(a)
            if victim:
                v, moved, src, dst, phases, what = open_gc
                if what == "gc":  # a merge is no GC victim (ftl.py counts none)
                    r.counters["gc_victims"] += 1
                phases.append(r.phase("erase", kept))
                if moved < 0:  # a merge: the pages it copied
                    moved = len(src)
                ep = GcEpisode(v, moved, tuple(src), tuple(dst), b, pages_per_block, what)
                out += [GcPhase(name, ep, m, s, n, cnt) for name, m, s, n, cnt in phases]
                open_gc = None
    return out
