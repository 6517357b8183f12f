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


def test_moving_the_focus_scrolls_nothing_already_shown(qtbot):
    """F6 to the control panel (a scroll area of its own, taller than the main area round
    it, which scrolls on a short screen) scrolled the main area 12 px to centre the panel,
    though the panel showed (1024 x 768, presentation type, a lesson, F9; issue 36). A part
    shown in part stays where it is; a control out of sight is still scrolled to."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QPushButton, QScrollArea, QVBoxLayout, QWidget

    outer = QScrollArea()
    qtbot.addWidget(outer)
    outer.resize(300, 200)
    content = QWidget()
    column = QVBoxLayout(content)
    inner = QScrollArea()  # the control panel: taller than the outer area's room
    inner.setMinimumHeight(225)
    panel = QWidget()
    QVBoxLayout(panel).addWidget(QPushButton("first"))
    inner.setWidget(panel)
    column.addWidget(inner)
    low = QPushButton("low")  # below the fold of the outer area
    column.addWidget(low)
    outer.setWidget(content)
    outer.setWidgetResizable(True)
    outer.show()
    qtbot.waitExposed(outer)
    bar = outer.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    taborder.focus(inner)
    assert bar.value() == 0  # the panel shows (in part): nothing moves
    taborder.focus(low)
    view = outer.viewport()
    shown = QRect(low.mapTo(view, QPoint(0, 0)), low.size())
    assert bar.value() > 0 and view.rect().contains(shown)  # out of sight: scrolled to
    bar.setValue(10)
    taborder.focus(inner)
    assert bar.value() == 10
