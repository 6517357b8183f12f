"""F6 and Shift+F6 move the keyboard from part to part of the window: the control panel,
the map, the charts and the lesson panel's first control ("Start with lesson 1", which
took 27 Tab presses), and round again; Shift+F6 goes back.
A hidden part is passed over."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.frame import taborder


def _part_of(bench, widget):
    return next(p for p in taborder.regions(bench) if p is widget or p.isAncestorOf(widget))


def test_f6_goes_part_by_part_and_shift_f6_back(qtbot, until, bench):
    dock = bench.lesson_dock
    dock.show()
    until(lambda: dock.isVisible() and bench.lesson_panel.isVisible())
    bench.activateWindow()
    until(lambda: bench.isActiveWindow())
    parts = [bench.controls_scroll, bench.map_area, bench.lower, dock]
    visited = []
    for _ in range(2 * len(parts)):
        before = QApplication.focusWidget()
        QTest.keyClick(before or bench, Qt.Key.Key_F6)
        until(lambda b=before: QApplication.focusWidget() not in (None, b))
        visited.append(_part_of(bench, QApplication.focusWidget()))
    at = visited.index(dock) + 1  # after the lesson panel, round again in reading order
    assert visited[at:at + len(parts)] == parts
    while _part_of(bench, QApplication.focusWidget()) is not dock:
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6)
    start = QApplication.focusWidget()
    assert start is bench.lesson_panel.home.start_button  # the lesson panel's first control
    QTest.keyClick(start, Qt.Key.Key_F6)  # round again
    until(lambda: _part_of(bench, QApplication.focusWidget()) is bench.controls_scroll)
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    until(lambda: QApplication.focusWidget() is start)
    bench.toggle_panel(False)  # the control panel hidden: F6 passes it over
    until(lambda: not bench.controls_scroll.isVisible())
    QTest.keyClick(start, Qt.Key.Key_F6)
    until(lambda: _part_of(bench, QApplication.focusWidget()) is bench.map_area)
    bench.toggle_panel(True)
