"""The GC frontier setting reaches the drive from every way in: the command line, the
workbench's settings and session files, lesson block tables (scenarios and profiles are in
test_scenario.py and test_profiles.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.session.schema import SETTINGS, FieldError, check_record
from ssdlab.app.session.settings import Settings, check_settings, theory_wa
from ssdlab.lessons.configs import block_spec

REPO = Path(__file__).resolve().parents[1]


def _simulate(*flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "simulate", "--user-pages",
                           "4096", "--pages-per-block", "16", "--spare", "0.2",
                           "--warmup-drive-writes", "1", "--measure-drive-writes", "1",
                           *flags], capture_output=True, text=True, cwd=REPO)


def test_simulate_takes_the_frontier_and_reports_it():
    done = _simulate("--gc-frontier", "shared", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["gc_frontier"] == "shared"
    done = _simulate("--gc-frontier", "both")
    assert done.returncode == 2
    assert "--gc-frontier" in done.stderr and "separate" in done.stderr
    assert "Traceback" not in done.stderr


def test_workbench_settings_build_the_drive_with_it():
    s = Settings(gc_frontier="shared")
    check_settings(s)
    assert s.config().gc_frontier == "shared"
    assert Settings().config().gc_frontier == "separate"


def test_session_schema_refuses_an_unknown_frontier_by_name():
    with pytest.raises(FieldError, match=r"settings\.gc_frontier \(GC frontier\) must be"):
        check_record({"gc_frontier": "both"}, SETTINGS, "settings")


def test_the_analytic_wa_for_greedy_hot_cold_needs_the_shared_frontier():
    hot = Settings(workload="hotcold", capacity_mib=64, gc="greedy")
    assert theory_wa(hot) is None
    assert theory_wa(Settings(workload="hotcold", gc_frontier="shared")) > theory_wa(
        Settings(workload="random", gc_frontier="shared"))


def test_lesson_ftl_tables_set_it():
    spec = block_spec({"drive": {"user_pages": 4096, "pages_per_block": 16, "spare": 0.2},
                       "ftl": {"gc_frontier": "shared"}})
    assert spec.config.gc_frontier == "shared"
