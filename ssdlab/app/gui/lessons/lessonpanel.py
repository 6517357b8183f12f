"""The lesson player in the window: a panel beside the workbench.

Its first page is the welcome a newcomer sees (what SSD Lab is, "Start with lesson 1", the
lessons with their durations, "Explore freely"). A lesson page shows one step at a time with
Back and Next: text with glossary links, a prediction (Run stays disabled until it is made),
a run with progress and Cancel, the documented figures beside the simulated ones, "you
predicted X; the drive did Y", and the quiz checked against the engine's event log.

The panel plays a ssdlab.lessons.player.LessonPlay (the same object `ssdlab lesson run` plays), so
the window can never show a number the headless player would not. It tells the workbench,
through signals, which settings a run uses (focus) and what the drive being run looks like
(drive_snapshot), and, on every step, which configuration the map, tally and controls show
and the line over the map naming it (heading; lessonshown.py); it draws run results into a
LessonResults view it is given.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ssdlab.app.session.progress import Progress
from ssdlab.lessons.glossary import render_links
from ssdlab.lessons.lesson import Lesson
from ssdlab.lessons.player import LessonPlay
from ssdlab.lessons.references import image_folders

from ..appearance.announce import announce
from . import keepfocus
from .lessonhome import LessonHome
from .lessonpage import StepPage
from .lessonresults import LessonResults
from .lessonrun import LessonJob
from .lessonruns import RunSteps
from .lessonshown import ShownDrive
from .lessonwatch import LessonWatch

KIND_NAMES = {"read": "read", "predict": "predict", "run": "run", "compare": "compare",
              "reflect": "what happened", "quiz": "quiz"}


class LessonPanel(QWidget, StepPage, RunSteps, ShownDrive):
    """The panel: its home page and a lesson's steps, one at a time. The step page and the
    predict and quiz steps are StepPage's (lessonpage.py); runs, compares and results
    RunSteps' (lessonruns.py); which drive the workbench shows ShownDrive's
    (lessonshown.py)."""

    # a lessonshown.LessonFocus during a lesson (the configuration the step shows); None: none
    focus = Signal(object)
    # a Snapshot of the drive a lesson runs, or of a configuration as its run ended; None:
    # no drive to show (a run not yet played)
    drive_snapshot = Signal(object)
    heading = Signal(str)  # the line over the map: which configuration it shows
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
        # (run id, configuration index) -> the block map of that configuration as it ended
        self.maps: dict[tuple[str, int], object] = {}
        # run id -> (seconds the simulation took, seconds its GCs were watched playing)
        self.run_seconds: dict[str, tuple[float, float]] = {}
        # step index -> the configuration the student chose in "Drive shown" on that step
        self.shown_choice: dict[int, int] = {}
        self.clock = time.monotonic  # the wall clock runs are timed by (tests set their own)
        self._started = 0.0
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
        self.drive_choice.chosen.connect(self._chose_drive)
        self.watch = LessonWatch(self)  # a run to watch: its GCs at teaching pace
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.cancel_job,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.show_home()

    # --- the first screen ----------------------------------------------------------------

    def show_home(self) -> None:
        self.home.refresh()
        self.pages.setCurrentIndex(0)

    # --- a lesson ------------------------------------------------------------------------

    def start(self, lesson: Lesson, at: int | None = None) -> None:
        """Open a lesson where the student left it (or at step `at`)."""
        if self.job is not None:
            self.cancel_job()
            self.job.wait()
        if lesson not in self.lessons and not any(x.id == lesson.id for x in self.lessons):
            self.lessons = self.home.lessons = [*self.lessons, lesson]
        self.lesson = lesson
        self.play = LessonPlay(lesson, side_by_side=self.two_drives)
        self.partial, self.compared, self.maps, self.run_seconds = {}, {}, {}, {}
        self.shown_choice = {}
        self._restore_answers()
        start = self.progress.at.get(lesson.id, 0) if at is None else at
        # opened by a key on the first screen: the page swap moves the focus to the step's
        # text, which says nothing of which lesson and step came up; the panel says it
        keyed = self.home.isAncestorOf(QApplication.focusWidget())
        if keyed:  # the page swap takes the keyboard to the text, not to a stale Run
            self.body.setFocus(Qt.FocusReason.OtherFocusReason)
        self.pages.setCurrentIndex(1)
        self.active_changed.emit(True)
        self.show_step(min(start, len(lesson.steps) - 1))
        if keyed:
            announce(self.where, keepfocus.said(self.title.text(), self.where.text()))
        # runs are not kept (seconds to minutes of simulation, replayed exactly): say so
        lost = [i for i, s in enumerate(lesson.steps[:self.index]) if s.kind == "run"]
        if lost and at is None:
            self.feedback.setText(
                f"Welcome back: your predictions are kept, the runs are not. Step "
                f"{lost[0] + 1} runs the simulation again.")

    def _restore_answers(self) -> None:
        """The predictions the student made before the lesson was closed, where they still
        fit the lesson (a lesson file edited since may have fewer choices)."""
        steps = {s.id: s for s in self.lesson.steps if s.kind == "predict"}
        for sid, answer in self.progress.answers.get(self.lesson.id, {}).items():
            step = steps.get(sid)
            if step is not None and (0 <= answer < len(step.choices) and answer == int(answer)
                                     if step.choices else answer > 0):
                self.play.predict(step, answer)

    def restart(self) -> None:
        """Reset All during a lesson: the lesson from its first step, nothing predicted."""
        if self.lesson is not None:
            self.progress.forget_answers(self.lesson.id)
            self.start(self.lesson, 0)

    def leave(self) -> None:
        if self.job is not None:
            self.cancel_job()
            self.job.wait()
        self.lesson = self.play = None
        # the keyboard goes to the first screen before the window changes round it: after
        # it, a screen reader heard the charts' tabs first (over AT-SPI, at Finish)
        if self.isAncestorOf(QApplication.focusWidget()):
            self.show_home()
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
        # the step's own box is shown below: hidden first, a focused Cancel inside it lost
        # the focus to the lesson text at a run's end (heard over AT-SPI), before Next
        own = {"predict": self.predict_box, "run": self.run_box, "quiz": self.quiz_box}
        for w in (self.predict_box, self.run_box, self.quiz_box):
            if w is not own.get(step.kind):
                w.hide()
        self.feedback_area.reserve(())  # a predict step reserves its own (lessonpage.py)
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
            shown = ("the run's figures" if step.measure is not None
                     else "the two readings" if step.ask == "wa" else "the two states")
            text += f"\n\n{shown[0].upper()}{shown[1:]} are shown beside this panel."
            self.quiz_box.show()
            self.quiz_answer.clear()
            self.reveal_button.setEnabled(False)
        # a step's pictures (![alt](assets/...)) are found where the validator found them
        self.body.setSearchPaths([str(p) for p in image_folders(
            lesson.path.parent if lesson.path else None)])
        self.body.setMarkdown(render_links(text))
        # a screen reader names the answer field, and says the question with it
        question = self.body.toPlainText() if step.kind in ("predict", "quiz") else ""
        for w in (self.choices, self.estimate, self.quiz_answer):
            w.setAccessibleDescription(question)
        self.filler.setVisible(step.kind == "predict")
        self._fit_question()
        self.back_button.setEnabled(index > 0 and self.job is None)
        last = index == len(lesson.steps) - 1
        self._name_next(last)
        # by Next or Back (the key's button has focus), before the focus is handed on
        keyed = QApplication.focusWidget() in (self.next_button, self.back_button)
        self._hand_focus_before_next_turns_off()
        self._update_next()
        self._show_results()
        self._focus()
        keep = getattr(self, "_keep_focus", None)  # keepfocus.py, where the window has it
        if keep is not None:
            keep.step_shown(keyed)

    def focusNextPrevChild(self, next_: bool) -> bool:  # noqa: N802 - Qt name
        # also how Qt moves the focus off a control that turned disabled or hidden
        return keepfocus.redirect(self) or super().focusNextPrevChild(next_)

    def _hand_focus_before_next_turns_off(self) -> None:
        """A focused Next about to turn disabled (a prediction to make, a run to play
        first) hands the focus on now, where keepfocus.py would: left to Qt, it went to
        the next control in the Tab chain ("Lessons") for a moment, and a screen reader
        said "Lessons" first."""
        if self.next_button.hasFocus() and not self._next_allowed():
            to = keepfocus.target(self, self.next_button)
            if to is not None:
                to.setFocus(Qt.FocusReason.OtherFocusReason)

    def _next_allowed(self) -> bool:
        step, ok = self.step, self.job is None
        if step.kind == "predict":
            ok = ok and step.id in self.play.answers
        elif step.kind == "run":
            ok = ok and step.id in self.play.runs
        return ok

    def _update_next(self) -> None:
        ok = self._next_allowed()
        self.next_button.setEnabled(ok)
        # what a disabled Next waits for, beside it and in its description: once it was
        # disabled on a prediction with nothing on screen saying why (issue 38)
        why = "" if ok else self._next_waits_for()
        self.next_note.setText(why)
        self.next_note.setVisible(bool(why))
        self.next_button.setAccessibleDescription(why)

    def _next_waits_for(self) -> str:
        step, name = self.step, self.next_name
        if self.job is not None:
            return f"{name} waits for the run to end (Cancel stops it)."
        if step.kind == "predict" and step.choices:
            return f"{name} waits for your prediction: choose an answer above."
        if step.kind == "predict":
            return f"{name} waits for your estimate: type it above, then Save estimate."
        if step.kind == "run" and self.play.waiting_for(step):
            where = ", ".join(str(self.lesson.steps.index(s) + 1)
                              for s in self.play.waiting_for(step))
            return (f"{name} waits for the run, and the run for your prediction: go back "
                    f"to step {where} and choose an answer first.")
        if step.kind == "run":
            return f"{name} waits for the run: press {self.run_button.text()} above."
        return ""

    def next(self) -> None:
        if not self.next_button.isEnabled():
            return
        if self.index == len(self.lesson.steps) - 1:
            self.progress.finish(self.lesson.id)
            # said: the first screen coming back moves focus, but not why
            announce(self, f"Lesson {self.lesson.order} finished: {self.lesson.title}.")
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

    # --- a predict step's choices refit to the panel's width (lessonpage.py) ---------

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        if self.lesson is not None and self.step.kind == "predict":
            self._fit_choices()
            self._fit_question()

    # --- reflect ----------------------------------------------------------------------

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
