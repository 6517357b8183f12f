"""The teaching pace (ssdlab/app/gui/run/teaching.py, gcpacer.py): GC by GC, each played as mark,
move and erase on the block map; the same physics as flat out; the tally beside the map; a
breakpoint on a GC and a step of one GC name and mark the victim. The worker runs in its
thread; the test releases each GC itself and drives the pacer's phases with advance()."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from ssdlab.app.gui.drive.blockmap import BlockMap
from ssdlab.app.gui.drive.tally import Tally
from ssdlab.app.gui.run import worker as worker_module
from ssdlab.app.gui.run.gcpacer import PHASE_MS, GcPacer
from ssdlab.app.gui.run.runstatus import RunStatus, gc_words
from ssdlab.app.gui.run.snapshot import MARK_VICTIM, PAGE_COPIED, PAGE_VALID
from ssdlab.app.gui.run.worker import Worker
from ssdlab.app.session.streams import Segment
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.lab.breakpoints import Breakpoints

G = Geometry(user_pages=1024, pages_per_block=16, spare=0.25)
PAGES = 2600  # random writes on an empty drive: a few hundred GCs


class Run:
    """A worker on G; snapshots collected in the GUI thread; each held GC released at once
    (its frames kept) unless hold is set."""

    def __init__(self, qtbot, speed: str, breakpoints: Breakpoints | None = None):
        self.w = Worker()
        self.snaps, self.frames, self.hits = [], {}, []
        self.w.snapshot_ready.connect(self._take, Qt.ConnectionType.QueuedConnection)
        self.w.breakpoint_hit.connect(self.hits.append, Qt.ConnectionType.QueuedConnection)
        self.w.start()
        self.w.configure(G, FtlConfig(), None, None)
        self.w.send("speed", speed)
        if breakpoints is not None:
            self.w.send("breakpoints", breakpoints)

    def _take(self) -> None:
        s = self.w.take_snapshot()
        if s is None:
            return
        self.snaps.append(s)
        if s.gc_frames and s.gc_serial not in self.frames:
            self.frames[s.gc_serial] = s.gc_frames
            self.w.send("release")

    def last(self):
        return self.snaps[-1] if self.snaps else None

    def stop(self) -> None:
        self.w.stop()


@pytest.fixture
def quick_teach(monkeypatch):
    # between GCs, many host writes a frame: the test plays hundreds of GCs in seconds
    monkeypatch.setitem(worker_module.SPEED_DRIVE_WRITE_S, "teach", 1e-3)
    monkeypatch.setitem(worker_module.SPEED_DRIVE_WRITE_S, "normal", 1e-3)


@pytest.fixture
def quick_frames(monkeypatch):
    """Frames far shorter: the series' rows (one each 1/400 of the capacity written) cap a
    teaching frame at two or three host writes, and at 1/36 s a frame the first GC took 14 s
    of waiting in each test. (Not where a test counts the worker's answers while it holds
    a GC: there the frames stay as the window has them.)"""
    monkeypatch.setattr(worker_module, "FRAME_S", 0.002)


def finished(run: Run):
    s = run.last()
    return s is not None and not s.running and s.counters["host_writes"] >= PAGES


def test_teaching_pace_plays_every_gc_and_keeps_the_physics(qtbot, until, quick_teach,
                                                            quick_frames):
    fast, teach = Run(qtbot, "fast"), Run(qtbot, "teach")
    try:
        for r in (fast, teach):
            r.w.send("workload", Segment("random", PAGES, seed=5))
        until(lambda: finished(fast) and finished(teach))
        a, b = fast.last(), teach.last()
        assert a.counters == b.counters  # same commands, same order: same drive
        assert np.array_equal(a.valid, b.valid) and np.array_equal(a.erases, b.erases)
        def held(p):  # "just copied" is a mark of the last frame, not a page state
            return np.where(p == PAGE_COPIED, PAGE_VALID, p)

        assert np.array_equal(held(a.pages), held(b.pages))
        assert np.array_equal(a.victim_valid, b.victim_valid)
        # every GC was held and played: three phases each, in order
        victims = int(b.counters["gc_victims"])
        played = [f for frames in teach.frames.values() for f in frames]
        assert victims > 50 and len(played) == 3 * victims
        assert [f.gc_phase for f in played[:3]] == ["mark", "move", "erase"]
        for mark, move, erase in zip(played[::3], played[1::3], played[2::3], strict=True):
            v, ppb = mark.gc_victim, G.pages_per_block
            assert mark.marks[v] == MARK_VICTIM and int(mark.valid[v]) == mark.gc_valid
            assert np.count_nonzero(mark.pages[v * ppb:(v + 1) * ppb] == PAGE_VALID) \
                == mark.gc_valid
            assert move.valid[v] == 0 and erase.state[v] == 0  # BLOCK_FREE after the erase
            copied = np.count_nonzero(move.pages == PAGE_COPIED)
            assert copied == mark.gc_valid and v not in mark.gc_destinations
            assert move.counters["gc_copies"] == mark.counters["gc_copies"] + mark.gc_valid
    finally:
        fast.stop()
        teach.stop()


def test_the_worker_waits_for_the_display_before_the_next_gc(qtbot, until, quick_teach):
    r = Run(qtbot, "teach")
    r.frames = {1: ()}  # the first GC is never released by _take
    r._take_orig = r._take
    try:
        r.w.send("workload", Segment("random", PAGES, seed=5))
        until(lambda: r.last() is not None and r.last().gc_serial == 1)
        held = r.last().counters["host_writes"]
        r.w.send("view", None)  # any command: the worker answers, and still holds
        until(lambda: len(r.snaps) >= 2 and r.last().handled >= 2)
        assert r.last().counters["host_writes"] == held and r.last().gc_frames
        r.w.send("release")
        until(lambda: r.last().gc_serial == 2)
        assert r.last().counters["host_writes"] > held
    finally:
        r.stop()


def _frames_snapshot(qtbot, until, quick_teach_unused=None):
    r = Run(qtbot, "teach")
    r.frames = {1: ()}
    try:
        r.w.send("workload", Segment("random", PAGES, seed=5))
        until(lambda: r.last() is not None and r.last().gc_serial == 1)
        return r.last()
    finally:
        r.stop()


def test_the_pacer_plays_mark_move_erase_on_its_timer_then_releases(qtbot, until,
                                                                    quick_teach, quick_frames):
    snap = _frames_snapshot(qtbot, until)
    released, shown = [], []
    pacer = GcPacer(lambda: released.append(1))
    pacer.show.connect(shown.append)
    pacer.offer(snap)
    assert [s.gc_phase for s in shown] == ["mark"] and pacer.timer.isActive()
    assert pacer.timer.interval() == PHASE_MS["mark"]
    later = snap.__class__(**{**snap.__dict__, "seq": snap.seq + 1})
    pacer.offer(later)  # the same GC again (the worker still holds it): no restart
    assert len(shown) == 1
    pacer.advance()
    assert shown[-1].gc_phase == "move" and pacer.timer.interval() == PHASE_MS["move"]
    # one host write may need several GCs: each plays its three phases in turn
    for _ in range(len(snap.gc_frames) - 2):
        pacer.advance()
    assert [s.gc_phase for s in shown] == ["mark", "move", "erase"] * (len(shown) // 3)
    assert not released
    pacer.advance()
    assert shown[-1] is not None and shown[-1].gc_frames == () and released == [1]
    assert shown[-1].seq == later.seq and not pacer.playing
    # skip: the end at once, released once
    pacer2 = GcPacer(lambda: released.append(2))
    pacer2.show.connect(shown.append)
    pacer2.offer(snap)
    pacer2.skip()
    assert shown[-1].gc_frames == () and released == [1, 2] and not pacer2.timer.isActive()
    # the worker dropped the hold (a reset, another speed): the map shows the drive now
    pacer2.offer(snap)
    assert pacer2.playing is False  # the same GC is not played twice
    pacer3 = GcPacer(lambda: released.append(3))
    pacer3.show.connect(shown.append)
    pacer3.offer(snap)
    now = snap.__class__(**{**snap.__dict__, "gc_frames": (), "seq": snap.seq + 5})
    pacer3.offer(now)
    assert shown[-1] is now and not pacer3.playing and not pacer3.timer.isActive()
    assert released == [1, 2]  # nothing to release: the worker is not holding


def test_tally_and_map_follow_each_phase(qtbot, until, quick_teach, quick_frames):
    snap = _frames_snapshot(qtbot, until)
    m, t = BlockMap(), Tally()
    qtbot.addWidget(m)
    qtbot.addWidget(t)
    m.resize(400, 300)
    m.shown.connect(t.set_snapshot)
    m.show()
    mark, move = snap.gc_frames[:2]
    m.set_snapshot(mark)
    c = mark.counters
    assert t.figure("host") == f"{c['host_writes']:,}"
    assert t.figure("flash") == f"{c['nand_writes']:,}"
    assert t.figure("wa") == f"{c['nand_writes'] / c['host_writes']:.3f}"
    assert t.values["wa"].toolTip() == f"{c['nand_writes']:,} ÷ {c['host_writes']:,}"
    assert f"picks block {mark.gc_victim}" in t.now.text()
    assert t.values["copied"].accessibleName() == "Pages GC copied"
    with_marks = m.grab().toImage()
    m.set_snapshot(move)
    assert t.figure("copied") == f"{move.counters['gc_copies']:,}"
    assert f"Moving block {move.gc_victim}'s" in t.now.text()
    plain = mark.__class__(**{**mark.__dict__, "gc_victim": -1, "gc_destinations": ()})
    m.set_snapshot(plain)
    assert m.grab().toImage() != with_marks  # the outline and label are drawn over the map


def test_breakpoint_on_a_gc_shows_the_victim_with_its_valid_pages(qtbot, until, quick_teach):
    r = Run(qtbot, "normal", Breakpoints(gc_count=3))
    try:
        r.w.send("workload", Segment("random", PAGES, seed=5))
        until(lambda: bool(r.hits) and r.last() is not None and bool(r.last().breakpoint))
        until(lambda: not r.last().running)
        s = r.last()
        assert s.gc_phase == "breakpoint" and f"block {s.gc_victim:,}" in r.hits[0]
        ppb, v = G.pages_per_block, s.gc_victim
        assert s.marks[v] == MARK_VICTIM and s.state[v] == 3  # BLOCK_VICTIM, not erased
        held = np.count_nonzero(s.pages[v * ppb:(v + 1) * ppb] == PAGE_VALID)
        assert held == s.gc_valid == int(s.valid[v]) and f"{held} valid pages" in r.hits[0]
        assert "still armed" not in r.hits[0]  # GC number 3 comes once
        assert f"GC victim block {v}, shown as GC found it" in gc_words(s)
        assert "GC victim block" not in RunStatus().progress(s)  # the notice says it once
    finally:
        r.stop()


def gc_counts(s) -> tuple[int, int, int]:
    return s.counters["gc_victims"], s.counters["erases"], s.counters["gc_copies"]


@pytest.mark.parametrize("speed", ["normal", "teach"])
def test_the_steps_after_a_breakpoint_clean_the_victim_shown_then_each_gc_in_turn(
        qtbot, until, quick_teach, quick_frames, speed):
    """The breakpoint shows the drive as its GC found it, but the batch (one host write,
    even) ran more GCs: the first step of one GC cleans the victim shown, each step after it
    the next GC the batch ran, one GC on the counters each; then a step collects on the
    drive and names what else the rest of the batch wrote (issue 36: block 249 outlined,
    block 45 cleaned, eight GCs on the counters)."""
    r = Run(qtbot, speed, Breakpoints(gc_count=3))
    try:
        r.w.send("workload", Segment("random", PAGES, seed=5))
        until(lambda: bool(r.hits) and r.last() is not None and not r.last().running
              and r.last().gc_phase == "breakpoint")
        shown = r.last()
        assert shown.counters["gc_victims"] == 2  # GC 3 found its victim: two done
        live = r.w.drive.counters()
        # its batch ran more GCs than the one shown (at teaching pace a batch ends with the
        # host write that collected: here that write ran GC 3 alone)
        assert live["gc_victims"] >= 3 + (speed == "normal")
        victims, before = [shown.gc_victim], shown
        for _ in range(live["gc_victims"] - 2):
            ticket = r.w.send("gc")
            until(lambda t=ticket: r.last().handled >= t and r.last().gc_phase == "stepped")
            s = r.last()
            victims.append(s.gc_victim)
            assert gc_counts(s)[:2] == (gc_counts(before)[0] + 1, gc_counts(before)[1] + 1)
            assert gc_counts(s)[2] == gc_counts(before)[2] + s.gc_valid
            assert s.state[s.gc_victim] == 0 and s.gc_rest == (0, 0)  # erased, nothing else
            if speed == "teach":  # its phases played on the map: mark, move, erase
                frames = r.frames[s.gc_serial]
                assert [f.gc_phase for f in frames] == ["mark", "move", "erase"]
                assert frames[0].gc_victim == s.gc_victim
            before = s
        assert victims[1] == victims[0]  # the first step cleaned the victim outlined
        assert gc_counts(before)[:2] == (live["gc_victims"], live["erases"])
        ticket = r.w.send("gc")  # the batch's GCs are shown: this one is the drive's own
        until(lambda t=ticket: r.last().handled >= t)
        s = r.last()
        gcs, host = s.gc_rest
        assert gcs == 0 and s.counters["gc_victims"] == live["gc_victims"] + 1
        assert host == s.counters["host_writes"] - before.counters["host_writes"]
        assert host == 0 or f"{host:,} host page" in gc_words(s)
        r.w.send("play")
        until(lambda: r.last().handled >= r.w._sent)
        assert "paused batch" not in gc_words(r.last())
    finally:
        r.stop()


def test_a_breakpoint_that_stays_armed_says_so(qtbot, until, quick_teach):
    r = Run(qtbot, "normal", Breakpoints(victim_valid=1))
    try:
        r.w.send("workload", Segment("random", PAGES, seed=5))
        until(lambda: bool(r.hits))
        assert "breakpoint still armed: it pauses again at the next victim" in r.hits[0]
    finally:
        r.stop()


def test_one_gc_step_names_and_marks_the_block_cleaned(qtbot, until):
    r = Run(qtbot, "fast")
    try:
        r.w.send("workload", Segment("random", 1500, seed=5))
        until(lambda: r.last() is not None and not r.last().running
              and r.last().counters["host_writes"] == 1500)
        victims = r.last().counters["gc_victims"]
        r.w.send("gc")
        until(lambda: r.last().counters["gc_victims"] == victims + 1)
        s = r.last()
        assert s.gc_phase == "stepped" and (s.gc_victim, s.gc_valid) == r.w.drive.last_victim
        assert s.state[s.gc_victim] == 0 and s.gc_destinations  # erased; pages went on
        line = RunStatus().progress(s)
        assert f"One GC step: block {s.gc_victim} cleaned" in line
        r.w.send("play")  # the run goes on: the mark goes
        until(lambda: r.last().handled >= r.w._sent)
        assert r.last().gc_phase == ""
    finally:
        r.stop()


def test_the_tally_stands_beside_one_map_and_under_each_of_two_headed_by_its_drive(qtbot):
    from ssdlab.app.gui.drive.driveview import DriveView

    v = DriveView("B")
    qtbot.addWidget(v.widget)
    v.widget.show()
    assert v.tally.isVisible() and v.tally.accessibleName() == "Write tally"
    assert not v.stacked() and v.tally.tag.isHidden()
    v.title.show()  # compare mode titles each map: each tally under its map, lettered
    assert v.tally.isVisible() and v.stacked() and v.tally.tag.isVisible()
    assert v.tally.tag.text() == "B" and v.tally.accessibleName() == "Write tally, drive B"
    assert v.tally.values["wa"].accessibleName().endswith(", drive B")
    v.stack(False)  # the window's width rule leaves one of two tallies under its map
    assert v.stacked()
    v.title.hide()
    assert v.tally.isVisible() and not v.stacked() and v.tally.tag.isHidden()
    assert v.tally.accessibleName() == "Write tally"


def test_a_pause_holds_the_gc_on_screen_and_play_goes_on(qtbot, until, quick_teach, quick_frames):
    """Paused at teaching pace, the phases went on playing and releasing the drive (three
    more GCs over five seconds under a line that said "paused"): the phase on screen stays,
    nothing is released, and Play gives the phase its time again."""
    snap = _frames_snapshot(qtbot, until)
    released, shown = [], []
    pacer = GcPacer(lambda: released.append(1))
    pacer.show.connect(shown.append)
    pacer.offer(snap)
    assert shown[-1].gc_phase == "mark"
    pacer.hold(True)
    assert not pacer.timer.isActive()
    for _ in range(len(snap.gc_frames) + 1):  # the timer's ticks, had it run
        pacer.advance()
    assert [s.gc_phase for s in shown] == ["mark"] and not released and pacer.playing
    pacer.hold(False)
    assert pacer.timer.isActive() and pacer.timer.interval() == PHASE_MS["mark"]
    for _ in range(len(snap.gc_frames)):
        pacer.advance()
    assert released == [1] and not pacer.playing


def test_the_window_holds_its_drives_gc_while_paused(bench):
    """Pause holds the map's GC; the run going on (play, a step) plays it on; a change of
    view while paused keeps it held."""
    view = bench.views[0]
    bench.send_all("pause")
    assert view.pacer.held
    view.send("view", None)
    assert view.pacer.held
    bench.send_all("play")
    assert not view.pacer.held
    bench.send_all("pause")
    bench.send_all("step")
    assert not view.pacer.held
