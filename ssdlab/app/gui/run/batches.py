"""The worker's block-level batches (ssdlab/app/gui/run/worker.py): run a batch of host writes or
trims on the drive, add its simulated seconds from the device profile, mark the victims,
erases and GC copies its events show, and after every batch check the breakpoints set
(ssdlab/model/lab/breakpoints.py). A mixin of Worker: it uses the worker's state and signals.
"""

from __future__ import annotations

import numpy as np

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.state import EV_COPY, EV_ERASE, EV_VICTIM, OP_WRITE
from ssdlab.model.lab.breakpoints import BreakpointWatch

from .snapshot import MARK_ERASED, MARK_VICTIM


class BlockBatches:
    """Worker methods for a batch's work and the breakpoints checked after it."""

    def _arm_breakpoints(self) -> None:
        """Watch the current drive for the breakpoints set (a new drive starts afresh)."""
        self._bp_watch = None
        if self._breakpoints is None or self.drive is None:
            return
        try:
            self._bp_watch = BreakpointWatch(self._breakpoints, self.drive,
                                             self._recorder.stored)
        except ValueError as e:  # set for a bigger drive: say so, run without them
            self.failed.emit(str(e))

    def _check_breakpoints(self, batch: str) -> bool:
        """After a batch: pause if a breakpoint fired (the snapshot says which)."""
        w = self._bp_watch
        if w is None or w.drive is not self.drive:
            return False
        events = np.concatenate(self._batch_events) if self._batch_events else None
        if events is None and self.drive.event_capacity:
            events = np.empty((0, 4), dtype=np.int64)
        self._batch_events = []
        hit = w.after_batch(events, batch)
        if not hit:
            self._pre_batch = None  # this batch's: a file-system slice keeps none of its own
        if hit and not self._replaying:  # a replay rebuilds a saved run: it never stops
            hit += self._breakpoint_on_gc(w, events)
            self._pre_batch = None
            self._running = False
            self._bp_message, self._bp_hits = hit, self._bp_hits + 1
            self.breakpoint_hit.emit(hit)
            return True
        return False

    def _run_to_rows(self, stream, n: int) -> int:
        """Up to n host pages (or TRIM commands) of the stream, in pieces that end where
        the series' rows belong, each row recorded as it falls due: the rows are the same
        whatever the batch size, so a run's figures never depend on the speed it was
        watched at. Returns the pages written or commands trimmed."""
        done, events = 0, []
        while done < n and not stream.finished:
            m = n - done
            if not stream.is_trim:
                m = min(m, self._recorder.pages_to_next_row(self.drive))
            work = stream.take(m)
            self._run(work)
            done += len(work) if stream.is_trim else work.size
            events += self._batch_events
            self._recorder.record(self.drive, self._sim_s)
        self._batch_events = events  # the whole batch's, for the breakpoints
        return done

    def _run(self, work) -> None:
        drive = self.drive
        self._batch_events = []
        before = drive.counters()
        if isinstance(work, Commands):
            cmds = work
        elif drive.event_capacity:
            cmds = Commands.single_page(OP_WRITE, work)
        else:
            drive.write_pages(work)
            cmds = None
        if cmds is not None:
            start = 0
            while start < len(cmds):
                start = drive.run(cmds, start)
                if drive.event_capacity:
                    self._mark(drive.take_events())
        if self._profile is not None:
            self._sim_s += self._batch_seconds(before, drive.counters(), work)

    def _batch_seconds(self, before: dict, after: dict, work) -> float:
        from ssdlab.model.host.blockdev import BatchStats
        from ssdlab.model.host.timing import batch_seconds

        d = {k: after[k] - before[k] for k in after}
        page_bytes = self._geometry.page_bytes
        if isinstance(work, Commands):
            stats = BatchStats(trim_requests=len(work),
                               trim_bytes=int(work.counts.sum()) * page_bytes,
                               trimmed_pages=d["trimmed_pages"])
        else:
            stats = BatchStats(write_requests=work.size, write_bytes=work.size * page_bytes,
                               host_pages_written=d["host_writes"], nand_writes=d["nand_writes"],
                               nand_reads=d["nand_reads"], gc_copies=d["gc_copies"],
                               erases=d["erases"], slc_writes=d["slc_writes"])
        return batch_seconds(self._profile, stats).seconds

    def _mark(self, events: np.ndarray) -> None:
        if not events.size:
            return
        self._batch_events.append(events)
        kind = events[:, 0]
        self._marks[events[kind == EV_ERASE, 1]] = MARK_ERASED
        self._marks[events[kind == EV_VICTIM, 1]] = MARK_VICTIM  # a victim is erased too
        copies = events[kind == EV_COPY, 2]  # b: the page copied to
        if copies.size:
            self._copied.append(copies)
