"""A lecture's window fits a 768-line screen: in presentation mode at 1024 x 768 with a kept
reference (its legend row under the charts once made it 824 px tall, the status bar off the
screen), and at 1366 x 768 with the lesson panel open, in both colour profiles."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication
from test_gui_lecture import as_a_projector

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.frame import arranger, layoutpolicy

SCREEN_LINES = 768


@pytest.fixture(autouse=True)
def _presentation_ends(bench):
    """Presentation mode's style sheet is the application's: left on, the next test in this
    process would start in 18 pt type."""
    yield
    bench.toggle_presentation(False)


def screen_is(bench, monkeypatch, width: int, height: int = SCREEN_LINES) -> None:
    """The layout policy told the screen is width x height logical px (the offscreen screen
    is 800 x 800), in the type in force."""
    monkeypatch.setattr(arranger, "room", lambda w: layoutpolicy.Room(
        width, height, theme.current().font_pt))
    bench.arranger.update()


def hold(bench, until, width: int, height: int = SCREEN_LINES) -> None:
    """The window width x 768 (the offscreen screen is 800 x 800), as test_gui_lecture's
    hold_1024 holds it."""
    def held() -> bool:
        bench.presentation._grown = False
        bench.setGeometry(0, 0, width, height)
        QApplication.processEvents()
        return bench.width() == width
    until(held)


def ran(bench, until) -> None:
    bench.request(workload="random", amount=0.2)
    bench.run_workload()
    until(lambda: not bench.is_running() and bench.snapshot.counters["host_writes"] > 0)


def test_a_kept_reference_fits_1024_by_768_in_presentation_mode(qtbot, until, bench,
                                                                 monkeypatch):
    """The offscreen screen is 800 px tall: the projector's 1024 x 768 is told to the layout
    policy, whose compact arrangement folds the control panel beside a kept reference."""
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    ran(bench, until)
    assert bench.pin_reference() is not False
    until(lambda: bench.charts.run_legend.isVisible())  # the reference's legend row is in
    hold(bench, until, 1024)
    until(lambda: bench.minimumSizeHint().height() <= SCREEN_LINES)
    assert bench.minimumSizeHint().width() <= 1024
    if not bench.presentation.panel_shown():  # folded to fit: it says where the panel went
        assert "F9" in bench.status_message.toolTip()
    bench.clear_reference()  # the panel comes back with the room
    until(lambda: bench.presentation.panel_shown())


def test_the_panel_shown_again_after_the_fold_scrolls_the_main_area(qtbot, until, bench,
                                                                    monkeypatch):
    """F9 after the fold is the person's choice: the panel comes back (and stays) and the
    window still fits its screen, the main area scrolling by what it is too tall; out of
    presentation mode, at 1024 x 768 in the normal type, nothing scrolls."""
    from test_gui_present import key

    def fits() -> bool:
        return bench.minimumSizeHint().height() <= SCREEN_LINES

    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    ran(bench, until)
    bench.pin_reference()
    until(lambda: not bench.presentation.panel_shown() and fits())  # folded
    key(bench, Qt.Key.Key_F9)
    until(lambda: bench.presentation.panel_shown() and fits())
    assert bench.central_fit.scrolls()
    hold(bench, until, 1024)  # a new size decides the same: the person's F9 stands
    assert bench.presentation.panel_shown()
    key(bench, Qt.Key.Key_F9)
    until(lambda: not bench.presentation.panel_shown() and fits())
    bench.toggle_presentation(False)
    until(lambda: not bench.central_fit.scrolls())


def test_the_charts_note_claims_the_height_its_words_take(qtbot, until, bench):
    """The note under the charts is in the window's least height at its width (a QLabel's
    one line let the window fit on paper while the note squeezed the chart's tick labels
    out)."""
    note = bench.wa_note
    until(lambda: note.isVisible() and note.text() and note.width() > 0
          and note.minimumHeight() == note.needed_height())
    assert note.needed_height() > note.fontMetrics().lineSpacing()  # more than one line


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presentation"])
def test_the_lesson_panel_fits_1366_by_768(qtbot, until, bench, monkeypatch, present):
    """In presentation mode the map with its tally, the charts with the reference's legend
    and the lesson panel need about 790 px at 18 pt: the main area scrolls by the rest."""
    screen_is(bench, monkeypatch, 1366)

    def fits() -> bool:
        hint = bench.minimumSizeHint()
        return hint.height() <= SCREEN_LINES and hint.width() <= 1366

    if present:
        as_a_projector(bench, until)
    ran(bench, until)
    bench.pin_reference()
    bench.lesson_dock.show()
    until(lambda: bench.lesson_dock.isVisible())
    hold(bench, until, 1366)
    until(fits)
    bench.lesson_panel.start(bench.lesson_panel.lessons[0])
    until(fits)
    bench.lesson_panel.leave()


def test_a_lessons_map_is_a_third_of_the_screen_in_presentation_mode(qtbot, until, bench):
    """It was 60 to 80 px tall beside the lesson panel; the lesson's text scrolls instead."""
    bench.toggle_presentation(True)
    bench.lesson_panel.start(bench.lesson_panel.lessons[0])
    third = bench.screen().geometry().height() // 3
    assert bench.blockmap.minimumHeight() >= third
    bench.lesson_panel.leave()
    assert bench.blockmap.minimumHeight() < third  # the workbench's own map as before


def test_a_lessons_control_panel_is_not_cut_in_presentation_mode(qtbot, until, bench):
    """In a lesson the panel is 240 px at most; in projector type a list's ten characters
    and a spin box's largest number (216 px) made its contents wider than that, cut at the
    right edge with no scroll bar. Read-only there, the fields narrow to the panel."""
    as_a_projector(bench, until)
    bench.lesson_panel.start(bench.lesson_panel.lessons[0])
    bench.toggle_panel(True)  # F9: folded beside the lesson at 27 lines, shown on demand
    scroll = bench.controls_scroll
    until(lambda: bench.controls.isVisible() and scroll.viewport().width() > 0)
    assert bench.controls.minimumSizeHint().width() <= scroll.viewport().width()
    until(lambda: scroll.widget().width() <= scroll.viewport().width())
    bench.lesson_panel.leave()
    spin = bench.controls.widgets["capacity_mib"]
    assert spin.minimumWidth() == 0  # the workbench's own panel as before


def test_a_lesson_on_one_drive_folds_the_control_panel_on_a_1024_px_projector(
        qtbot, until, bench, monkeypatch):
    """Its map with the tally beside it, the read-only control panel and the lesson panel
    needed 1,176 px in projector type (lesson 2): the control panel folds, the status line
    says F9 brings it back, and it returns when the lesson panel closes."""
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel = bench.lesson_panel
    panel.start(panel.lessons[1])
    until(lambda: not bench.presentation.panel_shown())
    assert "F9" in bench.status_message.message()
    until(lambda: bench.minimumSizeHint().width() <= 1024)
    panel.leave()
    bench.lesson_dock.hide()
    until(lambda: bench.presentation.panel_shown())


def test_the_lesson_panel_narrows_again_after_a_wide_moment(qtbot, until, bench):
    """The dock's layout took the least width it set on the dock as a floor: one step wide
    for a moment kept the panel that wide for the rest of the session."""
    panel = bench.lesson_panel
    panel.start(panel.lessons[0])
    dock = bench.lesson_dock
    until(lambda: dock.isVisible())
    QApplication.processEvents()
    narrow = dock.minimumSizeHint().width()
    words = panel.title.text()
    panel.title.setText("W" * 60)  # one long word: the panel's least width grows
    until(lambda: dock.minimumSizeHint().width() > narrow + 100)
    wide = dock.minimumSizeHint().width()
    panel.title.setText(words)
    # narrows again, to the width of the step as it is. Not "== narrow": on a busy machine
    # the step's own layout may still have been settling when narrow was read, and the wait
    # then never ended (a 5 min hang guard under four workers and two busy cores)
    until(lambda: dock.minimumSizeHint().width() < wide - 100)
    panel.leave()


def test_the_hidden_charts_do_not_widen_a_lesson(qtbot, until, bench):
    """In a lesson the lower half shows the lesson's results; the workbench's charts,
    hidden, made its least width theirs (954 px in projector type)."""
    as_a_projector(bench, until)
    panel = bench.lesson_panel
    panel.start(panel.lessons[0])
    until(lambda: bench.lower.currentWidget() is bench.lesson_results)
    QApplication.processEvents()
    assert bench.charts_box.minimumSizeHint().width() > bench.lower.minimumSizeHint().width()
    panel.leave()
    until(lambda: bench.lower.currentWidget() is bench.charts_box)
    QApplication.processEvents()
    assert bench.lower.minimumSizeHint().width() >= bench.charts_box.minimumSizeHint().width()


def test_the_first_screen_folds_the_control_panel_where_the_screen_is_narrow(
        qtbot, until, bench, monkeypatch):
    """At 1.5x scaling a 1366 x 768 screen is 911 x 512 logical px: the control panel, the
    map with its tally and the lesson panel needed about 1,000, and the map and charts
    scrolled sideways. There the control panel folds while the lesson panel shows; at
    1024 x 768 in the normal type all three fit."""
    dock = bench.lesson_dock
    screen_is(bench, monkeypatch, 1024)
    dock.show()
    until(lambda: dock.isVisible())
    assert bench.presentation.panel_shown()
    hold(bench, until, 1024)
    until(lambda: bench.minimumSizeHint().width() <= 1024)
    dock.hide()
    until(lambda: not dock.isVisible())
    screen_is(bench, monkeypatch, 911, 512)
    dock.show()
    until(lambda: not bench.presentation.panel_shown())
    hold(bench, until, 911, 512)
    until(lambda: bench.minimumSizeHint().width() <= 911
          and bench.minimumSizeHint().height() <= 512)
    dock.hide()
    until(lambda: bench.presentation.panel_shown())


def rect_in(bench, widget) -> QRect:
    """widget's rectangle in the window's coordinates."""
    return QRect(widget.mapTo(bench, QPoint(0, 0)), widget.size())


def seen_whole(bench, widget) -> bool:
    """widget shows whole in the main area's view (not scrolled out of it)."""
    view = bench.central_fit.viewport()
    return QRect(view.mapTo(bench, QPoint(0, 0)), view.size()).contains(rect_in(bench, widget))


def scrolled(bench) -> bool:
    """Whether the main area has anything to scroll (it is taller than its view)."""
    return bench.central_fit.verticalScrollBar().maximum() > 0


@pytest.mark.parametrize("width", [1024, 1366])
@pytest.mark.parametrize("present", [False, True], ids=["normal", "presentation"])
def test_two_drives_with_the_panel_shown_fit_768_lines(qtbot, until, bench, monkeypatch,
                                                       width, present):
    """A | B with the control panel shown (F9 where it folded) after a run, with and then
    without a kept reference: the window stays 768 px tall (in the normal type it grew to
    799 px, 815 with a reference, while the map legend's height went up and down with
    whether the map drew pages, tests/test_gui_roomsees.py), both tallies show, no map over
    either; in the normal type the chart shows without scrolling. In presentation type the
    drives and the charts take turns (both were 125 px taller than the room): the charts
    after the run, whole with their legend, F7 the drives with both tallies whole, and
    nothing scrolls."""
    streak = [0]

    def held_768() -> bool:
        """768 px tall, and the window's least height within it, ten looks in a row (its
        layout's least height went up and down as it settled: 617, 773, 799 px)."""
        bench.presentation._grown = False
        bench.setGeometry(0, 0, width, SCREEN_LINES)
        QApplication.processEvents()
        held = bench.size().toTuple() == (width, SCREEN_LINES) and max(
            bench.minimumHeight(), bench.minimumSizeHint().height()) <= SCREEN_LINES
        streak[0] = streak[0] + 1 if held else 0
        return streak[0] >= 10

    screen_is(bench, monkeypatch, width)
    assert bench.set_compare(True)
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    if present:
        as_a_projector(bench, until)
    bench.request(workload="random", amount=0.2)
    bench.run_workload()
    until(lambda: all(not v.snapshot.running and v.snapshot.counters["host_writes"] > 0
                      for v in bench.views))
    for reference in (True, False):
        if reference:
            bench.pin_reference()
            until(lambda: bench.charts.run_legend.isVisible())
        else:
            bench.clear_reference()
        if not bench.presentation.panel_shown():
            bench.toggle_panel(True)  # F9
        streak[0] = 0
        until(held_768)
        assert bench.presentation.panel_shown() and bench.statusBar().isVisible()
        assert bench.statusBar().geometry().bottom() < SCREEN_LINES
        if present:  # a short screen: after the run the charts, and F7 the drives
            until(lambda: bench.arranger.stage == "results" and not bench.maps.isVisible())
            until(lambda: seen_whole(bench, bench.lower) and not scrolled(bench))
            assert bench.charts.run_legend.isVisible()
            bench.flip_stage()
            until(lambda: bench.arranger.stage == "drive" and not bench.lower.isVisible())
        maps = [rect_in(bench, v.blockmap) for v in bench.views]
        for v in bench.views:
            assert v.tally.isVisible()
            tally = rect_in(bench, v.tally)
            assert not any(m.intersects(tally) for m in maps), (v.name, tally, maps)
        if not present:
            assert not bench.central_fit.scrolls()
            assert seen_whole(bench, bench.charts), (reference, rect_in(bench, bench.charts))
        else:
            until(lambda: all(seen_whole(bench, v.tally) for v in bench.views)
                  and not scrolled(bench))
            bench.flip_stage()  # back to the charts for the next round
            until(lambda: bench.arranger.stage == "results")
    bench.set_compare(False)


@pytest.mark.parametrize("width", [1024, 1366])
def test_no_empty_band_under_the_map_until_a_gc_is_named(qtbot, until, bench, monkeypatch,
                                                         width):
    """Two lines were kept under the map for the sentence naming a GC, said or not: an empty
    band 30 px high (58 px in presentation type) between the map and its legend after a
    run that named none (issue 36). The map has that room until a GC is named (a
    breakpoint here); from then until the drive starts afresh the lines stay, so the map
    never jumps between a GC's phases."""
    from PySide6.QtCore import QPoint

    from ssdlab.app.gui.drive import mapwiring
    from ssdlab.model.lab.breakpoints import Breakpoints

    screen_is(bench, monkeypatch, width)
    hold(bench, until, width)
    ran(bench, until)
    now, bmap, legend = bench.views[0].tally.now, bench.blockmap, bench.legends

    def band() -> int:
        bottom = bmap.mapTo(bench, QPoint(0, bmap.height())).y()
        return legend.mapTo(bench, QPoint(0, 0)).y() - bottom

    until(lambda: now.text() == "" and bmap.view is not None)
    for _ in range(5):  # the layout's posted passes
        QApplication.processEvents()
    assert now.height() == 0 and band() <= 8, band()
    gcs = bench.snapshot.counters["gc_victims"]
    mapwiring.set_breakpoints(bench, Breakpoints(gc_count=gcs + 1),
                              bench.session.settings.geometry())
    bench.request(workload="random", amount=1.5)
    bench.run_workload()
    until(lambda: not bench.is_running() and bmap.snapshot.gc_phase == "breakpoint")
    lines = 2 * now.fontMetrics().lineSpacing()
    until(lambda: now.text() and now.height() >= lines)


def test_a_documented_experiment_never_widens_the_lessons_panel(qtbot, until, bench,
                                                                monkeypatch):
    """Its button said "Replay the documented experiment", 447 px in projector type: for the
    moment it showed, the lessons panel grew to 473 px, Qt kept the dock that wide, and the
    drives of lessons 8, 9, 11, 12 and 13's read steps scrolled 126-161 px sideways at
    1024 x 768 (issue 36)."""
    from test_gui_lecture import as_a_projector

    from ssdlab.lessons.catalogue import find

    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel = bench.lesson_panel
    lesson = find("8")
    panel.start(lesson, 0)
    until(lambda: bench.lesson_dock.isVisible() and bench.in_lesson)
    least = bench.lessons_fit.least().width()  # a read step's
    at = next(i for i, s in enumerate(lesson.steps)
              if s.kind == "compare" and s.experiment is not None)
    panel.start(lesson, at)
    until(lambda: panel.run_button.isVisible())
    try:
        assert panel.run_button.minimumSizeHint().width() <= least
    finally:
        if panel.job is not None:
            panel.job.cancel()
            panel.job.wait()


@pytest.mark.parametrize("width", [1024, 1366])
def test_a_kept_references_note_shows_its_last_line_with_the_panel_shown(
        qtbot, until, bench, monkeypatch, width):
    """One drive beside a kept reference in presentation type with the control panel shown
    (F9): the note under the chart lay under the status bar. Both screens are short in
    that type: after the run the charts show alone (the drive a key away, F7), the note
    whole under them, and nothing scrolls."""
    from test_gui_twodrives import note_shown_whole

    screen_is(bench, monkeypatch, width)
    as_a_projector(bench, until)
    hold(bench, until, width)
    ran(bench, until)
    bench.pin_reference()
    until(lambda: bench.charts.run_legend.isVisible())
    if not bench.presentation.panel_shown():
        bench.toggle_panel(True)  # F9
    hold(bench, until, width)
    until(lambda: bench.presentation.panel_shown() and bench.wa_note.isVisible())
    until(lambda: bench.arranger.stage == "results" and note_shown_whole(bench)
          and not scrolled(bench))
    bench.clear_reference()  # one drive alone: its map and charts together again
    until(lambda: bench.arranger.stage == "both" and bench.maps.isVisible()
          and bench.lower.isVisible())
