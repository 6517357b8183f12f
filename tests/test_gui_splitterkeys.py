"""The window's dividers by keyboard (ssdlab/app/gui/frame/splitterkeys.py): Ctrl+Shift+arrows move
them a step within the sides' minimum sizes, the handles have names, the shares are said."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListWidget, QMainWindow, QSplitter

from ssdlab.app.gui.frame import splitterkeys, statusline


def _window(qtbot):
    w = QMainWindow()
    w.main_split = QSplitter(Qt.Orientation.Horizontal)
    w.right_split = QSplitter(Qt.Orientation.Vertical)
    w.main_split.addWidget(QListWidget())  # expands, and takes focus
    w.main_split.addWidget(w.right_split)
    w.right_split.addWidget(QLabel("map"))
    w.right_split.addWidget(QLabel("charts"))
    w.setCentralWidget(w.main_split)
    splitterkeys.install(w)
    qtbot.addWidget(w)
    w.resize(800, 600)
    w.show()
    qtbot.waitUntil(lambda: w.main_split.sizes()[0] > 0 and sum(w.right_split.sizes()) > 200)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)  # a window shortcut fires in the active window
    w.main_split.widget(0).setFocus()
    return w


def test_ctrl_shift_arrows_move_the_dividers_and_say_so(qtbot, monkeypatch):
    said = []  # the workbench's status line (statusline.say), which this bare window lacks
    monkeypatch.setattr(statusline, "say", lambda window, text, until=None: said.append(text))
    w = _window(qtbot)
    before = w.main_split.sizes()
    qtbot.keyClick(w.main_split.widget(0), Qt.Key.Key_Right,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    after = w.main_split.sizes()
    assert after[0] > before[0] and sum(after) == sum(before)
    assert said and said[-1].startswith("Divider: ") and "control panel" in said[-1]
    assert w.main_split.handle(1).accessibleName().startswith("Divider")
    top = w.right_split.sizes()[0]
    qtbot.keyClick(w.main_split.widget(0), Qt.Key.Key_Down,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert w.right_split.sizes()[0] > top
    assert "map" in w.right_split.handle(1).accessibleDescription()


def test_a_divider_stops_at_the_sides_minimum(qtbot):
    w = _window(qtbot)
    w.main_split.widget(1).setMinimumWidth(300)
    for _ in range(40):
        splitterkeys.move(w.main_split, 1)
    assert w.main_split.sizes()[1] >= 300
    assert not splitterkeys.move(w.main_split, 1)
