"""The workbench run's time series: one row of SERIES_COLUMNS at a time, kept between
MAX_SERIES_ROWS and twice as many (when full, every second row goes).

Block workloads add a row each time the host has written another 1/ROWS_PER_DRIVE_WRITE of
the user capacity (the worker ends its batches there: pages_to_next_row), and one at a
workload's end, from the drive's counters, on the simulated clock the timing model keeps.
The rows are where the host's writes are, never where a snapshot happened to be taken, so
the same run gives the same rows at every speed it is watched at. Without a device profile
there is no clock: the flash's program rate is then the unit of work, and the rates say how
the flash's page programs were shared out (per 1,000: host pages, GC copies; NAND is all
1,000 of them), over the last WA_WINDOW of host writes, so a frame's burst of GC never shows
as a spike.

A file-system run adds a row for every FS_ROW_S of simulated time from what the drive had
completed by then on its own clock (ssdlab/model/series.Completed), so a 30 s dd that the
model runs within one frame still draws as a curve, and page-cache bursts never show faster
than the drive.
"""

from __future__ import annotations

import numpy as np

from ssdlab.model.flash.amplification import write_amplification
from ssdlab.model.flash.drive import window_wa
from ssdlab.model.host.machine import Machine
from ssdlab.model.lab.series import Completed, Series

SERIES_COLUMNS = ("drive_writes", "sim_s", "host", "nand", "gc", "erases", "free", "wa",
                  "wa_window", "host_rate", "nand_rate", "gc_rate")
MAX_SERIES_ROWS = 4000  # kept between this many and twice as many rows
WA_WINDOW = 0.05  # per-window WA: windows of this share of the user capacity
ROWS_PER_DRIVE_WRITE = 400  # block workloads: a row every 1/400 of the user capacity written
WINDOW_ROWS = round(WA_WINDOW * ROWS_PER_DRIVE_WRITE)  # rows of a per-window WA window
FS_ROW_S = 0.5  # simulated seconds between rows of a file-system run
MAX_GAP_ROWS = 2000  # rows one call may add; a longer stretch gets a wider interval
DRIVE_TOTALS = ("write_bytes", "host_pages_written", "nand_writes", "gc_copies", "erases")


class Recorder:
    """Rows for a drive of `geometry`; profile: the device profile whose timing gives the
    simulated clock (None: no profile, rates per 1,000 flash page programs)."""

    def __init__(self, geometry, profile=None):
        self.g = geometry
        self.profile = profile
        self.rows = np.empty((2 * MAX_SERIES_ROWS, len(SERIES_COLUMNS)))
        self.n = 0
        self.wa_window = float("nan")
        self._last = None  # (sim s, counters) of the last block-workload row
        self._window_start = None  # counters where the WA window began
        self._due = 0  # block workloads: the index of the next row (see _row_at)
        self._done: Completed | None = None  # a mounted file system's drive clock
        self._totals = dict.fromkeys(DRIVE_TOTALS, 0.0)
        self._fs_window = (0.0, 0.0, 0.0)  # (host pages, NAND pages, host bytes) at window start
        self._drive_stored: float | None = None  # a block workload's drive's own fraction

    @property
    def stored(self) -> float:
        """How much of a flash page the drive programs per page (below 1 on a compressing
        drive): the engine's own stored fraction (a followed Machine's profile carries it)."""
        if self._drive_stored is not None:
            return self._drive_stored
        return self.profile.compression_ratio if self.profile is not None else 1.0

    def follow(self, m: Machine) -> None:
        """From now on, rows come from this Machine's drive clock."""
        self.profile = m.profile
        self._drive_stored = m.drive.stored_fraction
        self._done = Completed(m)
        self._done.history = []  # kept for an export binned as `ssdlab run` bins (run_series)

    def run_series(self, every_s: float | None = None) -> Series | None:
        """The file-system run so far as a scenario run's Series (ssdlab/model/lab/series.py): the
        same rows, interval and rates as `ssdlab chart` gives for the same run; None before
        a file system is mounted (block workloads keep only this recorder's rows)."""
        if self._done is None or self._done.history is None:
            return None
        return Series.of_recording(self._done, every_s)

    def series(self) -> dict[str, np.ndarray]:
        rows = self.rows[:self.n]
        return {k: rows[:, i].copy() for i, k in enumerate(SERIES_COLUMNS)}

    def _append(self, row: tuple) -> None:
        if self.n == len(self.rows):  # full: keep every second row
            half = self.rows[:self.n:2].copy()
            self.n = len(half)
            self.rows[:self.n] = half
        self.rows[self.n] = row
        self.n += 1

    def record(self, drive, sim_s: float, force: bool = False) -> None:
        """Rows up to now. force: also the part since the last row (a step's or a
        workload's end)."""
        if self._done is not None:
            self._record_fs(force)
        else:
            self._record_block(drive, sim_s, force)

    def _row_at(self, k: int) -> int:
        """Host pages written when block-workload row k is due (row 0: none yet)."""
        return k * self.g.user_pages // ROWS_PER_DRIVE_WRITE

    def pages_to_next_row(self, drive) -> int:
        """Host pages the drive may write before the next row is due (at least 1): a batch
        of this many or fewer ends where the row belongs."""
        return max(1, self._row_at(self._due) - drive.counters()["host_writes"])

    def _pass_rows_to(self, host_writes: int) -> int:
        """Rows due up to host_writes are taken; returns the index of the last of them."""
        while self._row_at(self._due) <= host_writes:
            self._due += 1
        return self._due - 1

    def _record_fs(self, force: bool) -> None:
        g, done = self.g, self._done
        end = done.m.clock
        # an idle hour widens the interval rather than add thousands of rows
        every = max(FS_ROW_S, (end - done.t) / MAX_GAP_ROWS)
        stored = self.stored
        mb = g.page_bytes / 1e6
        tot = self._totals
        for t, dt, got in done.intervals(end, every, force):
            for k in tot:
                tot[k] += got[k]
            host, nand = tot["host_pages_written"], tot["nand_writes"]
            host_bytes = tot["write_bytes"]
            start = self._fs_window
            if host - start[0] >= WA_WINDOW * g.user_pages:
                self.wa_window = write_amplification(nand - start[1], g.page_bytes,
                                                     host_bytes - start[2], stored)
                self._fs_window = (host, nand, host_bytes)
            self._append((host / g.user_pages, t, host, nand, tot["gc_copies"],
                          tot["erases"], done.free_blocks,
                          write_amplification(nand, g.page_bytes, host_bytes, stored),
                          self.wa_window, got["write_bytes"] / 1e6 / dt,
                          got["nand_writes"] * stored * mb / dt, got["gc_copies"] / dt))

    def _record_block(self, drive, sim_s: float, force: bool = False) -> None:
        """One row, if one is due (or forced): cumulative counters and rates since the last
        row."""
        c = drive.counters()
        g = self.g
        self._drive_stored = drive.stored_fraction
        prev = self._last
        if prev is not None and c["host_writes"] == prev[1]["host_writes"] \
                and c["trims"] == prev[1]["trims"]:
            return
        due = c["host_writes"] >= self._row_at(self._due)
        if not due and not force:
            return
        was = self._due
        row = self._pass_rows_to(c["host_writes"]) if due else was - 1
        stored = self.stored
        wa = window_wa(dict.fromkeys(c, 0), c, stored)
        # Per-window WA over windows of WA_WINDOW of the user capacity (every WINDOW_ROWS
        # rows), not per frame: a frame of a slow animation is a few dozen pages, far too
        # noisy, and a window's ends are rows, the same at every speed.
        start = self._window_start
        if start is None:
            self._window_start = c
        elif due and row // WINDOW_ROWS > (was - 1) // WINDOW_ROWS:
            self.wa_window = window_wa(start, c, stored)
            self._window_start = c
        rates = (float("nan"),) * 3
        if self.profile is None:
            rates = self._share_of_programs(c)
        elif prev is not None and sim_s > prev[0]:  # MB/s, and GC pages per second
            dt = sim_s - prev[0]
            mb = g.page_bytes / 1e6
            rates = tuple((c[k] - prev[1][k]) * f for k, f in zip(
                ("host_writes", "nand_writes", "gc_copies"),
                (mb / dt, mb * stored / dt, 1.0 / dt), strict=True))
        self._append((c["host_writes"] / g.user_pages, sim_s, c["host_writes"],
                      c["nand_writes"], c["gc_copies"], c["erases"], drive.free_blocks, wa,
                      self.wa_window, *rates))
        self._last = (sim_s, c)

    def _share_of_programs(self, c: dict) -> tuple[float, float, float]:
        """Host pages, NAND pages and GC copies per 1,000 flash page programs, over the
        host writes since the row WA_WINDOW of the user capacity ago (or since the start)."""
        if not self.n:
            return (float("nan"),) * 3
        rows = self.rows[:self.n]
        back = c["host_writes"] - WA_WINDOW * self.g.user_pages
        i = max(0, int(np.searchsorted(rows[:, 2], back, side="right")) - 1)
        nand = c["nand_writes"] - rows[i, 3]
        if nand <= 0:
            return (float("nan"),) * 3
        return (1000.0 * (c["host_writes"] - rows[i, 2]) / nand, 1000.0,
                1000.0 * (c["gc_copies"] - rows[i, 4]) / nand)

    def restore(self, saved: dict, drive, sim_s: float) -> float:
        """Show a saved run's series (after its replay); returns the simulated time to show:
        the saved series' last, or sim_s when there is none."""
        if not saved or "drive_writes" not in saved:
            return sim_s
        cols = [saved.get(k, [float("nan")] * len(saved["drive_writes"]))
                for k in SERIES_COLUMNS]
        rows = np.array(cols, dtype=float).T.reshape(-1, len(SERIES_COLUMNS))
        if len(rows) > len(self.rows):
            rows = rows[::-(-len(rows) // len(self.rows))]
        self.n = len(rows)
        self.rows[:self.n] = rows
        if self.n:
            sim_s = float(self.rows[self.n - 1, 1])
        self._last = (sim_s, drive.counters())
        self._pass_rows_to(self._last[1]["host_writes"])
        return sim_s
