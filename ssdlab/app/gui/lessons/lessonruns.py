"""The run and compare steps in the lesson panel (ssdlab/app/gui/lessons/lessonpanel.py): a
LessonJob started and cancelled, its progress and drives followed (the workbench's maps show
them), the documented figures beside the simulated ones, and the results beside the
workbench. A mixin of LessonPanel: it uses the panel's play, widgets and signals.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt

from ssdlab.lessons.charts import (
    compare_pictures,
    documented_words,
    prediction_picture,
    predictions_about,
    run_chart,
    source_words,
)
from ssdlab.lessons.lesson import LessonError

from .lessonrun import LessonJob
from .lessonwatch import watched_what


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
        doc = documented_words(r)
        verdict = "agrees" if r.agrees else "does not agree"
        source = "the model" if r.source == "analytic model" else "documented"
        out.append(f"**{r.experiment}: {r.quantity}**  \nFrom {source_words(r.source)}.  \n"
                   f"{source}: {doc} · simulated: {number(r.simulated)} {r.unit} · "
                   f"{verdict}: the rule is {r.check}"
                   + (f"  \n*Why:* {r.why}" if r.why else ""))
    return "\n\n".join(out) if out else "*No rows to compare.*"


def done_words(seconds: tuple[float, float] | None, what: str = "GCs") -> str:
    """The run note's first words for (the simulation's own seconds, seconds spent watching
    its GCs at teaching pace): a watched run's time is never the simulation's. what: what
    the watched drive did ("GCs", or "merges": a block-mapped or hybrid drive merges)."""
    if seconds is None:
        return "Done. "
    own, watched = seconds
    if watched <= 0:
        return f"Done in {own:.1f} s. "
    return (f"Done: the simulation took {own:.1f} s, plus {watched:.0f} s of watching its "
            f"{what} play slowly. ")


class RunSteps:
    """LessonPanel methods for runs, compares and their results."""

    # While the engine compiles (ssdlab/app/gui/run/preparing.py; the workbench reports it): why
    # Run waits, "" once it is ready, and the fraction of it done, shown on the bar.
    engine_notice = ""
    engine_fraction = 0.0

    def hold_for_engine(self, notice: str, fraction: float = 0.0) -> None:
        """Run waits, disabled, while the engine compiles, the note saying why and the bar
        how far it is; notice "" when it is ready (a compare step's replay then starts)."""
        self.engine_notice, self.engine_fraction = notice, fraction
        if self.lesson is None or self.job is not None:
            return
        step = self.step
        if step.kind == "run":
            self._show_run(step)
        elif (step.kind == "compare" and step.experiment is not None
              and self.compared.get(self.index) is None):
            self._show_compare(step)

    def _engine_note(self) -> None:
        n = self.engine_notice
        self.run_note.setText(f"{n[0].upper()}{n[1:]}. Run waits until it is ready.")
        self.bar.setValue(int(1000 * max(0.0, min(1.0, self.engine_fraction))))

    def _show_run(self, step) -> None:
        self.run_box.show()
        waiting = self.play.waiting_for(step)
        n = len(step.configs)
        self.run_button.setText(f"Run {n} configurations" if n > 1 else "Run")
        done = step.id in self.play.runs
        self.run_button.setEnabled(not waiting and self.job is None
                                   and not self.engine_notice)
        self.cancel_button.setEnabled(self.job is not None)
        # waiting for a prediction, the note over Next says so, and which step (the two
        # said it twice in seven lines of a 1024 x 768 projector's panel, over a text of 3)
        self.run_note.setVisible(not waiting)
        if waiting:
            self.run_note.setText("")
        elif self.engine_notice and self.job is None:
            self._engine_note()
        elif done:
            seconds = self.run_seconds.get(step.id)
            took = done_words(seconds, watched_what(step) if seconds and seconds[1] > 0
                              else "GCs")
            self.run_note.setText(f"{took}Run again to watch it once more, or go on.")
            self.bar.setValue(1000)
        else:
            self.run_note.setText(f"What varies: {step.varies}. Allowed about "
                                  f"{step.max_seconds:.0f} s per configuration.")
            self.bar.setValue(0)

    def start_job(self) -> None:
        step = self.step
        if (self.job is not None or self.engine_notice
                or (step.kind == "run" and self.play.waiting_for(step))):
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
        self._focus()  # the controls show the configuration that runs first
        self.watch.start(job)
        self._started = self.clock()  # "Done in X s": from Run to finished, less watching
        self.bar.setValue(0)
        self.cancel_button.setEnabled(True)
        if self.run_button.hasFocus():  # the keyboard goes to Cancel at once, not through
            self.cancel_button.setFocus()  # Back and "Lessons" as each turns disabled
        self.run_button.setEnabled(False)
        self.back_button.setEnabled(False)
        self._update_next()  # disabled, saying it waits for the run's end
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
        if snap is not None and not (slot == 0 and self.watch.offer(snap)):
            self._show_drive(slot, snap)  # None: an earlier call already took the newest

    def _config_done(self, result) -> None:
        step = self.job.step
        index = next(i for i, c in enumerate(step.configs) if c is result.config)
        self.maps[(step.id, index)] = self.job.final_snapshot(index)
        self.partial.setdefault(step.id, []).append(result)
        self._show_results()
        self._focus()  # the next configuration's drive

    def _job_done(self, out) -> None:
        step = self.job.step
        if step.kind == "compare":
            self.compared[self.lesson.steps.index(step)] = out
        else:  # configurations side by side overlap: a sum of their times would overcount
            watched = self.watch.watched_s if self.watch.job is self.job else 0.0
            own = self.clock() - self._started - watched
            self.run_seconds[step.id] = (own, watched)
        self.bar.setValue(1000)

    def _job_failed(self, message: str) -> None:
        self._job_message = f"The run stopped: {message}"

    def _job_cancelled(self) -> None:
        self._job_message = "Cancelled. Run starts it again from the beginning."

    def _job_ended(self) -> None:
        job, self.job = self.job, None
        self.watch.end()
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
            # a few words: "Replay the documented experiment" was 447 px in projector type,
            # and for the moment it showed it widened the lessons panel to 473 px, which
            # Qt then kept: the next lessons' drives scrolled 126-161 px sideways at 1024
            # x 768 (issue 36); the note under it names the experiment
            self.run_button.setText("Replay experiment")
            self.run_button.setEnabled(self.job is None and not self.engine_notice)
            self.cancel_button.setEnabled(self.job is not None)
            self.run_note.setText(f"Replays experiment {step.experiment} on the model; this "
                                  "takes a little while the first time.")
            if self.engine_notice and self.job is None:
                self._engine_note()
            elif self.job is None and self.index not in self._stopped:
                self.start_job()
            return ""
        return "\n\n" + compare_text(rows)

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
        pictures, unmade = [], 0
        for p in predictions_about(self.lesson, run.id):
            if p.id not in self.play.answers:
                # not drawn yet: where its axis starts and ends (fitted to the choices)
                # told a student where the answer lies before they chose
                unmade += 1
                continue
            try:
                pictures.append(prediction_picture(p, self.play.answers.get(p.id), done,
                                                    lesson=self.lesson))
            except LessonError as e:  # a claim the run cannot decide: said, not hidden
                self.feedback.setText(str(e))
        if step.kind == "compare" and results:  # the model's figure beside the run's
            try:
                pictures = compare_pictures(self.play.compare(step)) + pictures
            except KeyError:
                pass
        note = "" if results else f"“{run.title}”: its charts appear here when it runs."
        if unmade:
            note += (" " if note else "") + ("Your prediction is drawn here, beside the "
                                             "outcome, once you have made it.")
        self.results.show_results(charts, pictures, note)
