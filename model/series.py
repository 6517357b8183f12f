"""A scenario run's time series, on the drive's clock: what the drive had completed by each
tick of simulated time.

The host writes into its page cache and moves on while the drive works through the queue,
so counters sampled on the host's clock would show bursts faster than any drive. Instead
the Machine records when the drive worked on each batch (start, end); each batch's bytes
and pages are spread evenly over its span and summed per interval. Rows are cumulative,
except the rates, which cover the interval that ends at sim_s. Sizes in MB (10^6 bytes),
time in simulated seconds.
"""

from __future__ import annotations

import math

import numpy as np

from .host import MB, Machine

COLUMNS = ("sim_s", "step", "device_written_mb", "nand_written_mb", "wa", "trims",
           "flushes", "gc_copies", "erases", "free_blocks", "write_mb_s", "nand_mb_s")
MAX_ROWS = 20_000  # a long idle step widens the interval rather than print a day of rows


class Series:
    """Built on a Machine before its steps run; step(i) marks when step i begins; rows()
    bins the drive's recorded work into intervals of every_s simulated seconds."""

    def __init__(self, m: Machine, every_s: float = 1.0):
        if not (every_s > 0 and math.isfinite(every_s)):
            raise ValueError(f"series interval must be above 0 simulated seconds; got "
                             f"{every_s}")
        self.m = m
        self.every_s = every_s
        self.t0 = m.clock
        m.timeline = []
        self.free_blocks0 = m.drive.free_blocks
        self._steps: list[tuple[float, int]] = []

    def step(self, index: int) -> None:
        self._steps.append((self.m.clock, index))

    def rows(self) -> list[tuple]:
        m = self.m
        line = m.timeline or []
        end = max([m.clock] + [b[1] for b in line])
        every = max(self.every_s, (end - self.t0) / MAX_ROWS)
        n = max(1, math.ceil((end - self.t0) / every - 1e-9))
        edges = self.t0 + every * np.arange(n + 1)
        page = m.drive.geometry.page_bytes
        stored = m.profile.compression_ratio
        names = ("write_bytes", "host_pages_written", "nand_writes", "trim_requests",
                 "flush_requests", "gc_copies", "erases")
        per_bin = np.zeros((len(names), n))
        free = np.full(n, float(self.free_blocks0))
        for start, stop, stats, free_after in line:
            values = np.array([getattr(stats, k) for k in names], dtype=float)
            if stop <= start:  # instant: all of it in the interval where it happened
                per_bin[:, min(n - 1, int((stop - self.t0) / every))] += values
            else:
                lo = np.clip(edges[:-1], start, stop)
                hi = np.clip(edges[1:], start, stop)
                per_bin += np.outer(values, (hi - lo) / (stop - start))
            free[min(n - 1, int((stop - self.t0) / every)):] = free_after
        cum = np.cumsum(per_bin, axis=1)
        steps = sorted(self._steps)
        out = []
        for j in range(n):
            t = float(edges[j + 1])
            step = next((i for s, i in reversed(steps) if s <= t), 0)
            host_pages = cum[1, j]
            nand = cum[2, j] * stored
            out.append((t, step, cum[0, j] / MB, nand * page / MB,
                        nand / host_pages if host_pages else float("nan"),
                        int(round(cum[3, j])), int(round(cum[4, j])), int(round(cum[5, j])),
                        int(round(cum[6, j])), free[j], per_bin[0, j] / every / MB,
                        per_bin[2, j] * stored * page / every / MB))
        return out

    def as_dicts(self) -> list[dict]:
        return [dict(zip(COLUMNS, row, strict=True)) for row in self.rows()]
