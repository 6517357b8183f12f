"""Small things a room sees (issue 36): the Preferences labels drawn whole, the tally's figures
off the edge beside them, and no crossed-out victims left on the map once a flat-out run has
stopped."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QLabel

from ssdlab.app.gui.appearance import preferences, prefsdialog, theme
from ssdlab.app.gui.run.snapshot import CODE_ERASED, CODE_VICTIM, PAGE_COPIED


@pytest.mark.parametrize(("profile", "pt"), [("normal", 9), ("projector", 18)])
def test_the_preferences_labels_have_room_beyond_their_measured_text(qtbot, profile, pt):
    """The form gives a label exactly its measured width; under X11 "Text size" drew a few
    pixels wider and lost its last letter to the list beside it."""
    app = QApplication.instance()
    before = app.styleSheet()
    t = theme.set_current(profile, pt)
    app.setStyleSheet(t.stylesheet())
    try:
        d = prefsdialog.PreferencesDialog(preferences.Preferences())
        qtbot.addWidget(d)
        d.show()
        qtbot.waitExposed(d)
        tags = [lab for lab in d.findChildren(QLabel) if lab.buddy() is not None]
        assert len(tags) == 3
        for tag in tags:
            fm = tag.fontMetrics()
            text = tag.text().replace("&", "")
            assert tag.width() >= fm.horizontalAdvance(text) + fm.averageCharWidth() // 3, text
    finally:
        theme.set_current("normal")
        app.setStyleSheet(before)


def test_the_tallys_figures_keep_off_its_right_edge(bench, until):
    bench.resize(1024, 768)
    tally = bench.views[0].tally
    until(lambda: tally.isVisible() and tally.width() > 0)
    right = max(v.geometry().right() for v in tally.values.values())
    assert tally.width() - 1 - right >= 6


def test_a_fast_run_that_ends_leaves_no_marks_on_the_map(bench, until):
    """The last frame of a flat-out run carried every victim, erase and copy of its batch,
    and they stayed crossed out on the map after the run ended."""
    bench.request(workload="fill", speed="fast")
    bench.run_workload()
    until(lambda: bench.snapshot is not None and bench.snapshot.counters["host_writes"] > 0
          and not bench.snapshot.running and not bench.snapshot.segment)
    bench.request(workload="random", amount=1.0)
    before = bench.snapshot.counters["gc_copies"]
    bench.run_workload()
    until(lambda: bench.snapshot.counters["gc_copies"] > before
          and not bench.snapshot.running and not bench.snapshot.segment)
    snap = bench.snapshot
    assert not np.any(snap.marks)
    assert not np.any(np.isin(snap.codes, (CODE_VICTIM, CODE_ERASED)))
    if snap.pages is not None:
        assert not np.any(snap.pages == PAGE_COPIED)


def test_status_messages_go_once_they_are_out_of_date(bench, until, tmp_path):
    """Each said thing stays while it holds: "Reference kept" until the reference is cleared,
    "run a workload first" until one has run, a report of a file saved until the run moves
    on; an error stays until dismissed. (Messages about a state the layout policy decides:
    the next test.)"""
    from ssdlab.app.gui.frame import runfiles, statusline

    message = bench.status_message.message
    bench.pin_reference()
    assert message() == "Keep as reference: run a workload first"
    bench.request(workload="fill", speed="fast")
    bench.run_workload()
    until(lambda: bench.snapshot.counters["host_writes"] > 0)
    until(lambda: message() == "")
    until(lambda: not bench.snapshot.running and not bench.snapshot.segment)
    bench.pin_reference()
    assert message() == "Reference kept"
    bench.clear_reference()
    assert message() == ""
    assert runfiles.save(bench, str(tmp_path / "run.json"))
    assert message().startswith("Saved session")
    statusline.say(bench, "Open lesson: no such file")  # an error: read, then dismissed
    assert runfiles.save(bench, str(tmp_path / "run2.json"))
    bench.reset_drive()
    assert message() == ""  # the save's report went with the reset
    statusline.say(bench, "Open lesson: no such file")
    bench.reset_drive()
    assert message() == "Open lesson: no such file"
    assert bench.dismiss_button.isVisibleTo(bench)


def test_a_message_about_a_state_goes_when_the_state_ends(bench, until, monkeypatch):
    """Said without an `until`, "Panel folded to fit (F9 shows it)" stayed up after the
    panel came back by another way than F9 (a setting's error shown in it: the panel
    unfolds so that it is read), "Run: the run goes on" after the run had ended, and "In a
    lesson the lesson runs the drive" after the lesson was left."""
    from test_gui_fit768 import screen_is
    from test_gui_lecture import as_a_projector

    from ssdlab.app.gui.frame import arranger

    message = bench.status_message.message
    # a run going: Run says it goes on, until it has ended
    bench.request(workload="random", amount=3.0, speed="normal")
    bench.run_workload()
    until(bench.is_running)
    bench.run_workload()
    assert message().startswith("Run: the run goes on")
    bench.reset_drive()  # the run ends
    until(lambda: not bench.is_running() and bench.snapshot.counters["host_writes"] == 0)
    assert message() == ""
    # a lesson holds the drive: said until it is left
    panel = bench.lesson_panel
    panel.start(panel.lessons[0], 0)
    until(lambda: bench.in_lesson)
    bench.run_workload()
    assert message().startswith("In a lesson the lesson runs the drive")
    panel.leave()
    assert message() == ""
    # the fold at a 1024 px projector beside a lesson, until the panel is back
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel.start(panel.lessons[1], 0)
    until(lambda: not bench.presentation.panel_shown())
    assert message() == arranger.FOLDED
    bench.controls.show_error("Spare: at least 1 %", "spare_pct")  # unfolds the panel
    until(lambda: bench.presentation.panel_shown())
    assert message() == ""
    bench.controls.show_error("")
    panel.leave()
    bench.toggle_presentation(False)


def test_the_help_button_never_takes_a_row_alone(bench, qtbot):
    """At 1366 x 768 in presentation type the bar was a few pixels too narrow for "?", which
    went to a row of its own (with the Menu at most): the flow layout keeps it, and the
    Menu, with the button before them."""
    from PySide6.QtWidgets import QPushButton, QWidget

    from ssdlab.app.gui.appearance.flowlayout import FlowLayout

    bar = bench.button_bar.layout()
    help_button = next(b for b in bench.button_bar.findChildren(QPushButton)
                       if b.text() == "?")
    assert bar.kept_with_previous(help_button) and bar.kept_with_previous(bench.menu_button)
    assert not bar.kept_with_previous(bench.presentation.panel_button)
    # the layout itself, on a bar of its own (the window's arranger sizes the real one)
    box = QWidget()
    qtbot.addWidget(box)
    flow = FlowLayout(box)
    first, panel, small = QPushButton("Run"), QPushButton("Hide panel"), QPushButton("?")
    flow.addWidget(first)
    flow.addWidget(panel)
    flow.add_kept_with_previous(small)
    box.setFixedWidth(2000)
    box.show()
    qtbot.waitUntil(lambda: small.x() > panel.x() > first.x())  # one row
    assert small.y() == panel.y() == first.y()
    box.setFixedWidth(panel.x() + panel.width() + 3)  # no room for "?"
    qtbot.waitUntil(lambda: panel.y() > first.y())  # wrapped ...
    assert small.y() == panel.y() and small.x() > panel.x()  # ... the two together


def test_the_legends_old_rows_never_become_a_window_of_their_own(qtbot):
    """Each rebuild of the map legend's rows (F11's new type, the map drawing pages or not)
    made the old rows parentless until deleted; at 1366 x 768 under X11, rows built and
    replaced within one resize were then shown by Qt's queued show as a window of their
    own at the screen's top left, over the button bar, for seconds. (Offscreen the resize
    sequence differs and nothing shows: the rows' parent is what is checked.)"""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from ssdlab.app.gui.drive.legend import Legend

    host = QWidget()
    qtbot.addWidget(host)
    legend = Legend()
    QVBoxLayout(host).addWidget(legend)
    host.show()
    qtbot.waitExposed(host)
    flow = legend._flow
    old = [flow.itemAt(i).widget() for i in range(1, flow.count())]
    assert old
    legend.set_mode("erases")  # a rebuild (the map drawing pages or not only hides some)
    new = [flow.itemAt(i).widget() for i in range(1, flow.count())]
    assert not set(old) & set(new)
    assert all(not w.isWindow() and w.parent() is legend._inner and w.isHidden()
               for w in old)


def test_the_map_legend_shows_its_rows_after_a_rebuild_in_a_relayout(bench, until):
    """Under X11 at 1024 x 768 the map's key (Colour by, the swatches) was missing: its rows,
    rebuilt as the map's size changed whether pages show, were left to the layout's deferred
    show, which never came when the map's half was hidden and shown again before it ran (a
    widget added to a shown one must be shown by its maker)."""
    legend = bench.views[0].legend
    until(lambda: legend.isVisible())
    for mode in ("age", "state"):  # each colouring rebuilds the rows
        legend.set_mode(mode)
        bench.map_area.hide()  # before the event loop runs again
        QApplication.processEvents()
        bench.map_area.show()
        until(lambda: legend.isVisible())
        QApplication.processEvents()
        assert legend._inner.isVisible() and legend.combo.isVisible(), mode
        flow = legend._flow
        pages, words = legend._either  # of these only the set the map calls for shows
        hidden = set(words if legend.pages else pages)
        if not legend.slc:  # the SLC cache's entry shows only for a drive with a cache
            hidden.add(legend._slc_entry)
        if not legend.handles:  # the tagged blocks' only for a drive with placement handles
            hidden.add(legend._handle_entry)
        assert all(flow.itemAt(i).widget().isVisible() for i in range(flow.count())
                   if flow.itemAt(i).widget() not in hidden), mode


def test_the_map_legend_keeps_its_height_when_the_map_starts_or_stops_drawing_pages(qtbot):
    """Its rows were rebuilt for the page colours or the words saying the map draws whole
    blocks, each as tall as it was: the map's height changed with them, and so whether it
    drew pages, again and again (A | B's window's least height went 617, 773, 799 px; in
    presentation type at 1366 x 768 the map lay over its legend for seconds). Both are
    built, and the rows are as tall as the taller at every width, whichever shows."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from ssdlab.app.gui.drive.legend import Legend

    for pt in (9, 18):  # the desk's type and a projector's
        host = QWidget()
        qtbot.addWidget(host)
        font = host.font()
        font.setPointSize(pt)
        host.setFont(font)
        legend = Legend()
        QVBoxLayout(host).addWidget(legend)
        host.show()
        qtbot.waitExposed(host)
        inner = legend._inner
        for width in (300, 420, 560, 722, 1064):
            heights = set()
            for pages in (True, False, True):
                legend.show_pages(pages)
                heights.add(legend.layout().totalHeightForWidth(width))
                assert ("valid page" in legend.labels) == pages
                assert (legend.BLOCKS_ONLY in legend.labels) != pages
            assert len(heights) == 1, (pt, width, heights)
        assert legend._inner is inner  # no rebuild: hidden and shown
