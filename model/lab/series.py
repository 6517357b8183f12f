"""Time series on the drive's clock: what the drive had completed by each tick of simulated
time.

The host writes into its page cache and moves on while the drive works through the queue,
so counters sampled on the host's clock would show bursts faster than any drive. Instead
the Machine records when the drive worked on each batch (start, end); `Completed` spreads
each batch evenly over its span and reports what was done in an interval. `Series` bins a
whole scenario run that way (ssdlab run); the workbench reads `Completed` as it goes.
Sizes in MB (10^6 bytes), time in simulated seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from model.flash.amplification import write_amplification
from model.host.machine import MB, Machine

COLUMNS = ("sim_s", "step", "device_written_mb", "nand_written_mb", "wa", "trims",
           "flushes", "gc_copies", "erases", "free_blocks", "write_mb_s", "nand_mb_s")
MAX_ROWS = 20_000  # a long idle step widens the interval rather than print a day of rows
NAMES = ("write_bytes", "host_pages_written", "nand_writes", "trim_requests",
         "flush_requests", "gc_copies", "erases")


class Completed:
    """The drive's work, read off the Machine's timeline in order of time. Starts the
    recording; `until(t)` returns what was completed since the previous call (a dict of
    NAMES) and forgets batches it has fully counted. free_blocks: after the last batch
    that ended by then."""

    def __init__(self, m: Machine):
        self.m = m
        m.timeline = []
        self.t = m.clock
        self.free_blocks = m.drive.free_blocks

    def until(self, t: float) -> dict[str, float]:
        line = self.m.timeline
        sums = np.zeros(len(NAMES))
        keep = []
        t0 = self.t
        for batch in line:
            start, stop, stats, free_after = batch
            if stop <= start:  # instant, and not yet counted (counted ones are dropped)
                share = 1.0 if stop <= t else 0.0
            else:
                share = max(0.0, min(stop, t) - max(start, t0)) / (stop - start)
            if share:
                sums += share * np.array([getattr(stats, k) for k in NAMES], dtype=float)
            if stop <= t:
                self.free_blocks = free_after
            else:
                keep.append(batch)
        line[:] = keep
        self.t = max(t0, t)
        return dict(zip(NAMES, sums.tolist(), strict=True))


    def intervals(self, end: float, every: float, force: bool = False
                  ) -> Iterator[tuple[float, float, dict[str, float]]]:
        """(interval end, its length, what was completed in it) for each whole interval of
        `every` seconds from where the last reading stopped to `end`; force: also the
        partial interval up to `end`."""
        t = self.t
        while t + every <= end or (force and t < end):
            t_next = min(end, t + every)
            yield t_next, t_next - t, self.until(t_next)
            t = t_next


class Series:
    """Built on a Machine before its steps run; step(i) marks when step i begins; rows()
    bins the drive's recorded work into intervals of every_s simulated seconds (call it
    once, after the run). Rows are cumulative, except the rates, which cover the interval
    that ends at sim_s."""

    def __init__(self, m: Machine, every_s: float = 1.0):
        if not (every_s > 0 and math.isfinite(every_s)):
            raise ValueError(f"series interval must be above 0 simulated seconds; got "
                             f"{every_s}")
        self.m = m
        self.every_s = every_s
        self.t0 = m.clock
        self._done = Completed(m)
        self._steps: list[tuple[float, int]] = []
        self._rows: list[tuple] | None = None

    def step(self, index: int) -> None:
        self._steps.append((self.m.clock, index))

    def rows(self) -> list[tuple]:
        if self._rows is not None:
            return self._rows
        m = self.m
        end = max([m.clock] + [b[1] for b in m.timeline or []])
        every = max(self.every_s, (end - self.t0) / MAX_ROWS)
        n = max(1, math.ceil((end - self.t0) / every - 1e-9))
        page = m.drive.geometry.page_bytes
        stored = m.profile.compression_ratio
        steps = sorted(self._steps)
        total = dict.fromkeys(NAMES, 0.0)
        out = []
        for t, _, got in self._done.intervals(self.t0 + every * n, every):
            for k in NAMES:
                total[k] += got[k]
            nand = total["nand_writes"] * stored
            out.append((t, next((i for s, i in reversed(steps) if s <= t), 0),
                        total["write_bytes"] / MB, nand * page / MB,
                        write_amplification(total["nand_writes"], page, total["write_bytes"],
                                            stored),
                        round(total["trim_requests"]), round(total["flush_requests"]),
                        round(total["gc_copies"]), round(total["erases"]),
                        self._done.free_blocks, got["write_bytes"] / every / MB,
                        got["nand_writes"] * stored * page / every / MB))
        self._rows = out
        return out

    def as_dicts(self) -> list[dict]:
        return [dict(zip(COLUMNS, row, strict=True)) for row in self.rows()]
