"""A run step a lesson says to watch (pace = "teach"): the loader checks the field, and the
lesson's figures, right answers and quiz are the same whether the student watched its GCs,
skipped to the end part way, or the step ran at full speed (ssdlab/lessons/player.py with
watch_gc)."""

from __future__ import annotations

import pytest

from ssdlab.lessons import LessonPlay, bundled, parse_lesson
from ssdlab.lessons.lesson import LessonError

LESSON = """format = 1
id = "pace"
title = "Pace"
order = 1
minutes = 5
summary = "s"

[[steps]]
kind = "predict"
id = "guess"
title = "Guess"
question = "How much?"
measure = "r.a.wa"
unit = "x"
answer = 3

[[steps]]
kind = "run"
id = "r"
title = "Run"
text = "Watch the block map."
blockmap = {blockmap}
pace = {pace}
[[steps.configs]]
id = "a"
label = "a"
drive = {{ user_pages = 2048, pages_per_block = 32, spare = 0.1 }}
measure_drive_writes = 0.5
"""


def _lesson(pace='"teach"', blockmap="true"):
    return parse_lesson(LESSON.format(pace=pace, blockmap=blockmap), "pace.toml")


def test_the_loader_reads_and_checks_pace():
    assert _lesson().steps[1].pace == "teach"
    assert _lesson('"full"').steps[1].pace == "full"
    with pytest.raises(LessonError, match=r"pace.*must be one of full, teach; got 'slow'"):
        _lesson('"slow"')
    with pytest.raises(LessonError, match=r"pace.*needs blockmap = true"):
        _lesson(blockmap="false")


def test_only_the_watch_run_of_lesson_one_is_paced():
    paced = [(x.id, s.id) for x in bundled() for s in x.steps
             if s.kind == "run" and s.pace == "teach"]
    assert paced == [("write-amplification", "overwrite")]


def _play(lesson, watch=None, skip=None, pair=False):
    """Every step with the recorded answers; what each step yields, to compare."""
    p = LessonPlay(lesson, watch_gc=watch, skip_watch=skip, side_by_side=pair)
    out = []
    for step in lesson.steps:
        if step.kind == "predict":
            p.predict(step, step.answer)
        elif step.kind == "run":
            p.run(step)
        elif step.kind == "reflect":
            pred = lesson.step_of(step.predict)
            out.append((p.reflect(step), p.right_choice(pred) if pred.choices else None))
        elif step.kind == "quiz":
            out.append((repr(p.quiz(step)), step.answer and p.check_quiz(step, step.answer)))
    return p.figures(), out


def test_lesson_one_is_the_same_watched_skipped_or_at_full_speed():
    lesson = next(x for x in bundled() if x.id == "write-amplification")
    seen = []

    def watch(drive, phases, first, index):
        seen.append((first, index, len(phases)))

    full = _play(lesson)
    watched = _play(lesson, watch)
    assert watched == full
    # the first configuration of the step to watch showed its first GCs, numbered from 1
    assert {i for _, i, _ in seen} == {0} and seen[0][0] == 1
    skipping = []
    skipped = _play(lesson, lambda *a: skipping.append(a), lambda: bool(skipping))
    assert skipped == full and len(skipping) == 1


def test_side_by_side_the_first_drive_is_watched_and_the_figures_agree():
    lesson = next(x for x in bundled() if x.id == "write-amplification")
    seen = []
    paired = _play(lesson, lambda drive, phases, first, slot: seen.append(slot), pair=True)
    assert paired == _play(lesson) and seen and set(seen) == {0}
