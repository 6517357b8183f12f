"""A lesson's results at a 1024 x 768 projector (18 pt, the layout policy's compact
arrangement): every step of every lesson shows its figures whole, a page at a time, with
no scrolling; where they take more than a page the row over them turns it (Page Down too).
The run chart's axis titles are whole there and at 1366 x 768 in the normal type, in both
colour profiles: QtCharts cut "write amplification" to "write a..."."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from test_gui_fit768 import hold, screen_is
from test_gui_lecture import as_a_projector
from test_gui_present import chart_texts

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.appearance.preferences import Preferences
from ssdlab.app.gui.frame import layoutpolicy as lp
from ssdlab.app.gui.lessons.resultpages import pack, pages_words
from ssdlab.lessons.charts import BLOCK_CHARTS, STEP_CHARTS, RunChart, Series


def test_the_short_arrangements_page_the_results():
    assert lp.choose(lp.Room(1024, 768, 18)).results == "pages"  # a projector
    assert lp.choose(lp.Room(1366, 768, 18)).results == "pages"
    assert lp.choose(lp.Room(1366, 768, 9)).results == "column"
    assert lp.choose(lp.Room(1920, 1080, 9)).results == "column"


def test_pages_hold_whole_figures_in_order():
    assert pack([300, 200, 250, 900, 100], 600) == [[0, 1], [2], [3], [4]]
    assert pack([], 600) == []
    assert pages_words([[0, 1], [2]], 0, 3) == "Figures 1\u20132 of 3"
    assert pages_words([[0, 1], [2]], 1, 3) == "Figure 3 of 3"


def _walk(bench, until, lesson):
    """Each step of lesson, its predictions made and its quiz answered with the lesson's
    recorded answers (its runs not run: the answer pictures are there without the
    outcome, a chart is test_a_chart_takes_the_room_its_page_leaves's); yields each
    step's index once the results show."""
    panel, results = bench.lesson_panel, bench.lesson_results
    panel.start(lesson, 0)
    for i, step in enumerate(lesson.steps):
        panel.show_step(i)
        if step.kind == "predict":
            panel.predict(step.answer)
        elif step.kind == "quiz" and step.answer:
            panel.quiz_answer.setText(step.answer)
            panel.check_quiz()
        until(lambda: panel.job is None)  # a compare step replays its experiment
        if results.has_content():
            bench.arranger.flipper._manual = "results"  # as F7 would, where the drive shows first
            bench.arranger.update()
            until(lambda: results.isVisible() and results.viewport().height() > 300)
            yield i


def settled(results) -> bool:
    """The results laid out at the view's width (their least width fits it), or not
    fitting it whatever happens (a cut the test reports); the layouts asked for done
    first (the lessons panel widening beside the results lays them out once more)."""
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    inner, view = results.widget(), results.viewport()
    return inner.width() == view.width() or inner.minimumSizeHint().width() > view.width()


def test_every_lessons_results_fit_a_1024_by_768_projector_a_page_at_a_time(
        qtbot, until, bench, monkeypatch):
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    results = bench.lesson_results
    cut = []
    for lesson in bench.lesson_panel.lessons:
        for i in _walk(bench, until, lesson):
            figures = len(results._figures) + bool(results.note.text())
            # every page in turn, by the key a lecturer presses
            for page in range(max(1, len(results.pages))):
                until(lambda p=page: results.page == p and settled(results)
                      and results.pager.isVisible() == (len(results.pages) > 1))
                down = results.verticalScrollBar().maximum()
                sideways = results.widget().width() - results.viewport().width()
                if down > 0 or sideways > 0:
                    cut.append(f"lesson {lesson.order} step {i + 1} page {page + 1}: "
                               f"{down} px to scroll, {sideways} px cut at the right")
                if len(results.pages) > 1:
                    assert results.pager.later.isEnabled() == (page + 1 < len(results.pages))
                QTest.keyClick(results, Qt.Key.Key_PageDown)
            if results.pages:  # every figure on one page
                assert sorted(f for p in results.pages for f in p) == list(range(figures))
    assert not cut, cut
    assert results.paged  # the layout policy's pages
    bench.lesson_panel.leave()


def _wa_chart(name: str) -> RunChart:
    """A run chart as the lesson's runs draw it: the titles of `name`, two configurations'
    values (layout only: no figure here is shown as a result)."""
    if name in BLOCK_CHARTS:
        title, label, unit = BLOCK_CHARTS[name]
        x = tuple(0.1 * (i + 1) for i in range(10))
        series = tuple(Series(f"drive {k}", f"d{k}", tuple(3.0 + k + 0.1 * i for i in range(10)),
                              x) for k in range(2))
        return RunChart(name, title, "lines", "drive writes measured", "", label, unit,
                        series, x=x)
    title, label, unit, _figure = STEP_CHARTS[name]
    series = tuple(Series(f"drive {k}", f"d{k}", (1.0 + k, 2.0, 3.5)) for k in range(2))
    return RunChart(name, title, "bars", "step", "", label, unit, series,
                    categories=("1. write", "2. delete", "3. write"))


@pytest.mark.parametrize("profile", ["normal", "projector"])
@pytest.mark.parametrize("present", [True, False], ids=["1024-presentation", "1366-normal"])
def test_a_chart_takes_the_room_its_page_leaves_its_titles_whole(qtbot, until, bench,
                                                                 monkeypatch, present, profile):
    screen_is(bench, monkeypatch, 1024 if present else 1366)
    if present:
        as_a_projector(bench, until)
    else:
        hold(bench, until, 1366)
    bench.presentation.set_preferences(Preferences(colours=profile))
    try:
        assert theme.current().name == profile
        results = bench.lesson_results
        panel = bench.lesson_panel
        panel.start(panel.lessons[0], 0)
        for name in (*BLOCK_CHARTS, *STEP_CHARTS):
            results.show_results([_wa_chart(name)], [])
            bench.arranger.flipper._manual = "results"  # as F7 would, where the drive shows first
            bench.arranger.update()
            view = results.charts[0]
            # (the layouts asked for done first: the lessons panel widens beside the
            # results alone, and the chart is laid out once more at its new width)
            until(lambda v=view: settled(results) and v.isVisible()
                  and v.y_axis.titleText() in chart_texts(v)
                  and (results.verticalScrollBar().maximum() == 0 or not present))
            shown = chart_texts(view)
            assert not [t for t in shown if t.endswith(("...", "\u2026"))], (name, shown)
            assert view.y_axis.titleText() in view.y_titles()
            if present:  # the rest of the room, not a strip of the chart's least height
                assert view.height() > results.viewport().height() // 2
        panel.leave()
    finally:
        bench.presentation.set_preferences(Preferences())


def test_a_quizs_figures_too_wide_for_the_results_put_each_value_under_its_label(
        qtbot, until, bench, monkeypatch):
    """Lesson 7's quiz at a 1024 x 768 projector: its two figures' labels are 66
    characters, and the values were 114 px off the right of the results, even in the
    smallest type a table takes (11 pt); now each value under its label, wrapped, in the
    projector's 18 pt."""
    from ssdlab.lessons.runquiz import Given, RunQuiz

    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel, results = bench.lesson_panel, bench.lesson_results
    lesson = next(x for x in panel.lessons if x.order == 7)
    panel.start(lesson, len(lesson.steps) - 1)  # its quiz
    # the lessons panel as wide as the tour found it there, after the lesson's runs: the
    # results 540 px wide
    bench.resizeDocks([bench.lesson_dock], [470], Qt.Orientation.Horizontal)
    until(lambda: bench.lesson_dock.width() >= 460)
    quiz = RunQuiz((Given("file-system writes of steps 3-4 (make, sync), journal, strict atime",
                          41.25),
                    Given("file-system writes of steps 3-4 (make, sync), no journal, strict "
                          "atime", 30.5)), 1.35, "", 0.1)
    results.show_states(quiz.blocks())
    until(lambda: results.isVisible() and settled(results) and bool(results.tables))
    body = results.tables[0]

    def whole() -> bool:  # every row of it drawn, none cut at the label's right end
        rows = body.text().split("\n")
        widest = max(body.fontMetrics().horizontalAdvance(r) for r in rows)
        return results.viewport().width() < 560 and widest <= body.width() \
            and body.width() <= results.viewport().width()

    until(whole)
    values = [line.strip() for line in body.text().split("\n") if line.startswith("    ")]
    assert values == ["41.25", "30.50"]  # each on a line of its own, under its label
    assert body.font().pointSizeF() == theme.current().font_pt  # legible from the back row
    panel.leave()


def test_page_down_turns_the_results_from_the_lesson_panel_not_from_its_text(
        qtbot, until, bench, monkeypatch):
    """A lecturer at a 1024 x 768 projector: the keyboard is where the lesson leaves it,
    on the panel's Next button, and Page Down shows the next figures (it did nothing until
    F6 and Tab put the focus in the results); in the lesson's text Page Down scrolls the
    text and leaves the page alone."""
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel, results = bench.lesson_panel, bench.lesson_results
    bench.activateWindow()
    until(bench.isActiveWindow)  # a window shortcut fires only in the active window
    # the first step whose results take more than a page
    for lesson in panel.lessons:
        if any(len(results.pages) > 1 for _i in _walk(bench, until, lesson)):
            break
    else:
        pytest.fail("no lesson's results take two pages at 1024 x 768")
    until(lambda: results.page == 0 and results.pager.isVisible())
    panel.next_button.setFocus()
    until(panel.next_button.hasFocus)
    QTest.keyClick(panel.next_button, Qt.Key.Key_PageDown)
    until(lambda: results.page == 1)
    assert results.pager.earlier.isEnabled()
    QTest.keyClick(panel.next_button, Qt.Key.Key_PageUp)
    until(lambda: results.page == 0)
    # the drive shown in the results' place (F7): the hidden pages stay as they are
    bench.arranger.flipper._manual = "drive"
    bench.arranger.update()
    until(lambda: not results.isVisible())
    QTest.keyClick(panel.next_button, Qt.Key.Key_PageDown)
    QApplication.processEvents()
    assert results.page == 0
    bench.arranger.flipper._manual = "results"
    bench.arranger.update()
    until(results.isVisible)
    # the lesson's text keeps the key: it scrolls (made long enough to), the page stays
    text = panel.body
    text.setPlainText("\n".join(f"line {n} of a long lesson text" for n in range(200)))
    until(lambda: text.verticalScrollBar().maximum() > 0)
    text.verticalScrollBar().setValue(0)
    text.setFocus()
    until(text.hasFocus)
    QTest.keyClick(text, Qt.Key.Key_PageDown)
    until(lambda: text.verticalScrollBar().value() > 0)
    assert results.page == 0
    panel.leave()
