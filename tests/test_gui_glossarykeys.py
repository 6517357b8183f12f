"""Glossary help by keyboard: Tab reaches a term link in the lesson text and Return opens its
entry; Shift+F1 shows the focused control's tooltip (its glossary definition among it) at
the control, which a mouse user gets by hovering (ssdlab/app/gui/frame/tipkey.py)."""

from __future__ import annotations

from _lesson_panel import lesson_panel
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow, QSpinBox, QToolTip

from ssdlab.app.gui.frame import tipkey


def test_tab_to_a_term_link_and_return_opens_it(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    p = lesson_panel(qtbot)
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
