"""A quiz step by keyboard (issue 25): Next onto a quiz puts the keyboard in its answer field
(Next stays enabled there, so nothing else moved it) and a screen reader hears the step and
its question (on any other step, which step came up), and the results beside the panel
describe the quiz's two states;
after Enter checks a wrong answer the keyboard is on Show answer and Tab goes on to Back and
Next; a right one goes straight to Next; an unreadable one back to the field. And the
Preferences have a key of their own (Ctrl+,) that the F1 list shows."""

from __future__ import annotations

import pytest
from _lesson_panel import kept_panel
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.appearance import announce
from ssdlab.app.gui.frame import shortcuts
from ssdlab.app.gui.lessons import keepfocus, lessonruns

K = Qt.Key


@pytest.fixture
def panel(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))  # progress kept there
    return kept_panel(qtbot)


def quiz(p) -> int:
    return next(i for i, s in enumerate(p.lesson.steps) if s.kind == "quiz")


def onto_the_quiz(qtbot, p) -> None:
    p.show_step(quiz(p) - 1)
    p.next_button.setFocus()
    qtbot.waitUntil(p.next_button.hasFocus)
    QTest.keyClick(p.next_button, K.Key_Space)
    assert p.step.kind == "quiz"


def answer(qtbot, p, text: str) -> None:
    """Type text and Enter, as the window does it (its field rule then hands focus to the
    window: shortcuts.FieldKeys)."""
    QTest.keyClicks(p.quiz_answer, text)
    QTest.keyClick(p.quiz_answer, K.Key_Return)
    p.window().setFocus()


def test_next_onto_a_quiz_focuses_its_field_and_says_the_question(qtbot, panel):
    p = panel
    onto_the_quiz(qtbot, p)
    qtbot.waitUntil(p.quiz_answer.hasFocus)
    question = p.quiz_answer.accessibleDescription()
    assert question and question == p.body.toPlainText()
    assert p.step.text.split(".")[0] in question
    where = p.where.text()
    announce.voice().flush()  # its turn, now (tests/test_speaking.py times the turns)
    assert announce.heard()[-1][0].endswith(keepfocus.said(where, question))
    assert keepfocus.said("What did it do?", "A drive.") == "What did it do? A drive."
    assert keepfocus.said("Step 7", "A drive.") == "Step 7. A drive."
    assert p.where.text().startswith(f"Step {p.index + 1} of ")
    # the two states the quiz is about, beside the panel, are read out where Tab stops
    told = p.results.accessibleDescription()
    assert p.results.accessibleName() == "Lesson results"
    assert "Before" in told and "After" in told and "block 0:" in told
    # a step that is not a quiz leaves the field without a question; Back to it by
    # keyboard says which step came up
    p.show_step(0)
    assert p.quiz_answer.accessibleDescription() == ""
    p.next_button.setFocus()
    qtbot.waitUntil(p.next_button.hasFocus)
    announce.voice().flush()
    QTest.keyClick(p.next_button, K.Key_Space)
    announce.voice().flush()
    assert p.index == 1 and announce.heard()[-1][0] == p.where.text()


def test_a_wrong_answer_leads_to_show_answer_then_back_and_next(qtbot, panel):
    p = panel
    onto_the_quiz(qtbot, p)
    qtbot.waitUntil(p.quiz_answer.hasFocus)
    answer(qtbot, p, "write 0")
    assert p.feedback.text().startswith("Not quite")
    qtbot.waitUntil(p.reveal_button.hasFocus)
    QTest.keyClick(p.reveal_button, K.Key_Space)  # (Return too, in the window)
    assert p.feedback.text().startswith("The answer:")
    order = []
    for _ in range(2):
        QTest.keyClick(QApplication.focusWidget(), K.Key_Tab)
        order.append(QApplication.focusWidget())
    assert order == [p.back_button, p.next_button]


def test_a_right_answer_goes_to_next_and_an_unreadable_one_back_to_the_field(qtbot, panel):
    p = panel
    onto_the_quiz(qtbot, p)
    qtbot.waitUntil(p.quiz_answer.hasFocus)
    answer(qtbot, p, "write")
    assert p.feedback.text().startswith("Answer:")  # the form was not understood
    qtbot.waitUntil(p.quiz_answer.hasFocus)
    p.quiz_answer.clear()
    answer(qtbot, p, p.step.answer)
    assert p.feedback.text().startswith("Right")
    qtbot.waitUntil(p.next_button.hasFocus)


def test_run_by_keyboard_goes_straight_to_cancel(qtbot, panel, monkeypatch):
    p = panel
    monkeypatch.setattr(lessonruns.LessonJob, "start", lambda self: None)  # no simulation
    predict = next(i for i, s in enumerate(p.lesson.steps) if s.kind == "predict")
    p.show_step(predict)
    p.predict(1)
    p.show_step(predict + 1)
    p.run_button.setFocus()
    qtbot.waitUntil(p.run_button.hasFocus)
    went = []
    QApplication.instance().focusChanged.connect(lambda _old, new: went.append(new))
    QTest.keyClick(p.run_button, K.Key_Space)
    assert p.job is not None
    qtbot.waitUntil(p.cancel_button.hasFocus)
    for _ in range(3):  # KeepFocus hands on after a zero timer: nothing may move it on
        QApplication.processEvents()
    assert went == [p.cancel_button]
    p.job = None


def test_preferences_have_a_key_the_help_lists(qtbot, until, bench):
    assert any(k == "Ctrl+," for entry in shortcuts.TABLE for k in entry.keys)
    assert any(keys == "Ctrl+," and "preferences" in does
               for keys, does in shortcuts.help_rows())
    bench.activateWindow()
    until(bench.isActiveWindow)
    QTest.keyClick(bench, K.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    until(lambda: bench.presentation.prefs_dialog is not None
          and bench.presentation.prefs_dialog.isVisible())
    bench.presentation.prefs_dialog.reject()


def test_finishing_a_lesson_is_said(qtbot, panel):
    p = panel
    p.show_step(len(p.lesson.steps) - 1)
    p.next_button.setFocus()
    qtbot.waitUntil(p.next_button.hasFocus)
    announce.voice().flush()
    QTest.keyClick(p.next_button, K.Key_Space)  # "Finish"
    assert p.pages.currentIndex() == 0
    announce.voice().flush()
    assert announce.heard()[-1][0] == f"Lesson 1 finished: {p.home.lessons[0].title}."


def test_next_onto_a_prediction_never_passes_the_focus_through_lessons(qtbot, panel):
    """Next turns disabled on a prediction step (predict first): Qt handed the focus to
    the next control in the chain, "Lessons", before it moved on to the question, and a
    screen reader said "Lessons" first."""
    p = panel
    first = next(i for i, s in enumerate(p.lesson.steps) if s.kind == "predict")
    p.show_step(first - 1)
    p.next_button.setFocus()
    qtbot.waitUntil(p.next_button.hasFocus)
    focused = []

    def seen(_old, new) -> None:
        focused.append(new)

    app = QApplication.instance()
    app.focusChanged.connect(seen)
    try:
        QTest.keyClick(p.next_button, K.Key_Space)
        assert p.step.kind == "predict" and not p.next_button.isEnabled()
        qtbot.waitUntil(lambda: p.choices.hasFocus() or p.estimate.hasFocus())
    finally:
        app.focusChanged.disconnect(seen)
    assert p.leave_button not in focused and p.back_button not in focused


def test_next_and_back_have_keys_that_work_from_anywhere_in_the_lesson(qtbot, until, bench):
    """Alt+Right is Next (Finish on the last step), Alt+Left Back, wherever the keyboard
    is: the lesson's text, the map, a quiz's answer field. On a read step Next was six Tabs
    away. The button's tooltip shows its key, the F1 list has both, and each has a name."""
    assert {("Alt+Right", "next step"), ("Alt+Left", "previous step")} <= {
        (keys, phrase) for keys, does in shortcuts.help_rows()
        for phrase in ("next step", "previous step") if phrase in does}
    panel = bench.lesson_panel
    bench.lesson_dock.show()
    panel.start(panel.lessons[0], 0)
    bench.activateWindow()
    until(bench.isActiveWindow)
    assert "Alt+Right" in panel.next_button.toolTip()
    assert panel.next_button.accessibleName() == "Next step"
    assert panel.back_button.accessibleName() == "Previous step"
    for holder in (panel.body, bench.views[0].blockmap, bench.lesson_results):
        panel.show_step(0)  # a read step: Next is enabled
        holder.setFocus()
        until(lambda h=holder: QApplication.focusWidget() is h)
        QTest.keyClick(holder, K.Key_Right, Qt.KeyboardModifier.AltModifier)
        until(lambda: panel.index == 1)
        QTest.keyClick(QApplication.focusWidget(), K.Key_Left, Qt.KeyboardModifier.AltModifier)
        until(lambda: panel.index == 0)
    quiz = next(i for i, s in enumerate(panel.lesson.steps) if s.kind == "quiz")
    panel.show_step(quiz)
    panel.quiz_answer.setFocus()
    until(panel.quiz_answer.hasFocus)
    QTest.keyClick(panel.quiz_answer, K.Key_Right, Qt.KeyboardModifier.AltModifier)
    until(lambda: panel.index == quiz + 1)
    assert panel.quiz_answer.text() == ""  # the key was not typed
    last = len(panel.lesson.steps) - 1
    panel.show_step(last)
    assert panel.next_button.accessibleName() == "Finish the lesson"
    QTest.keyClick(QApplication.focusWidget() or bench, K.Key_Right,
                   Qt.KeyboardModifier.AltModifier)
    until(lambda: panel.lesson is None)  # finished, back to the list
    assert panel.lessons[0].id in panel.progress.finished
