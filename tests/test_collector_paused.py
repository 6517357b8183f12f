"""A scenario run pauses the cyclic garbage collector and always gives it back as it was:
after the run, after a failing run, and to an outer pause."""

from __future__ import annotations

import gc
from dataclasses import replace

import pytest

from ssdlab.model.lab.collector import collector_paused
from ssdlab.model.lab.scenario import make_step, parse_scenario, run_scenario
from ssdlab.model.lab.steps import StepError

TEXT = """version = 1
name = "small"
[drive]
profile = "nvme_modern_1tb"
user_gib = 1.0
[partition]
start_sector = 2048
[filesystem]
journal = true
[[steps]]
do = "write"
name = "a"
mb = 4
"""


def test_a_run_pauses_the_collector_and_resumes_it():
    seen = []
    assert gc.isenabled()
    run_scenario(parse_scenario(TEXT), on_step=lambda i, r: seen.append(gc.isenabled()))
    assert seen == [False]
    assert gc.isenabled()


def test_a_failing_run_resumes_it():
    s = parse_scenario(TEXT)
    s = replace(s, steps=s.steps + (make_step("delete", name="missing"),))
    with pytest.raises(StepError):
        run_scenario(s)
    assert gc.isenabled()


def test_an_outer_pause_outlasts_an_inner_one():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
