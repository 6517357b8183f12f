"""A quiz in the window (issue 35): the verdict and the working after Show answer never
move the answer field or its buttons (the next click used to miss them), at 1024 x 768 and
1366 x 768, in normal and presentation type; typing into an answer field, or on after Enter
moved the keyboard to Show answer, changes only the answer, never fires a window shortcut
("." stepped the workbench's drive); and "Colour by" during lesson 13 colours the maps and
leaves the lesson's settings and map titles as they were."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from test_gui_fit768 import hold
from test_gui_lecture import as_a_projector

from ssdlab.lessons.catalogue import find

K = Qt.Key


def settle() -> None:
    for _ in range(10):
        QApplication.processEvents()


def quiz_index(lesson) -> int:
    return next(i for i, s in enumerate(lesson.steps) if s.kind == "quiz")


def places(bench) -> list[tuple[int, int, int, int]]:
    """Where the answer field, Check, Show answer and Next are in the window, px."""
    p = bench.lesson_panel
    out = []
    for w in (p.quiz_answer, p.quiz_button, p.reveal_button, p.next_button):
        at = w.mapTo(bench, QPoint(0, 0))
        out.append((at.x(), at.y(), w.width(), w.height()))
    return out


@pytest.mark.parametrize("width", [1024, 1366])
@pytest.mark.parametrize("projector", [False, True], ids=["normal", "presentation"])
def test_the_verdict_never_moves_the_answer_field(bench, until, width, projector):
    try:
        if projector:
            as_a_projector(bench, until)
        hold(bench, until, width)
        p = bench.lesson_panel
        for lesson_id in ("1", "measuring-wa"):  # the tiny drive, then two counter readings
            lesson = find(lesson_id)
            p.start(lesson, 0)
            p.show_step(quiz_index(lesson))
            settle()
            step = p.step
            before = places(bench)
            q = p.play.quiz(step)
            # a wrong answer whose verdict takes several lines, then the working, then right
            wrong = "write 0-23; trim 0-2; gc 0-7" if lesson_id == "1" \
                else f"{q.lifetime_ratio:.2f}"
            for answer, act in ((wrong, p.check_quiz), (wrong, p.reveal_quiz),
                                (step.answer, p.check_quiz)):
                p.quiz_answer.setText(answer)
                act()
                settle()
                assert places(bench) == before, (lesson_id, p.feedback.text())
            assert p.feedback.text().startswith("Right")
        assert p.feedback_area.height() > 0
    finally:
        bench.toggle_presentation(False)


def _listen(bench) -> list[str]:
    """Every shortcut and action of the window, recorded when it fires."""
    fired: list[str] = []
    for sc in bench.findChildren(QShortcut):
        sc.activated.connect(lambda s=sc: fired.append(s.key().toString()))
    for action in {*bench.findChildren(QAction), *bench.actions()}:
        action.triggered.connect(lambda _c=False, a=action: fired.append(a.text()))
    return fired


# every character of the window's one-key shortcuts (shortcuts.TABLE: ".", "G", "1" to
# "4", "?", Space), the map's (+, -, 0) and the rest of the keyboard's letters and digits
TYPED = ".0123456789 abcdefghijklmnopqrstuvwxyz?G+-"


def test_typing_into_an_answer_changes_only_the_answer(bench, until):
    p = bench.lesson_panel
    lesson = find("1")
    p.start(lesson, 0)
    p.show_step(quiz_index(lesson))
    settle()
    fired = _listen(bench)
    sent: list = []
    own = bench.send_all
    bench.send_all = lambda *a, **k: (sent.append(a), own(*a, **k))[1]
    p.quiz_answer.setFocus()
    until(p.quiz_answer.hasFocus)
    QTest.keyClicks(p.quiz_answer, TYPED)
    QTest.keyClick(p.quiz_answer, K.Key_Left)  # the arrows move in the text, not the drive
    QTest.keyClick(p.quiz_answer, K.Key_Right)
    settle()
    assert p.quiz_answer.text() == TYPED
    # Enter checks it (unreadable: the keyboard stays); a wrong one hands the keyboard to
    # Show answer, and the next try typed there still goes into the answer
    p.quiz_answer.setText("write 0")
    QTest.keyClick(p.quiz_answer, K.Key_Return)
    until(lambda: p.reveal_button.hasFocus())
    assert p.feedback.text().startswith("Not quite")
    for ch in "; 7.1g4":
        QTest.keyClicks(QApplication.focusWidget(), ch)
    settle()
    assert p.quiz_answer.text() == "write 0; 7.1g4" and p.quiz_answer.hasFocus()
    # so too where a click beside the field left the keyboard: the lesson's text
    p.body.setFocus()
    until(p.body.hasFocus)
    QTest.keyClicks(p.body, ".3")
    settle()
    assert p.quiz_answer.text().endswith(".3")
    assert fired == [] and sent == [], (fired, sent)
    assert "starting" not in bench.status_message.text()


def test_typing_into_a_numeric_estimate_changes_only_the_estimate(bench, until):
    p = bench.lesson_panel
    lesson = find("spare-space")
    p.start(lesson, 0)
    step = next(i for i, s in enumerate(lesson.steps) if s.kind == "predict" and not s.choices)
    p.show_step(step)
    settle()
    fired = _listen(bench)
    p.estimate.setFocus()
    until(p.estimate.hasFocus)
    p.estimate.selectAll()
    QTest.keyClicks(QApplication.focusWidget(), TYPED)  # a number box refuses the letters
    settle()
    assert fired == []
    p.estimate.selectAll()
    QTest.keyClicks(QApplication.focusWidget(), "4.25")
    settle()
    assert p.estimate.value() == pytest.approx(4.25)
    p.estimate_button.setFocus()
    until(p.estimate_button.hasFocus)
    QTest.keyClicks(p.estimate_button, "1")  # on the button: into the estimate, at its end
    settle()
    assert p.estimate.hasFocus() and fired == []


def test_colour_by_in_lesson_13_keeps_the_lessons_labels(bench, until):
    p = bench.lesson_panel
    lesson = find("endurance")
    p.start(lesson, 0)
    run = next(i for i, s in enumerate(lesson.steps) if s.kind == "run")
    p.show_step(run)
    until(lambda: len(bench.views) == 2)  # the run's two configurations on maps A and B
    settle()
    spare = bench.controls.widgets["spare_pct"]
    titles = [v.title.text() for v in bench.views]
    assert spare.value() == 12 and titles[1].startswith("B: 90 % of rewrites to a tenth")
    own = bench.session.settings
    legend = bench.views[0].legend
    legend.combo.setCurrentIndex(legend.combo.findData("erases"))
    settle()
    assert [v.title.text() for v in bench.views] == titles
    assert spare.value() == 12
    assert all(v.legend.mode == "erases" and v.blockmap.mode == "erases" for v in bench.views)
    assert bench.views[1].legend.isVisible()  # B's heat map has a range of its own
    assert bench.session.settings == own  # the workbench's own drive is not touched
    p.show_step(run + 1)  # the choice stays from step to step
    settle()
    assert bench.views[0].blockmap.mode == "erases"
    assert spare.value() == 12
    p.leave()  # free exploration colours by its own setting again
    settle()
    assert bench.views[0].blockmap.mode == own.heatmap
