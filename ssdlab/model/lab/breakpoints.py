"""Breakpoints, as SSDPlayer has them: conditions that pause a run, checked between batches.

`Breakpoints` is plain data (what to stop on); `BreakpointWatch` follows one Drive and, after
each batch, says which condition fired. The engine keeps what a batch boundary would hide:
the fewest free blocks there were during the batch, the writes of one watched logical page,
and the victims by valid pages; so every condition is seen in the batch where it happened.
Without engine events the run stops at the end of that batch, and the message says so; with
events (the animated drives) it names the victim or block that fired it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import numpy as np

from ssdlab.model.flash.drive import Drive, window_wa
from ssdlab.model.flash.geometry import Geometry
from ssdlab.model.flash.state import EV_ERASE, EV_VICTIM

WA_MAX = 1000.0


@dataclass(frozen=True)
class Breakpoints:
    """What pauses a run; None switches a condition off.

    wa_above: cumulative write amplification (NAND/host page writes) rises past this.
    gc_count: the Nth garbage collection (victims collected since the drive was erased).
    victim_valid: a GC victim holds at least this many valid pages (pages).
    free_blocks: free blocks fall to this many or fewer (blocks).
    erases: any block reaches this many erases.
    lpn: the host writes this logical page (4 KiB pages from 0).
    """

    wa_above: float | None = None
    gc_count: int | None = None
    victim_valid: int | None = None
    free_blocks: int | None = None
    erases: int | None = None
    lpn: int | None = None

    LABELS = {"wa_above": "WA rises past", "gc_count": "at GC number",
              "victim_valid": "victim with at least (valid pages)",
              "free_blocks": "free blocks fall to", "erases": "a block reaches (erases)",
              "lpn": "logical page written"}

    def active(self) -> bool:
        return any(getattr(self, f.name) is not None for f in fields(self))

    def limits(self, g: Geometry) -> dict[str, tuple[float, float]]:
        """Allowed range of each field on a drive of geometry g."""
        return {"wa_above": (0.0, WA_MAX), "gc_count": (1, 2**62),
                "victim_valid": (0, g.pages_per_block), "free_blocks": (0, g.blocks),
                "erases": (1, 2**31 - 1), "lpn": (0, g.user_pages - 1)}

    def check(self, g: Geometry) -> None:
        """Raise ValueError naming the first field outside its range on this drive."""
        for name, (lo, hi) in self.limits(g).items():
            v = getattr(self, name)
            if v is None:
                continue
            whole = name != "wa_above"
            ok = (isinstance(v, int) and not isinstance(v, bool)) if whole else (
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v))
            if not ok or not lo <= v <= hi or (name == "wa_above" and v <= lo):
                kind = "a whole number" if whole else "a number"
                low = f"above {lo:g}" if name == "wa_above" else f"from {lo:,}"
                raise ValueError(f"breakpoint {name} ({self.LABELS[name]}) must be {kind} "
                                 f"{low} to {hi:,}; got {v!r}")

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict, g: Geometry) -> Breakpoints:
        """Checked Breakpoints from a dict (a dialog, a file); ValueError names the field."""
        if not isinstance(d, dict):
            raise ValueError("breakpoints must be a table of field = value")
        names = {f.name for f in fields(cls)}
        for k in d:
            if k not in names:
                raise ValueError(f"unknown breakpoint {k!r}; known: {', '.join(sorted(names))}")
        bp = cls(**d)
        bp.check(g)
        return bp


@dataclass(frozen=True)
class Reading:
    """What the conditions compare between two batch boundaries."""

    wa: float
    gc_victims: int
    victims_at_least: int  # victims so far holding at least Breakpoints.victim_valid pages
    free_blocks: int
    max_erases: int
    watched_writes: int


class BreakpointWatch:
    """Follows `drive` from now on; stored_fraction: the compressing drive's share of a
    page programmed (the WA the window shows)."""

    def __init__(self, bp: Breakpoints, drive: Drive, stored_fraction: float = 1.0):
        bp.check(drive.geometry)
        self.bp, self.drive, self.stored = bp, drive, stored_fraction
        drive.watch(bp.lpn)
        drive.reset_free_low()
        self.last = self.read()
        self.fired = ""  # the field of the condition that fired last ("" if none)
        self.victim_index: int | None = None  # which of the batch's GC victims it fired on

    def read(self) -> Reading:
        d, k = self.drive, self.bp.victim_valid
        c = d.counters()
        at_least = int(d.arrays.victim_valid[k:].sum()) if k is not None else 0
        return Reading(window_wa(dict.fromkeys(c, 0), c, self.stored), c["gc_victims"],
                       at_least, d.free_blocks, int(d.arrays.erases.max(initial=0)),
                       d.watched_writes)

    def after_batch(self, events: np.ndarray | None = None, batch: str = "") -> str:
        """The first condition that fired since the last call ('' if none), as a sentence;
        events: the batch's engine events when it had them (names the block); batch: what
        the batch was (said when the stop is at its end rather than at the event)."""
        bp, before = self.bp, self.last
        self.fired, self.victim_index = "", None
        now = self.read()
        low = self.drive.free_low
        self.drive.reset_free_low()
        self.last = now
        exact = events is not None
        where = "" if exact or not batch else f" (stopped at the end of the batch: {batch})"
        ev = events if exact else np.empty((0, 4), dtype=np.int64)
        victims = ev[ev[:, 0] == EV_VICTIM]
        if bp.wa_above is not None and before.wa < bp.wa_above <= now.wa:
            return f"WA rose past {bp.wa_above:g}: now {now.wa:.3f}{where}"
        if bp.gc_count is not None and before.gc_victims < bp.gc_count <= now.gc_victims:
            i = bp.gc_count - before.gc_victims - 1
            self.fired, self.victim_index = "gc_count", i
            block = f": block {int(victims[i, 1]):,}, {int(victims[i, 2])} valid pages" \
                if i < len(victims) else ""
            return f"GC number {bp.gc_count:,}{block}{where}"
        if bp.victim_valid is not None and now.victims_at_least > before.victims_at_least:
            hit = victims[victims[:, 2] >= bp.victim_valid]
            self.fired = "victim_valid"
            if len(hit):
                self.victim_index = int(np.flatnonzero(victims[:, 2] >= bp.victim_valid)[0])
            what = (f"block {int(hit[0, 1]):,} with {int(hit[0, 2])} valid pages"
                    if len(hit) else f"{now.victims_at_least - before.victims_at_least:,} "
                    f"victims")
            return f"GC victim with at least {bp.victim_valid} valid pages: {what}{where}"
        if bp.free_blocks is not None and before.free_blocks > bp.free_blocks >= low:
            self.fired = "free_blocks"
            return f"free blocks fell to {low:,} (breakpoint: {bp.free_blocks:,}){where}"
        if bp.erases is not None and before.max_erases < bp.erases <= now.max_erases:
            erased = ev[(ev[:, 0] == EV_ERASE) & (ev[:, 2] >= bp.erases)]
            block = int(erased[0, 1]) if len(erased) else int(np.argmax(self.drive.arrays.erases))
            return f"block {block:,} reached {bp.erases:,} erases{where}"
        if bp.lpn is not None and now.watched_writes > before.watched_writes:
            self.fired = "lpn"
            return f"logical page {bp.lpn:,} written{where}"
        return ""
