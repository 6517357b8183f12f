"""The teaching pace on a drive too big for a snapshot to carry its pages (more than
snapshot.PAGE_LEVEL_PAGES physical pages; here the limit is lowered so a small drive stands in
for a big one): every GC still plays as mark, move and erase, block by block, with the same
physics as flat out. The worker runs in its thread; the test releases each GC itself."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from ssdlab.app.gui.run import snapshot as snapshot_module
from ssdlab.app.gui.run import teaching as teaching_module
from ssdlab.app.gui.run import worker as worker_module
from ssdlab.app.gui.run.snapshot import CODE_VICTIM, MARK_ERASED, MARK_VICTIM
from ssdlab.app.gui.run.worker import Worker
from ssdlab.app.session.streams import Segment
from ssdlab.model.flash.geometry import FtlConfig, Geometry

G = Geometry(user_pages=1024, pages_per_block=16, spare=0.25)
PAGES = 1700


@pytest.fixture
def big(monkeypatch):
    # the drive counts as too big for page states: 1280 physical pages above a limit of 256
    for module in (snapshot_module, teaching_module):
        monkeypatch.setattr(module, "PAGE_LEVEL_PAGES", 256)
    monkeypatch.setitem(worker_module.SPEED_DRIVE_WRITE_S, "teach", 1e-3)


def _run(qtbot, until, speed: str):
    w, snaps, frames = Worker(), [], {}

    def take():
        s = w.take_snapshot()
        if s is None:
            return
        snaps.append(s)
        if s.gc_frames and s.gc_serial not in frames:
            frames[s.gc_serial] = s.gc_frames
            w.send("release")

    w.snapshot_ready.connect(take, Qt.ConnectionType.QueuedConnection)
    w.start()
    try:
        w.configure(G, FtlConfig(), None, None)
        w.send("speed", speed)
        w.send("workload", Segment("random", PAGES, seed=5))
        until(lambda: bool(snaps) and not snaps[-1].running
              and snaps[-1].counters["host_writes"] >= PAGES)
    finally:
        w.stop()
    return snaps[-1], [f for fs in frames.values() for f in fs]


def test_a_drive_without_page_states_plays_each_gc_block_by_block(qtbot, until, big):
    fast, _ = _run(qtbot, until, "fast")
    end, played = _run(qtbot, until, "teach")
    assert end.pages is None  # the stand-in for a big drive really is drawn by blocks
    assert end.counters == fast.counters and np.array_equal(end.valid, fast.valid)
    victims = int(end.counters["gc_victims"])
    assert victims > 20 and len(played) == 3 * victims
    for mark, move, erase in zip(played[::3], played[1::3], played[2::3], strict=True):
        v = mark.gc_victim
        assert (mark.gc_phase, move.gc_phase, erase.gc_phase) == ("mark", "move", "erase")
        assert mark.marks[v] == MARK_VICTIM and mark.codes[v] == CODE_VICTIM
        assert int(mark.valid[v]) == mark.gc_valid and move.valid[v] == 0
        assert erase.marks[v] == MARK_ERASED and mark.pages is None
        assert move.counters["gc_copies"] == mark.counters["gc_copies"] + mark.gc_valid
