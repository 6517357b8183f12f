"""The first garbage collections of a run, shown as they happen: runner.run writes a chunk
through a GcWatch while it still wants GCs, one host page at a time with the engine's event
log on, and after each page that made the drive collect garbage hands the GC's phases (the
victim marked, its pages moved, the erase: ssdlab/model/flash/gcepisodes.py) to `show`, which may
take as long as it likes (a window plays them at a pace a person can follow). After `gcs`
GCs, or once `skipped()` says so, the log goes off and the run goes on at full speed.

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
from .state import EV_VICTIM, OP_WRITE, R_FREE_COUNT, R_GC_LOW

TEACH_GCS = 3  # GCs a lesson's "watch" run shows at teaching pace before running on


@dataclass
class GcWatch:
    """show(drive, phases, first): the GCs one page's write made (when the free blocks run
    out, a greedy drive may collect several at once), three GcPhase each, the first of them
    the first-th GC watched (1-based), the drive already past them. skipped: asked before
    every page; True ends the watching for the rest of the run."""

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

    def write(self, drive: Drive, lpns: np.ndarray) -> None:
        """Host writes of single pages, the GCs they cause shown while the watch wants them;
        the rest of the chunk at full speed once it no longer does."""
        lpns = np.ascontiguousarray(lpns, dtype=np.int64)
        ppb = drive.geometry.pages_per_block
        page_mapped = drive.config.mapping == "page"
        i = 0
        while i < lpns.size and self.wants():
            # under page mapping a page's write collects garbage (gc.foreground_gc) only
            # when the free blocks are at the low-water mark before it takes a block: until
            # then no copy of the page map is needed
            regs = drive.arrays.regs
            if page_mapped and int(regs[R_FREE_COUNT]) > int(regs[R_GC_LOW]) + 1:
                drive.write_pages(lpns[i:i + 1])
                i += 1
                continue
            a = drive.arrays
            before = (a.p2l.copy(), a.bstate.copy(), a.valid.copy(), drive.counters())
            drive.record_events(True)
            try:
                drive.run(Commands.single_page(OP_WRITE, lpns[i:i + 1]))
                events = drive.take_events()
            finally:
                drive.record_events(False)
            i += 1
            if (events[:, 0] == EV_VICTIM).any():
                phases = gc_phases(*before, events, ppb)
                first = self.shown + 1
                self.shown += len(phases) // 3
                self.show(drive, phases, first)
        if i < lpns.size:
            drive.write_pages(lpns[i:])
