"""Scenario files in the workbench: opening one runs the same steps `ssdlab run` runs, to the
same drive counters; a file-system run saved as a scenario plays back on the command line to
the same counters; what a scenario cannot hold is refused with the reason."""

from pathlib import Path

import numpy as np
import pytest

from ssdlab.model.lab.scenario import build_machine, load_scenario, parse_scenario, run_scenario

SHIPPED = Path(__file__).resolve().parent.parent / "ssdlab" / "assets" / "scenarios"
SCENARIO = """version = 1
name = "small discard run"
[drive]
profile = "ocz_vertex_le_100"
user_gib = 0.25
[host]
data_compression = 0.3
[partition]
start_sector = 63
[filesystem]
atime = "strict"
discard = true
[[steps]]
do = "unpack"
scale = 0.02
[[steps]]
do = "sync"
[[steps]]
do = "rm"
[[steps]]
do = "sync"
[[steps]]
do = "write"
name = "big"
mb = 24
[[steps]]
do = "remount"
discard = false
[[steps]]
do = "delete"
name = "big"
[[steps]]
do = "fstrim"
"""


@pytest.fixture
def bench(bench):
    bench.confirm = lambda text: True  # every "discard the current run?" answered yes
    return bench


def cli_counters(scenario) -> dict:
    m = build_machine(scenario)
    run_scenario(scenario, machine=m)
    return m.drive.counters()


def wait_steps(until, w, n):
    until(lambda: len(w.snapshot.steps) >= n and not w.snapshot.running)


def test_opening_a_scenario_runs_what_ssdlab_run_runs(until, bench, tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SCENARIO)
    assert bench.open_scenario(str(path))
    s = bench.session.settings
    assert (s.profile, s.partition_start, s.atime, s.discard) == (
        "ocz_vertex_le_100", 63, "strict", True)
    assert s.data_compression == 0.3
    wait_steps(until, bench, 8)
    names = [r["step"] for r in bench.snapshot.steps]
    assert names[0] == "unpack kernel tree x0.02" and names[-1] == "fstrim"
    assert bench.snapshot.counters == cli_counters(load_scenario(path))
    assert bench.snapshot.counters["trims"] > 0


def test_a_workbench_run_saved_as_a_scenario_plays_back_the_same(until, bench, tmp_path):
    c = bench.controls.widgets
    c["profile"].setCurrentIndex(c["profile"].findData("crucial_m4_128"))
    c["capacity_mib"].setValue(256)
    until(lambda: bench.snapshot.user_pages == bench.session.settings.user_pages)
    c["workload"].setCurrentIndex(c["workload"].findData("unpack"))
    c["kernel_scale"].setValue(0.03)
    bench.run_workload()
    wait_steps(until, bench, 1)
    c["discard"].setChecked(True)  # a remount between the steps
    c["workload"].setCurrentIndex(c["workload"].findData("rmrf"))
    bench.run_workload()
    wait_steps(until, bench, 3)  # unpack, the remount, rm -rf
    path = tmp_path / "saved.toml"
    assert bench.save_scenario(str(path))
    text = path.read_text()
    assert "discard = false" in text.split("[[steps]]")[0]  # mounted without, at first
    saved = load_scenario(path)
    assert [st.do for st in saved.steps] == ["unpack", "sync", "remount", "rm", "sync"]
    assert cli_counters(saved) == bench.snapshot.counters


def test_bad_scenario_is_reported_and_the_run_stays(until, bench, tmp_path):
    before = bench.session.settings
    path = tmp_path / "bad.toml"
    path.write_text(SCENARIO.replace("scale = 0.02", "scale = 9"))
    assert not bench.open_scenario(str(path))
    text = bench.controls.error.text()
    assert "Open scenario" in text and ":15:" in text and "steps[0].scale" in text
    assert bench.session.settings == before


def test_block_workloads_are_not_saved_as_a_scenario(until, bench, tmp_path):
    c = bench.controls.widgets
    c["profile"].setCurrentIndex(c["profile"].findData("crucial_m4_128"))
    until(lambda: bench.snapshot.user_pages == bench.session.settings.user_pages)
    bench.run_workload()  # the default block workload: fill
    until(lambda: bool(bench.snapshot.log))
    bench.toggle_play()
    until(lambda: not bench.snapshot.running)
    path = tmp_path / "x.toml"
    assert not bench.save_scenario(str(path))
    assert "block workloads" in bench.controls.error.text()
    assert not path.exists()


@pytest.mark.parametrize("path", sorted(SHIPPED.glob("*.toml")), ids=lambda p: p.stem)
def test_shipped_scenarios_round_trip_through_text(path):
    from ssdlab.model.lab.scenario import scenario_text
    s = load_scenario(path)
    again = parse_scenario(scenario_text(s), str(path))
    for key in ("name", "profile", "host", "user_pages", "data_compression", "partition",
                "fs"):
        assert getattr(again, key) == getattr(s, key), key
    assert [(st.do, st.args) for st in again.steps] == [(st.do, st.args) for st in s.steps]


def test_a_session_that_remounted_replays_from_its_first_mount(until, bench, tmp_path):
    """Mounted with discard, unpack and rm -rf (TRIMs), then remounted without: a replay
    must mount with discard again, or its rm sends no TRIM."""
    c = bench.controls.widgets
    c["profile"].setCurrentIndex(c["profile"].findData("crucial_m4_128"))
    c["capacity_mib"].setValue(256)
    until(lambda: bench.snapshot.user_pages == bench.session.settings.user_pages)
    c["discard"].setChecked(True)
    for n, kind in enumerate(("unpack", "rmrf"), 1):
        c["workload"].setCurrentIndex(c["workload"].findData(kind))
        c["kernel_scale"].setValue(0.03)
        bench.run_workload()
        wait_steps(until, bench, n)
    c["discard"].setChecked(False)
    c["workload"].setCurrentIndex(c["workload"].findData("seqwrite"))
    c["seq_mb"].setValue(20)
    bench.run_workload()
    wait_steps(until, bench, 4)
    saved = bench.snapshot
    assert [r["step"] for r in saved.steps][2] == "remount (atime: relatime, discard: off)"
    assert saved.counters["trims"] > 0
    path = tmp_path / "remount.json"
    bench.save(str(path))
    bench.reset_all()
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    assert bench.open(str(path))
    until(lambda: len(bench.snapshot.steps) == 4 and not bench.snapshot.running)
    assert [r["step"] for r in bench.snapshot.steps] == [r["step"] for r in saved.steps]
    assert bench.snapshot.counters == saved.counters
    assert not bench.worker._machine.fs.opt.discard


def test_a_scenario_remount_shows_in_the_controls(until, bench, tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SCENARIO)
    assert bench.open_scenario(str(path))
    wait_steps(until, bench, 8)
    # the remount step turned it off; the session follows the run's mount a moment later
    until(lambda: not bench.session.settings.discard)
    until(lambda: not bench.controls.widgets["discard"].isChecked())  # the panel follows
    assert bench.snapshot.steps[5]["step"] == "remount (discard: off)"


def test_the_controls_follow_a_remount_made_between_two_snapshots(bench):
    """A fast run can remount and go on before the window takes another snapshot: the first
    snapshot the view sees may already hold the new options. The worker counts the run's
    own remounts, so the view follows them however many snapshots it skipped, and a
    snapshot without a new one never undoes what the controls asked."""
    from dataclasses import replace

    view = bench.views[0]
    on = replace(bench.session.settings, atime="strict", discard=True)
    bench.session.settings = on
    before = replace(bench.snapshot, mounted=True, mount=("strict", True), run_remounts=0)
    view._follow_mount(before)
    # the controls asked for discard off; a snapshot from before that request still says on
    bench.session.settings = replace(on, discard=False)
    view._follow_mount(before)
    assert not bench.session.settings.discard
    # the run remounted with discard (two remounts, both between this view's snapshots)
    bench.session.settings = on
    view._follow_mount(replace(before, mount=("relatime", False), run_remounts=2))
    assert (bench.session.settings.atime, bench.session.settings.discard) == ("relatime", False)


def test_file_system_throughput_is_what_the_drive_completed(until, bench):
    """The throughput chart of a file-system run follows the drive's clock: a fill that
    lands in the page cache at memory speed shows at the drive's speed, never above its
    link (SATA II, 300 MB/s, on the Vertex 60 GB). Sampled on the host's clock it showed
    1,500 MB/s."""
    assert bench.open_scenario(str(SHIPPED / "sysbench_vertex60.toml"))
    wait_steps(until, bench, 4)
    rates = bench.snapshot.series["host_rate"]
    rates = rates[rates == rates]
    assert rates.size > 3 and 150 < rates.max() <= 300
    # rows every half second of simulated time, however fast the run went in wall time
    gaps = np.diff(bench.snapshot.series["sim_s"])
    assert np.median(gaps) == pytest.approx(0.5) and gaps.max() <= 0.5 + 1e-9


# The window plays every scenario `ssdlab run` plays: one validation for both (the scenario
# schema). Format and block-layer options without controls reach the drive and are saved.
OPTIONS = """version = 1
name = "options the workbench has no control for"
[drive]
profile = "crucial_m4_128"
user_gib = 0.25
[filesystem]
extents = false
commit_interval_s = 2.5
stripe_width_blocks = 16
max_request_kib = 64
[[steps]]
do = "write"
name = "data"
mb = 8
[[steps]]
do = "sync"
"""


def test_the_window_plays_the_alignment_scenario_as_ssdlab_run_does(until, bench):
    path = SHIPPED / "alignment_firstgen.toml"
    assert bench.open_scenario(str(path)), bench.controls.error.text()
    assert bench.session.settings.max_request_kib == 4
    until(lambda: len(bench.snapshot.steps) >= 1 and not bench.snapshot.running)
    assert bench.snapshot.counters == cli_counters(load_scenario(path))


def test_options_without_controls_survive_a_save(until, bench, tmp_path):
    path = tmp_path / "options.toml"
    path.write_text(OPTIONS)
    assert bench.open_scenario(str(path)), bench.controls.error.text()
    s = bench.session.settings
    assert (s.extents, s.commit_interval_s, s.stripe_width_blocks, s.max_request_kib) == (
        False, 2.5, 16, 64)
    until(lambda: len(bench.snapshot.steps) >= 2 and not bench.snapshot.running)
    assert bench.snapshot.counters == cli_counters(load_scenario(path))
    saved = tmp_path / "saved.toml"
    assert bench.save_scenario(str(saved)), bench.controls.error.text()
    fs = load_scenario(saved).fs
    assert (fs.extents, fs.commit_interval_s, fs.stripe_width_blocks,
            fs.max_request_bytes) == (False, 2.5, 16, 64 * 1024)
