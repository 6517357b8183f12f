"""A scenario run pauses the cyclic garbage collector and always gives it back as it was:
after the run, after a failing run, to an outer pause, and to a pause in another thread."""

from __future__ import annotations

import gc
import threading
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


def test_a_pause_in_one_thread_outlasts_one_that_began_before_it_in_another():
    """The window pauses the collector to restyle while a drive's thread may pause it for
    a run: whichever ends first, it stays off until the other has ended too."""
    began, end = threading.Event(), threading.Event()

    def run() -> None:
        with collector_paused():
            began.set()
            end.wait()

    drive = threading.Thread(target=run)
    drive.start()
    began.wait()
    with collector_paused():  # the window's, begun after the drive's
        end.set()
        drive.join()  # the drive's pause has ended
        assert not gc.isenabled()
    assert gc.isenabled()
