"""A figure never depends on how fast the run was watched (issue 37): the same run, watched
at every speed the window offers, gives the same series, row for row, and so the same CSV
of every chart drawn from it. A row belongs where the host's writes are (every 1/400 of the
user capacity written, ssdlab/app/session/recorder.py), never where a snapshot was taken.

Each run is a worker on its own thread, as in the window; the frames' sleeps are skipped
(the speed still sets how many pages a frame writes) and each GC the teaching pace holds is
released at once, so the slow speeds take seconds, not minutes. Waits on conditions only.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from PySide6.QtCore import Qt

from ssdlab.app.chartexport import csv_text
from ssdlab.app.gui.run import worker as worker_module
from ssdlab.app.gui.run.worker import Worker
from ssdlab.app.session.recorder import SERIES_COLUMNS
from ssdlab.app.session.streams import Segment
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.lab.charts import RUN_CHARTS, chart_table

G = Geometry(user_pages=1024, pages_per_block=16, spare=0.25)
PLAN = Segment("steady", G.user_pages + 1700, seed=1)  # the drive filled, then rewritten
SPEEDS = ("fast", "normal", "slow", "teach")


class Watched:
    """A worker running PLAN at `speed`; the newest snapshot kept; held GCs released."""

    def __init__(self, speed: str):
        self.w, self.snap, self.batches = Worker(), None, set()
        self.w.snapshot_ready.connect(self._take, Qt.ConnectionType.QueuedConnection)
        self.w.start()
        self.w.configure(G, FtlConfig(), None, None)
        self.w.send("speed", speed)
        self.w.send("workload", PLAN)

    def _take(self) -> None:
        s = self.w.take_snapshot()
        if s is None:
            return
        self.snap = s
        self.batches.add(s.counters["host_writes"])
        if s.gc_frames:
            self.w.send("release")

    def finished(self) -> bool:
        s = self.snap
        return (s is not None and not s.running and not s.segment
                and s.counters["host_writes"] == PLAN.total)


@pytest.fixture
def no_frame_sleeps(monkeypatch):
    # the frames' pacing only: the pages a frame writes still follow the speed
    fake = types.SimpleNamespace(perf_counter=worker_module.time.perf_counter,
                                 sleep=lambda s: None)
    monkeypatch.setattr(worker_module, "time", fake)


def test_every_speed_gives_the_same_rows_and_the_same_chart_files(qtbot, until,
                                                                   no_frame_sleeps):
    runs = {speed: Watched(speed) for speed in SPEEDS}
    try:
        until(lambda: all(r.finished() for r in runs.values()))
    finally:
        for r in runs.values():
            r.w.stop()
    fast = runs["fast"].snap
    rows = len(fast.series["drive_writes"])
    # a row for every 1/400 of the capacity written, the first at none: 2.66 drive writes
    assert rows == 1 + (PLAN.total * 400) // G.user_pages + 1  # and its end
    for speed, r in runs.items():
        # the speeds did watch it differently: many snapshots at the slow ones
        if speed != "fast":
            assert len(r.batches) > 10 * len(runs["fast"].batches), speed
        assert r.snap.counters == fast.counters, speed
        for k in SERIES_COLUMNS:
            np.testing.assert_array_equal(r.snap.series[k], fast.series[k], err_msg=f"{speed} {k}")
        for name in RUN_CHARTS:
            if name == "steps":
                continue  # a file-system run's; these are block workloads
            csv = [csv_text(chart_table(name, s.series, timed=False, erases=s.erases,
                                        victims=s.victim_valid, mapping="page"))
                   for s in (fast, r.snap)]
            assert csv[0] == csv[1], f"{name} at {speed}"
