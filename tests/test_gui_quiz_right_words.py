"""A right quiz answer is told what it got right, and no more. Every quiz said "Right: that
is what the drive did.", also where the student had worked a figure out of a run's numbers
and given it in the unit asked (seconds per TRIM as milliseconds, a fraction as per cent):
the drive did not do that, the student did. Now the tiny drive's quiz says what the drive
did, two counter readings' quiz the write amplification between them, and a run's quiz
the figure its numbers give, to within the tolerance, in the unit asked."""

from __future__ import annotations

from _lesson_panel import lesson_panel

from ssdlab.lessons.catalogue import find
from ssdlab.lessons.quiz import check_answer, make_quiz
from ssdlab.lessons.runquiz import RunQuiz, check_run_quiz


def test_a_run_quiz_right_after_a_unit_change_says_so():
    # lesson 4's quiz: a sync's seconds over its TRIMs, asked in milliseconds
    q = RunQuiz((), value=1.013, unit="ms", tolerance=0.05)
    v = check_run_quiz(q, "1.0")
    assert v.correct
    assert v.right == ("that is what the simulated run's figures give, to within 5 %, in ms "
                       "as the question asks")
    assert "drive did" not in v.right
    # a ratio has no unit to name ("x" is the ratio's own sign)
    assert check_run_quiz(RunQuiz((), 2.5, "x", 0.02), "2.5").right == \
        "that is what the simulated run's figures give, to within 2 %"
    assert check_run_quiz(q, "1.2").right == ""  # wrong: nothing is said right


def test_the_tiny_drives_quiz_is_what_the_drive_did():
    q = make_quiz(14, 3)
    assert check_answer(q, q.truth.text()).right == "that is what the drive did"


def test_the_window_says_what_a_counter_quiz_answer_got_right(qtbot, monkeypatch, tmp_path):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    p = lesson_panel(qtbot)
    lesson = find("measuring-wa")
    p.start(lesson, 0)
    p.show_step(next(i for i, s in enumerate(lesson.steps) if s.kind == "quiz"))
    q = p.play.quiz(p.step)
    p.quiz_answer.setText(f"{q.truth.wa:.3f}")
    p.check_quiz()
    assert p.feedback.text() == ("Right: that is the drive's write amplification between the "
                                 "two readings."), p.feedback.text()
