"""Feedback that finds the mistake (issue 35): every quiz of the bundled lessons declares the
usual wrong ways to its answer, and a wrong answer that fits one hears it named in plain
words, never the right number; a right answer is accepted; a wrong answer that fits none
still hears something sensible; Show answer gives the working with the run's own numbers.
The declarations are checked by the loader (file, line and field on a bad one).

The checks that need the lessons' runs are in tests/test_lessons_play.py, which plays every
lesson once for all of them (they are written here, without test_ in their names); this file
played the quizzed runs of every lesson a second time."""

from __future__ import annotations

import math
import re

import pytest

from ssdlab.lessons import LessonError, LessonPlay, parse_lesson
from ssdlab.lessons.catalogue import bundled
from ssdlab.lessons.counterquiz import CounterQuiz, spotted
from ssdlab.lessons.mistakes import MISTAKE_TOLERANCE
from ssdlab.lessons.quiz import Quiz
from ssdlab.lessons.runquiz import RunQuiz, number

QUIZZES = [(lesson.id, i) for lesson in bundled() for i, s in enumerate(lesson.steps)
           if s.kind == "quiz"]


def shown_forms(value: float) -> set[str]:
    """How the right number might be written in a message."""
    return {number(value), f"{value:.2f}", f"{value:.3g}", f"{value:.1f}"}


def test_every_bundled_quiz_declares_its_mistakes():
    assert {x for x, _ in QUIZZES} == {x.id for x in bundled()}  # every lesson ends with one
    # the two lessons whose working the_working_shows_the_runs_own_numbers reads in detail
    assert {"new-drive-slows", "spare-space"} <= {x for x, _ in QUIZZES}
    for lesson in bundled():
        for step in lesson.steps:
            if step.kind == "quiz":
                assert step.mistakes, f"{lesson.id}: {step.title} declares no mistake"
            if step.kind == "predict" and not step.choices:
                assert step.mistakes, f"{lesson.id}: {step.id} declares no mistake"


def each_declared_mistake_is_named_and_the_answer_never_given(play: LessonPlay,
                                                              index: int) -> None:
    """Quiz `index` of a lesson played in full (the test is in tests/test_lessons_play.py,
    which plays every lesson once for all its checks: this file played their quizzed runs
    a second time, about 23 s of processor time)."""
    step = play.lesson.steps[index]
    q = play.quiz(step)
    assert play.check_quiz(step, step.answer).correct  # the recorded answer is right
    if isinstance(q, Quiz):
        _tiny(play, step, q)
    else:
        _numeric(play, step, q)
    # Show answer: the answer, then the working
    shown = play.quiz_truth(step).splitlines()
    assert len(shown) >= 2


def _numeric(play, step, q) -> None:
    if isinstance(q, RunQuiz):
        right, spots, tolerance = q.value, q.mistakes, q.tolerance
    else:
        right, spots, tolerance = q.truth.wa, spotted(q, step.mistakes), 0.03
    assert [s.kind for s in spots] == [m.kind for m in step.mistakes]
    assert play.check_quiz(step, f"{right:.3g}").correct
    for s in spots:
        if s.below is not None:  # a WA under 1 that no other mistake explains
            answers = [x for x in (0.9, 0.75, 0.6, 0.5, 0.45)
                       if not any(o.values and o.fits(x, tolerance) for o in spots)]
            assert answers, f"{s.kind}: every answer under 1 is taken by another mistake"
            wrong = f"{answers[0]:g}"
        else:
            value = s.values[0]
            # told apart from the right answer, beyond both tolerances
            assert all(abs(v - right) > (tolerance + MISTAKE_TOLERANCE) * abs(right)
                       for v in s.values), f"{s.kind} gives {s.values}, too near {right}"
            wrong = f"{value:.3g}" if value else "0"
        verdict = play.check_quiz(step, wrong)
        assert not verdict.correct and verdict.mistakes == (s.kind,), (s.kind, wrong, verdict)
        assert verdict.feedback == (s.says,)
        for form in shown_forms(right):
            assert not re.search(rf"(?<![\d.]){re.escape(form)}(?![\d])", s.says), \
                (s.kind, form, s.says)
    # a wrong answer that fits no mistake still hears how far off it is
    for factor in (1.37, 1.9, 2.6, 0.73, 0.42):
        guess = right * factor
        if not any(s.fits(guess, tolerance) for s in spots):
            break
    else:
        pytest.fail("every wrong answer tried fits a mistake")
    verdict = play.check_quiz(step, f"{guess:.3g}")
    assert not verdict.correct and verdict.mistakes == ()
    said = " ".join(verdict.feedback)
    if isinstance(q, RunQuiz):
        assert ("too high" if factor > 1 else "too low") in said
    else:
        assert "subtract the first reading" in said
    for form in shown_forms(right):
        assert form not in said.replace(f"{guess:.3g}", "")


def _tiny(play, step, q: Quiz) -> None:
    """Each tiny-drive mistake made on top of the right answer: its line, with how many
    and never which; the rest of the answer still right."""
    truth = q.truth
    moved = sorted({lpn for lpn, _, _ in q.copies} - truth.write)
    into = sorted({to for _, _, to in q.copies} - truth.gc)
    made = {"copies-as-writes": f"; write {moved[0]}" if moved else None,
            "overwrite-as-trim": f"; trim {min(truth.write)}" if truth.write else None,
            "gc-destination": f"; gc {into[0]}" if into else None}
    for m in step.mistakes:
        extra = made[m.kind]
        assert extra is not None, f"{m.kind} cannot happen on seed {q.seed}"
        verdict = play.check_quiz(step, truth.text() + extra)
        assert not verdict.correct and verdict.mistakes == (m.kind,)
        line = next(f for f in verdict.feedback if f.startswith(extra[2:].split()[0]))
        assert " 1 page " in f" {line} " or " 1 block " in f" {line} "
        assert extra.split()[-1] not in re.findall(r"\d+", line.replace("1 page", "")
                                                   .replace("1 block", ""))
    # a page the drive never touched, named as written: the plain count
    untouched = sorted(set(range(24)) - truth.write - truth.trim
                       - {lpn for lpn, _, _ in q.copies})
    verdict = play.check_quiz(step, truth.text() + f"; write {untouched[0]}")
    assert verdict.feedback == ("write: 1 page you named the drive never wrote",)
    working = play.quiz_truth(step)
    for b in truth.gc:
        line = next(x for x in working.splitlines()
                    if x.startswith(f"gc {b}: garbage collection chose block {b}"))
        copied = [(lpn, to) for lpn, fro, to in q.copies if fro == b]
        numbers = set(re.findall(r"\d+", line.split("copied", 1)[-1]))
        assert {str(x) for pair in copied for x in pair} <= numbers, line


def the_working_shows_the_runs_own_numbers(play: LessonPlay, index: int) -> None:
    """Show answer on quiz `index` of a lesson played in full, if it is a quiz of a run's
    figures: each given figure, the division and the answer, and a figure the quiz does not
    give worked out from those it does (the test is in tests/test_lessons_play.py, quiz by
    quiz, so that a worker that takes one of them plays its lesson only)."""
    step = play.lesson.steps[index]
    q = play.quiz(step)
    if not isinstance(q, RunQuiz):
        return
    shown = play.quiz_truth(step)
    first, *working = shown.splitlines()
    assert first.startswith(number(q.value))
    assert working[-1].endswith(number(q.value) + (f" {q.unit}" if step.scale != 1
                                                  else "")) or \
        number(q.value) in working[-1]
    for g in q.given:
        assert number(g.value) in shown, (play.lesson.id, g.label)
    first_quiz = next(s for s in play.lesson.steps if s.kind == "quiz")
    if play.lesson.id == "new-drive-slows" and step is first_quiz:
        f = play.figures()["x25m"]["used"]
        line = play.quiz_truth(step).splitlines()[1]
        host, copies, nand = (number(f[k]) for k in ("host_writes", "gc_copies",
                                                     "nand_writes"))
        assert f"= {host} + {copies} = {nand}" in line and f["nand_writes"] == \
            f["host_writes"] + f["gc_copies"]
    if play.lesson.id == "spare-space" and step is first_quiz:
        sp28 = play.figures()["spare"]["sp28"]
        assert math.isclose(sp28["spare"] / (1 - sp28["spare"]), sp28["extra_of_user"])
        assert play.quiz_truth(step).splitlines()[-1] == \
            f"× 100 = {number(100 * sp28['extra_of_user'])} %"


def test_a_counter_quizs_working_subtracts_then_divides():
    from ssdlab.lessons.counterquiz import make_counter_quiz

    q: CounterQuiz = make_counter_quiz(4)
    lines = q.shown_answer().splitlines()
    a, b = q.first, q.second
    assert f"{b.host_mib} − {a.host_mib} = {b.host_mib - a.host_mib} MiB" in lines[1]
    assert f"{b.nand_mib} − {a.nand_mib} = {b.nand_mib - a.nand_mib} MiB" in lines[2]
    assert f"WA = {q.truth.nand_pages} / {q.truth.host_pages}" in lines[-1]


def an_estimate_below_one_is_named_after_the_run(played: dict[str, LessonPlay]) -> None:
    """Lesson 2's numeric estimate: a WA under 1 is a mistake the reflection names; an
    estimate near the outcome hears no mistake (the test is in tests/test_lessons_play.py)."""
    two = bundled()[1]
    play = LessonPlay(two)
    play.runs = played[two.id].runs
    step = next(s for s in two.steps if s.kind == "predict" and not s.choices)
    reflect = next(s for s in two.steps if s.kind == "reflect" and s.predict == step.id)
    play.answers = dict(played[two.id].answers)
    play.answers[step.id] = 0.5
    r = play.reflect(reflect)
    assert not r.right and r.explanation[0].startswith("Your estimate: a write "
                                                       "amplification below 1")
    play.answers[step.id] = play.measured(step) * 1.2
    assert play.reflect(reflect).explanation == ()
    play.answers[step.id] = 9.0  # far off but no mistake it declares
    assert play.reflect(reflect).explanation == ()


BASE = '''format = 1
id = "m"
title = "M"
order = 1
minutes = 5
summary = "Mistakes."

[[steps]]
kind = "predict"
id = "guess"
title = "P"
question = "How much?"
measure = "r.a.wa"
unit = "x"
answer = 2.0

[[steps]]
kind = "run"
id = "r"
title = "R"

[[steps.configs]]
id = "a"
label = "a drive"
drive = { user_pages = 4096, pages_per_block = 32, spare = 0.1 }

[[steps]]
kind = "quiz"
title = "Q"
text = "Work it out."
given = ["r.a.host_writes", "r.a.nand_writes"]
measure = "r.a.nand_writes / r.a.host_writes"
unit = "x"
'''


def test_the_loader_reads_mistakes_and_refuses_bad_ones():
    lesson = parse_lesson(BASE + '\n[[steps.mistakes]]\nkind = "inverted"\n\n'
                          '[[steps.mistakes]]\nkind = "unit"\nfactor = 100\nsays = "per cent"\n'
                          '\n[[steps.mistakes]]\nkind = "counted-fill"\n'
                          'measure = "r.a.lifetime_wa"\n', "m.toml")
    quiz = lesson.steps[2]
    assert [m.kind for m in quiz.mistakes] == ["inverted", "unit", "counted-fill"]
    assert quiz.mistakes[1].factor == 100 and quiz.mistakes[1].says == "per cent"
    assert quiz.mistakes[2].measure.figure == "lifetime_wa"
    # the tiny drive and the counter quiz recognise theirs without a declaration
    tiny = parse_lesson(BASE.replace('given = ["r.a.host_writes", "r.a.nand_writes"]\n'
                                     'measure = "r.a.nand_writes / r.a.host_writes"\n'
                                     'unit = "x"\n', 'seed = 3\n'), "m.toml").steps[2]
    assert [m.kind for m in tiny.mistakes] == ["copies-as-writes", "overwrite-as-trim",
                                               "gc-destination"]
    bad = [
        ('kind = "copies-as-writes"\n', r"m.toml:3\d: steps\[2\].mistakes\[0\].kind: must be "
         "one of inverted, copies-only"),
        ('kind = "unit"\n', r"steps\[2\].mistakes\[0\].factor: factor is required"),
        ('kind = "unit"\nfactor = 1\n', "a unit slip's factor differs from 1"),
        ('kind = "inverted"\nfactor = 2\n', "factor belongs to a mistake of kind unit"),
        ('kind = "other-run"\n', r"mistakes\[0\].measure: measure is required"),
        ('kind = "other-run"\nmeasure = "r.b.wa"\n', "configuration must be one of a; got 'b'"),
        ('kind = "other-run"\nmeasure = "s.a.wa"\n', "must name a run step"),
        ('kind = "inverted"\nwhy = "x"\n', "unknown field 'why'"),
        ('kind = "inverted"\n\n[[steps.mistakes]]\nkind = "inverted"\n', "each kind once"),
    ]
    for table, needle in bad:
        with pytest.raises(LessonError, match=needle):
            parse_lesson(BASE + "\n[[steps.mistakes]]\n" + table, "m.toml")
    with pytest.raises(LessonError, match="a difference is of a ratio's two figures"):
        parse_lesson(BASE.replace('measure = "r.a.nand_writes / r.a.host_writes"',
                                  'measure = "r.a.wa"')
                     + '\n[[steps.mistakes]]\nkind = "difference"\n', "m.toml")
    # an estimate's mistakes name its own run; a choice question has none
    estimate = BASE.replace('answer = 2.0\n', 'answer = 2.0\n\n[[steps.mistakes]]\n'
                            'kind = "below-one"\n')
    assert parse_lesson(estimate, "m.toml").steps[0].mistakes[0].kind == "below-one"
    with pytest.raises(LessonError, match="steps.0..mistakes.0..kind: must be one of"):
        parse_lesson(estimate.replace('"below-one"', '"copies-only"'), "m.toml")
