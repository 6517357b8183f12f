"""The suite's progress line (tests/suiteprogress.py): counts, the time so far and an
estimate of what is left, weighed by the previous run's times, once a minute on a clock
the test controls."""

from __future__ import annotations

import pytest
from suiteprogress import EVERY_S, SuiteProgress, estimate_line, kept_seconds, minutes_words


def test_words_for_times():
    assert minutes_words(0) == "0 s"
    assert minutes_words(59.4) == "59 s"
    assert minutes_words(185) == "3 min 05 s"


def test_the_estimate_carries_the_pace_forward():
    assert estimate_line(0, 100, 10) == "suite: 0 of 100 tests done in 10 s"
    assert estimate_line(25, 100, 60) == (
        "suite: 25 of 100 tests done in 1 min 00 s; about 3 min 00 s left at this pace")
    # a quarter of the tests, but half of the work by weight
    assert estimate_line(25, 100, 60, share=0.5).endswith("about 1 min 00 s left at this pace")
    assert estimate_line(100, 100, 400) == "suite: 100 of 100 tests done in 6 min 40 s"


class _Report:
    def __init__(self, nodeid, when, duration=0.0):
        self.nodeid, self.when, self.duration = nodeid, when, duration


def _play(progress, now, names, step_s):
    said = []
    progress._write = said.append
    for name in names:
        progress.pytest_runtest_logreport(_Report(name, "call", 1.0))  # teardown ends it
        progress.pytest_runtest_logreport(_Report(name, "teardown", 0.5))
        now[0] += step_s
    return said


def test_a_line_a_minute_on_the_tests_clock():
    now = [0.0]
    progress = SuiteProgress(config=None, clock=lambda: now[0])
    progress.set_ids([f"t{i}" for i in range(10)])
    said = _play(progress, now, ["t0", "t1", "t2"], EVERY_S / 2)
    assert progress.done == 3
    assert progress.seconds == {"t0": 1.5, "t1": 1.5, "t2": 1.5}
    assert said == ["suite: 3 of 10 tests done in 1 min 00 s; about 2 min 20 s left at this pace"]


def test_the_previous_runs_times_weigh_the_share_done():
    now = [0.0]
    kept = {"slow": 90.0, **{f"t{i}": 1.0 for i in range(10)}}
    progress = SuiteProgress(config=None, clock=lambda: now[0], kept=kept)
    progress.set_ids([*kept, "new"])  # "slow", t0 to t9, and one new today
    said = _play(progress, now, ["slow"], EVERY_S)
    # one test of twelve, but 90 of the 90 + 10 + 1 (a new test counts as a typical one)
    share = 90 / (90 + 10 + 100 / 11)
    assert progress.share() == pytest.approx(share)
    assert said == []  # the first line comes a minute after the start
    said = _play(progress, now, ["t0"], 0)
    assert said == [estimate_line(2, 12, EVERY_S, progress.share())]


@pytest.mark.parametrize("value", [None, [], {"a": "1"}, {"a": float("nan")}, {"a": -1},
                                   {"a": True}, {1: 1.0}])
def test_a_changed_cache_entry_keeps_nothing(value):
    assert kept_seconds(value) == {}


def test_a_sound_cache_entry_is_kept():
    assert kept_seconds({"a": 1, "b": 2.5}) == {"a": 1.0, "b": 2.5}
