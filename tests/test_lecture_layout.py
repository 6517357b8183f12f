"""What a lecture at 1024 x 768 in presentation type showed wrong: a control-panel note
squashed over its field, an empty WA chart whose analytic level was a point on an axis of
0 and 1, the lesson panel pushing the window past the screen, a notice said twice."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QWidget

from ssdlab.app.gui.appearance.fullnote import FullNote
from ssdlab.app.gui.charts.charts import Charts
from ssdlab.app.gui.run.snapshot import drive_snapshot
from ssdlab.app.session.recorder import Recorder
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import Geometry

WORDS = "7.2 % of physical = 7.8 % of user capacity; 276 blocks"


def note_in_a_form(qtbot, width: int, height: int) -> tuple[QWidget, FullNote]:
    """A note of WORDS in a form, shown at width x height px, in 9 pt type whatever type an
    earlier test left the application in (at 18 pt its longest word alone is wider than
    the narrow width the tests wait for)."""
    box = QWidget()
    form = QFormLayout(box)
    note = FullNote()
    form.addRow(note)
    qtbot.addWidget(box)
    note.setText(WORDS)
    box.setStyleSheet("QLabel { font-size: 9pt; }")
    box.resize(width, height)
    box.show()
    return box, note


def test_a_note_keeps_the_height_its_words_need_as_the_panel_narrows(qtbot, until):
    box, note = note_in_a_form(qtbot, 400, 40)
    until(lambda: note.width() > 300 and note.minimumHeight() == note.needed_height())
    wide = note.minimumHeight()
    box.resize(90, 40)  # narrower: more lines, and the note asks for them
    until(lambda: note.width() < 100 and note.minimumHeight() == note.needed_height())
    assert note.minimumHeight() > wide
    assert note.height() >= note.needed_height()


def test_a_note_gives_back_its_height_when_large_type_ends(qtbot, until):
    """Presentation type and back: the notes kept their 18 pt height (112 px for two lines)
    in blank bands between the fields once the type was normal again."""
    box, note = note_in_a_form(qtbot, 300, 600)
    until(lambda: note.width() > 200 and note.minimumHeight() > 0)
    normal = note.minimumHeight()
    box.setStyleSheet("QLabel { font-size: 18pt; }")
    until(lambda: note.minimumHeight() > 1.5 * normal)
    box.setStyleSheet("QLabel { font-size: 9pt; }")
    until(lambda: note.minimumHeight() == normal and note.maximumHeight() == normal)
    until(lambda: note.height() == normal)


def test_an_empty_wa_chart_draws_its_analytic_level_across_tenths(qtbot):
    g = Geometry(user_pages=1024, pages_per_block=16, spare=0.25)
    recorder = Recorder(g)
    drive = Drive(g)
    recorder.record(drive, 0.0)  # Reset All: one row, at 0 drive writes, no WA yet
    charts = Charts()
    qtbot.addWidget(charts)
    charts.resize(600, 320)
    charts.theory = 6.4
    charts.show_snapshot(drive_snapshot(drive, 1, series=recorder.series()), False)
    view = charts.wa
    level = [(p.x(), p.y()) for p in view.series["theory"].points()]
    assert level == [(0.0, 6.4), (1.0, 6.4)]  # a line a room sees, not a point
    x = view.x_axis.labels()
    assert x[0] == "0" and x[-1] in ("1", "1.0") and len(x) > 2  # tenths, not 0 and 1
    y = [float(t) for t in view.y_axis.labels()]
    assert y[0] == 0 and 6.4 < y[-1] <= 10 and len(y) >= 3


def test_the_lesson_panel_folds_the_control_panel_in_presentation_type(bench, until,
                                                                     monkeypatch):
    from test_gui_fit768 import screen_is

    screen_is(bench, monkeypatch, 1024)
    bench.toggle_presentation(True)
    assert bench.presentation.panel_shown() and not bench.lesson_dock.isVisible()
    bench.lesson_dock.show()  # Ctrl+L: the welcome page beside the map
    until(lambda: not bench.presentation.panel_shown())  # 27 lines of 85 columns: compact
    assert bench.arranger.arrangement.name == "compact"
    bench.lesson_dock.hide()
    until(lambda: bench.presentation.panel_shown())
    bench.toggle_presentation(False)
    bench.lesson_dock.show()  # the desk profile: nothing folds
    until(lambda: bench.lesson_dock.isVisible())
    assert bench.presentation.panel_shown() and bench.arranger.arrangement.name == "wide"
    bench.lesson_dock.hide()


def test_a_gc_said_under_the_map_is_not_repeated_on_the_progress_line(bench, until):
    now = bench.views[0].tally.now
    bench.notice = "One GC step: block 3 cleaned, 5 valid pages moved to block 9."
    now.setText(bench.notice)
    until(lambda: now.isVisible())
    bench._status()
    assert bench.notice not in bench.progress_label.text()
    now.setText("")
    bench._status()
    assert bench.progress_label.text().endswith(bench.notice)
    bench.notice = ""


def test_a_chart_too_short_for_its_upright_y_title_puts_the_titles_above(qtbot, until):
    """At its least height at 1.5x scaling QtCharts cut the upright y title to "write
    ampl..."; there the titles go above the plot, and upright again once it is tall."""
    from ssdlab.app.gui.charts.seriescharts import SeriesChart
    from ssdlab.model.lab.charts import Axis

    chart = SeriesChart("Write amplification", "host writes (drive capacities)",
                        Axis("write amplification", "NAND/host", "wa"), "")
    qtbot.addWidget(chart)
    chart.resize(500, 400)
    chart.show()
    until(lambda: chart.y_axis.isTitleVisible())
    chart.resize(500, 150)
    until(lambda: not chart.y_axis.isTitleVisible()
          and chart.chart().title().startswith("write amplification"))
    chart.resize(500, 400)
    until(lambda: chart.y_axis.isTitleVisible() and chart.chart().title() == "Write amplification")
