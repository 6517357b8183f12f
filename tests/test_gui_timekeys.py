"""Keys that never surprise a lecturer (issue 36, ssdlab/app/gui/frame/timekeys.py and
controlkeys.py): Space plays or pauses whatever workbench control has focus (Run, "Colour
by"), Run never restarts a running drive, a reset that would lose a run asks first, and a
breakpoint a reset keeps is said. Runs wait on conditions, never on time."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.drive import mapwiring
from ssdlab.model.lab.breakpoints import Breakpoints

K = Qt.Key


def key_on(widget, key, mods=Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed with the focus on widget, as a lecturer's lands."""
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    QApplication.processEvents()
    QTest.keyClick(widget, key, mods)
    QApplication.processEvents()


def start_endless(bench, until) -> None:
    """A random run that goes until paused (amount 0), running now."""
    bench.request(workload="random", amount=0)
    bench.run_workload()
    until(lambda: bench.snapshot.running and bench.snapshot.counters["host_writes"] > 0)


def test_space_pauses_on_a_focused_run_button_and_plays_on_colour_by(qtbot, until, bench):
    start_endless(bench, until)
    segments = bench.segments
    key_on(bench.run_button, K.Key_Space)  # the rehearsal's F9, Space: 52 % back to 4 %
    until(lambda: not bench.is_running())
    assert bench.segments == segments  # paused, not sent again
    combo = bench.legend.combo  # after a lesson the focus sat on "Colour by"
    key_on(combo, K.Key_Space)
    until(lambda: bench.is_running())
    assert bench.segments == segments and not combo.view().isVisible()
    key_on(bench.run_button, K.Key_Return)  # Return presses a focused button: Run ...
    assert bench.segments == segments and bench.is_running()  # ... which runs on
    assert "the run goes on" in bench.status_message.message()
    key_on(bench.speed, K.Key_Return)  # Return opens a focused list (Space no longer does)
    until(lambda: bench.speed.view().isVisible())
    bench.speed.hidePopup()
    bench.toggle_play()
    until(lambda: not bench.is_running())


def test_a_reset_asks_before_it_loses_a_run_and_keeps_it_on_no(qtbot, until, bench):
    asked = []
    bench.confirm = lambda text: pytest_fail(f"asked with nothing to lose: {text!r}")
    bench.activateWindow()
    key_on(bench.run_button, K.Key_R, Qt.KeyboardModifier.ControlModifier)  # nothing to lose
    bench.run_workload()
    until(lambda: not bench.snapshot.running and bench.snapshot.counters["host_writes"] > 0)
    written = bench.snapshot.counters["host_writes"]
    bench.confirm = lambda text: asked.append(text) or False
    for mods, button in ((Qt.KeyboardModifier.ControlModifier, bench.reset_button),
                         (Qt.KeyboardModifier.AltModifier, bench.reset_all_button)):
        key_on(bench.run_button, K.Key_R, mods)
        button.click()
    assert len(asked) == 4 and asked[0] == asked[1] and asked[2] == asked[3]
    assert "host page writes" in asked[0] and "Reset All" in asked[2]
    bench.settle()
    assert bench.snapshot.counters["host_writes"] == written  # No kept the run
    bench.confirm = lambda text: asked.append(text) or True
    key_on(bench.run_button, K.Key_R, Qt.KeyboardModifier.ControlModifier)
    until(lambda: bench.snapshot.counters["host_writes"] == 0)


def pytest_fail(text: str) -> bool:
    raise AssertionError(text)


def test_a_breakpoint_kept_by_reset_drive_is_said_and_reset_all_clears_it(qtbot, until,
                                                                          bench):
    mapwiring.set_breakpoints(bench, Breakpoints(gc_count=3), bench.session.settings.geometry())
    until(lambda: bench.progress_label.text().endswith(" · breakpoint: GC 3"))
    bench.reset_drive()
    assert "breakpoint armed: at GC number 3, still" in bench.status_message.message()
    until(lambda: bench.progress_label.text().endswith(" · breakpoint: GC 3"))
    bench.reset_all()
    assert not bench.breakpoints.active()
    until(lambda: "breakpoint" not in bench.progress_label.text())


def test_in_a_lesson_the_workbench_run_keys_only_say_who_runs_the_drive(qtbot, until, bench):
    bench.in_lesson = True  # what dockedlessons.set_active sets; the keys read only this
    try:
        segments = bench.segments
        for act in (bench.toggle_play, bench.run_workload, bench.step, bench.step_gc):
            act()
        assert bench.segments == segments and not bench.is_running()
        assert "the lesson runs the drive" in bench.status_message.message()
    finally:
        bench.in_lesson = False
