"""The lesson window shows what the lesson says (issue 21): the controls and the map of the
configuration a question is about, the spare a scenario's drive really has, a lesson
reopened exactly where it was left with its predictions, lesson rows that never move, and
"Done in X s" as the run's wall time. Runs wait on conditions, never on time."""

from __future__ import annotations

import pytest
import test_gui_lessons
from test_gui_lessons import _wait_job

from ssdlab.app.gui.settings.scenariofiles import scenario_for, settings_for
from ssdlab.app.gui.settings.session import Settings
from ssdlab.lessons.catalogue import find
from ssdlab.model.lab.experiments import SCENARIOS
from ssdlab.model.lab.scenario import build_machine, load_scenario

# the lesson tests' window (1024 x 768, its own progress folder, the workbench's drive drawn)
bench, progress_dir = test_gui_lessons.bench, test_gui_lessons.progress_dir


def _index(lesson, kind: str, sid: str | None = None) -> int:
    return next(i for i, s in enumerate(lesson.steps)
                if s.kind == kind and (sid is None or getattr(s, "id", None) == sid))


def test_a_scenarios_spare_is_the_spare_its_drive_has():
    """A 1 GiB drive of 16 MiB blocks: whole blocks round the profile's 9.05 % up to 9.86 %;
    the Spare field says so, and the workbench builds the scenario's very drive from it."""
    sc = load_scenario(SCENARIOS / "fill_rounds_1gib.toml")
    s = settings_for(sc, Settings())
    real = build_machine(sc).drive.geometry
    assert s.spare_pct == pytest.approx(round(100 * real.spare_of_physical, 2))
    assert s.spare_pct == pytest.approx(9.86)
    assert s.geometry() == real  # bit for bit the scenario's drive, not a block more
    fs_log = [{"fs": True, "kind": "fill", "done": 1, "total": 1}]
    try:  # a run on it still saves as a scenario of the profile (its spare is the profile's)
        scenario_for(s, fs_log, "x")
    except ValueError as e:
        assert "Spare" not in str(e), e


def test_lesson_4_spare_agrees_with_its_note(bench):
    panel, lesson = bench.lesson_panel, find("4")
    panel.start(lesson, _index(lesson, "run", "rounds"))
    spare = bench.controls.widgets["spare_pct"].value()
    note = bench.controls.op_note.text()
    assert spare == pytest.approx(9.86, abs=0.05)  # the field shows one decimal
    assert note.startswith(f"{spare:.1f} % of physical"), note


def test_lessons_2_and_3_panels_say_what_their_text_says(bench):
    panel, widgets = bench.lesson_panel, bench.controls.widgets
    two = find("2")
    panel.start(two, _index(two, "run"))
    assert widgets["spare_pct"].value() == pytest.approx(6.54, abs=0.05)  # "6.5 % of physical"
    assert bench.controls.op_note.text().startswith("6.5 % of physical = 7.0 % of user")
    three = find("3")
    panel.start(three, _index(three, "predict", "skew"))
    assert (widgets["hot_lba_pct"].value(), widgets["hot_write_pct"].value()) == (10, 90)
    assert widgets["gc"].currentData() == "greedy"
    panel.show_step(_index(three, "predict", "frontier-cb"))  # a cost-benefit question
    assert widgets["gc"].currentData() == "cost-benefit"
    assert (widgets["hot_lba_pct"].value(), widgets["hot_write_pct"].value()) == (5, 90)
    assert widgets["spare_pct"].value() == pytest.approx(28)


def test_the_map_is_of_the_configuration_the_question_is_about(bench, qtbot):
    """Lesson 3 runs five policies one after another; the step about the student's chosen
    policy shows that policy's drive as it ended, not the last one run; a step about a run
    not yet made shows no drive (none of another run's, nor the workbench's own)."""
    panel, lesson = bench.lesson_panel, find("3")
    panel.start(lesson, _index(lesson, "predict", "skew"))
    panel.predict(2)
    panel.show_step(_index(lesson, "predict", "best"))
    panel.predict(2)  # cost-benefit, the third configuration
    panel.show_step(_index(lesson, "run", "policies"))
    panel.run_button.click()
    _wait_job(qtbot, panel)
    assert "policies" in panel.play.runs, panel.run_note.text()
    last = bench.blockmap.snapshot  # the last configuration run: greedy, even traffic
    panel.show_step(_index(lesson, "reflect") + 1)  # "The best policy", about "best"
    assert panel.step.predict == "best"
    shown = bench.blockmap.snapshot
    assert shown is panel.maps[("policies", 2)] and shown is not last
    assert shown.counters["host_writes"] > 0
    assert bench.controls.widgets["gc"].currentData() == "cost-benefit"
    panel.show_step(_index(lesson, "predict", "frontier-cb"))  # the frontier run: not run
    assert bench.blockmap.snapshot is None  # no drive, not even the workbench's own
    assert bench.views[0].tally.figure("wa") == "-"


def test_a_lesson_reopens_at_its_step_with_its_predictions(bench, qtbot, progress_dir):
    from ssdlab.app.gui.frame.workbench import Workbench

    panel, lesson = bench.lesson_panel, find("1")
    guess = _index(lesson, "predict")
    left_at = _index(lesson, "reflect")  # after the run: the old player went back
    panel.start(lesson, guess)
    panel.predict(1)
    panel.show_step(left_at)
    panel.leave()  # the panel closed ...
    panel.home.chosen.emit(lesson)
    assert panel.index == left_at and panel.play.answers == {lesson.steps[guess].id: 1}
    bench.close()  # ... and the window
    again = Workbench()
    again.confirm = bench.confirm
    qtbot.addWidget(again)
    home = again.lesson_panel.home
    assert "left at step" in home.lesson_list.item(0).text()
    home.chosen.emit(lesson)
    reopened = again.lesson_panel
    assert reopened.index == left_at
    assert reopened.step.kind == "reflect" and "Welcome back" in reopened.feedback.text()
    reopened.show_step(guess)
    assert reopened.choices.currentRow() == 1 and reopened.next_button.isEnabled()
    reopened.restart()  # Reset All: nothing predicted any more
    assert reopened.index == 0 and reopened.play.answers == {}
    assert lesson.id not in reopened.progress.answers
    again.close()


def test_lesson_rows_keep_their_place_when_a_status_appears(bench):
    home = bench.lesson_panel.home
    items = home.lesson_list
    items.setFixedWidth(230)  # a narrow panel, where a long status would wrap
    home.refresh()

    def rows():
        return [items.visualItemRect(items.item(i)) for i in range(items.count())]

    before = rows()
    for lesson in home.lessons[:4]:
        bench.lesson_panel.progress.visit(lesson.id, 11)
    home.refresh()
    assert "left at step 12" in items.item(0).text()
    assert rows() == before


def test_done_in_is_the_wall_time_from_run_to_finished(bench, qtbot):
    """Timed by a clock the test sets: 42.5 s from Run pressed to the run finished, whatever
    the configurations' own times add up to (two side by side overlap)."""
    panel, lesson = bench.lesson_panel, find("1")
    times = iter([1000.0, 1042.5])
    panel.clock = lambda: next(times)
    panel.start(lesson, _index(lesson, "predict"))
    panel.predict(0)
    panel.next()
    panel.run_button.click()
    _wait_job(qtbot, panel)
    assert panel.step.id in panel.play.runs, panel.run_note.text()
    assert panel.run_note.text().startswith("Done in 42.5 s."), panel.run_note.text()
    panel.next()
    panel.back()  # shown again later: the same time
    assert panel.run_note.text().startswith("Done in 42.5 s.")


def test_every_figure_a_lesson_can_ask_about_has_words_on_screen():
    """An axis says "lifetime WA", never the code name lifetime_wa."""
    from ssdlab.lessons.charts import FIGURE_WORDS
    from ssdlab.lessons.figures import BLOCK_FIGURES, STEP_FIGURES

    missing = (set(BLOCK_FIGURES) | set(STEP_FIGURES)) - set(FIGURE_WORDS)
    assert not missing
    assert not [w for w in FIGURE_WORDS.values() if "_" in w]


def test_a_quiz_reading_wraps_its_sentence_and_keeps_its_table(qtbot):
    """A reading's long first line wraps inside the view instead of running off its edge;
    the table under it keeps each row on one line, its values in view."""
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QLabel

    from ssdlab.app.gui.lessons.lessonresults import LessonResults

    view = LessonResults()
    qtbot.addWidget(view)
    view.resize(300, 400)
    table = ("counter                            raw value\n"
             "Host writes (MiB)                        249")
    view.show_states([("First reading", "A simulated 64 MiB drive, 20 % spare, 4 KiB "
                       "rewrites, 80 % of them to 20 % of the pages\n" + table)])
    view.show()
    qtbot.waitUntil(lambda: view.viewport().width() < 300)  # laid out at its own width
    labels = view.widget().findChildren(QLabel)
    sentence = next(w for w in labels if w.text().startswith("A simulated"))
    room = view.viewport().width()
    assert sentence.wordWrap() and sentence.minimumSizeHint().width() < room
    rows = next(w for w in labels if w.text() == table)
    assert not rows.wordWrap()  # its columns stay together: smaller type, not broken rows
    widest = max(QFontMetrics(rows.font()).horizontalAdvance(x) for x in table.split("\n"))
    assert widest <= room - 8 and rows.minimumSizeHint().width() <= room


def test_a_prediction_names_its_configurations_before_the_run(bench):
    """Before the run the axis already says whose WA over whose, not "WA ÷ WA" (a
    prediction is drawn once it is made: tests/test_gui_lesson_walk.py)."""
    panel, lesson = bench.lesson_panel, find("12")
    panel.start(lesson, _index(lesson, "predict", "which-firmware"))
    panel.predict(0)
    panel.show_step(_index(lesson, "predict", "how-much"))
    panel.predict(2)
    labels = [v.picture.axis_label for v in bench.lesson_results.predictions]
    ratio = next(x for x in labels if "÷" in x)
    assert "firmware ignores TRIM" in ratio and "firmware acts on TRIM" in ratio, labels


def test_two_drives_side_by_side_the_controls_show_the_one_asked_about(bench):
    """Lesson 13 runs an even and a skewed drive on maps A and B; its question is about the
    skewed one, so the controls show 10 % of the pages taking 90 % of the rewrites."""
    panel, lesson = bench.lesson_panel, find("13")
    panel.start(lesson, _index(lesson, "predict"))
    step = panel.step
    assert panel.play.paired(lesson.step_of(step.measure.run))
    widgets = bench.controls.widgets
    assert widgets["workload"].currentData() == "hotcold"
    assert (widgets["hot_lba_pct"].value(), widgets["hot_write_pct"].value()) == (10, 90)


def test_a_step_chart_names_steps_in_words():
    from types import SimpleNamespace as NS

    from ssdlab.lessons.charts import run_chart

    step = NS(name="random_writes data", as_dict=lambda: {"nand_written_mb": 3.0})
    lesson = find("14")
    run = next(s for s in lesson.steps if s.kind == "run")
    result = NS(config=run.configs[0], steps=[step])
    chart = run_chart("step_nand_mb", run, [result])
    assert chart.categories == ("1. random writes data",)


def test_saved_predictions_are_checked_when_read(tmp_path):
    import json

    from ssdlab.app.session.progress import FILE_NAME, load_progress

    path = tmp_path / FILE_NAME
    p = load_progress(path)
    p.remember("trim", "slower", 1)
    assert load_progress(path).answers == {"trim": {"slower": 1.0}}
    for bad in ({"trim": {"slower": "one"}}, {"trim": [1]}, {"trim": {"slower": True}}):
        path.write_text(json.dumps({"format": 1, "finished": [], "at": {}, "answers": bad}))
        p = load_progress(path)
        assert "answers must map" in p.problem and p.answers == {}
    path.write_text(json.dumps({"format": 1, "finished": [], "at": {"trim": 2}}))
    assert load_progress(path).at == {"trim": 2}  # a file from before answers were kept
