"""The lesson player in the window: a panel beside the workbench.

Its first page is the welcome a newcomer sees (what SSD Lab is, "Start with lesson 1", the
lessons with their durations, "Explore freely"). A lesson page shows one step at a time with
Back and Next: text with glossary links, a prediction (Run stays disabled until it is made),
a run with progress and Cancel, the documented figures beside the simulated ones, "you
predicted X; the drive did Y", and the quiz checked against the engine's event log.

The panel plays a lessons.player.LessonPlay (the same object `ssdlab lesson run` plays), so
the window can never show a number the headless player would not. It tells the workbench,
through signals, which settings a run uses (focus) and what the drive being run looks like
(drive_snapshot); it draws run results into a LessonResults view it is given.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.session.progress import Progress
from lessons.charts import (
    compare_pictures,
    prediction_picture,
    predictions_about,
    run_chart,
    source_words,
)
from lessons.glossary import render_links
from lessons.lesson import Lesson, LessonError
from lessons.player import LessonPlay
from lessons.quiz import QuizAnswerError

from .lessonfocus import used_settings
from .lessonhome import LessonHome, bold
from .lessonresults import LessonResults
from .lessonrun import LessonJob

ASSETS = Path(__file__).resolve().parents[2] / "assets"
KIND_NAMES = {"read": "read", "predict": "predict", "run": "run", "compare": "compare",
              "reflect": "what happened", "quiz": "quiz"}


def number(value: float) -> str:
    """Three significant figures, thousands separated: 7.4, 40.4, 1,234."""
    if not math.isfinite(value):
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def compare_text(rows) -> str:
    """Documented beside simulated, one block per row, with the rule and the reason."""
    out = []
    for r in rows:
        doc = "in words only" if math.isnan(r.documented) else \
            f"{number(r.documented)} {r.unit}".strip()
        verdict = "agrees" if r.agrees else "does not agree"
        source = "the model" if r.source == "analytic model" else "documented"
        out.append(f"**{r.experiment}: {r.quantity}**  \nFrom {source_words(r.source)}.  \n"
                   f"{source}: {doc} · simulated: {number(r.simulated)} {r.unit} · "
                   f"{verdict}: the rule is {r.check}"
                   + (f"  \n*Why:* {r.why}" if r.why else ""))
    return "\n\n".join(out) if out else "*No rows to compare.*"


class LessonPanel(QWidget):
    # (settings shown, names used, block map shown, pair) during a lesson; None: none.
    # pair: (label, settings) of each configuration when a run of two is shown side by side
    focus = Signal(object)
    drive_snapshot = Signal(object)  # a Snapshot of the drive a lesson runs; None: done
    # the second drive of a run of two configurations side by side (the workbench's B)
    second_drive = Signal(object)
    glossary_asked = Signal(str)  # a term the student clicked
    explore = Signal()  # the student chose the workbench
    open_file_asked = Signal()  # "Open a lesson file..."
    active_changed = Signal(bool)  # a lesson started (True) or was left (False)

    def __init__(self, lessons: list[Lesson], progress: Progress, results: LessonResults,
                 parent=None):
        super().__init__(parent)
        self.lessons = lessons
        self.progress = progress
        self.results = results
        self.lesson: Lesson | None = None
        self.play: LessonPlay | None = None
        self.index = 0
        self.job: LessonJob | None = None
        self.partial: dict[str, list] = {}  # run id -> ConfigResults of a run under way
        self.compared: dict[int, list] = {}  # compare step index -> rows
        self._job_message = ""  # why the last job stopped early ("" when it finished)
        self._stopped: set[int] = set()  # compare steps whose replay was cancelled
        # the frame can show two drives: a run of two configurations runs them side by side
        self.two_drives = False
        self.pages = QStackedWidget()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.pages)
        self.home = LessonHome(lessons, progress)
        self.home.chosen.connect(self.start)
        self.home.glossary_asked.connect(self.glossary_asked.emit)
        self.home.explore.connect(self.explore.emit)
        self.home.open_file_asked.connect(self.open_file_asked.emit)
        self.home_note = self.home.note  # where the window says why a lesson file was refused
        self.pages.addWidget(self.home)
        self._step_page()
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.cancel_job,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.show_home()

    # --- the first screen ----------------------------------------------------------------

    def show_home(self) -> None:
        self.home.refresh()
        self.pages.setCurrentIndex(0)

    # --- a lesson ------------------------------------------------------------------------

    def _step_page(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        self.title = bold(QLabel(), 1.15)
        self.where = QLabel()
        self.where.setObjectName("note")
        self.where.setWordWrap(True)
        v.addWidget(self.title)
        v.addWidget(self.where)
        self.body = QTextBrowser()
        self.body.setOpenLinks(False)
        self.body.anchorClicked.connect(self._link)
        self.body.setSearchPaths([str(ASSETS)])
        v.addWidget(self.body, 3)

        self.predict_box = QWidget()
        pv = QVBoxLayout(self.predict_box)
        pv.setContentsMargins(0, 0, 0, 0)
        # a list, not radio buttons: a choice is a sentence, and it must wrap in a narrow panel
        self.choices = QListWidget()
        self.choices.setWordWrap(True)
        self.choices.setToolTip("Click the answer you expect; you can change it until the "
                                "run.")
        self.choices.itemClicked.connect(lambda item: self._chose(self.choices.row(item)))
        self.choices.itemActivated.connect(lambda item: self._chose(self.choices.row(item)))
        pv.addWidget(self.choices)
        row = QHBoxLayout()
        self.estimate = QDoubleSpinBox()
        self.estimate.setDecimals(2)
        self.estimate.setRange(0.0, 1e6)
        self.estimate.setMinimumWidth(60)
        self.estimate_button = QPushButton("Save estimate")
        self.estimate_button.clicked.connect(self._estimated)
        row.addWidget(self.estimate, 1)
        row.addWidget(self.estimate_button)
        pv.addLayout(row)
        v.addWidget(self.predict_box)
        self.predict_box.setSizePolicy(QSizePolicy.Policy.Preferred,
                                       QSizePolicy.Policy.Maximum)

        self.run_box = QWidget()
        rv = QVBoxLayout(self.run_box)
        rv.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self.start_job)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the run (Esc); what finished is kept.")
        self.cancel_button.clicked.connect(self.cancel_job)
        row.addWidget(self.run_button, 1)
        row.addWidget(self.cancel_button)
        rv.addLayout(row)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        rv.addWidget(self.bar)
        self.run_note = QLabel()
        self.run_note.setWordWrap(True)
        rv.addWidget(self.run_note)
        v.addWidget(self.run_box)

        self.quiz_box = QWidget()
        qv = QVBoxLayout(self.quiz_box)  # the answer gets the whole width: it is a sentence
        qv.setContentsMargins(0, 0, 0, 0)
        self.quiz_answer = QLineEdit()
        self.quiz_answer.setPlaceholderText("write 3 5; trim 10-12; gc 4")
        self.quiz_answer.returnPressed.connect(self.check_quiz)
        self.quiz_button = QPushButton("Check")
        self.quiz_button.clicked.connect(self.check_quiz)
        self.reveal_button = QPushButton("Show answer")
        self.reveal_button.clicked.connect(self.reveal_quiz)
        qv.addWidget(self.quiz_answer)
        buttons = QHBoxLayout()
        buttons.addWidget(self.quiz_button)
        buttons.addWidget(self.reveal_button)
        buttons.addStretch(1)
        qv.addLayout(buttons)
        v.addWidget(self.quiz_box)
        self.feedback = QLabel()
        self.feedback.setWordWrap(True)
        self.feedback.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        v.addWidget(self.feedback)

        self.filler = QWidget()  # takes the room a short step leaves, above Back / Next
        self.filler.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        v.addWidget(self.filler, 1)
        row = QHBoxLayout()
        self.back_button = QPushButton("Back")
        self.back_button.clicked.connect(self.back)
        self.next_button = QPushButton("Next")
        self.next_button.clicked.connect(self.next)
        self.leave_button = QPushButton("Lessons")
        self.leave_button.setToolTip("Back to the list of lessons; your place is kept.")
        self.leave_button.clicked.connect(self.leave)
        row.addWidget(self.back_button)
        row.addWidget(self.next_button)
        row.addStretch(1)
        row.addWidget(self.leave_button)
        v.addLayout(row)
        self.pages.addWidget(page)

    def start(self, lesson: Lesson, at: int | None = None) -> None:
        """Open a lesson where the student left it (or at step `at`)."""
        if self.job is not None:
            self.cancel_job()
            self.job.wait()
        if lesson not in self.lessons and not any(x.id == lesson.id for x in self.lessons):
            self.lessons = self.home.lessons = [*self.lessons, lesson]
        self.lesson = lesson
        self.play = LessonPlay(lesson, side_by_side=self.two_drives)
        self.partial, self.compared = {}, {}
        start = self.progress.at.get(lesson.id, 0) if at is None else at
        # a step after a run needs that run: a lesson left mid-way starts at its first run
        first_run = next((i for i, s in enumerate(lesson.steps) if s.kind == "run"), None)
        if first_run is not None and start > first_run:
            start = next((i for i, s in enumerate(lesson.steps) if s.kind == "predict"),
                         first_run)
        self.pages.setCurrentIndex(1)
        self.active_changed.emit(True)
        self.show_step(min(start, len(lesson.steps) - 1))

    def restart(self) -> None:
        """Reset All during a lesson: the lesson from its first step, nothing predicted."""
        if self.lesson is not None:
            self.start(self.lesson, 0)

    def leave(self) -> None:
        if self.job is not None:
            self.cancel_job()
            self.job.wait()
        self.lesson = self.play = None
        self.focus.emit(None)
        self.drive_snapshot.emit(None)
        self.results.clear()
        self.active_changed.emit(False)
        self.show_home()

    @property
    def step(self):
        return self.lesson.steps[self.index]

    def show_step(self, index: int) -> None:
        lesson, self.index = self.lesson, index
        step = self.step
        self.progress.visit(lesson.id, index)
        self.title.setText(f"{lesson.order}. {lesson.title}")
        self.where.setText(f"Step {index + 1} of {len(lesson.steps)} · "
                           f"{KIND_NAMES[step.kind]}: {step.title}")
        for w in (self.predict_box, self.run_box, self.quiz_box):
            w.hide()
        self.feedback.setText("")
        text = getattr(step, "text", "") or ""
        if step.kind == "predict":
            self._show_predict(step)
            text = f"**{step.question}**"
        elif step.kind == "run":
            self._show_run(step)
        elif step.kind == "reflect":
            text = self._reflection(step) + "\n\n" + text
        elif step.kind == "compare":
            text += self._show_compare(step)
        elif step.kind == "quiz":
            text += ("\n\nThe two readings are shown beside this panel." if step.ask == "wa"
                     else "\n\nThe two states are shown beside this panel.")
            self.quiz_box.show()
            self.quiz_answer.clear()
            self.quiz_answer.setPlaceholderText(self.play.quiz(step).placeholder)
            self.reveal_button.setEnabled(False)
        self.body.setMarkdown(render_links(text))
        self.filler.setVisible(step.kind == "predict")
        if step.kind == "predict":  # the question, then its answers right below it
            self.body.document().setTextWidth(self.body.viewport().width())
            height = int(self.body.document().size().height()) + 2 * self.body.frameWidth()
            self.body.setMaximumHeight(height + 8)
        else:
            self.body.setMaximumHeight(16777215)
        self.back_button.setEnabled(index > 0 and self.job is None)
        last = index == len(lesson.steps) - 1
        self.next_button.setText("Finish" if last else "Next")
        self._update_next()
        self._show_results()
        self._focus()

    def _update_next(self) -> None:
        step, ok = self.step, self.job is None
        if step.kind == "predict":
            ok = ok and step.id in self.play.answers
            if not ok and self.job is None:
                self.feedback.setText("Make your prediction to go on.")
        elif step.kind == "run":
            ok = ok and step.id in self.play.runs
        self.next_button.setEnabled(ok)

    def next(self) -> None:
        if not self.next_button.isEnabled():
            return
        if self.index == len(self.lesson.steps) - 1:
            self.progress.finish(self.lesson.id)
            self.leave()
            return
        self.show_step(self.index + 1)

    def back(self) -> None:
        if self.index > 0 and self.job is None:
            self.show_step(self.index - 1)

    def _link(self, url: QUrl) -> None:
        if url.scheme() == "glossary":
            self.glossary_asked.emit(url.path())
        # nothing is ever fetched from the network

    # --- predict -------------------------------------------------------------------------

    def _locked(self, step) -> bool:
        """A prediction about a run already made cannot change (the outcome is known)."""
        m = step.measure
        return m is not None and (m.run in self.play.runs or (
            m.over is not None and m.over.run in self.play.runs))

    def _show_predict(self, step) -> None:
        self.predict_box.show()
        answer = self.play.answers.get(step.id)
        locked = self._locked(step)
        self.choices.clear()
        for c in step.choices:
            self.choices.addItem(QListWidgetItem(c.text))
        self.choices.setVisible(bool(step.choices))
        self.choices.setEnabled(not locked)
        if answer is not None and step.choices:
            self.choices.setCurrentRow(int(answer))
        else:
            self.choices.clearSelection()
            self.choices.setCurrentRow(-1)
        self.choices.setSpacing(3)
        self._fit_choices()
        numeric = not step.choices
        self.estimate.setVisible(numeric)
        self.estimate_button.setVisible(numeric)
        if numeric:
            self.estimate.setSuffix(f" {step.unit}" if step.unit else "")
            self.estimate.setEnabled(not locked)
            self.estimate_button.setEnabled(not locked)
            if answer is not None:
                self.estimate.setValue(answer)
        if locked:
            self.feedback.setText("The run is done: this prediction is kept as you made it.")

    def _fit_choices(self) -> None:
        """As tall as the wrapped answers need (sizeHintForRow is not yet wrapped)."""
        fm = self.choices.fontMetrics()
        width = max(80, self.body.width() - 30)
        flags = int(Qt.AlignmentFlag.AlignLeft) | int(Qt.TextFlag.TextWordWrap)
        rows = sum(fm.boundingRect(0, 0, width, 10000, flags, self.choices.item(i).text())
                   .height() + 2 * self.choices.spacing() + 4
                   for i in range(self.choices.count()))
        self.choices.setFixedHeight(min(360, rows + 2 * self.choices.frameWidth() + 4))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        if self.lesson is not None and self.step.kind == "predict":
            self._fit_choices()

    def _chose(self, i: int) -> None:
        self.play.predict(self.step, i)
        self.feedback.setText("Prediction saved. Next: the run.")
        self._update_next()
        self._show_results()

    def _estimated(self) -> None:
        value = self.estimate.value()
        if not (value > 0 and math.isfinite(value)):
            self.feedback.setText("Estimate: enter a number above 0.")
            return
        self.play.predict(self.step, value)
        self.feedback.setText("Estimate saved. Next: the run.")
        self._update_next()
        self._show_results()

    def predict(self, answer: float) -> None:
        """Answer the current predict step (the keyboard and tests use this)."""
        if self.step.choices:
            item = self.choices.item(int(answer))
            self.choices.setCurrentItem(item)
            self.choices.itemClicked.emit(item)
        else:
            self.estimate.setValue(answer)
            self._estimated()

    # --- run and compare -----------------------------------------------------------------

    def _focus(self) -> None:
        """The controls show the drive of the run this step is about (or the lesson's next
        run, or its last), what it varies highlighted."""
        run = self._run_for(self.step)
        steps = self.lesson.steps
        if run is None:
            later = [s for s in steps[self.index:] if s.kind == "run"]
            earlier = [s for s in steps[:self.index] if s.kind == "run"]
            run = (later or earlier[-1:] or [None])[0]
        if run is None:
            self.focus.emit(None)
            return
        shown, used = used_settings(run)
        # the configuration the map shows: the one running, else the last one run
        if self.job is not None:
            i = len(self.partial.get(run.id, []))
        else:
            i = len(self.play.runs[run.id]) - 1 if run.id in self.play.runs else 0
        pair = (tuple(zip((c.label for c in run.configs), shown, strict=True))
                if self.play.paired(run) and run.blockmap else None)
        self.focus.emit((shown[0] if pair else shown[min(i, len(shown) - 1)], used,
                         run.blockmap, pair))

    def _show_run(self, step) -> None:
        self.run_box.show()
        waiting = self.play.waiting_for(step)
        n = len(step.configs)
        self.run_button.setText(f"Run {n} configurations" if n > 1 else "Run")
        done = step.id in self.play.runs
        self.run_button.setEnabled(not waiting and self.job is None)
        self.cancel_button.setEnabled(self.job is not None)
        if waiting:
            where = ", ".join(str(self.lesson.steps.index(s) + 1) for s in waiting)
            self.run_note.setText(f"Run is waiting for your prediction: go back to step "
                                  f"{where} and choose an answer first.")
        elif done:
            secs = sum(r.wall_seconds for r in self.play.runs[step.id])
            self.run_note.setText(f"Done in {secs:.1f} s. Run again to watch it once more, "
                                  "or go on.")
            self.bar.setValue(1000)
        else:
            self.run_note.setText(f"What varies: {step.varies}. Allowed about "
                                  f"{step.max_seconds:.0f} s per configuration.")
            self.bar.setValue(0)

    def start_job(self) -> None:
        step = self.step
        if self.job is not None or (step.kind == "run" and self.play.waiting_for(step)):
            return
        self._stopped.discard(self.index)
        self.partial[getattr(step, "id", "")] = []
        job = LessonJob(self.play, step, self)
        job.progress.connect(self._job_progress)
        job.config_done.connect(self._config_done)
        job.drive_ready.connect(self._job_drive, Qt.ConnectionType.QueuedConnection)
        job.finished_ok.connect(self._job_done)
        job.failed.connect(self._job_failed)
        job.cancelled.connect(self._job_cancelled)
        job.finished.connect(self._job_ended)
        self.job = job
        self.bar.setValue(0)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.back_button.setEnabled(False)
        self.next_button.setEnabled(False)
        job.start()

    def cancel_job(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.run_note.setText("Cancelling…")

    def _job_progress(self, what: str, fraction: float) -> None:
        if self.job is None:
            return
        step = self.job.step
        if step.kind == "run" and not self.play.paired(step):  # a pair reports both at once
            n = len(step.configs)
            done = len(self.partial.get(step.id, []))
            fraction = (done + fraction) / n
        self.bar.setValue(int(1000 * max(0.0, min(1.0, fraction))))
        self.run_note.setText(what)

    def _show_drive(self, slot: int, snap) -> None:
        """A lesson drive's snapshot to its map: the second of a pair to map B."""
        (self.second_drive if slot == 1 and self.play.side_by_side
         else self.drive_snapshot).emit(snap)

    def _job_drive(self, slot: int) -> None:
        snap = self.job.take_snapshot(slot) if self.job is not None else None
        if snap is not None:  # None: an earlier call already took the newest
            self._show_drive(slot, snap)

    def _config_done(self, result) -> None:
        self.partial.setdefault(self.job.step.id, []).append(result)
        self._show_results()
        self._focus()  # the next configuration's drive

    def _job_done(self, out) -> None:
        step = self.job.step
        if step.kind == "compare":
            self.compared[self.lesson.steps.index(step)] = out
        self.bar.setValue(1000)

    def _job_failed(self, message: str) -> None:
        self._job_message = f"The run stopped: {message}"

    def _job_cancelled(self) -> None:
        self._job_message = "Cancelled. Run starts it again from the beginning."

    def _job_ended(self) -> None:
        job, self.job = self.job, None
        message, self._job_message = self._job_message, ""
        if job is None or self.lesson is None:
            return
        for slot in (0, 1):
            snap = job.take_snapshot(slot)
            if snap is not None:
                self._show_drive(slot, snap)
        if message and job.step.kind == "compare":
            self._stopped.add(self.lesson.steps.index(job.step))
        if job.step is self.step:
            self.show_step(self.index)
            if message:
                self.run_note.setText(message)
                self.run_box.show()

    def _show_compare(self, step) -> str:
        """The compare rows as text under the step's own (the panel is narrow: one block per
        row rather than a wide table); starts the replay of a documented experiment."""
        rows = self.compared.get(self.index)
        if step.experiment is None:
            try:
                rows = self.play.compare(step)
            except KeyError:
                rows = []
        if rows is None:
            self.run_box.show()
            self.run_button.setText("Replay the documented experiment")
            self.run_button.setEnabled(self.job is None)
            self.cancel_button.setEnabled(self.job is not None)
            self.run_note.setText(f"Replays experiment {step.experiment} on the model; this "
                                  "takes a little while the first time.")
            if self.job is None and self.index not in self._stopped:
                self.start_job()
            return ""
        return "\n\n" + compare_text(rows)

    # --- reflect and quiz ----------------------------------------------------------------

    def _reflection(self, step) -> str:
        try:
            r = self.play.reflect(step)
        except KeyError:
            return "*Run the step before this one first: there is nothing to compare yet.*"
        verdict = "Your prediction was right." if r.right else ""
        lines = [f"You predicted: **{r.predicted}**.", "",
                 f"The drive did: **{r.measured}**. {verdict}".rstrip(), ""]
        if len(r.explanation) == 2:
            lines += [f"- *Your answer:* {r.explanation[0]}",
                      f"- *What happened:* {r.explanation[1]}"]
        else:
            lines += [f"- {e}" for e in r.explanation]
        return "\n".join(lines)

    def _show_quiz_states(self, step) -> None:
        self.results.show_states(self.play.quiz(step).panels())

    def check_quiz(self) -> None:
        step = self.step
        try:
            verdict = self.play.check_quiz(step, self.quiz_answer.text())
        except (QuizAnswerError, ValueError) as e:
            self.feedback.setText(f"Answer: {e}")
            return
        self.reveal_button.setEnabled(True)
        self.feedback.setText("Right: that is what the engine counted." if verdict.correct
                              else "Not quite: " + "; ".join(verdict.feedback))

    def reveal_quiz(self) -> None:
        q = self.play.quiz(self.step)
        self.feedback.setText(f"The engine: {q.truth.text()}")

    # --- results beside the workbench ----------------------------------------------------

    def _run_for(self, step):
        """The run step whose results this step shows (its own, or the one it is about)."""
        if step.kind == "run":
            return step
        rid = None
        if step.kind == "predict" and step.measure is not None:
            rid = step.measure.run
        elif step.kind == "reflect":
            p = self.lesson.step_of(step.predict)
            rid = p.measure.run if p.measure is not None else None
        elif step.kind == "compare":
            rid = step.run
        return None if rid is None else self.lesson.step_of(rid)

    def _show_results(self) -> None:
        if self.lesson is None:
            return
        step = self.step
        if step.kind == "quiz":
            self._show_quiz_states(step)
            return
        if step.kind == "compare" and step.experiment is not None:
            rows = self.compared.get(self.index)
            self.results.show_results([], compare_pictures(rows or []),
                                      "" if rows else "The documented figures appear here "
                                      "once the experiment is replayed.")
            return
        run = self._run_for(step)
        if run is None:  # a read or quiz step: keep the last run's results in view
            done = [s for s in self.lesson.steps[:self.index]
                    if s.kind == "run" and s.id in self.play.runs]
            run = done[-1] if done else None
        if run is None:
            self.results.show_results([], [], "The results of this lesson's runs appear here.")
            return
        results = self.play.runs.get(run.id) or self.partial.get(run.id) or []
        charts = [run_chart(name, run, results) for name in run.charts] if results else []
        done = self.play if run.id in self.play.runs else None
        pictures = []
        for p in predictions_about(self.lesson, run.id):
            try:
                pictures.append(prediction_picture(p, self.play.answers.get(p.id), done))
            except LessonError as e:  # a claim the run cannot decide: said, not hidden
                self.feedback.setText(str(e))
        if step.kind == "compare" and results:  # the model's figure beside the run's
            try:
                pictures = compare_pictures(self.play.compare(step)) + pictures
            except KeyError:
                pass
        note = "" if results else f"“{run.title}”: its charts appear here when it runs."
        self.results.show_results(charts, pictures, note)
