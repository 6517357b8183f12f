"""Two drives and a reference the room can read (issue 36): after an A | B run each drive has
its tally, headed by its letter and counting its own drive; each drive's per-window WA is on
the chart beside its analytic level, which says on the line whose it is and what it predicts;
a kept reference leaves the per-window curve on; and at 1024 x 768 in presentation type, F9
beside a kept reference works on the first press and, hiding the panel, shows the note's last
line."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from test_gui_compare import finished
from test_gui_fit768 import SCREEN_LINES, hold, screen_is
from test_gui_lecture import as_a_projector
from test_gui_present import key

from ssdlab.app.session.wanotes import analytic_name, wa_figure


def ran(w, until, runs: int) -> None:
    w.request(workload="random", amount=0.3)
    w.run_workload()
    until(lambda: finished(w, runs=runs))


def test_after_an_a_b_run_each_drive_has_its_tally_and_its_curve_beside_its_level(
        until, bench):
    assert bench.set_compare(True)
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    bench.edit_drive(1)
    assert bench.request(spare_pct=28.0)
    bench.request(workload="fill", fill_pct=100.0)  # full: the rewrites then copy pages
    bench.run_workload()
    until(lambda: finished(bench, runs=1))
    ran(bench, until, 2)
    wa = bench.charts.wa
    bench.charts.setCurrentWidget(wa)
    until(lambda: wa.points("B:wa_window") > 1 and wa.points("wa_window") > 1)
    figures = []
    for letter, v in zip("AB", bench.views, strict=True):
        tally, snap = v.tally, v.snapshot
        assert tally.isVisible() and v.stacked()  # under its own map
        assert tally.tag.isVisible() and tally.tag.text() == letter  # in words, not colour
        assert tally.accessibleName() == f"Write tally, drive {letter}"
        assert tally.figure("host") == f"{round(snap.counters['host_writes']):,}"
        assert tally.figure("flash") == f"{snap.counters['nand_writes']:,}"
        assert tally.figure("wa") == wa_figure(snap.wa)
        figures.append(tally.figure("wa"))
        # its analytic level: the model's figure, as the session gives it, named on the
        # line by the drive's letter, its model and the curve it predicts
        model = v.session.theory_wa_shown(snap)
        level = "theory" if letter == "A" else "B:theory"
        assert wa.level_label(level) == \
            f"{letter}: greedy model {model:.2f} (per window)"
    assert figures[0] != figures[1]  # each its own drive's: more spare, less WA
    # the legend groups each level with its drive's curves, named, and the styles differ
    groups = dict((run, [name for name, _line, _pen in lines])
                  for run, lines in wa.legend_entries())
    # each level named by its model and what it assumes, as a file's legend names it
    names = [analytic_name(v.settings) for v in bench.views]
    assert names[0].startswith("Van Houdt's greedy model (2013): random rewrites, ")
    assert groups["A: spare 7 %"] == ["A: spare 7 %, cumulative", "A: spare 7 %, per window",
                                      f"A: {names[0]}"]
    assert groups["B: spare 28 %"] == ["B: spare 28 %, cumulative",
                                       "B: spare 28 %, per window", f"B: {names[1]}"]
    assert wa.series["theory"].pen().dashPattern() != wa.series["B:theory"].pen().dashPattern()
    bench.set_compare(False)  # one drive: its tally beside the map, without a letter
    until(lambda: len(bench.views) == 1)
    assert bench.views[0].tally.tag.isHidden()
    assert bench.views[0].tally.accessibleName() == "Write tally"


def test_a_kept_reference_keeps_the_per_window_curve(until, bench):
    ran(bench, until, 1)
    bench.pin_reference()
    assert bench.request(spare_pct=28.0)
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    ran(bench, until, 1)
    wa = bench.charts.wa
    until(lambda: wa.points("wa_window") > 1 and wa.points("ref0:wa") > 1)
    assert wa.series["wa_window"].name() == "now: spare 28 %, per window"
    # one level: no letter needed
    assert wa.level_label("theory").startswith("greedy model ")
    # the reference's own per-window WA and level stay off (nothing to read them against)
    assert wa.points("ref0:wa_window") == 0 and wa.points("ref0:theory") == 0
    assert bench.charts.run_legend.labels[-1] == "ref: spare 7 %"


def note_shown_whole(w) -> bool:
    """The note under the charts shows every line, above the status bar."""
    note = w.wa_note
    if not note.isVisible() or not note.text():
        return False
    seen = note.visibleRegion().boundingRect()
    bar = w.statusBar().mapTo(w, QPoint(0, 0)).y()
    return seen.height() == note.height() and note.mapTo(w, seen.bottomLeft()).y() < bar


def test_f9_beside_a_kept_reference_works_at_once_and_gives_the_note_its_last_line(
        until, bench, monkeypatch):
    """At 1024 x 768 in presentation type, the panel hidden by the lecturer before keeping a
    reference: F9 brought it back and the fold to fit hid it again at once, so F9 took two
    presses; hidden again, the note's last line lay under the status bar."""
    w = bench
    screen_is(w, monkeypatch, 1024)
    as_a_projector(w, until)
    key(w, Qt.Key.Key_F9)  # the lecturer hides the panel, then keeps a reference
    until(lambda: not w.presentation.panel_shown())
    ran(w, until, 1)
    w.pin_reference()
    until(lambda: w.charts.run_legend.isVisible() and note_shown_whole(w))
    try:
        key(w, Qt.Key.Key_F9)  # shown at the first press, and it stays
        until(lambda: w.presentation.panel_shown())
        hold(w, until, 1024)  # the window arranged again: the person's F9 stands
        assert w.presentation.panel_shown()
        assert not w.status_message.message().startswith("Panel folded")
        key(w, Qt.Key.Key_F9)  # the map and charts take the room: the whole note shows
        until(lambda: not w.presentation.panel_shown() and note_shown_whole(w)
              and w.minimumSizeHint().height() <= SCREEN_LINES)
    finally:
        w.toggle_presentation(False)


def words_over_curves(chart) -> list[str]:
    """The levels of chart whose words (written above the level's labelled point) a line
    drawn on the chart passes through: each other series' segments, sampled along their
    length in pixels."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QFontMetrics

    c = chart._chart
    bad = []
    for name, series in chart.series.items():
        words = chart.level_label(name)
        if not words or not series.isVisible():
            continue
        fm = QFontMetrics(series.pointLabelsFont())
        at = c.mapToPosition(series.at(1), series)
        half = fm.horizontalAdvance(words) / 2
        box = QRectF(at.x() - half, at.y() - fm.height(), 2 * half, fm.height())
        for other_name, other in chart.series.items():
            if other is series or not other.isVisible() or other.count() < 2:
                continue
            pts = [c.mapToPosition(other.at(i), other) for i in range(other.count())]
            hit = next((p0 + (p1 - p0) * (k / 40) for p0, p1 in zip(pts, pts[1:], strict=False)
                        for k in range(41) if box.contains(p0 + (p1 - p0) * (k / 40))), None)
            if hit is not None:
                bad.append(f"{words!r} over {other_name} at ({hit.x():.0f}, {hit.y():.0f})")
    return bad


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presentation"])
def test_each_levels_words_are_clear_of_the_curves_and_say_whose_they_are(
        until, bench, monkeypatch, present):
    """A | B at 1024 x 768: B's level (its per-window WA predicted) lies where B's own
    per-window curve runs, and its words, written at a fixed share of the x span, stood grey
    on B's purple and green dashes. Each level's words stand where no line crosses them,
    begin with their drive's letter, and are in a colour with AA contrast on the chart's
    page (4.5:1), in the desk and projector profiles."""
    from ssdlab.app.colourvision import contrast
    from ssdlab.app.gui.appearance import theme

    screen_is(bench, monkeypatch, 1024)
    if present:  # the control panel hidden (F9): the chart's plot is then the room's
        as_a_projector(bench, until)
        bench.toggle_panel(False)
    else:
        hold(bench, until, 1024)
    assert bench.set_compare(True)
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    bench.edit_drive(1)
    assert bench.request(spare_pct=28.0)
    bench.request(workload="fill", fill_pct=100.0)
    bench.run_workload()
    until(lambda: finished(bench, runs=1))
    ran(bench, until, 2)
    wa = bench.charts.wa
    bench.charts.setCurrentWidget(wa)
    until(lambda: wa.points("B:wa_window") > 1 and bool(wa.level_label("B:theory")))
    try:
        QApplication.processEvents()  # the plot laid out at its size, the words placed
        assert words_over_curves(wa) == []
        page = theme.current().colour("chart_background")
        for name, letter in (("theory", "A"), ("B:theory", "B")):
            series = wa.series[name]
            assert wa.level_label(name).startswith(f"{letter}: ")
            assert contrast(series.pointLabelsColor().name(), page) >= 4.5
    finally:
        bench.toggle_presentation(False)
        bench.set_compare(False)
