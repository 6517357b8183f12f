"""A run step a lesson says to watch (pace = "teach", the default of a run with a block map):
the loader checks the field and the reason a step gives for not being watched, every bundled
run step is watched or says why not, and the lesson's figures, right answers and quiz are
the same whether the student watched its GCs, skipped to the end part way, or the step ran
at full speed (ssdlab/lessons/player.py with watch_gc): block-level runs, and scenario runs
whose file system's writes, idle time and block-mapped merges are watched."""

from __future__ import annotations

import math

import pytest

from ssdlab.lessons import LessonPlay, bundled, parse_lesson
from ssdlab.lessons.catalogue import find
from ssdlab.lessons.lesson import LessonError
from ssdlab.model.flash.gcwatch import TEACH_GCS

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
{pace}
[[steps.configs]]
id = "a"
label = "a"
drive = {{ user_pages = 2048, pages_per_block = 32, spare = 0.1 }}
measure_drive_writes = 0.5
"""


def _lesson(pace='pace = "teach"', blockmap="true"):
    return parse_lesson(LESSON.format(pace=pace, blockmap=blockmap), "pace.toml")


def test_the_loader_reads_and_checks_pace():
    assert _lesson().steps[1].pace == "teach"
    # a run with a block map is watched unless it says why not; one without is not
    assert _lesson("").steps[1].pace == "teach"
    assert _lesson("", blockmap="false").steps[1].pace == "full"
    why = 'pace = "full"\npace_why = "no GC happens"'
    assert _lesson(why).steps[1].pace_why == "no GC happens"
    with pytest.raises(LessonError, match=r"pace.*must be one of full, teach; got 'slow'"):
        _lesson('pace = "slow"')
    with pytest.raises(LessonError, match=r"pace.*needs blockmap = true"):
        _lesson(blockmap="false")
    with pytest.raises(LessonError, match=r"pace_why.*needs pace_why, the reason"):
        _lesson('pace = "full"')
    with pytest.raises(LessonError, match=r"pace_why says why a run is not watched"):
        _lesson('pace = "teach"\npace_why = "because"')


def test_every_bundled_run_step_is_watched_or_says_why_not():
    """A student sees the first GCs in every lesson that runs a drive: each run step shows
    them on its block map at teaching pace, or gives the reason it does not
    (tests/test_lessons_play.py checks the reasons against the runs)."""
    for lesson in bundled():
        runs = [s for s in lesson.steps if s.kind == "run"]
        for s in runs:
            watched = s.pace == "teach" and s.blockmap
            assert watched or len(s.pace_why) > 20, (lesson.id, s.id)
            assert not (watched and s.pace_why), (lesson.id, s.id)
    watched = {x.order for x in bundled() for s in x.steps
               if s.kind == "run" and s.pace == "teach"}
    # every lesson but the ones whose runs never collect garbage (6: trimmed free space;
    # 7 and 10: a kernel tree on a big, nearly empty drive, lesson 10's full drive of
    # compressed data now lesson 17's, watched; 15: an empty drive written through its SLC
    # cache; 18: a zoned drive, whose cleaning is the computer's)
    assert watched == set(range(1, 19)) - {6, 7, 10, 15, 18}


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
    return _same_nan(p.figures()), out


def _same_nan(figures: dict) -> dict:
    """Figures with nan as a string, so == compares them (a step with no host write has
    no WA: nan, which is never equal to itself)."""
    return {run: {c: {k: "nan" if math.isnan(v) else v for k, v in f.items()}
                  for c, f in configs.items()} for run, configs in figures.items()}


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


@pytest.mark.parametrize("order", [
    "8",  # a file system on a block-mapped drive: its merges
    "14",  # a file system on a page-mapped drive: its writes and its idle time's GCs
    "5",  # the "fast" hybrid mapping: a full log's merges, several from one write
    "13",  # block level, two drives side by side
])
def test_other_lessons_are_the_same_watched_skipped_or_at_full_speed(order):
    lesson = find(order)
    seen = []

    def watch(drive, phases, first, index):
        seen.append((first, index, [(p.name, p.episode.kind, p.p2l is not None)
                                    for p in phases]))

    full = _play(lesson, pair=order == "13")
    assert _play(lesson, watch, pair=order == "13") == full
    # the first configuration of each watched step showed its first GCs, in order, each
    # as mark, move and erase; the ones beyond the first three were counted, not kept
    assert seen and {i for _, i, _ in seen} == {0} and seen[0][0] == 1
    kinds = {"8": "merge", "5": "merge"}.get(order, "gc")
    for first, _, phases in seen:
        assert [name for name, _, _ in phases[:3]] == ["mark", "move", "erase"]
        assert {kind for _, kind, _ in phases} == {kinds}
        kept = sum(k for _, _, k in phases) // 3
        assert kept == min(len(phases) // 3, TEACH_GCS - first + 1)
    skipping = []
    assert _play(lesson, lambda *a: skipping.append(a), lambda: bool(skipping)) == full
    assert len(skipping) == 1
