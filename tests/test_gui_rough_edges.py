"""The workbench's rough edges, each fixed: what the status line and Steps tab say while a
scenario plays, the speed readout, charts after Reset All, the analytic legend entry, step
names, and Reset All folding the file-system section."""

import threading
from pathlib import Path

import numpy as np
import pytest

from ssdlab.app.gui.run import worker
from ssdlab.app.gui.run.runstatus import RunStatus
from ssdlab.app.session import fsjobs
from ssdlab.app.session.fsjobs import FsStep
from ssdlab.app.session.streams import Stream

SCENARIOS = Path(__file__).resolve().parent.parent / "ssdlab" / "assets" / "scenarios"
HANG_GUARD_S = 300  # a wait that would otherwise hang (never a timing)


def test_a_scenario_never_reads_idle_while_it_plays(qtbot, until, bench, monkeypatch):
    """The unpack is seen running whatever the machine's speed: the worker is held before
    its first slice until the test has seen it, so a fast machine cannot finish it between
    two frames the window shows."""
    release = threading.Event()
    advance = fsjobs.FsJob.advance

    def held_before_the_unpack(job, until_s, clock):
        if job.step.do == "unpack":
            release.wait(HANG_GUARD_S)
        advance(job, until_s, clock)

    monkeypatch.setattr(fsjobs.FsJob, "advance", held_before_the_unpack)
    bench.confirm = lambda text: True
    assert bench.open_scenario(str(SCENARIOS / "discard_vertex_le.toml"))
    seen = []

    def look():
        seen.append((bench.progress_label.text(), bench.charts.steps.message.text()))
        return bench.snapshot.segment.startswith("unpack")

    until(look)
    bench.worker.send("pause")
    release.set()
    assert not any(p.startswith("idle") for p, _ in seen), seen
    assert seen[0][0].startswith("starting scenario")
    assert "running" in bench.charts.steps.message.text()
    assert "No file-system steps yet" not in bench.charts.steps.message.text()


class Snap:
    def __init__(self, host: int, running: bool = True):
        self.counters = {"host_writes": host}
        self.running = running


def test_speed_readout_counts_writes_per_wall_clock_second():
    status = RunStatus()
    for i in range(5):  # 2,000 host writes each half second
        text = status.speed(Snap(2000 * i), now=0.5 * i, fps=30)
    assert text == "4.0 k writes/s, 30 fps"
    fast = RunStatus()
    for i in range(5):
        text = fast.speed(Snap(200_000 * i), now=0.5 * i, fps=30)
    assert text == "400.0 k writes/s, 30 fps"
    assert fast.speed(Snap(0), now=3.0, fps=30).startswith("writes/s -")  # a new drive
    assert status.speed(Snap(8000, running=False), now=2.5, fps=1) == "writes/s -, 1 fps"


def test_reset_all_empties_the_charts_and_folds_the_file_system_section(qtbot, until, bench):
    bench.request(workload="random", amount=1.5, gc="greedy")
    bench.controls.set_fs_shown(True)
    bench.run_workload()
    until(lambda: not bench.snapshot.running and bench.snapshot.counters["host_writes"] > 0)
    wa = bench.charts.wa
    bench.charts.setCurrentWidget(wa)
    until(lambda: wa.points("wa") >= 2 and wa.x_axis.labels()[-1] != "1.0")
    analytic = wa._chart.legend().markers(wa.series["theory"])[0]
    assert analytic.isVisible()  # random writes with greedy GC: a model exists
    bench.reset_all()
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    bench.charts.setCurrentWidget(wa)
    until(lambda: wa.points("wa") == 0)
    # back to the default demo (fill, then random rewrites): no run's points, and no
    # analytic figure either until the drive is written (before, it showed lesson 1's
    # answer on the first screen; ssdlab/app/gui/settings/session.py theory_wa_shown)
    assert wa.points("wa_window") == 0
    assert bench.session.settings.workload == "steady"
    assert not analytic.isVisible()
    assert not bench.controls.fs.isVisible()
    assert not bench.controls.fs_toggle.isChecked()


def test_wear_ticks_are_whole_erase_counts(qtbot, until, bench):
    bench.request(workload="random", amount=2.0)  # the second drive write needs GC
    bench.run_workload()
    until(lambda: not bench.snapshot.running and bench.snapshot.counters["erases"] > 0)
    bench.charts.setCurrentWidget(bench.charts.wear)
    until(lambda: bench.charts.wear.points("hist") > 0)
    for axis in (bench.charts.wear.x_axis, bench.charts.wear.y_axis):
        values = [float(t.replace(",", "")) for t in axis.labels()]
        assert values == [round(v) for v in values]


@pytest.mark.parametrize(("args", "label"), [
    ({"discard": False}, "remount (discard: off)"),
    ({"atime": "noatime", "discard": True}, "remount (atime: noatime, discard: on)"),
])
def test_step_names_read_as_words(args, label):
    assert FsStep("remount", args, total=1).label == label


def test_untimed_throughput_chart_draws_a_smooth_host_share(qtbot, until, bench,
                                                            monkeypatch):
    """A block run adds a chart row per frame, and how much a frame holds is the machine's
    speed: one a few times faster than ours drew the second drive write in two rows. Here
    every batch is a frame of at most 1/256 of a drive write (an animation's frames are
    smaller still), so it has 256 rows on any machine, and a share taken per frame rather
    than over the last 5 % of capacity shows as a comb."""
    take = Stream.take
    monkeypatch.setattr(Stream, "take", lambda s, n: take(s, min(n, s.user_pages // 256)))
    monkeypatch.setattr(worker, "FRAME_S", 0.0)
    bench.request(workload="random", amount=2.0)
    bench.run_workload()
    until(lambda: not bench.snapshot.running and bench.snapshot.counters["gc_copies"] > 0)
    table = bench.charts.table("throughput")
    host = table.ys["host"][table.x > 1.0]
    host = host[np.isfinite(host)]
    # bounded, and no comb: as GC takes its share the host's falls, never springs back up
    assert host.size > 3 and np.all((host > 0) & (host <= 1000))
    assert np.max(np.diff(host)) < 50
    bench.charts.setCurrentWidget(bench.charts.throughput)
    until(lambda: bench.charts.throughput.points("host") > 0)
    assert not any("e+" in t for t in bench.charts.throughput.y_axis.labels())


def test_progress_reads_like_the_two_drive_line():
    """One drive's progress reads "random: paused", as two drives' line does."""
    from types import SimpleNamespace

    status = RunStatus()
    snap = SimpleNamespace(segment="random", progress=float("nan"), running=False, gc_phase="")
    assert status.progress(snap) == "random: paused"
    snap = SimpleNamespace(segment="fill", progress=0.25, running=True, gc_phase="")
    assert status.progress(snap) == "fill: 25 % running"


def test_after_a_finished_run_the_line_says_it_ended():
    """"idle: choose a workload" under a drive that had just run read as if nothing had
    (a lecturer's rehearsal): the line says the run has ended; a new drive is idle."""
    from types import SimpleNamespace

    status = RunStatus()
    ran = SimpleNamespace(segment="", progress=float("nan"), running=False, gc_phase="",
                          handled=0, counters={"host_writes": 12, "trims": 0})
    assert status.progress(ran) == "the run has ended: press Run or Space to run again"
    new = SimpleNamespace(segment="", progress=float("nan"), running=False, gc_phase="",
                          handled=0, counters={"host_writes": 0, "trims": 0})
    assert status.progress(new) == "idle: choose a workload, press Run or Space"
