"""The first garbage collections of a run, shown as they happen: runner.run writes a chunk
through a GcWatch while it still wants GCs, one host page at a time with the engine's event
log on, and after each page that made the drive collect garbage hands the GC's phases (the
victim marked, its pages moved, the erase: ssdlab/model/flash/gcepisodes.py) to `show`, which may
take as long as it likes (a window plays them at a pace a person can follow). After `gcs`
GCs, or once `skipped()` says so, the log goes off and the run goes on at full speed.

A drive a file system runs (a scenario) is watched the same way once attach() has made the
watch its `watcher` (drive.py): the block device's batches of commands come here while the
watch wants GCs and run one write command at a time, split at logical block boundaries,
and so do the idle time's background GCs, one victim at a time. A block-mapped drive's
merges (mappings "block" and "fast") are shown as GCs too.

The physics is the same either way: the same pages in the same order through the same
engine; only how many the engine is handed at once differs (tests/test_gc_watch.py checks
the figures are identical). Plain data and numpy, no Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .commands import Commands
from .drive import Drive, event_capacity_for
from .gcepisodes import GcPhase, gc_phases
from .state import (
    EV_MERGE,
    EV_VICTIM,
    FREE_PAGE,
    OP_WRITE,
    R_FIFO_COUNT,
    R_FREE_COUNT,
    R_GC_LOW,
    R_LOG_BLOCKS,
)

TEACH_GCS = 3  # GCs a lesson's "watch" run shows at teaching pace before running on
# Rows of event log a watched drive a file system runs gets: enough for one write command
# of a block's pages and the GCs it causes; a GC too big for it is run, not shown (the
# bound for the worst case, a block of 4,096 pages, would be gigabytes)
EVENT_ROWS = 1 << 18


@dataclass
class GcWatch:
    """show(drive, phases, first): the GCs one page's write made (when the free blocks run
    out, a greedy drive may collect several at once), three GcPhase each, the first of them
    the first-th GC watched (1-based), the drive already past them; GCs beyond the ones
    still wanted carry no copy of the drive (gcepisodes.gc_phases' limit). skipped: asked
    before every page; True ends the watching for the rest of the run."""

    show: Callable[[Drive, list[GcPhase], int], None]
    gcs: int = TEACH_GCS
    skipped: Callable[[], bool] = field(default=lambda: False)
    shown: int = 0  # GCs handed to show so far

    def wants(self) -> bool:
        return self.shown < self.gcs and not self.skipped()

    def drive(self, geometry, config) -> Drive:
        """A drive with room in its event log for one page's write, the log off."""
        drive = Drive(geometry, config, event_capacity_for(geometry, config, 1))
        drive.record_events(False)
        return drive

    def attach(self, drive: Drive) -> None:
        """Watch a drive built elsewhere (a scenario's machine): an event log with room
        for one command of a block's pages, off, and the watch as the drive's watcher."""
        g = drive.geometry
        rows = min(EVENT_ROWS, event_capacity_for(g, drive.config, g.pages_per_block))
        if len(drive.arrays.events) < rows:
            drive.arrays = drive.arrays._replace(events=np.zeros((rows, 4), dtype=np.int64))
        drive.record_events(False)
        drive.watcher = self

    # --- block-level runs (runner.run) ---------------------------------------------------

    def write(self, drive: Drive, lpns: np.ndarray) -> None:
        """Host writes of single pages, the GCs they cause shown while the watch wants them;
        the rest of the chunk at full speed once it no longer does."""
        lpns = np.ascontiguousarray(lpns, dtype=np.int64)
        i = 0
        while i < lpns.size and self.wants():
            room = self._room(drive)
            if room > 1:  # no GC can come yet: a run of pages at once
                drive.write_pages(lpns[i:i + room])
                i += room
                continue
            cmd = Commands.single_page(OP_WRITE, lpns[i:i + 1])
            if self._may_collect(drive, int(lpns[i]), 1):
                self._watched(drive, cmd, checked=False)
            else:
                drive.write_pages(lpns[i:i + 1])
            i += 1
        if i < lpns.size:
            drive.write_pages(lpns[i:])

    # --- a drive a file system runs (attach) ---------------------------------------------

    def run_all(self, drive: Drive, commands: Commands) -> None:
        """Drive.run_all while the watch wants GCs: reads and TRIMs as they come (they never
        collect garbage), each write in pieces within one logical block, watched; the rest
        at once when the watch no longer wants GCs. The engine runs a write page by page
        (block mapping: logical block by logical block), so the pieces change nothing."""
        ops, lpns, counts = commands.ops, commands.lpns, commands.counts
        ppb = drive.pages_per_block
        if int(counts[ops == OP_WRITE].sum()) < self._room(drive):
            drive.run(commands, checked=True)  # no GC can come in this batch
            return
        n, i = len(commands), 0
        while i < n and self.wants():
            if ops[i] != OP_WRITE:
                j = i + 1
                while j < n and ops[j] != OP_WRITE:
                    j += 1
                drive.run(commands.slice(i, j), checked=True)
                i = j
                continue
            lpn, count = int(lpns[i]), int(counts[i])
            while count and self.wants():
                k = min(count, ppb - lpn % ppb)
                cmd = _write(lpn, k)
                if self._may_collect(drive, lpn, k):
                    self._watched(drive, cmd)
                else:
                    drive.run(cmd, checked=True)
                lpn, count = lpn + k, count - k
            if count:
                drive.run(_write(lpn, count), checked=True)
            i += 1
        if i < n:
            drive.run(commands.slice(i, n), checked=True)

    def idle_gc(self, drive: Drive, target_free_blocks: int, max_victims: int,
                max_valid_fraction: float) -> int:
        """Drive.idle_gc while the watch wants GCs: one victim at a time, watched, then the
        rest at once. gc.idle_gc stops at the first victim it refuses or once enough blocks
        are free, so calls of one victim, stopped at the first that takes none, collect
        the same victims in the same order as one call."""
        done = 0
        while done < max_victims and self.wants():
            before = self._before(drive)
            drive.record_events(True)
            try:
                took = drive.idle_gc_now(target_free_blocks, 1, max_valid_fraction)
                events = drive.take_events()
            finally:
                drive.record_events(False)
            if not took:
                return done
            done += took
            self._collected(drive, before, events)
        if done < max_victims:
            done += drive.idle_gc_now(target_free_blocks, max_victims - done,
                                      max_valid_fraction)
        return done

    # --- one command, watched ------------------------------------------------------------

    @staticmethod
    def _room(drive: Drive) -> int:
        """Host pages that can surely be written before a GC (or merge) may come: a page
        mapping's free blocks above the low-water mark, or a "fast" mapping's log blocks
        not yet in use, less one that may be part full; 0 under "block" mapping (any
        rewrite merges)."""
        regs, mapping = drive.arrays.regs, drive.config.mapping
        if mapping == "page":
            spare = int(regs[R_FREE_COUNT]) - int(regs[R_GC_LOW]) - 2
        elif mapping == "fast":
            spare = int(regs[R_LOG_BLOCKS]) - int(regs[R_FIFO_COUNT]) - 2
        else:
            return 0
        return max(0, spare) * drive.pages_per_block

    def _may_collect(self, drive: Drive, lpn: int, pages: int) -> bool:
        """Whether writing `pages` pages from lpn (within one logical block when more than
        one) may collect garbage, so the drive before it is worth a copy."""
        regs, mapping = drive.arrays.regs, drive.config.mapping
        ppb = drive.pages_per_block
        blocks = -(-(pages + ppb - 1) // ppb)  # new blocks it may open: 1 for one page
        if mapping == "page":
            # a write collects garbage (gc.foreground_gc) only when the free blocks are at
            # the low-water mark before it takes a block
            return int(regs[R_FREE_COUNT]) <= int(regs[R_GC_LOW]) + blocks
        if mapping == "fast":  # a merge comes only when the log is full (ftl.py)
            return int(regs[R_FIFO_COUNT]) + blocks >= int(regs[R_LOG_BLOCKS])
        # "block": a merge comes when a page written already holds data
        a = drive.arrays
        pb = int(a.lb2pb[lpn // ppb])
        first = pb * ppb + lpn % ppb
        return pb >= 0 and bool((a.p2l[first:first + pages] != FREE_PAGE).any())

    @staticmethod
    def _before(drive: Drive) -> tuple:
        a = drive.arrays
        lb2pb = None if drive.config.mapping == "page" else a.lb2pb.copy()
        return a.p2l.copy(), a.bstate.copy(), a.valid.copy(), drive.counters(), lb2pb

    def _watched(self, drive: Drive, cmd: Commands, checked: bool = True) -> None:
        """Run one command with the event log on; show the GCs it made. checked: as
        Drive.run's (a block device's commands are; a workload's pages are checked here)."""
        before = self._before(drive)
        dropped = drive.events_dropped
        drive.record_events(True)
        try:
            drive.run(cmd, checked=checked)
            events = drive.take_events()
        finally:
            drive.record_events(False)
        if drive.events_dropped == dropped:  # else its record is incomplete: not shown
            self._collected(drive, before, events)

    def _collected(self, drive: Drive, before: tuple, events: np.ndarray) -> None:
        kinds = events[:, 0]
        if not ((kinds == EV_VICTIM).any() or (kinds == EV_MERGE).any()):
            return
        p2l, bstate, valid, counters, lb2pb = before
        phases = gc_phases(p2l, bstate, valid, counters, events,
                           drive.pages_per_block, lb2pb, self.gcs - self.shown)
        if phases:  # a merge of a logical block that had no block of its own is none
            first = self.shown + 1
            self.shown += len(phases) // 3
            self.show(drive, phases, first)


def _write(lpn: int, pages: int) -> Commands:
    return Commands(np.array([OP_WRITE], dtype=np.int8), np.array([lpn], dtype=np.int64),
                    np.array([pages], dtype=np.int64))
