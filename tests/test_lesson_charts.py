"""What the lesson player draws, as data (ssdlab/lessons/charts.py): a run's chart keeps every
configuration; a prediction's picture puts the guess and the outcome on one axis."""

from __future__ import annotations

import math

import pytest

from ssdlab.lessons.catalogue import find
from ssdlab.lessons.charts import (
    compare_pictures,
    prediction_picture,
    predictions_about,
    run_chart,
)
from ssdlab.lessons.player import LessonPlay


@pytest.fixture(scope="module")
def played():
    lesson = find("1")
    play = LessonPlay(lesson)
    play.predict(lesson.step_of("wa-guess"), 3)
    play.run(lesson.step_of("overwrite"))
    return lesson, play


def test_a_block_run_chart_keeps_each_configuration(played):
    lesson, play = played
    step = lesson.step_of("overwrite")
    chart = run_chart("wa_windows", step, play.runs[step.id])
    assert chart.kind == "lines"
    assert [s.label for s in chart.series] == [c.label for c in step.configs]
    assert all(len(s.y) == len(chart.x) == 10 for s in chart.series)
    assert chart.x[-1] == pytest.approx(1.0)
    assert list(chart.series[0].y) == list(play.runs[step.id][0].wa_windows)


def test_a_range_question_shows_the_bands_the_guess_and_the_outcome(played):
    lesson, play = played
    step = lesson.step_of("wa-guess")
    before = prediction_picture(step, 3, None)
    assert before.kind == "bands" and math.isnan(before.measured)
    assert [b.chosen for b in before.bands] == [False, False, False, True]
    assert not any(b.right for b in before.bands)
    after = prediction_picture(step, 3, play)
    value = play.measured(step)
    assert after.measured == value
    (right,) = [b for b in after.bands if b.right]
    assert right.low <= value < right.high
    lo, hi = after.axis_range()
    assert lo <= value <= hi
    # the open-ended "more than 10" (drawn to 1000) does not squeeze the axis
    assert hi < 100


def test_predictions_about_a_run_and_a_which_is_larger_picture():
    lesson = find("4")
    run = next(s for s in lesson.steps if s.kind == "run")  # the discard run
    about = predictions_about(lesson, run.id)
    assert about and all(p.measure.run == run.id for p in about)
    which = next(p for p in about if p.rule)
    picture = prediction_picture(which, 1, None)
    assert picture.kind == "bars" and [b.chosen for b in picture.bars] == [False, True]


def test_compare_rows_become_documented_beside_simulated(played):
    lesson, play = played
    step = next(s for s in lesson.steps if s.kind == "compare")
    rows = play.compare(step)
    pictures = compare_pictures(rows)
    assert [p.kind for p in pictures] == ["compare"] * len(rows)
    for picture, row in zip(pictures, rows, strict=True):
        assert [b.value for b in picture.bars] == [row.documented, row.simulated]
        assert ("agrees" if row.agrees else "differs") in picture.title


def test_an_unknown_chart_is_refused_with_the_allowed_names(played):
    lesson, play = played
    with pytest.raises(ValueError, match="wa_windows"):
        run_chart("pie", lesson.step_of("overwrite"), [])


def test_each_series_sits_on_its_own_measured_writes():
    lesson = find("9")
    play = LessonPlay(lesson)
    for p in (s for s in lesson.steps if s.kind == "predict"):
        play.predict(p, p.answer)
    (run,) = [s for s in lesson.steps if s.kind == "run"]
    play.run(run)
    chart = run_chart("wa_windows", run, play.runs[run.id])
    ends = [s.x[-1] for s in chart.series]
    assert ends == pytest.approx([c.spec.measure_drive_writes for c in run.configs])


def test_a_ratio_axis_names_both_figures_in_the_lessons_words():
    from ssdlab.lessons.charts import FIGURE_WORDS, measure_label
    from ssdlab.lessons.figures import BLOCK_FIGURES, STEP_FIGURES

    assert set(FIGURE_WORDS) <= set(BLOCK_FIGURES) | set(STEP_FIGURES)
    lesson = find("2")
    ratio = next(s for s in lesson.steps if s.kind == "predict" and s.measure.over)
    text = measure_label(ratio.measure, lesson)
    labels = {c.id: c.label for c in lesson.step_of(ratio.measure.run).configs}
    assert text == (f"WA, {labels[ratio.measure.config]} ÷ "
                    f"WA, {labels[ratio.measure.over.config]}")
    steps = find("4")
    sync = next(s for s in steps.steps if s.kind == "predict" and s.measure.over)
    assert "step 4 (sync)" in measure_label(sync.measure, steps)
