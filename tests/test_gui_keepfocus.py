"""Focus stays in the lesson when the focused button turns disabled
(ssdlab/app/gui/lessons/keepfocus.py): Run hands it to Cancel, Cancel to Next, Next on a new
predict step to the answers; never to "Lessons", which one more Enter would leave by."""

from __future__ import annotations

import pytest
from _lesson_panel import lesson_panel
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.lessons import keepfocus


@pytest.fixture
def panel(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    p = lesson_panel(qtbot)
    keepfocus.install(p)
    return p


def _step(p, kind: str) -> int:
    return next(i for i, s in enumerate(p.lesson.steps) if s.kind == kind)


def test_run_hands_focus_to_cancel_and_cancel_to_next(qtbot, panel):
    p = panel
    p.show_step(_step(p, "predict"))
    p.predict(1)
    p.show_step(_step(p, "run"))
    p.run_button.setFocus()
    qtbot.waitUntil(p.run_button.hasFocus)
    p.run_button.setEnabled(False)  # as a run starting does (lessonruns.start_job)
    p.cancel_button.setEnabled(True)
    qtbot.waitUntil(p.cancel_button.hasFocus)
    p.next_button.setEnabled(True)  # as a run's end does
    p.cancel_button.setEnabled(False)
    qtbot.waitUntil(p.next_button.hasFocus)
    assert QApplication.focusWidget() is not p.leave_button


def test_next_to_a_predict_step_focuses_its_answers(qtbot, panel):
    p = panel
    p.show_step(_step(p, "predict") - 1)
    p.next_button.setFocus()
    qtbot.waitUntil(p.next_button.hasFocus)
    qtbot.keyClick(p.next_button, " ")  # Space presses Next
    assert p.step.kind == "predict" and not p.next_button.isEnabled()
    qtbot.waitUntil(p.choices.hasFocus)


def test_enter_in_the_quiz_field_goes_on_to_next(qtbot, panel):
    p = panel
    p.show_step(next(i for i, s in enumerate(p.lesson.steps) if s.kind == "quiz"))
    p.quiz_answer.setFocus()
    qtbot.waitUntil(p.quiz_answer.hasFocus)
    p.window().setFocus()  # what Enter in a field does in the window (shortcuts.FieldKeys)
    qtbot.waitUntil(p.next_button.hasFocus)
