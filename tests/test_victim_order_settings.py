"""The victim-order setting (greedy GC among equally empty blocks) reaches the drive from
every way in, as the GC frontier does: the command line, the workbench's settings and
session files, lesson block tables, scenario files and device profiles."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.session.schema import SETTINGS, FieldError, check_record
from ssdlab.app.session.settings import Settings, check_settings
from ssdlab.lessons.configs import block_spec
from ssdlab.model.host.profiles import list_profiles, load_profile
from ssdlab.model.lab.scenario import build_machine, parse_scenario, scenario_text

REPO = Path(__file__).resolve().parents[1]


def _simulate(*flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "simulate", "--user-pages",
                           "4096", "--pages-per-block", "16", "--spare", "0.2",
                           "--warmup-drive-writes", "1", "--measure-drive-writes", "1",
                           *flags], capture_output=True, text=True, cwd=REPO)


def test_simulate_takes_the_order_and_reports_it():
    runs = {}
    for order in ("newest", "oldest"):
        done = _simulate("--victim-order", order, "--json")
        assert done.returncode == 0, done.stderr
        runs[order] = json.loads(done.stdout)
        assert runs[order]["victim_order"] == order
    # the same writes, another victim among equals: other flash writes
    assert runs["newest"]["nand_writes"] != runs["oldest"]["nand_writes"]
    table = _simulate("--victim-order", "oldest")
    assert "oldest victim among equals" in table.stdout
    done = _simulate("--victim-order", "last")
    assert done.returncode == 2
    assert "--victim-order" in done.stderr and "oldest" in done.stderr
    assert "Traceback" not in done.stderr


def test_workbench_settings_build_the_drive_with_it():
    s = Settings(victim_order="oldest")
    check_settings(s)
    assert s.config().victim_order == "oldest"
    assert Settings().config().victim_order == "oldest"


def test_session_schema_refuses_an_unknown_order_by_name():
    with pytest.raises(FieldError, match=r"settings\.victim_order \(Victim order\) must be"):
        check_record({"victim_order": "last"}, SETTINGS, "settings")


def test_lesson_ftl_tables_set_it():
    spec = block_spec({"drive": {"user_pages": 4096, "pages_per_block": 16, "spare": 0.2},
                       "ftl": {"victim_order": "oldest"}})
    assert spec.config.victim_order == "oldest"


def test_every_profile_names_its_order_and_the_drive_gets_it():
    for name in list_profiles():
        p = load_profile(name)
        assert p.ftl_config().victim_order == p.victim_order in ("newest", "oldest")


def test_a_scenario_overrides_the_profile_and_writes_it_back():
    text = ('version = 1\n[drive]\nprofile = "intel_x25m_g1_80"\nuser_gib = 0.05\n'
            'victim_order = "oldest"\n[[steps]]\ndo = "idle"\nseconds = 1\n')
    s = parse_scenario(text, "t.toml")
    assert s.victim_order == "oldest"
    assert build_machine(s).drive.config.victim_order == "oldest"
    again = parse_scenario(scenario_text(s), "t.toml")
    assert again.victim_order == "oldest" and again.steps[0].args == s.steps[0].args
    bad = text.replace('"oldest"', '"last"')
    with pytest.raises(ValueError, match="victim_order"):
        parse_scenario(bad, "t.toml")
