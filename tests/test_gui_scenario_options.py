"""The window plays every scenario `ssdlab run` plays: one validation for both (the scenario
schema, model/lab/schema.py). The format and block-layer options a scenario sets (extents,
commit interval, stripe width, largest request) reach the window's drive, and a run saved
from the window keeps them."""

from pathlib import Path

import pytest

from model.lab.scenario import build_machine, load_scenario, run_scenario

SHIPPED = Path(__file__).resolve().parent.parent / "assets" / "scenarios"
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


@pytest.fixture
def bench(bench):
    bench.confirm = lambda text: True  # every "discard the current run?" answered yes
    return bench


def cli_counters(scenario) -> dict:
    m = build_machine(scenario)
    run_scenario(scenario, machine=m)
    return m.drive.counters()


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
