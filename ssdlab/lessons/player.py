"""Playing a lesson: the state a player (the window's or the headless one) walks through.

LessonPlay holds what the student predicted and what each run produced; it refuses a run
until every prediction about it is made, works out the right choice of a question from the
run itself (so a lesson can never contradict the model), and builds compare rows and
reflections. play() is the headless player: it answers every prediction with the lesson's
recorded answer and plays every step in order.

Run steps go through the model: block-level configurations through ssdlab.model.flash.runner,
scenario configurations through ssdlab.model.lab.scenario's step runner. Progress goes to an
optional callback; cancel, an optional callable, is asked between chunks of work.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

from ssdlab.model.flash import runner
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.gcwatch import GcWatch
from ssdlab.model.host.machine import Machine
from ssdlab.model.lab.experiments import Row
from ssdlab.model.lab.lockstep import Lockstep, side_by_side
from ssdlab.model.lab.rowcache import cached_rows
from ssdlab.model.lab.scenario import build_machine, run_scenario

from .counterquiz import CounterQuiz, check_counter_answer, make_counter_quiz
from .figures import block_figures, evaluate, step_figures
from .lesson import (
    CompareStep,
    Lesson,
    LessonError,
    PredictStep,
    QuizStep,
    ReflectStep,
    RunConfig,
    RunStep,
)
from .mistakes import first_fit, spot
from .quiz import Quiz, Verdict, check_answer, make_quiz
from .runquiz import RunQuiz, check_run_quiz, config_label, make_run_quiz

Progress = Callable[[str, float], None]  # (what is running, fraction done)
Cancelled = runner.Cancelled


class LessonClaimError(LessonError):
    """A question whose right answer the run cannot decide (no choice, or two, fit)."""


# max_seconds is what a run step needs on a classroom machine. A loaded machine may take
# longer, so a run is stopped only once it has taken this many times as long: never without
# end, and never for being a little slow.
TIME_LIMIT_FACTOR = 3.0


class RunTimeLimit(LessonError):
    """A run step stopped because it took far longer than its max_seconds."""


@dataclass(frozen=True)
class ConfigResult:
    """One configuration's run: its figures, its chart data and its wall time (seconds)."""

    config: RunConfig
    figures: dict[str, float]
    wa_windows: tuple[float, ...] = ()  # block-level: WA per tenth of the measured phase
    steps: tuple = ()  # scenario: ssdlab.model.host.machine.StepResult per scenario step
    wall_seconds: float = 0.0


@dataclass(frozen=True)
class Reflection:
    predicted: str
    measured: str
    right: bool
    explanation: tuple[str, ...]  # the chosen choice's and the right choice's explanations


@dataclass
class LessonPlay:
    lesson: Lesson
    progress: Progress | None = None
    cancel: Callable[[], bool] | None = None
    # sees the drive between chunks of a run, with the configuration's index in its run
    # step and, for a scenario configuration, the Machine around the drive (None for a
    # block-level one): the window draws its block maps, and counts the bytes the host
    # sent, from them
    observe: Callable[[Drive, int, Machine | None], None] | None = None
    # run a step of two configurations at once, in lockstep (the window's A and B drives);
    # the figures are the same as one after the other
    side_by_side: bool = False
    # shown the first GCs (or a block-mapped drive's merges) of a run step whose pace is
    # "teach" (ssdlab/model/flash/gcwatch.py), block-level or scenario: the
    # drive, the GCs' phases, the number of the first of them, the configuration's index; it
    # may take as long as it likes (that time is not counted against max_seconds). None:
    # such a step runs at full speed, as the headless player runs every step.
    watch_gc: Callable[[Drive, list, int, int], None] | None = None
    skip_watch: Callable[[], bool] | None = None  # True: stop watching, run on at full speed
    answers: dict[str, float] = field(default_factory=dict)  # predict id -> answer
    runs: dict[str, list[ConfigResult]] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic  # wall seconds, for max_seconds
    _deadline: float = field(default=math.inf, repr=False)

    # --- predict -----------------------------------------------------------------------------

    def predict(self, step: PredictStep, answer: float) -> None:
        if step.choices and not (float(answer).is_integer()
                                 and 0 <= answer < len(step.choices)):
            raise ValueError(f"{step.id}: answer must be a choice from 0 to "
                             f"{len(step.choices) - 1}; got {answer}")
        if not math.isfinite(answer):
            raise ValueError(f"{step.id}: answer must be a finite number; got {answer}")
        self.answers[step.id] = float(answer)

    def waiting_for(self, run: RunStep) -> list[PredictStep]:
        """Predictions about this run the student has not made yet (Run stays disabled)."""
        return [s for s in self.lesson.steps if s.kind == "predict" and s.measure is not None
                and run.id in (s.measure.run, getattr(s.measure.over, "run", None))
                and s.id not in self.answers]

    # --- run ---------------------------------------------------------------------------------

    def run(self, step: RunStep,
            on_config: Callable[[ConfigResult], None] | None = None) -> list[ConfigResult]:
        missing = self.waiting_for(step)
        if missing:
            raise ValueError(f"{step.id}: predict first ({', '.join(s.id for s in missing)})")
        self._deadline = self.clock() + TIME_LIMIT_FACTOR * step.max_seconds
        try:
            results = self._run_step(step, on_config)
        except Cancelled:
            if self.clock() > self._deadline:
                raise RunTimeLimit(
                    f"{self.lesson.id}: run step {step.id} stopped after "
                    f"{TIME_LIMIT_FACTOR:g} x its max_seconds ({step.max_seconds:g} s): this "
                    "machine is far slower than the lesson allows, or the run does not "
                    "end") from None
            raise
        except LessonError:
            raise
        except (ValueError, OSError) as e:  # the model refused or failed mid-run
            raise LessonError(f"{self.lesson.id}: run step {step.id} failed: {e}") from None
        finally:
            self._deadline = math.inf
        self.runs[step.id] = results
        return results

    def _stop(self) -> bool:
        """Whether the run must stop: the player cancelled it, or it is out of time."""
        return (self.cancel is not None and self.cancel()) or self.clock() > self._deadline

    def _run_step(self, step: RunStep, on_config) -> list[ConfigResult]:
        labels = [f"{step.id} {i + 1}/{len(step.configs)} {c.label}"
                  for i, c in enumerate(step.configs)]
        # the first configuration's GCs are watched: the others begin the same way
        teach = step.pace == "teach" and self.watch_gc is not None
        if self.paired(step):  # the second waits in lockstep while the first's GCs play
            results = self._run_pair(step.configs, labels, teach)
            if on_config is not None:
                for r in results:
                    on_config(r)
        else:
            results = []
            for i, config in enumerate(step.configs):
                results.append(self._run_config(config, labels[i], i, watch=teach and i == 0))
                if on_config is not None:
                    on_config(results[-1])
        return results

    def paired(self, step) -> bool:
        """Whether this run step plays its two configurations side by side."""
        return self.side_by_side and step.kind == "run" and len(step.configs) == 2

    def _run_pair(self, configs, labels: list[str], teach: bool = False) -> list[ConfigResult]:
        """Both configurations at once, neither more than a chunk or two ahead; progress
        reports the one behind."""
        where = [(labels[0], 0.0), (labels[1], 0.0)]
        report = self.progress

        def job(configs_step: Lockstep, slot: int) -> ConfigResult:
            def at(what: str, fraction: float) -> None:
                where[slot] = (what, fraction)
                if report is not None:
                    report(*min(where, key=lambda w: w[1]))
                configs_step.at(slot, fraction, self._stop)

            def cancelled() -> bool:
                return configs_step.stopped or self._stop()

            return self._run_config(configs[slot], labels[slot], slot, at, cancelled,
                                    teach and slot == 0)

        return side_by_side([job, job])

    def _run_config(self, config: RunConfig, label: str, slot: int = 0,
                    at: Progress | None = None,
                    cancel: Callable[[], bool] | None = None,
                    watch: bool = False) -> ConfigResult:
        """One configuration. at(what, fraction of the whole run) after every chunk of work
        (default: the play's progress); cancel defaults to the play's. watch: its first GCs
        go to watch_gc."""
        t0 = time.perf_counter()
        at = at or self.progress
        cancel = cancel or self._stop
        look = None if self.observe is None else (
            lambda d, machine=None: self.observe(d, slot, machine))
        if config.spec is not None:
            spec = config.spec
            user = spec.geometry.user_pages
            sizes = {"fill": user, "warmup": round(spec.warmup_drive_writes * user),
                     "measure": max(1, round(spec.measure_drive_writes * user))}
            before = {"fill": 0, "warmup": user, "measure": user + sizes["warmup"]}
            total = sum(sizes.values())

            def block_progress(phase: str, fraction: float) -> None:
                if at is not None:
                    at(f"{label}: {phase}",
                       (before.get(phase, 0) + fraction * sizes.get(phase, 0)) / total)

            r = runner.run(spec, block_progress, cancel, look,
                           self._gc_watch(slot) if watch else None)
            return ConfigResult(config, block_figures(r), tuple(r.wa_windows),
                                wall_seconds=time.perf_counter() - t0)
        steps = config.scenario.steps
        machine = build_machine(config.scenario)
        if watch:  # the file system's writes and the idle time's GCs (gcwatch.attach)
            self._gc_watch(slot).attach(machine.drive)

        def step_progress(i: int, what: str, done: int, total: int, unit: str) -> None:
            if cancel is not None and cancel():
                raise Cancelled(label)
            if look is not None:
                look(machine.drive, machine)
            if at is not None:
                at(f"{label}: step {i + 1}/{len(steps)} {what}",
                   (i + done / max(1, total)) / len(steps))

        def step_done(i: int, _result) -> None:  # a quick step may never report progress
            if look is not None:
                look(machine.drive, machine)
            if at is not None:
                at(f"{label}: step {i + 1}/{len(steps)} done", (i + 1) / len(steps))

        results = run_scenario(config.scenario, on_step=step_done, machine=machine,
                               progress=step_progress, every_s=0.2)
        return ConfigResult(config, step_figures(results), steps=tuple(results),
                            wall_seconds=time.perf_counter() - t0)

    def _gc_watch(self, slot: int) -> GcWatch:
        """The watch that hands a configuration's first GCs to watch_gc; the time they are
        watched moves the run's deadline on."""
        def show(drive: Drive, phases: list, first: int) -> None:
            t0, deadline = self.clock(), self._deadline
            self._deadline = math.inf  # a configuration beside it waits meanwhile
            try:
                self.watch_gc(drive, phases, first, slot)
            finally:
                self._deadline = deadline + (self.clock() - t0)

        skip = self.skip_watch
        return GcWatch(show, skipped=(lambda: bool(skip())) if skip else (lambda: False))

    def figures(self) -> dict[str, dict[str, dict[str, float]]]:
        return {run: {r.config.id: r.figures for r in results}
                for run, results in self.runs.items()}

    # --- questions ---------------------------------------------------------------------------

    def measured(self, step: PredictStep, config: str | None = None) -> float:
        return evaluate(step.measure, self.figures(), config)

    def right_choice(self, step: PredictStep) -> int:
        """The right choice, from the lesson (a fact) or from the run (a simulated outcome)."""
        if step.measure is None:
            return next(i for i, c in enumerate(step.choices) if c.correct)
        if step.rule:
            values = [self.measured(step, c.config) for c in step.choices]
            best = (max if step.rule == "largest" else min)(values)
            winners = [i for i, v in enumerate(values) if v == best]
            if len(winners) != 1 or not math.isfinite(best):
                raise LessonClaimError(f"{step.id}: the run gave {values}; the {step.rule} "
                                       "is not one choice")
            return winners[0]
        value = self.measured(step)
        fits = [i for i, c in enumerate(step.choices) if c.range[0] <= value < c.range[1]]
        if len(fits) != 1:
            raise LessonClaimError(f"{step.id}: the run gave {value:.4g}; no choice's range "
                                   "holds it")
        return fits[0]

    def reflect(self, step: ReflectStep) -> Reflection:
        p = self.lesson.step_of(step.predict)
        answer = self.answers[p.id]
        if not p.choices:
            value = self.measured(p)
            near = _near(answer, value)
            return Reflection(f"{answer:.3g} {p.unit}",
                              f"{value:.3g} {p.unit}, simulated".replace(" ,", ","),
                              near, () if near else self._estimate_mistake(p, answer))
        right, chosen = self.right_choice(p), int(answer)
        measured = p.choices[right].text
        if p.measure is not None and not p.rule:
            measured += f" ({self.measured(p):.3g} {p.unit}, simulated)".replace(" ,", ",")
        explain = (p.choices[chosen].explain,) if chosen == right else (
            p.choices[chosen].explain, p.choices[right].explain)
        return Reflection(p.choices[chosen].text, measured, chosen == right, explain)

    def _estimate_mistake(self, p: PredictStep, answer: float) -> tuple[str, ...]:
        """A numeric estimate far from the outcome that fits a mistake its step declares
        (ssdlab/lessons/mistakes.py), named: "Your estimate: ..."."""
        if not p.mistakes:
            return ()
        figures = self.figures()
        parts = None if p.measure.over is None else (
            evaluate(replace(p.measure, over=None), figures), evaluate(p.measure.over, figures))
        spotted = spot(p.mistakes, "estimate", self.measured(p), 1.0, parts,
                       lambda m: evaluate(m, figures), lambda m: config_label(m, self.lesson),
                       unit=p.unit)
        found = first_fit(spotted, answer, ESTIMATE_FACTOR - 1)
        return (f"Your estimate: {found.says}.",) if found is not None else ()

    # --- compare and quiz --------------------------------------------------------------------

    def compare(self, step: CompareStep) -> list[Row]:
        if step.experiment is not None:
            if self.progress:
                self.progress(f"replaying the documented experiment {step.experiment}", 0.0)
            rows = experiment_rows(step.experiment)
            if not step.rows:
                return list(rows)
            chosen = []
            for want in step.rows:
                hits = [r for r in rows if want.lower() in f"{r.experiment}: {r.quantity}"
                        .lower()]
                if not hits:
                    raise LessonClaimError(f"compare: no row of experiment {step.experiment!r}"
                                           f" contains {want!r}")
                chosen += [r for r in hits if r not in chosen]
            return chosen
        out = []
        for r in self.runs[step.run]:
            model = r.figures["theory_wa_usable"]
            if not math.isfinite(model):
                continue  # no published model for this policy or traffic
            sim = r.figures["wa"]
            out.append(Row("analytic model", r.config.label, "write amplification", "x",
                           model, sim, "predicted", f"within {100 * step.tolerance:.0f} %",
                           abs(sim - model) <= step.tolerance * model, step.why))
        return out

    def quiz(self, step: QuizStep) -> Quiz | CounterQuiz | RunQuiz:
        """The tiny drive's two states, two counter readings (ask "wa"), or the figures of
        an earlier run (KeyError when that run has not been played yet)."""
        if step.measure is not None:
            return make_run_quiz(step, self.lesson, self.figures())
        if step.ask == "wa":
            return make_counter_quiz(step.seed)
        return make_quiz(step.seed, step.operations, step.frontier)

    def check_quiz(self, step: QuizStep, answer: str) -> Verdict:
        q = self.quiz(step)
        if isinstance(q, RunQuiz):
            return check_run_quiz(q, answer)
        if isinstance(q, CounterQuiz):
            return check_counter_answer(q, answer, step.mistakes)
        return check_answer(q, answer, step.mistakes)

    def quiz_blocks(self, step: QuizStep) -> list[tuple[str, str]]:
        """What the window shows beside a quiz: (heading, monospaced text) blocks."""
        q = self.quiz(step)
        return q.blocks() if isinstance(q, RunQuiz) else q.panels()

    def quiz_truth(self, step: QuizStep) -> str:
        """What Show answer says: the answer, then the working, a line a step."""
        return self.quiz(step).shown_answer()

    @staticmethod
    def quiz_hint(step: QuizStep) -> str:
        if step.measure is not None:
            return "a number, such as 4.2"
        return CounterQuiz.placeholder if step.ask == "wa" else Quiz.placeholder


ESTIMATE_FACTOR = 1.5


def _near(guess: float, value: float) -> bool:
    """A numeric estimate counts as right within a factor of 1.5 (order of magnitude
    matters to a first-year student; the third digit does not)."""
    if not (math.isfinite(value) and value > 0 and guess > 0):
        return math.isclose(guess, value, abs_tol=1e-9)
    return 1 / ESTIMATE_FACTOR <= guess / value <= ESTIMATE_FACTOR


@cache
def experiment_rows(name: str) -> tuple[Row, ...]:
    """A documented experiment's rows: replayed once per model version (kept on disk by
    ssdlab.model.lab.rowcache) and once per process."""
    return cached_rows(name)


@dataclass
class StepRecord:
    """What the headless player saw at one step (for the report)."""

    index: int
    step: object
    wall_seconds: float = 0.0
    results: list[ConfigResult] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    right: int | None = None
    reflection: Reflection | None = None
    quiz: Quiz | CounterQuiz | RunQuiz | None = None
    verdict: Verdict | None = None


def play(lesson: Lesson, progress: Progress | None = None,
         cancel: Callable[[], bool] | None = None,
         on_step: Callable[[StepRecord], None] | None = None) -> list[StepRecord]:
    """Play every step headless, answering each prediction with the recorded answer."""
    state = LessonPlay(lesson, progress, cancel)
    records = []
    for i, step in enumerate(lesson.steps):
        rec = StepRecord(i, step)
        t0 = time.perf_counter()
        if step.kind == "predict":
            state.predict(step, step.answer)
        elif step.kind == "run":
            rec.results = state.run(step)
        elif step.kind == "compare":
            rec.rows = state.compare(step)
        elif step.kind == "reflect":
            rec.reflection = state.reflect(step)
            p = lesson.step_of(step.predict)
            rec.right = state.right_choice(p) if p.choices else None
        elif step.kind == "quiz":
            rec.quiz = state.quiz(step)
            if step.answer:
                rec.verdict = state.check_quiz(step, step.answer)
        rec.wall_seconds = time.perf_counter() - t0
        records.append(rec)
        if on_step is not None:
            on_step(rec)
    return records
