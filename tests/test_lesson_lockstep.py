"""Two configurations of a lesson run side by side (the window's drives A and B): the same
figures as one after the other, neither run more than a little ahead of the other, a
failure or a cancel in one stops both. Nothing here waits on time: threads are joined and
the lockstep's own waits end on the other run's progress."""

from __future__ import annotations

import math
import threading

import pytest

from ssdlab.lessons import LessonPlay, bundled
from ssdlab.model.flash.runner import Cancelled
from ssdlab.model.lab.lockstep import SLACK, Lockstep, side_by_side

LESSONS = {x.id: x for x in bundled()}


def _pair_step(play: LessonPlay, kind: str):
    """The lesson's first run step of exactly two configurations of the given kind (block
    or scenario), with its predictions made."""
    for step in play.lesson.steps:
        if step.kind == "predict":
            play.predict(step, step.answer)
        if (step.kind == "run" and len(step.configs) == 2
                and all((c.spec is not None) == (kind == "block") for c in step.configs)):
            return step
    raise LookupError(kind)


@pytest.mark.parametrize("lesson_id, kind", [("write-amplification", "block"),
                                             ("how-full", "scenario")])
def test_side_by_side_gives_the_figures_of_one_after_the_other(lesson_id, kind):
    lesson = LESSONS[lesson_id]
    alone = LessonPlay(lesson)
    step = _pair_step(alone, kind)
    expected = alone.run(step)
    seen: list[tuple[int, float]] = []
    lock = threading.Lock()
    paired = LessonPlay(lesson, side_by_side=True)
    paired.observe = lambda drive, slot, machine: seen.append((slot, 0.0))
    reported: list[tuple[str, float]] = []

    def progress(what, fraction):
        with lock:
            reported.append((what, fraction))

    paired.progress = progress
    got = paired.run(_pair_step(paired, kind))
    assert [r.config.id for r in got] == [c.id for c in step.configs]
    for a, b in zip(expected, got, strict=True):
        assert a.figures.keys() == b.figures.keys()
        for key, value in a.figures.items():  # NaN where a step has no WA: equal here
            assert value == b.figures[key] or (math.isnan(value) and math.isnan(b.figures[key]))
        assert a.wa_windows == b.wa_windows
    assert {slot for slot, _ in seen} == {0, 1}  # both drives were shown
    assert reported and all(0.0 <= f <= 1.0 for _, f in reported)


def test_a_run_waits_while_it_is_ahead_and_goes_on_when_the_other_catches_up():
    step = Lockstep(2)
    step.at(1, 0.0)
    released = threading.Event()

    def ahead():
        step.at(0, 0.5)
        released.set()

    t = threading.Thread(target=ahead)
    t.start()
    step.at(1, 0.3)  # still too far behind: slot 0 keeps waiting
    assert not released.is_set()  # 0.5 is more than SLACK ahead of 0.3, whatever the timing
    step.at(1, 0.5 - SLACK / 2)
    t.join()
    assert released.is_set()


def test_a_run_never_waits_for_one_that_has_finished():
    step = Lockstep(2)
    step.finish(1)
    step.at(0, 1.0)  # returns at once: nothing left to wait for


def test_lockstep_holds_two_real_runs_together():
    """Each run, after each report, is at most SLACK ahead of the other's last report
    (or the other has finished)."""
    where = [0.0, 0.0]
    finished = [False, False]
    worst = [0.0]
    guard = threading.Lock()

    def job(step: Lockstep, slot: int) -> int:
        chunks = 50 if slot == 0 else 80  # different speeds of progress
        for i in range(1, chunks + 1):
            step.at(slot, i / chunks)
            with guard:
                where[slot] = i / chunks
                other = 1 - slot
                if not finished[other]:
                    worst[0] = max(worst[0], where[slot] - where[other])
        with guard:
            finished[slot] = True
        return chunks

    assert side_by_side([job, job]) == [50, 80]
    assert worst[0] <= SLACK + 1 / 50 + 1e-9


def test_a_failure_in_one_run_stops_the_other_and_is_raised():
    def failing(step: Lockstep, slot: int):
        step.at(slot, 0.1)
        raise ValueError("drive full")

    def waiting(step: Lockstep, slot: int):
        for i in range(1, 1001):
            if step.stopped:
                raise Cancelled("stopped")
            step.at(slot, i / 1000)
        return "finished"

    with pytest.raises(ValueError, match="drive full"):
        side_by_side([failing, waiting])


def test_a_cancelled_lesson_stops_both_configurations():
    lesson = LESSONS["write-amplification"]
    play = LessonPlay(lesson, side_by_side=True)
    step = _pair_step(play, "block")
    calls = []

    def progress(what, fraction):
        calls.append(fraction)

    play.progress = progress
    play.cancel = lambda: len(calls) > 3
    with pytest.raises(Cancelled):
        play.run(step)
    assert step.id not in play.runs
