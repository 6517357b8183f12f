"""Glossary help by keyboard: Tab reaches a term link in the lesson text and Return opens its
entry; Shift+F1 shows the focused control's tooltip (its glossary definition among it) at
the control, which a mouse user gets by hovering (app/gui/frame/tipkey.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow, QSpinBox, QToolTip

from app.gui.frame import tipkey
from app.gui.lessons.lessonpanel import LessonPanel
from app.gui.lessons.lessonresults import LessonResults
from app.session.progress import load_progress
from lessons.catalogue import bundled, find


def test_tab_to_a_term_link_and_return_opens_it(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    results = LessonResults()
    p = LessonPanel(bundled(), load_progress(), results)
    qtbot.addWidget(p)
    qtbot.addWidget(results)
    p.resize(320, 700)
    p.show()
    p.activateWindow()
    qtbot.waitUntil(p.isActiveWindow)
    p.start(find("1"), 0)
    step = next(i for i, s in enumerate(p.lesson.steps) if "[[" in s.text)
    p.show_step(step)
    asked: list[str] = []
    p.glossary_asked.connect(asked.append)
    p.body.setFocus()
    qtbot.waitUntil(p.body.hasFocus)
    qtbot.keyClick(p.body, Qt.Key.Key_Tab)  # inside the text, Tab goes to its first link
    assert p.body.textCursor().hasSelection()
    qtbot.keyClick(p.body, Qt.Key.Key_Return)
    assert len(asked) == 1 and asked[0]


def test_shift_f1_shows_the_focused_controls_tip(qtbot):
    w = QMainWindow()
    box = QSpinBox()
    box.setToolTip("Spare: flash the host cannot address")
    w.setCentralWidget(box)
    tipkey.install(w)
    qtbot.addWidget(w)
    w.show()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key.Key_F1, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text() == box.toolTip()
