"""`ssdlab bench --scenarios`: the shipped scenarios timed whole and part by part, beside
another checkout. Only the figures' shape and sums are checked, never a speed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.cli import scenariobench, scenariotiming

REPO = Path(__file__).resolve().parents[1]


def ssdlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", *args], capture_output=True,
                          text=True, timeout=600, cwd=REPO)


def test_a_scenario_split_adds_up():
    parts = scenariotiming.main(str(REPO / "ssdlab" / "assets" / "scenarios"
                                    / "fill_rounds_1gib.toml"))
    assert parts["steps"] > 0
    for key in ("build", "engine", "host", "outputs", "load"):
        assert parts[key] >= 0.0, key
    assert parts["engine"] > 0.0 and parts["host"] > 0.0  # both do work in this scenario
    assert parts["scenario_s"] == pytest.approx(
        parts["build"] + parts["engine"] + parts["host"] + parts["outputs"])


@pytest.mark.parametrize("args, field", [
    (("--scenarios", "--against", "/"), "--against: / is not a checkout of SSD Lab"),
    (("--against", str(REPO)), "--against goes with --scenarios"),
    (("--scenarios", "--only", "no such"), "--only: no shipped scenario's name contains"),
])
def test_bad_arguments_are_refused_before_any_run(args, field):
    done = ssdlab("bench", *args)
    assert done.returncode == 2
    assert field in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_against_a_checkout_gives_medians_and_ratios():
    done = ssdlab("bench", "--scenarios", "--only", "trace_replay", "--repeat", "1",
                  "--against", str(REPO), "--json")
    assert done.returncode == 0, done.stderr
    row, = json.loads(done.stdout)
    assert row["scenario"] == "trace_replay.toml" and row["runs"] == 1
    for side in ("against", "this"):
        assert row[side]["command_cpu"] > row[side]["scenario_s"] >= 0.0
        assert row[side]["command_wall"] > 0.0
    assert row["ratio"]["command_cpu"] == pytest.approx(
        row["against"]["command_cpu"] / row["this"]["command_cpu"])


def test_against_takes_a_checkout_from_before_the_packages_moved(tmp_path):
    # what --against usually measures is an older commit, with model/ and assets/ at the top
    (tmp_path / "model" / "lab").mkdir(parents=True)
    (tmp_path / "model" / "lab" / "scenario.py").write_text("")
    (tmp_path / "assets" / "scenarios").mkdir(parents=True)
    assert scenariobench.check_against(str(tmp_path)) == tmp_path.resolve()
    command, scenarios = scenariobench.entry(tmp_path)
    assert scenarios == "assets/scenarios" and "from app.cli.main import main" in command
    command, scenarios = scenariobench.entry(REPO)
    assert scenarios == "ssdlab/assets/scenarios"
    assert "from ssdlab.app.cli.main import main" in command
