"""A lesson at a 768-line projector (1024 x 768, 18 pt: the layout policy's compact
arrangement): its drive and its results take turns in the middle of the window, the step's
own figure first and F7 or the button over them flipping to the other, said aloud; at 200 %
text size on a 1366 x 768 screen the window fits, Back/Next and the status bar on it."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_gui_fit768 import SCREEN_LINES, hold, screen_is
from test_gui_lecture import as_a_projector
from test_gui_present import key

from ssdlab.app.gui.appearance import preferences
from ssdlab.app.gui.appearance.preferences import Preferences
from ssdlab.app.gui.frame import shortcuts


def test_a_lessons_drive_and_results_take_turns_at_a_768_line_projector(qtbot, until, bench,
                                                                       monkeypatch):
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel, flip = bench.lesson_panel, bench.arranger.stage_button
    panel.start(panel.lessons[0], 0)  # its first step (not where another test left it): the drive
    until(lambda: bench.map_area.isVisible() and not bench.lower.isVisible())
    assert flip.isVisible() and "results" in flip.accessibleName()
    key(bench, Qt.Key.Key_F7)  # the results, said aloud
    until(lambda: bench.lower.isVisible() and not bench.map_area.isVisible())
    assert "results" in bench.status_message.message()
    assert "drive" in flip.accessibleName()
    # the results take the height the drive had: no strip under a map
    until(lambda: bench.lower.height() > SCREEN_LINES // 2)
    flip.click()  # the button does the same
    until(lambda: bench.map_area.isVisible() and not bench.lower.isVisible())
    # a step whose results hold a figure (a quiz's two states here) shows it first
    bench.lesson_results.show_states([("Before", "block 0:  1  2"), ("After", "block 0:  x  2")])
    until(lambda: bench.lower.isVisible() and not bench.map_area.isVisible())
    panel.leave()  # the workbench: map and charts together again, no flip
    until(lambda: bench.map_area.isVisible() and bench.lower.isVisible())
    assert not flip.isVisible()
    bench.toggle_presentation(False)  # the type is the process's: the next test's is normal


def test_two_drives_and_their_charts_take_turns_at_a_768_line_projector(qtbot, until, bench,
                                                                        monkeypatch):
    """A | B in 18 pt type at 1024 x 768: the drives before and during a run, the charts once
    both runs have ended, F7 (or the button) flipping to the other, said aloud; the button bar
    stays over the charts; a new run starts with the drives again; one drive alone keeps
    its map and charts together."""
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    flip = bench.arranger.stage_button
    assert bench.set_compare(True)
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    until(lambda: bench.arranger.stage == "drive" and flip.isVisible())
    assert not bench.lower.isVisible() and flip.accessibleName() == "Show the charts"
    bench.request(workload="random", amount=0.2)
    bench.run_workload()

    def ended() -> bool:
        return all(not v.snapshot.segment and v.snapshot.counters["host_writes"] > 0
                   for v in bench.views)

    until(lambda: ended() and bench.arranger.stage == "results")
    assert not bench.maps.isVisible() and bench.lower.isVisible()
    assert bench.button_bar.isVisible() and flip.accessibleName() == "Show the drives"
    # the button bar is as tall as its rows: the charts take the rest
    until(lambda: bench.lower.height() > SCREEN_LINES // 2)
    key(bench, Qt.Key.Key_F7)
    until(lambda: bench.maps.isVisible() and not bench.lower.isVisible())
    assert "Showing the drives" in bench.status_message.message()
    assert all(v.tally.isVisible() for v in bench.views)
    flip.click()  # the button does the same
    until(lambda: bench.lower.isVisible() and not bench.maps.isVisible())
    # a new run: the drives again (slowly, so the test sees it under way), the charts after
    bench.request(speed="slow")
    bench.run_workload()
    until(lambda: not ended() and bench.arranger.stage == "drive" and bench.maps.isVisible())
    bench.request(speed="fast")
    until(lambda: ended() and bench.arranger.stage == "results")
    bench.set_compare(False)  # one drive: map and charts together, nothing to flip
    until(lambda: bench.maps.isVisible() and bench.lower.isVisible() and not flip.isVisible())
    bench.toggle_presentation(False)


def test_a_lesson_on_a_tall_screen_shows_drive_and_results_together(qtbot, until, bench,
                                                                    monkeypatch):
    screen_is(bench, monkeypatch, 1920, 1080)
    panel = bench.lesson_panel
    panel.start(panel.lessons[0], 0)
    until(lambda: bench.map_area.isVisible() and bench.lower.isVisible())
    assert not bench.arranger.stage_button.isVisible()
    panel.leave()


def test_f7_is_in_the_keyboard_list():
    assert any("F7" in k.keys and k.slot == "flip_stage" for k in shortcuts.TABLE)


def test_the_window_fits_a_768_line_screen_at_200_percent_text(request, tmp_path, until,
                                                               monkeypatch):
    """It was 859 px tall: Back/Next and the status bar off the screen."""
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    (tmp_path / "preferences.json").write_text(json.dumps({"text_pct": 200}))
    try:
        bench = request.getfixturevalue("bench")
        screen_is(bench, monkeypatch, 1366)
        assert bench.arranger.arrangement.name == "compact"
        bench.lesson_panel.start(bench.lesson_panel.lessons[0], 0)
        until(lambda: bench.minimumSizeHint().height() <= SCREEN_LINES)
        hold(bench, until, 1366)
        panel = bench.lesson_panel
        for button in (panel.back_button, panel.next_button):
            until(lambda b=button: bench.rect().contains(
                b.mapTo(bench, b.rect().bottomRight())))
        bar = bench.statusBar()
        assert bench.rect().contains(bar.mapTo(bench, bar.rect().bottomRight()))
        QApplication.processEvents()
        panel.leave()
    finally:
        preferences.set_in_force(Preferences())
