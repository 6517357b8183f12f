"""A lesson a class can follow at a 1024 x 768 projector in 18 pt type (issue 36): every
step's text box shows its whole text or at least QUESTION_LINES lines, with Back and Next
in view and nothing to scroll sideways (a question kept 2 lines, a run step's text 3);
lesson 1's quiz figures in the projector's type; the list of lessons with whole titles,
as many as fit, walked by keyboard."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtTest import QTest
from test_gui_fit768 import screen_is
from test_gui_lecture import as_a_projector

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.lessons.lessonpage import QUESTION_LINES


def shows_enough(bench) -> bool:
    panel = bench.lesson_panel
    body = panel.body
    doc = body.document().size().height()
    least = min(doc, QUESTION_LINES * body.fontMetrics().lineSpacing())
    return (bench.lessons_fit.verticalScrollBar().maximum() == 0  # Back and Next in view
            and body.horizontalScrollBar().maximum() == 0
            and body.viewport().height() >= least
            and panel.next_button.isVisible())


def test_every_step_shows_its_text_whole_or_several_lines_at_a_1024_projector(
        qtbot, until, bench, monkeypatch):
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    bench.lesson_dock.show()
    panel = bench.lesson_panel
    for order in (1, 4, 8):
        lesson = next(x for x in panel.lessons if x.order == order)
        panel.start(lesson, 0)
        for i in range(len(lesson.steps)):
            panel.show_step(i)
            until(lambda: panel.job is None)  # a compare step replays its experiment
            until(lambda: shows_enough(bench))
    panel.leave()


def test_lesson_ones_quiz_figures_keep_the_projectors_type(qtbot, until, bench, monkeypatch):
    """Its eight blocks before and after, and (its last quiz) the run's two figures, in the
    projector's 18 pt, their columns aligned: the figures were set smaller to fit (down to
    11 pt), where each value can go under its label."""
    from ssdlab.lessons.runquiz import Given, RunQuiz

    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel, results = bench.lesson_panel, bench.lesson_results
    bench.lesson_dock.show()
    lesson = next(x for x in panel.lessons if x.order == 1)
    states = next(i for i, s in enumerate(lesson.steps) if s.kind == "quiz")
    panel.start(lesson, states)
    bench.resizeDocks([bench.lesson_dock], [488], Qt.Orientation.Horizontal)
    until(lambda: bench.lesson_dock.width() >= 480 and results.isVisible()
          and len(results.tables) == 2)

    def in_the_projectors_type() -> bool:
        return all(t.font().pointSizeF() == theme.current().font_pt for t in results.tables) \
            and results.horizontalScrollBar().maximum() == 0

    until(in_the_projectors_type)
    rows = results.tables[0].text().split("\n")
    assert len(rows) == 8 and len({len(r) for r in rows}) == 1  # its columns aligned
    quiz = RunQuiz((Given("host pages written, first drive write of overwrites", 16384),
                    Given("flash pages programmed, first drive write of overwrites",
                          111231)), 5.8, "", 0.02)
    # beside the lessons panel at its own width (the results 700 px): the figures' rows,
    # 64 characters, were set in 17 pt there, and in 11 pt where the results were narrower
    bench.resizeDocks([bench.lesson_dock], [320], Qt.Orientation.Horizontal)
    until(lambda: bench.lesson_dock.width() <= 330 and results.width() > 650)
    results.show_states(quiz.blocks())
    until(lambda: bool(results.tables) and in_the_projectors_type())
    panel.leave()


def test_the_list_of_lessons_shows_whole_titles_as_many_as_fit(qtbot, until, bench,
                                                                monkeypatch):
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    bench.lesson_dock.show()
    panel = bench.lesson_panel
    panel.show_home()
    items = panel.home.lesson_list

    def shown() -> list[int]:
        view = items.viewport().rect()
        return [i for i in range(items.count())
                if view.contains(items.visualItemRect(items.item(i)))]

    def whole(i: int) -> bool:  # every line of the row drawn in its rectangle, unelided
        rect = items.visualItemRect(items.item(i))
        text = items.item(i).text()
        need = QFontMetrics(items.font()).boundingRect(
            QRect(0, 0, rect.width() - 8, 1 << 16), int(Qt.TextFlag.TextWordWrap), text)
        return need.height() <= rect.height() and need.width() <= rect.width()

    until(lambda: len(shown()) >= 4 and all(whole(i) for i in shown())
          and bench.lessons_fit.verticalScrollBar().maximum() == 0)
    assert items.textElideMode() == Qt.TextElideMode.ElideNone
    items.setFocus()
    until(items.hasFocus)
    QTest.keyClick(items, Qt.Key.Key_End)  # the last lesson, by keyboard
    until(lambda: items.count() - 1 in shown())
    assert whole(items.count() - 1)
