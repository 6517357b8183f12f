"""Every bundled lesson plays headless with its fixed seeds, like an example catalogue. Each
question whose right answer depends on a simulated outcome is decided from the run itself,
so a lesson whose choices no longer fit the model fails here. Run is refused until the
student has predicted.

Wall time: the fifteen lessons replay the documented experiments they compare with (the journal
one is the longest, about 35 s on an idle 2-core machine); `ssdlab lesson run --all` prints
each run step's time."""

import math

import pytest
import test_quiz_mistakes as mistakes
from test_hoststack_identical import RECORDED, same_as_recorded

from ssdlab.lessons import LessonClaimError, LessonPlay, bundled, parse_lesson, play
from ssdlab.lessons.report import report_text

LESSONS = {x.id: x for x in bundled()}
_PLAYED: dict[str, tuple] = {}


def _played(lesson_id: str):
    """Play a lesson once per test session; the records and the player's state."""
    if lesson_id not in _PLAYED:
        lesson = LESSONS[lesson_id]
        state = LessonPlay(lesson)
        records = play(lesson)
        for step in lesson.steps:  # replay the runs into a state we can question
            if step.kind == "predict":
                state.predict(step, step.answer)
        for rec in records:
            if rec.step.kind == "run":
                state.runs[rec.step.id] = rec.results
        _PLAYED[lesson_id] = (lesson, records, state)
    return _PLAYED[lesson_id]


class _Plays(dict):
    """Each lesson's player state, played (once per process, _played) when first asked."""

    def __missing__(self, lesson_id: str):
        return _played(lesson_id)[2]


@pytest.mark.parametrize("lesson_id,index", mistakes.QUIZZES)
def test_each_declared_mistake_is_named_and_the_answer_never_given(lesson_id, index):
    mistakes.each_declared_mistake_is_named_and_the_answer_never_given(
        _played(lesson_id)[2], index)


@pytest.mark.parametrize("lesson_id,index", mistakes.QUIZZES)
def test_the_working_shows_the_runs_own_numbers(lesson_id, index):
    mistakes.the_working_shows_the_runs_own_numbers(_played(lesson_id)[2], index)


def test_an_estimate_below_one_is_named_after_the_run():
    mistakes.an_estimate_below_one_is_named_after_the_run(_Plays())


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_lesson_plays_headless_and_its_claims_fit_the_model(lesson_id):
    lesson, records, state = _played(lesson_id)
    assert len(records) == len(lesson.steps)
    compared = []
    for step in lesson.steps:
        if step.kind != "predict" or step.measure is None:
            continue
        if step.choices:
            right = state.right_choice(step)  # LessonClaimError if no single choice fits
            assert 0 <= right < len(step.choices)
        else:
            assert math.isfinite(state.measured(step))
    for rec in records:
        if rec.step.kind == "run":
            assert [r.config.id for r in rec.results] == [c.id for c in rec.step.configs]
            # each file-system run, step by step, exactly as recorded before the host stack
            # was made faster (tests/test_hoststack_identical.py: this play is the one
            # place every lesson's runs are made, so the exact check is made here)
            for result in rec.results:
                if result.config.scenario is not None:
                    key = f"{lesson.path.stem}/{rec.step.id}/{result.config.id}"
                    same_as_recorded(key, result.steps)
                    compared.append(key)
        if rec.step.kind == "compare":
            assert rec.rows, f"{lesson_id}: compare step {rec.index} has no rows"
        if rec.step.kind == "reflect":
            assert rec.reflection.predicted and rec.reflection.measured
        if rec.step.kind == "quiz" and rec.step.answer:
            assert rec.verdict.correct, rec.verdict.feedback
    # every run the record keeps for this lesson was made and compared
    assert sorted(compared) == sorted(k for k in RECORDED
                                      if k.startswith(f"{lesson.path.stem}/"))
    text = report_text(lesson, records)
    assert text.startswith(f"# Lesson {lesson.order}: {lesson.title}")
    if any(s.kind == "compare" for s in lesson.steps):  # test_lessons: all but NOTHING_MEASURED
        assert "| source | what | documented | simulated |" in text
    assert "[[" not in text  # glossary links rendered as words


def test_the_simulated_outcomes_the_lessons_teach():
    """The lessons' central claims, read from their own runs."""
    fig = {k: _played(k)[2].figures() for k in ("spare-space", "trim", "journal-atime",
                                                "compression", "how-full",
                                                "compressed-spare")}
    spare = fig["spare-space"]["spare"]
    assert spare["sp28"]["wa"] < spare["gb120"]["wa"] < spare["sp7"]["wa"] < spare["op7"]["wa"]
    trim = fig["trim"]["discard"]
    assert trim["on"]["steps[3].seconds"] > 30 * trim["off"]["steps[3].seconds"]
    assert fig["compression"]["compress"]["source"]["steps[1].wa"] < 1
    # compressed data frees flash for GC: far below half the incompressible drive's WA
    spare = fig["compressed-spare"]["spare"]
    assert spare["half"]["wa"] < 0.2 * spare["none"]["wa"]
    assert spare["tenth"]["wa"] < 0.6 * spare["none"]["wa"]  # a tenth saved, over half
    journal = fig["journal-atime"]["journal"]

    def mb(config: str, steps: range) -> float:
        return sum(journal[config][f"steps[{i}].fs_written_mb"] for i in steps)

    # the journal adds a few per cent to a clone, and about doubles make clean
    assert mb("on", range(0, 2)) < 1.1 * mb("off", range(0, 2))
    assert mb("on", range(4, 6)) > 1.6 * mb("off", range(4, 6))


def test_run_stays_refused_until_every_prediction_about_it_is_made():
    lesson = LESSONS["write-amplification"]
    state = LessonPlay(lesson)
    run = next(s for s in lesson.steps if s.kind == "run")
    assert [s.id for s in state.waiting_for(run)] == ["wa-guess"]
    with pytest.raises(ValueError, match="predict first"):
        state.run(run)
    guess = lesson.step_of("wa-guess")
    with pytest.raises(ValueError, match="answer must be a choice from 0 to 3"):
        state.predict(guess, 7)
    state.predict(guess, 2)
    assert state.waiting_for(run) == []


RULE_LESSON = """format = 1
id = "rule"
title = "Rule"
order = 1
minutes = 5
summary = "s"

[[steps]]
kind = "predict"
id = "fact"
title = "A fact"
question = "Is a page erased alone?"
answer = 0
[[steps.choices]]
text = "yes"
explain = "no: blocks are erased"
correct = false
[[steps.choices]]
text = "no"
explain = "right"
correct = true

[[steps]]
kind = "predict"
id = "which"
title = "Which"
question = "Which writes more?"
measure = "r.*.wa"
rule = "largest"
answer = 0
[[steps.choices]]
text = "little spare"
explain = "e"
config = "low"
[[steps.choices]]
text = "much spare"
explain = "e"
config = "high"

[[steps]]
kind = "run"
id = "r"
title = "Run"
varies = "spare"
[[steps.configs]]
id = "low"
label = "low"
drive = { user_pages = 8192, pages_per_block = 32, spare = 0.08 }
measure_drive_writes = 0.5
[[steps.configs]]
id = "high"
label = "high"
drive = { user_pages = 8192, pages_per_block = 32, spare = 0.3 }
measure_drive_writes = 0.5

[[steps]]
kind = "reflect"
title = "r1"
predict = "fact"
text = "t"

[[steps]]
kind = "reflect"
title = "r2"
predict = "which"
text = "t"
"""


def test_fixed_answers_and_rules_decide_the_right_choice():
    lesson = parse_lesson(RULE_LESSON, "rule.toml")
    records = play(lesson)
    fact, which = records[3].reflection, records[4].reflection
    assert not fact.right and fact.measured == "no" and len(fact.explanation) == 2
    assert which.right and which.measured == "little spare"


def test_a_claim_the_run_cannot_decide_is_an_error():
    text = RULE_LESSON.replace('config = "high"', 'config = "low"')
    lesson = parse_lesson(text, "rule.toml")
    with pytest.raises(LessonClaimError, match="the largest is not one choice"):
        play(lesson)


def test_lesson_3_frontier_claims():
    """Separate GC copies cut WA under sharp skew: cost-benefit's by far the most, greedy's
    by more than a tenth (one shared frontier mixes one victim's cold survivors into every
    block of host data)."""
    frontier = _played("gc-policies")[2].figures()["frontier"]
    wa = {k: v["wa"] for k, v in frontier.items()}
    greedy = wa["greedy-separate"] / wa["greedy-shared"]
    assert wa["cb-separate"] / wa["cb-shared"] < greedy < 0.9


def _gc_figures(result) -> tuple[float, list[tuple[float, float]]]:
    """(pages GC copied, [(blocks erased, TRIM commands)] per scenario step, or one row for
    a block-level run) of one configuration's run."""
    f = result.figures
    if "gc_copies" in f:  # a zoned drive erases the blocks its resets (TRIMs) emptied
        return f["gc_copies"], [(f["erases"], f["trims"])]
    steps = range(len(result.steps))
    return (sum(f[f"steps[{i}].gc_copies"] for i in steps),
            [(f[f"steps[{i}].erases"], f[f"steps[{i}].trims"]) for i in steps])


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_a_run_is_watched_exactly_when_its_first_drive_collects_garbage(lesson_id):
    """A run step watched at teaching pace has GCs (or merges) to show in the configuration
    that is watched, its first; one that says why it is not watched (pace_why) never
    collects garbage there (it copies no page, and erases a block only where a TRIM emptied
    it), or runs the very drive an earlier step of the lesson watched."""
    _, records, _ = _played(lesson_id)
    watched = []
    for rec in records:
        if rec.step.kind != "run":
            continue
        first = rec.step.configs[0]
        copies, steps = _gc_figures(rec.results[0])
        collects = copies > 0 or any(erases > 0 for erases, _ in steps)
        if rec.step.pace == "teach":
            assert collects, f"{lesson_id}: run {rec.step.id} is watched but never collects"
            watched.append((first.spec, first.scenario))
        elif (first.spec, first.scenario) in watched:
            assert rec.step.pace_why  # shown a step or more before
        else:
            assert rec.step.pace_why
            assert copies == 0 and all(erases == 0 or trims > 0 for erases, trims in steps), \
                f"{lesson_id}: run {rec.step.id} says it is not watched because " \
                f"{rec.step.pace_why!r}, but its first drive collects garbage"
