"""Scenario files: every shipped one loads; bad ones are refused whole, with file, line
and field; `ssdlab run` prints the step table and writes CSV."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.model.lab.scenario import (
    ScenarioError,
    build_machine,
    load_scenario,
    parse_scenario,
    run_scenario,
)

SCENARIOS = sorted(Path(__file__).resolve().parent.parent.glob("ssdlab/assets/scenarios/*.toml"))

GOOD = """version = 1
name = "tiny"
[drive]
profile = "firstgen_block_64"
user_gib = 0.25
[filesystem]
journal = true
discard = true
[[steps]]
do = "write"
name = "a"
mb = 8
[[steps]]
do = "delete"
name = "a"
[[steps]]
do = "sync"
"""


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_shipped_scenarios_load(path):
    s = load_scenario(path)
    assert s.steps


def test_a_small_scenario_runs_and_trims_after_the_commit():
    results = run_scenario(parse_scenario(GOOD))
    write, delete, sync = results
    assert write.data_mb == pytest.approx(8.0, rel=0.01)
    assert delete.trims == 0  # discard waits for the commit that frees the blocks
    assert sync.trims >= 1


SYSBENCH = """version = 1
[drive]
profile = "ocz_vertex_60"
user_gib = 0.5
[[steps]]
do = "random_writes"
mb = 8
files = 4
requests = 250
fsync_every = 100
"""


def test_random_writes_are_sysbench_rounds_over_every_file():
    """sysbench fsyncs every file of its set after each fsync_every writes (and once more
    after a partial last round): 4 files x 3 rounds, and only the run is measured, not the
    prepare that wrote the files."""
    (run,) = run_scenario(parse_scenario(SYSBENCH))
    # a block written twice between fsyncs goes out once
    assert 0.9 * 250 * 4096 / 1e6 <= run.data_mb <= 250 * 4096 / 1e6
    assert run.flushes >= 4 * 3
    assert run.seconds >= 4 * 3 * 2118e-6  # each flush holds the Indilinx for 2.1 ms


@pytest.mark.parametrize("edit, where", [
    (("version = 1", "version = 2"), ":1: version must be a supported version: 1; got 2"),
    (('profile = "firstgen_block_64"', 'profile = "nope"'), ":4: drive.profile"),
    (("user_gib = 0.25", "user_gib = -1"), ":5: drive.user_gib"),
    (("journal = true", "jounral = true"), ":7: filesystem.jounral is not a known field"),
    (("mb = 8", "mb = -8"), ":12: steps[0].mb"),
    (('do = "sync"', 'do = "defrag"'), ":17: steps[2].do"),
    (("discard = true", "discard = 1"), "filesystem"),
    (("user_gib = 0.25", 'user_gib = 0.25\ngc_frontier = "both"'),
     ":6: drive.gc_frontier must be one of separate, shared"),
])
def test_bad_scenarios_name_file_line_and_field(edit, where):
    text = GOOD.replace(*edit)
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, "bad.toml")
    assert str(e.value).startswith("bad.toml")
    assert where in str(e.value)


def test_gc_frontier_reaches_the_drive_and_round_trips():
    from ssdlab.model.lab.scenario import scenario_text

    default = parse_scenario(GOOD)
    assert default.gc_frontier is None
    assert build_machine(default).drive.config.gc_frontier == "separate"  # the profile's
    shared = parse_scenario(GOOD.replace("user_gib = 0.25", 'user_gib = 0.25\n'
                                         'gc_frontier = "shared"'))
    assert build_machine(shared).drive.config.gc_frontier == "shared"
    assert parse_scenario(scenario_text(shared)).gc_frontier == "shared"


def test_not_toml_is_refused():
    with pytest.raises(ScenarioError, match="not valid TOML"):
        parse_scenario("version = = 1", "x.toml")


def test_ssdlab_run_prints_steps_and_writes_csv(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(GOOD)
    out = tmp_path / "steps.csv"
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "run", str(scenario),
                           "--csv",
                           str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "NAND MB" in done.stdout and "write a" in done.stdout
    rows = list(csv.DictReader(out.open()))
    assert [r["name"] for r in rows] == ["write a", "delete a", "sync"]


def test_ssdlab_run_writes_the_time_series(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(GOOD)
    out = tmp_path / "series.csv"
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "run", str(scenario),
                           "--json",
                           "--series", str(out), "--series-every", "0.01"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == len(doc["series"]) > 3
    assert float(rows[-1]["device_written_mb"]) >= 8.0
    bad = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "run", str(scenario),
                          "--series-every", "0"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "--series-every must be above 0" in bad.stderr


def test_ssdlab_run_bad_file_exits_2_with_the_line(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(GOOD.replace("mb = 8", "mb = -8"))
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "run", str(scenario)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert f"{scenario}:12: steps[0].mb" in done.stderr


def test_progress_reports_units_within_a_step():
    calls = []
    run_scenario(parse_scenario(GOOD), progress=lambda *a: calls.append(a), every_s=0.0)
    writes = [c for c in calls if c[0] == 0]
    assert writes and all(c[1] == "write a" and c[4] == "MiB" for c in writes)
    done = [c[2] for c in writes]
    assert done == sorted(done) and done[-1] == writes[-1][3] == 8


def test_time_series_follows_the_drive_clock():
    """The series bins what the drive completed: its write rate never beats the link, its
    totals match the step table, and the sync after an unpack shows up as drive work."""
    from ssdlab.model.host.profiles import load_profile
    from ssdlab.model.lab.scenario import build_machine
    from ssdlab.model.lab.series import Series

    s = load_scenario(Path(__file__).resolve().parent.parent / "ssdlab" / "assets" / "scenarios" /
                      "sysbench_vertex60.toml")
    series = Series(build_machine(s), every_s=1.0)
    results = run_scenario(s, series=series)
    rows = series.as_dicts()
    link = load_profile(s.profile).host_link_mb_s
    assert max(r["write_mb_s"] for r in rows) <= link
    # the drive also wrote sysbench's 200 MiB prepare, which no step is charged for
    extra = rows[-1]["device_written_mb"] - sum(r.device_written_mb for r in results)
    assert 209.7 <= extra <= 212
    assert rows[-1]["flushes"] >= sum(r.flushes for r in results)
    done = [r["device_written_mb"] for r in rows]
    assert done == sorted(done)
    assert {r["step"] for r in rows} == {0, 1, 2, 3}
    sysbench = [r["write_mb_s"] for r in rows if r["step"] == 3][1:-1]
    assert 1.0 < sum(sysbench) / len(sysbench) < 2.0  # 334 x 4 KiB/s plus the journal


MIX = """version = 1
[drive]
profile = "crucial_m4_128"
user_gib = 0.5
[[steps]]
do = "restore_image"
[[steps]]
do = "user_mix"
drive_writes = 0.5
hot_pct = 10
hot_writes_pct = 90
"""


def test_restore_image_writes_every_block_and_user_mix_skews_rewrites():
    m = build_machine(parse_scenario(MIX))
    restore, mix = run_scenario(parse_scenario(MIX), machine=m)
    assert restore.device_written_mb >= m.fs.layout.total_blocks * 4096 / 1e6
    assert m.drive.counters()["host_writes"] >= m.fs.layout.total_blocks  # all mapped
    budget = 0.5 * m.drive.geometry.user_bytes / 1e6
    assert budget <= mix.device_written_mb <= 1.3 * budget
    assert mix.gc_copies > 0  # a full drive: every rewrite needs GC sooner or later
    # the same use with the rewrites spread evenly costs GC far more (hot blocks empty out)
    _, uniform = run_scenario(parse_scenario(MIX.replace("hot_pct = 10\n", "")))
    assert uniform.gc_copies > 3 * mix.gc_copies
