"""The workbench's file-system controls, driven through the real window: journal, atime,
discard, fstrim (now and every N simulated minutes), partition start, kernel tree unpack,
rm -rf, sequential write and trace replay, with the step table, pause and bad input marked
on the control it is about."""

import math
import threading
from pathlib import Path

import pytest

from ssdlab.app.session.replay import replay

HANG_GUARD_S = 300  # a wait that would otherwise hang (never a timing)
TRACES = Path(__file__).resolve().parents[1] / "ssdlab" / "assets" / "traces"


@pytest.fixture
def bench(bench):
    bench.confirm = lambda text: True  # every "discard the current run?" answered yes
    return bench


def choose(combo, data):
    combo.setCurrentIndex(combo.findData(data))


def fs_drive(until, w, mib=256):
    c = w.controls.widgets
    choose(c["profile"], "ocz_vertex_le_100")
    c["capacity_mib"].setValue(mib)
    until(lambda: w.snapshot.user_pages == w.session.settings.user_pages)


def run_step(until, w):
    n = len(w.snapshot.steps)
    w.run_workload()
    until(lambda: len(w.snapshot.steps) > n and not w.snapshot.running)
    return w.snapshot.steps[-1]


def test_unpack_rm_fstrim_fill_the_step_table(until, bench):
    c = bench.controls.widgets
    fs_drive(until, bench)
    bench.controls.fs_toggle.click()
    assert bench.controls.fs.isVisible()
    choose(c["workload"], "unpack")
    c["kernel_scale"].setValue(0.1)
    assert c["kernel_scale"].isVisible() and not c["amount"].isVisible()
    unpack = run_step(until, bench)
    assert bench.snapshot.mounted
    assert unpack["host_mb"] > 45
    # SandForce stores the data compressed: 0.6 of its size, the profile's rated data
    assert unpack["nand_mb"] == pytest.approx(0.6 * unpack["host_mb"], rel=0.02)
    assert unpack["seconds"] > 0 and unpack["trims"] == 0
    c["discard"].setChecked(True)  # a mount option: no new drive
    assert bench.session.settings.discard and bench.snapshot.mounted
    until(lambda: len(bench.snapshot.steps) == 2)  # the remount
    choose(c["workload"], "rmrf")
    rm = run_step(until, bench)
    assert rm["trims"] > 0  # discard TRIMs the freed extents at commit
    bench.controls.fstrim_button.click()
    until(lambda: len(bench.snapshot.steps) == 4 and not bench.snapshot.running)
    assert bench.snapshot.steps[-1]["step"] == "fstrim"
    rows = bench.charts.steps.rows()
    assert [r[0] for r in rows] == ["unpack kernel tree x0.1",
                                    "remount (atime: relatime, discard: on)", "rm -rf tree",
                                    "fstrim"]
    assert bench.charts.currentWidget() is bench.charts.steps
    choose(c["workload"], "rmrf")  # nothing left to remove: an inline message
    bench.run_workload()
    until(lambda: "no kernel tree" in bench.controls.error.text())


def test_journal_partition_and_periodic_fstrim_reach_the_file_system(until, bench):
    c = bench.controls.widgets
    fs_drive(until, bench)
    c["journal"].setChecked(False)
    choose(c["atime"], "noatime")
    choose(c["partition_start"], 63)
    c["fstrim_every_min"].setValue(0.01)  # every 0.6 s of simulated time
    choose(c["workload"], "seqwrite")
    c["seq_mb"].setValue(200)
    step = run_step(until, bench)
    m = bench.worker._machine
    assert m.fs.journal is None and m.fs.opt.atime == "noatime"
    assert m.dev.partition.start_sector == 63
    assert step["host_mb"] > 200 and step["trims"] > 0  # the periodic fstrims ran


def test_trace_replay_and_bad_trace_file(until, bench, tmp_path):
    fs_drive(until, bench)
    choose(bench.controls.widgets["workload"], "trace")
    bad = tmp_path / "bad.log"
    bad.write_text("fio version 3 iolog\n0 /dev/sda add\n12 /dev/sda write banana 4096\n")
    assert not bench.choose_trace(str(bad))
    text = bench.controls.error.text()
    assert "Trace file" in text and "line 3" in text
    assert bench.controls.invalid_field == "trace_path"
    assert bench.controls.widgets["trace_path"].property("invalid")
    assert bench.session.settings.trace_path == ""
    assert bench.choose_trace(str(TRACES / "mixed.fio3.log"))
    assert not bench.controls.error.isVisible()
    assert "requests" in bench.controls.trace_note.text()
    step = run_step(until, bench)
    assert step["host_mb"] > 5 and step["trims"] > 0
    assert "204 of 204 requests replayed" in bench.snapshot.message


def test_file_system_step_pauses_and_resets_mid_run(until, bench, monkeypatch):
    """The pause lands mid-step whatever the machine's speed: the worker is held inside
    its third slice (one unit each) until the pause is queued, so the step cannot finish
    between the test seeing it run and the pause arriving."""
    from ssdlab.app.session import fsjobs

    held, release, calls = threading.Event(), threading.Event(), []
    advance = fsjobs.FsJob.advance

    def one_unit_then_hold(job, until_s, clock):
        advance(job, -math.inf, clock)  # one unit of the step per call
        calls.append(job.done)
        if len(calls) == 3:
            held.set()
            release.wait(HANG_GUARD_S)

    monkeypatch.setattr(fsjobs.FsJob, "advance", one_unit_then_hold)
    c = bench.controls.widgets
    fs_drive(until, bench, mib=1024)
    choose(c["workload"], "unpack")
    c["kernel_scale"].setValue(0.6)
    bench.run_workload()
    until(lambda: held.is_set() and bench.snapshot.running)
    bench.toggle_play()  # queued while the worker is held: the next command it reads
    release.set()
    until(lambda: not bench.snapshot.running)
    done = bench.snapshot.progress
    bench.settle()  # a command handled after the pause: nothing ran in between
    assert len(calls) == 3 and 0 < bench.snapshot.progress == done < 1
    bench.reset_drive()
    until(lambda: not bench.snapshot.mounted
          and bench.snapshot.counters["host_writes"] == 0)
    assert bench.snapshot.steps == []


def test_file_system_workload_needs_a_profile(until, bench):
    before = bench.session.settings.workload
    choose(bench.controls.widgets["workload"], "unpack")
    assert bench.session.settings.workload == before  # refused: the setting stays
    assert "need a device profile" in bench.controls.error.text()
    assert bench.controls.invalid_field == "workload"
    assert bench.controls.widgets["workload"].property("invalid")


def test_bad_value_marks_its_control_until_fixed(until, bench):
    spare = bench.controls.widgets["spare_pct"]
    spare.setValue(95)
    assert spare.property("invalid") and bench.controls.invalid_field == "spare_pct"
    assert not bench.controls.widgets["capacity_mib"].property("invalid")
    bench.controls.widgets["d"].setValue(0)  # a field in the folded expert section
    assert bench.controls.expert.isVisible()
    assert bench.controls.widgets["d"].property("invalid") and not spare.property("invalid")
    spare.setValue(10)
    assert not any(w.property("invalid") for w in bench.controls.widgets.values())
    assert not bench.controls.error.isVisible()


def test_file_system_session_saves_and_reopens(until, bench, tmp_path):
    c = bench.controls.widgets
    fs_drive(until, bench)
    choose(c["workload"], "unpack")
    c["kernel_scale"].setValue(0.05)
    run_step(until, bench)
    saved = bench.snapshot
    path = tmp_path / "fs.json"
    bench.save(str(path))
    bench.reset_all()
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    assert bench.open(str(path))
    until(lambda: bench.snapshot.counters == saved.counters
          and not bench.snapshot.running)
    assert bench.snapshot.mounted
    assert [s["step"] for s in bench.snapshot.steps] == [s["step"] for s in saved.steps]


def test_many_files_rounds_clone_and_umount_from_the_window(until, bench):
    """The workloads of issue 13 as window controls: fill with many files to the Fill %,
    delete half, fstrim, git clone, make clean without a build first, umount."""
    c = bench.controls.widgets
    fs_drive(until, bench, mib=512)
    choose(c["workload"], "fillfiles")
    assert c["fill_pct"].isVisible() and not c["kernel_scale"].isVisible()
    c["fill_pct"].setValue(80)
    fill = run_step(until, bench)
    assert fill["host_mb"] > 300
    choose(c["workload"], "deletehalf")
    run_step(until, bench)
    bench.controls.fstrim_button.click()
    until(lambda: bench.snapshot.steps[-1]["step"] == "fstrim" and not bench.snapshot.running)
    assert bench.snapshot.steps[-1]["trims"] > 0
    choose(c["workload"], "gitclone")
    assert c["kernel_scale"].isVisible()
    c["kernel_scale"].setValue(0.02)
    run_step(until, bench)
    choose(c["workload"], "umount")
    run_step(until, bench)
    assert [r[0] for r in bench.charts.steps.rows()] == [
        "fill to 80 % with files", "delete 50 % of the files", "fstrim", "git clone",
        "umount"]


def test_kernel_era_makes_a_new_file_system_whose_discards_cover_free_runs(until, bench):
    """The Kernel list beside discard: modern rebuilds the file system (how discard behaves
    is fixed at mkfs), and its rm -rf discards whole free runs, more than 2.6.39 trims."""
    c = bench.controls.widgets
    fs_drive(until, bench)
    assert [c["kernel"].itemData(i) for i in range(c["kernel"].count())] == ["2.6.39",
                                                                            "modern"]
    trimmed = {}
    for kernel in ("2.6.39", "modern"):
        choose(c["kernel"], kernel)
        until(lambda k=kernel: bench.session.settings.kernel == k)
        until(lambda: not bench.snapshot.steps)  # a new drive: the step table starts over
        c["discard"].setChecked(True)
        choose(c["workload"], "unpack")
        c["kernel_scale"].setValue(0.05)
        run_step(until, bench)
        assert bench.worker._machine.fs.opt.kernel == kernel
        choose(c["workload"], "rmrf")
        trims = run_step(until, bench)["trims"]
        trimmed[kernel] = (trims, bench.worker._machine.fs.count.discard_blocks)
    # modern merges the freed extents (fewer requests) and covers more
    assert 0 < trimmed["modern"][0] < trimmed["2.6.39"][0]
    assert trimmed["modern"][1] > trimmed["2.6.39"][1] > 0
    # nothing followed the rm -rf: its worker finished in the background, counted in the
    # step, and the saved log says so, so a replay of it trims the same
    assert not bench.worker._machine.fs.discard_queue
    log = bench.snapshot.log
    assert log[-1]["do"] == "rm" and log[-1]["settled"]
    assert not any(d.get("settled") for d in log[:-1] if d.get("do") == "unpack")
    again = replay(bench.session.settings, log).drive.counters()
    shown = bench.worker.drive.counters()
    assert again["trims"] == shown["trims"] > 0
    assert again["trimmed_pages"] == shown["trimmed_pages"]
