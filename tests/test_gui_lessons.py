"""The lesson player in the window: the first screen, predict-before-run, a run drawn with
every configuration and the prediction beside the outcome, compare, quiz, the controls a
lesson uses, the glossary, progress kept between sessions, bad lesson files, cancel and
Reset All. Runs wait on conditions, never on time."""

from __future__ import annotations

import json
import threading

import pytest

from ssdlab.app.session.progress import FILE_NAME, config_dir, load_progress
from ssdlab.lessons.catalogue import find

HANG = 5 * 60 * 1000  # only stops a test that would otherwise wait forever
HANG_S = HANG / 1000

LONG_LESSON = """format = 1
id = "long-run"
title = "A long run"
order = 20
minutes = 5
summary = "A run long enough to cancel."

[[steps]]
kind = "predict"
id = "guess"
title = "Guess"
question = "Which drive writes more flash per host write?"
measure = "big.*.wa"
rule = "largest"
answer = 0

[[steps.choices]]
text = "The one with 7 % spare"
explain = "Less room, fuller victims."
config = "low"

[[steps.choices]]
text = "The one with 25 % spare"
explain = "More room, emptier victims."
config = "high"

[[steps]]
kind = "run"
id = "big"
title = "Two big drives"
varies = "the spare space"
charts = ["wa_windows"]
blockmap = true
max_seconds = 300

[[steps.configs]]
id = "low"
label = "7 % spare"
drive = { user_pages = 1048576, pages_per_block = 64, spare = 0.07 }
warmup_drive_writes = 0.0
measure_drive_writes = 200.0

[[steps.configs]]
id = "high"
label = "25 % spare"
drive = { user_pages = 1048576, pages_per_block = 64, spare = 0.25 }
warmup_drive_writes = 0.0
measure_drive_writes = 200.0
"""


@pytest.fixture
def progress_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


@pytest.fixture
def bench(qtbot, progress_dir, compiled_engine):
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.confirm = lambda text: pytest.fail(f"unexpected question: {text}")
    qtbot.addWidget(w)
    w.resize(1024, 768)
    w.lesson_panel.watch.enabled = False  # lesson 1's GCs at teaching pace: own tests
    w.show()
    # The workbench's own drive is drawn before a test starts: a test that keeps its map
    # (and gives it back after a lesson) must not depend on the worker being quicker than
    # the events pytest-qt happens to process after setup.
    qtbot.waitUntil(lambda: w.snapshot is not None, timeout=HANG)
    yield w
    panel = w.lesson_panel
    if panel.job is not None:
        panel.job.cancel()
        panel.job.wait()
    w.close()


def _wait_job(qtbot, panel) -> None:
    qtbot.waitUntil(lambda: panel.job is None, timeout=HANG)


def _goto(panel, kind: str) -> None:
    while panel.step.kind != kind:
        panel.next()
        assert panel.next_button.isEnabled() or panel.step.kind == kind


def test_first_screen_leads_into_lesson_one(bench):
    panel = bench.lesson_panel
    assert bench.lesson_dock.isVisible()
    assert panel.pages.currentIndex() == 0
    assert panel.home.start_button.text() == "Start with lesson 1"
    items = [panel.home.lesson_list.item(i).text() for i in range(panel.home.lesson_list.count())]
    assert len(items) == 18 and all(" min · " in t for t in items)
    assert items[0].startswith("1. What write amplification is")
    panel.home.start_button.click()
    assert panel.lesson.order == 1 and panel.index == 0
    assert "Step 1 of" in panel.where.text()
    assert not bench.button_bar.isVisible()  # the workbench's own run waits
    panel.leave()
    assert bench.button_bar.isVisible() and panel.pages.currentIndex() == 0


def test_run_waits_for_the_prediction(bench):
    panel = bench.lesson_panel
    lesson = find("1")
    run_at = next(i for i, s in enumerate(lesson.steps) if s.kind == "run")
    predict_at = next(i for i, s in enumerate(lesson.steps) if s.kind == "predict")
    panel.start(lesson, predict_at)
    assert not panel.next_button.isEnabled()  # no going on without a prediction
    panel.show_step(run_at)
    assert not panel.run_button.isEnabled()
    # which step, said once, in the note over Next (not twice, there and under Run)
    assert f"step {predict_at + 1}" in panel.next_note.text()
    assert not panel.run_note.isVisibleTo(panel)
    panel.start_job()  # refused, not merely disabled
    assert panel.job is None
    panel.show_step(predict_at)
    panel.predict(1)
    assert panel.next_button.isEnabled()
    panel.next()
    assert panel.step.kind == "run" and panel.run_button.isEnabled()


def test_a_run_keeps_every_configuration_and_draws_the_prediction(bench, qtbot):
    panel, lesson = bench.lesson_panel, find("1")
    panel.start(lesson, 0)
    _goto(panel, "predict")
    panel.predict(1)
    panel.next()
    assert panel.step.kind == "run" and not panel.next_button.isEnabled()
    panel.run_button.click()
    _wait_job(qtbot, panel)
    step = panel.step
    assert step.id in panel.play.runs, panel.run_note.text()
    view = bench.lesson_results
    assert view.charts and view.charts[0].labels() == [c.label for c in step.configs]
    (picture,) = [p.picture for p in view.predictions]
    chosen = [i for i, b in enumerate(picture.bands) if b.chosen]
    right = [i for i, b in enumerate(picture.bands) if b.right]
    assert chosen == [1]
    measured = panel.play.measured(lesson.step_of("wa-guess"))
    assert picture.measured == pytest.approx(measured)
    band = picture.bands[right[0]]
    assert band.low <= measured < band.high
    # the block map shows the lesson's drive, not the workbench's empty one
    assert bench.blockmap.snapshot.counters["host_writes"] > 0
    assert panel.next_button.isEnabled()
    panel.next()
    assert panel.step.kind == "reflect"
    text = panel.body.toPlainText()
    assert "You predicted" in text and f"{measured:.3g}" in text


def test_a_run_of_two_configurations_shows_them_on_drives_a_and_b(bench, qtbot):
    """The classroom's comparison inside a lesson: lesson 1's two drives run side by side,
    each on its own map, titled with what differs; leaving gives back the one drive, with
    its own map."""
    from ssdlab.app.gui.frame import compare

    panel, lesson = bench.lesson_panel, find("1")
    own = bench.views[0].blockmap.snapshot
    panel.start(lesson, 0)
    _goto(panel, "predict")
    assert compare.comparing(bench)  # the pair is announced before it runs
    titles = [v.title.text() for v in bench.views]
    assert titles[0].startswith("A") and titles[1].startswith("B") and titles[0] != titles[1]
    panel.predict(0)
    panel.next()
    panel.run_button.click()
    _wait_job(qtbot, panel)
    step = panel.step
    assert [r.config.id for r in panel.play.runs[step.id]] == [c.id for c in step.configs]
    a, b = (v.blockmap.snapshot for v in bench.views)
    assert a is not None and b is not None and a is not b
    assert a.counters["host_writes"] > 0 and b.counters["host_writes"] > 0
    panel.leave()
    assert not compare.comparing(bench)
    assert bench.views[0].shows_own_drive
    back = bench.views[0].blockmap.snapshot  # the workbench's own drive, as it was
    assert back.counters["host_writes"] == own.counters["host_writes"] == 0


def test_compare_and_quiz(bench, qtbot):
    panel, lesson = bench.lesson_panel, find("1")
    panel.start(lesson, 0)
    _goto(panel, "predict")
    panel.predict(2)
    panel.next()
    panel.start_job()
    _wait_job(qtbot, panel)
    _goto(panel, "compare")
    _wait_job(qtbot, panel)
    text = panel.body.toPlainText()
    assert "simulated:" in text and "analytic model" in text and "Why:" in text
    compare = [v.picture for v in bench.lesson_results.predictions
               if v.picture.kind == "compare"]
    rows = panel.play.compare(panel.step)
    assert len(compare) == len(rows) and len(rows) == 2
    assert [b.value for b in compare[0].bars] == [rows[0].documented, rows[0].simulated]
    _goto(panel, "quiz")
    quiz = lesson.steps[panel.index]
    panel.quiz_answer.setText("write 1")
    panel.check_quiz()
    assert panel.feedback.text().startswith("Not quite")
    panel.quiz_answer.setText(quiz.answer)
    panel.check_quiz()
    assert panel.feedback.text().startswith("Right")
    panel.quiz_answer.setText("erase everything")
    panel.check_quiz()
    assert panel.feedback.text().startswith("Answer:")  # a message, not a traceback


def test_controls_show_what_the_run_uses_and_come_back(bench):
    panel, lesson = bench.lesson_panel, find("2")
    controls = bench.controls
    panel.start(lesson, 0)
    run = next(s for s in lesson.steps if s.kind == "run")
    panel.show_step(lesson.steps.index(run))
    spare = controls.widgets["spare_pct"]
    assert not spare.isEnabled() and spare.property("lesson") == "used"
    assert not controls.widgets["journal"].isVisibleTo(controls)
    assert controls.lesson_note.isVisibleTo(controls)
    panel.leave()
    assert spare.isEnabled() and (spare.property("lesson") or "") == ""
    assert not controls.lesson_note.isVisibleTo(controls)
    assert spare.value() == pytest.approx(bench.session.settings.spare_pct)


def test_glossary_from_a_lesson_link_and_its_search(bench):
    panel = bench.lesson_panel
    panel.start(find("1"), 0)
    panel.glossary_asked.emit("erase block")
    window = bench.glossary_window
    assert window.isVisible() and window.list.currentItem().text() == "erase block"
    assert "Shown in lesson" in window.text.toPlainText()
    window.search.setText("trim")
    shown = window.shown_terms()
    assert {"TRIM", "fstrim", "discard"} <= set(shown)
    window.search.setText("no such thing at all")
    assert window.shown_terms() == []


def test_progress_is_kept_between_sessions(bench, qtbot, progress_dir):
    from ssdlab.app.gui.frame.workbench import Workbench

    panel, lesson = bench.lesson_panel, find("1")
    panel.start(lesson, 0)
    panel.show_step(1)
    saved = json.loads((progress_dir / FILE_NAME).read_text())
    assert saved["at"] == {lesson.id: 1}
    panel.progress.finish(lesson.id)
    again = Workbench()
    qtbot.addWidget(again)
    first = again.lesson_panel.home.lesson_list.item(0).text()
    assert first.endswith("min · done")
    assert again.lesson_panel.home.start_button.text().startswith("Continue with lesson 2")
    again.close()


def test_unreadable_progress_starts_afresh_with_a_reason(tmp_path):
    path = tmp_path / FILE_NAME
    path.write_text("{not json")
    p = load_progress(path)
    assert p.finished == set() and "starting afresh" in p.problem
    path.write_text(json.dumps({"format": 1, "finished": ["a"], "at": {"b": -1}}))
    assert "at must map" in load_progress(path).problem
    p = load_progress(tmp_path / "none.json")
    p.visit("x", 2)
    assert load_progress(tmp_path / "none.json").at == {"x": 2}


def test_progress_goes_where_the_environment_says(monkeypatch, tmp_path):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    assert config_dir() == tmp_path
    monkeypatch.delenv("SSDLAB_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "ssdlab"


def test_a_bad_lesson_file_is_reported_and_nothing_changes(bench, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(LONG_LESSON.replace("format = 1", "format = 7"))
    assert not bench.open_lesson(str(bad))
    note = bench.lesson_panel.home_note.text()
    assert "format" in note and "1" in note
    assert bench.lesson_panel.lesson is None
    assert not bench.open_lesson(str(tmp_path / "missing.toml"))
    assert "cannot be read" in bench.lesson_panel.home_note.text()


def test_a_teachers_lesson_file_runs_and_cancel_keeps_the_lesson(bench, qtbot, tmp_path,
                                                                 monkeypatch):
    """Cancel lands mid-run whatever the machine's speed: the run is held at its first
    report of progress until Cancel has been pressed, so it cannot finish between the
    window showing it under way and the cancel arriving."""
    from ssdlab.app.gui.lessons.lessonrun import LessonJob

    held, release = threading.Event(), threading.Event()
    report = LessonJob._progress

    def report_then_hold(job, what, fraction):
        report(job, what, fraction)
        if fraction > 0 and not held.is_set():
            held.set()
            release.wait(HANG_S)

    monkeypatch.setattr(LessonJob, "_progress", report_then_hold)
    path = tmp_path / "long.toml"
    path.write_text(LONG_LESSON)
    assert bench.open_lesson(str(path))
    panel = bench.lesson_panel
    assert panel.lesson.id == "long-run" and panel.step.kind == "predict"
    panel.predict(0)
    panel.next()
    panel.start_job()
    qtbot.waitUntil(lambda: held.is_set() and panel.run_note.text().startswith("big "),
                    timeout=HANG)  # the window shows the run under way
    panel.cancel_job()  # pressed while the run is held: it is seen at the next chunk
    release.set()
    _wait_job(qtbot, panel)
    assert "big" not in panel.play.runs
    assert panel.run_note.text().startswith("Cancelled")
    assert not panel.next_button.isEnabled() and panel.run_button.isEnabled()


def test_reset_all_returns_to_the_lesson_start(bench):
    panel, lesson = bench.lesson_panel, find("1")
    panel.start(lesson, 0)
    _goto(panel, "predict")
    panel.predict(0)
    panel.next()
    bench.reset_all()
    assert panel.lesson is lesson and panel.index == 0 and not panel.play.answers



def test_control_tooltips_carry_the_glossary(bench):
    from ssdlab.app.gui.settings.controltips import TERMS
    from ssdlab.lessons.glossary import load_glossary

    glossary = load_glossary()
    assert all(glossary.find(term) is not None for term in TERMS.values())
    tip = bench.controls.widgets["spare_pct"].toolTip()
    assert "Glossary, over-provisioning:" in tip and "Ctrl+G" in tip


def test_a_counter_quiz_shows_two_readings_and_checks_a_number(bench):
    panel, lesson = bench.lesson_panel, find("measuring-wa")
    panel.start(lesson, 0)
    index = next(i for i, s in enumerate(lesson.steps) if s.kind == "quiz")
    panel.show_step(index)
    quiz = lesson.steps[index]
    assert panel.quiz_answer.placeholderText() == "a number, such as 2.5"
    assert "two readings are shown" in panel.body.toPlainText()
    panel.quiz_answer.setText("a lot")
    panel.check_quiz()
    assert panel.feedback.text().startswith("Answer:")  # a message, not a traceback
    q = panel.play.quiz(quiz)
    panel.quiz_answer.setText(f"{q.lifetime_ratio:.2f}")
    panel.check_quiz()
    assert panel.feedback.text().startswith("Not quite") and "totals" in panel.feedback.text()
    panel.quiz_answer.setText(quiz.answer)
    panel.check_quiz()
    assert panel.feedback.text().startswith("Right")
    panel.reveal_quiz()
    assert f"WA = {q.truth.nand_pages} / {q.truth.host_pages}" in panel.feedback.text()
    # back to an operations quiz: its own placeholder again
    panel.start(find("1"), 0)
    panel.show_step(next(i for i, s in enumerate(find("1").steps) if s.kind == "quiz"))
    assert panel.quiz_answer.placeholderText() == "write 3 5; trim 10-12; gc 4"
