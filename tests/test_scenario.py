"""Scenario files: every shipped one loads; bad ones are refused whole, with file, line
and field; `ssdlab run` prints the step table and writes CSV."""

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from model.scenario import ScenarioError, load_scenario, parse_scenario, run_scenario

SCENARIOS = sorted(Path(__file__).resolve().parent.parent.glob("assets/scenarios/*.toml"))

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
    (("version = 1", "version = 2"), ":1: version must be 1"),
    (('profile = "firstgen_block_64"', 'profile = "nope"'), ":4: drive.profile"),
    (("user_gib = 0.25", "user_gib = -1"), ":5: drive.user_gib"),
    (("journal = true", "jounral = true"), ":7: unknown field filesystem.jounral"),
    (("mb = 8", "mb = -8"), ":12: steps[0].mb"),
    (('do = "sync"', 'do = "defrag"'), ":17: steps[2].do"),
    (("discard = true", "discard = 1"), "filesystem"),
])
def test_bad_scenarios_name_file_line_and_field(edit, where):
    text = GOOD.replace(*edit)
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, "bad.toml")
    assert str(e.value).startswith("bad.toml")
    assert where in str(e.value)


def test_not_toml_is_refused():
    with pytest.raises(ScenarioError, match="not valid TOML"):
        parse_scenario("version = = 1", "x.toml")


def test_ssdlab_run_prints_steps_and_writes_csv(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(GOOD)
    out = tmp_path / "steps.csv"
    done = subprocess.run([sys.executable, "-m", "app.cli", "run", str(scenario), "--csv",
                           str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "NAND MB" in done.stdout and "write a" in done.stdout
    rows = list(csv.DictReader(out.open()))
    assert [r["name"] for r in rows] == ["write a", "delete a", "sync"]


def test_ssdlab_run_bad_file_exits_2_with_the_line(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(GOOD.replace("mb = 8", "mb = -8"))
    done = subprocess.run([sys.executable, "-m", "app.cli", "run", str(scenario)],
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
