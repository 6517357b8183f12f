"""A prediction's answers are chosen as in a group of radio buttons (issue 38): Tab into the
list highlights the first answer without choosing it, Space chooses the highlighted one,
the arrows move and choose, Return chooses too. Once the arrows and Space only moved a
highlight, Return alone chose, and Next stayed disabled with nothing saying why. A disabled
Next says what it waits for, in words right above it and in its accessible description."""

from __future__ import annotations

import pytest
from _lesson_panel import kept_panel
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.appearance import announce
from ssdlab.app.gui.lessons import lessonruns

K = Qt.Key


@pytest.fixture
def panel(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))  # progress kept there
    return kept_panel(qtbot)


def step_of(p, kind: str) -> int:
    return next(i for i, s in enumerate(p.lesson.steps) if s.kind == kind)


def chosen(p):
    return p.play.answers.get(p.step.id)


def says_why_next_waits(p, words: str) -> None:
    """Next disabled, the note above it shown with words, and the same in its description;
    the note sits right above the row of Back and Next."""
    note = p.next_note
    assert not p.next_button.isEnabled()
    assert note.isVisible() and words in note.text(), note.text()
    assert p.next_button.accessibleDescription() == note.text()
    gap = p.next_button.mapTo(p, p.next_button.rect().topLeft()).y() \
        - note.mapTo(p, note.rect().bottomLeft()).y()
    assert 0 <= gap <= 2 * note.fontMetrics().height(), gap  # the layout's spacing


def says_nothing(p) -> None:
    assert p.next_button.isEnabled() and not p.next_note.isVisible()
    assert p.next_button.accessibleDescription() == ""


def test_arrows_and_space_choose_an_answer_and_next_says_what_it_waits_for(qtbot, panel):
    p = panel
    p.show_step(step_of(p, "predict"))
    says_why_next_waits(p, "waits for your prediction")
    p.back_button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(p.back_button.hasFocus)
    for _ in range(10):  # Shift+Tab from Back into the answers, as a student reaches them
        QTest.keyClick(QApplication.focusWidget(), K.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
        if p.choices.hasFocus():
            break
    assert p.choices.hasFocus()
    # the first answer highlighted, not chosen: nothing is chosen by Tab alone
    assert p.choices.currentRow() == 0 and chosen(p) is None
    says_why_next_waits(p, "waits for your prediction")
    announce.heard().clear()  # it keeps the last 50: counted from none
    heard = 0
    QTest.keyClick(p.choices, K.Key_Space)
    announce.voice().flush()  # its turn, now (announcements are paced: test_speaking.py)
    assert chosen(p) == 0 and p.choices.selectedItems() == [p.choices.item(0)]
    says_nothing(p)
    assert announce.heard()[-1][0].endswith("Prediction saved. Next: the run.")
    assert len(announce.heard()) == heard + 1
    QTest.keyClick(p.choices, K.Key_Down)  # the arrows move and choose
    assert chosen(p) == 1 and p.choices.currentRow() == 1
    QTest.keyClick(p.choices, K.Key_Down)
    QTest.keyClick(p.choices, K.Key_Up)
    assert chosen(p) == 1
    announce.voice().flush()
    assert len(announce.heard()) == heard + 1  # said once, not at every arrow
    QTest.keyClick(p.choices, K.Key_Return)  # Return chooses (and says so again)
    announce.voice().flush()
    assert chosen(p) == 1 and "Prediction saved" in announce.heard()[-1][0]
    # the step shown again shows the answer, chosen, without choosing it anew
    heard = len(announce.heard())
    p.show_step(step_of(p, "predict"))
    announce.voice().flush()
    said = [text for text, _loud in list(announce.heard())[heard:]]
    assert p.choices.currentRow() == 1 and chosen(p) == 1
    assert not any("Prediction saved" in text for text in said), said
    says_nothing(p)
    assert "arrow keys" in p.choices.toolTip()


def test_return_on_a_highlight_not_yet_chosen_chooses_it(qtbot, panel):
    p = panel
    p.show_step(step_of(p, "predict"))
    p.choices.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(p.choices.hasFocus)
    assert p.choices.currentRow() == 0 and chosen(p) is None
    QTest.keyClick(p.choices, K.Key_Return)
    assert chosen(p) == 0 and p.choices.selectedItems() == [p.choices.item(0)]
    says_nothing(p)


def test_a_run_step_says_next_waits_for_the_run_then_its_end(qtbot, panel, monkeypatch):
    p = panel
    p.show_step(step_of(p, "predict"))
    p.predict(1)
    p.show_step(step_of(p, "run"))
    says_why_next_waits(p, f"waits for the run: press {p.run_button.text()}")
    monkeypatch.setattr(lessonruns.LessonJob, "start", lambda self: None)  # no simulation
    p.start_job()
    says_why_next_waits(p, "waits for the run to end")
    p.job = None
