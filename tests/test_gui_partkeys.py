"""F6 and Shift+F6 move the keyboard from part to part of the window: the control panel,
the button bar, the map, the charts and the lesson panel's first control ("Start with
lesson 1", which took 27 Tab presses), and round again; Shift+F6 goes back.
A hidden part is passed over. (Every state, three laps: tests/test_gui_tablaps.py.)"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.frame import taborder


def _part_of(bench, widget):
    return taborder.part_of(bench, widget)


def test_f6_goes_part_by_part_and_shift_f6_back(qtbot, until, bench):
    dock = bench.lesson_dock
    dock.show()
    until(lambda: dock.isVisible() and bench.lesson_panel.isVisible())
    bench.activateWindow()
    until(lambda: bench.isActiveWindow())
    parts = ["control panel", "buttons", "block map", "charts", "lesson panel"]
    if bench.dismiss_button.isVisible():  # a message in the status bar: its button
        parts.append("status")
    visited = []
    for _ in range(2 * len(parts)):
        before = QApplication.focusWidget()
        QTest.keyClick(before or bench, Qt.Key.Key_F6)
        until(lambda b=before: QApplication.focusWidget() not in (None, b))
        visited.append(_part_of(bench, QApplication.focusWidget()))
    at = visited.index(parts[-1]) + 1  # after the last part, round again in reading order
    assert visited[at:at + len(parts)] == parts
    while _part_of(bench, QApplication.focusWidget()) != "lesson panel":
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6)
    start = QApplication.focusWidget()
    assert start is bench.lesson_panel.home.start_button  # the lesson panel's first control
    after = parts[(parts.index("lesson panel") + 1) % len(parts)]
    QTest.keyClick(start, Qt.Key.Key_F6)  # round again
    until(lambda: _part_of(bench, QApplication.focusWidget()) == after)
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    until(lambda: QApplication.focusWidget() is start)
    bench.toggle_panel(False)  # the control panel hidden: F6 passes it over
    until(lambda: not bench.controls_scroll.isVisible())
    QTest.keyClick(start, Qt.Key.Key_F6)
    until(lambda: _part_of(bench, QApplication.focusWidget())
          == ("status" if after == "status" else "buttons"))
    bench.toggle_panel(True)
