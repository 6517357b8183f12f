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

from ssdlab.model.flash.amplification import write_amplification
from ssdlab.model.host.machine import MB, Machine

COLUMNS = ("sim_s", "step", "device_written_mb", "nand_written_mb", "wa", "trims",
           "flushes", "gc_copies", "erases", "free_blocks", "write_mb_s", "nand_mb_s")
MAX_ROWS = 20_000  # a long idle step widens the interval rather than print a day of rows
TARGET_ROWS = 200  # unless an interval is set: enough to draw a curve, few enough to read
NICE_STEPS = (1.0, 2.0, 5.0)  # intervals are 1, 2 or 5 times a power of ten seconds
MAX_HISTORY = 2_000_000  # batches kept for re-binning (a few hundred bytes each)
NAMES = ("write_bytes", "host_pages_written", "nand_writes", "trim_requests",
         "flush_requests", "gc_copies", "erases")


class Completed:
    """The drive's work, read off the Machine's timeline in order of time. Starts the
    recording; `until(t)` returns what was completed since the previous call (a dict of
    NAMES) and forgets batches it has fully counted (into `history`, when that is a list).
    free_blocks: after the last batch that ended by then. batches and start (sim s, free
    blocks): read these batches from there instead of starting the Machine's recording."""

    def __init__(self, m: Machine, batches: list | None = None,
                 start: tuple[float, int] | None = None):
        self.m = m
        if batches is None:
            m.timeline = []
            batches = m.timeline
        self.line = batches
        self.t, self.free_blocks = start or (m.clock, m.drive.free_blocks)
        self.start = (self.t, self.free_blocks)
        self.history: list | None = None  # every batch counted in full, in order

    def until(self, t: float) -> dict[str, float]:
        line = self.line
        sums = np.zeros(len(NAMES))
        keep = []
        t0 = self.t
        # The Machine records batches in the order the drive takes them, one after the
        # other (each starts when the one before ended, or later): from the first that
        # starts after t on, none adds anything yet, so they are kept unread instead of
        # looked at once per interval (a run of 12,835 fsyncs took 1.5 s in this loop).
        later = len(line)
        for i, batch in enumerate(line):
            start, stop, stats, free_after = batch
            if start > t:
                later = i
                break
            if stop <= start:  # instant, and not yet counted (counted ones are dropped)
                share = 1.0 if stop <= t else 0.0
            else:
                share = max(0.0, min(stop, t) - max(start, t0)) / (stop - start)
            if share:
                sums += share * np.array([getattr(stats, k) for k in NAMES], dtype=float)
            if stop <= t:
                self.free_blocks = free_after
                if self.history is not None:
                    self.history.append(batch)
                    if len(self.history) > MAX_HISTORY:  # a day-long window run: let go
                        self.history = None
            else:
                keep.append(batch)
        line[:] = keep + line[later:]
        self.t = max(t0, t)
        return dict(zip(NAMES, sums.tolist(), strict=True))


    def intervals(self, end: float, every: float, force: bool = False
                  ) -> Iterator[tuple[float, float, dict[str, float]]]:
        """(interval end, its length, what was completed in it) for each whole interval of
        `every` seconds from where the last reading stopped to `end`; force: also the
        partial interval up to `end`."""
        t0 = self.t
        # from the start, not summed step by step: summed floats drift into a sliver of
        # an interval at the end (a row a femtosecond after the one before)
        whole = max(0, math.floor((end - t0) / every + 1e-9))
        ends = [min(end, t0 + k * every) for k in range(1, whole + 1)]
        if force and end - (t0 + whole * every) > 1e-9 * every:
            ends.append(end)
        t = t0
        for t_next in ends:
            yield t_next, t_next - t, self.until(t_next)
            t = t_next


def auto_interval(span_s: float) -> float:
    """The sampling interval for a run of span_s simulated seconds when none is set: the
    shortest of 1, 2 or 5 x 10^k s that gives at most TARGET_ROWS rows (so 80 to
    TARGET_ROWS of them, whatever the run's length)."""
    if not (span_s > 0 and math.isfinite(span_s)):
        return 1.0
    raw = span_s / TARGET_ROWS
    power = 10.0 ** math.floor(math.log10(raw))
    for nice in NICE_STEPS:
        # a hair of slack: 200.0000001 rows of a 2 s interval are still 200 rows
        if nice * power >= raw * (1 - 1e-9):
            return nice * power
    return 10.0 * power


class Series:
    """Built on a Machine before its steps run; step(i) marks when step i begins; rows()
    bins the drive's recorded work into intervals of every_s simulated seconds (None: chosen
    from the run's length by auto_interval; call it once, after the run). Rows are
    cumulative, except the rates, which cover the interval that ends at sim_s: the last
    one may be shorter than the others and its rates are over its true length."""

    def __init__(self, m: Machine, every_s: float | None = None,
                 done: Completed | None = None):
        if every_s is not None and not (every_s > 0 and math.isfinite(every_s)):
            raise ValueError(f"series interval must be above 0 simulated seconds; got "
                             f"{every_s}")
        self.m = m
        self.every_s = every_s
        self.interval_s: float | None = None  # the interval rows() used, once it ran
        self._done = Completed(m) if done is None else done
        self.t0 = self._done.start[0]
        self._steps: list[tuple[float, int]] = []
        self._rows: list[tuple] | None = None

    @classmethod
    def of_recording(cls, done: Completed, every_s: float | None = None) -> Series:
        """What a reading of the drive's clock (done, with its history kept) has seen so far
        and what its Machine's timeline still holds, binned afresh as `ssdlab run` bins a
        scenario run: the window's export of a file-system run, row for row the command
        line's."""
        batches = [*(done.history or []), *done.line]
        return cls(done.m, every_s, Completed(done.m, batches, done.start))

    def step(self, index: int) -> None:
        self._steps.append((self.m.clock, index))

    def rows(self) -> list[tuple]:
        if self._rows is not None:
            return self._rows
        m = self.m
        end = max([m.clock] + [b[1] for b in self._done.line])
        span = end - self.t0
        every = self.every_s if self.every_s is not None else auto_interval(span)
        every = max(every, span / MAX_ROWS)
        self.interval_s = every
        if span <= 0:  # nothing ran: one row of zeros an interval on
            end = self.t0 + every
        page = m.drive.geometry.page_bytes
        # the engine counts the pages it programmed; on a compressing drive each took the
        # drive's stored fraction of a flash page (it stores them so: model/flash/state.py)
        stored = m.drive.stored_fraction
        steps = sorted(self._steps)
        total = dict.fromkeys(NAMES, 0.0)
        out = []
        for t, dt, got in self._done.intervals(end, every, force=True):
            for k in NAMES:
                total[k] += got[k]
            nand = total["nand_writes"] * stored
            out.append((t, next((i for s, i in reversed(steps) if s <= t), 0),
                        total["write_bytes"] / MB, nand * page / MB,
                        write_amplification(total["nand_writes"], page, total["write_bytes"],
                                            stored),
                        round(total["trim_requests"]), round(total["flush_requests"]),
                        round(total["gc_copies"]), round(total["erases"]),
                        self._done.free_blocks, got["write_bytes"] / dt / MB,
                        got["nand_writes"] * stored * page / dt / MB))
        self._rows = out
        return out

    def as_dicts(self) -> list[dict]:
        return [dict(zip(COLUMNS, row, strict=True)) for row in self.rows()]
