"""A quiz on a lesson's own run: the student computes a figure (a write amplification
from host and flash counts, a ratio of two times) from figures the run produced, shown
labelled as simulated. The right answer is the run's own figure, so the quiz is checked
against the model, never against a number written in the lesson. A wrong answer that fits
a mistake the step declares (ssdlab/lessons/mistakes.py) hears that mistake named; Show
answer gives the working: the formula with the run's own numbers, step by step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .figures import evaluate
from .lesson import Lesson, Measure, QuizStep
from .mistakes import Spotted, first_fit, part_names, spot
from .quiz import QuizAnswerError, Verdict


@dataclass(frozen=True)
class Given:
    label: str  # what the figure is, in the lesson's words
    value: float


@dataclass(frozen=True)
class RunQuiz:
    given: tuple[Given, ...]
    value: float  # the right answer: the run's figure times the step's scale
    unit: str
    tolerance: float  # a fraction of value
    mistakes: tuple[Spotted, ...] = ()  # the declared mistakes, with the answers they give
    working: tuple[str, ...] = ()  # the formula with the run's numbers, a line a step

    def truth_text(self) -> str:
        return f"{number(self.value)} {self.unit}".strip() + " (from the simulated run)"

    def shown_answer(self) -> str:
        """What Show answer says: the answer, then the working."""
        return "\n".join((self.truth_text() + ":", *self.working))

    def blocks(self) -> list[tuple[str, str]]:
        """(heading, monospaced text) for the window, as the tiny drive's two states are."""
        width = max(len(g.label) for g in self.given) if self.given else 0
        body = "\n".join(f"{g.label:<{width}}  {number(g.value)}" for g in self.given)
        return [("From the run (simulated)", body)]


def number(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:#.4g}".rstrip(".")


def make_run_quiz(step: QuizStep, lesson: Lesson, figures) -> RunQuiz:
    """The quiz of a run-quiz step; KeyError when its run has not been played."""
    from .charts import measure_label  # charts imports the lesson types this module uses

    given = tuple(Given(measure_label(m, lesson), evaluate(m, figures)) for m in step.given)
    m = step.measure
    raw = evaluate(m, figures)
    parts = None if m.over is None else (evaluate(_part(m), figures),
                                         evaluate(m.over, figures))
    top, over = part_names(m, lesson)
    spotted = spot(step.mistakes, "run", raw, step.scale, parts,
                   lambda x: evaluate(x, figures), lambda x: config_label(x, lesson),
                   top=top, over=over, unit=step.unit or "the unit asked",
                   this=config_label(m, lesson))
    return RunQuiz(given, raw * step.scale, step.unit, step.tolerance, spotted,
                   working(step, lesson, figures))


def _part(m: Measure) -> Measure:
    return Measure(m.text, m.run, m.config, m.figure)


def config_label(m: Measure, lesson: Lesson) -> str:
    run = lesson.step_of(m.run)
    return next((c.label for c in run.configs if c.id == m.config), m.config)


# Figures a block-level run gives that follow from two others of the same configuration,
# so the working can show how the one a quiz asks for comes from the ones it gives:
# (the figures it comes from, how, the operator's words)
DERIVED = {"nand_writes": (("host_writes", "gc_copies"), lambda a, b: a + b, "{a} + {b}"),
           "gc_copies": (("nand_writes", "host_writes"), lambda a, b: a - b, "{a} − {b}"),
           "extra_of_user": (("spare",), lambda a: a / (1 - a), "{a} ÷ (1 − {a})")}


def _unit_of(figure: str) -> str:
    name = figure.split(".")[-1]
    if name == "seconds":
        return " s"
    if name.endswith("mb_s"):
        return " MB/s"
    return " MB" if name.endswith("_mb") else ""


def working(step: QuizStep, lesson: Lesson, figures) -> tuple[str, ...]:
    """The formula with the run's own numbers, a line a step: a figure the quiz does not
    give worked out from the ones it does (flash pages = host pages + GC copies), then the
    division, then the scale (x 100 for per cent)."""
    from .charts import FIGURE_WORDS

    m = step.measure
    given = {g.text for g in step.given}
    lines = []

    def known(p: Measure) -> str:
        value = evaluate(p, figures)
        name = p.figure.split(".")[-1]
        if p.text not in given and name in DERIVED:
            sources, how, words = DERIVED[name]
            ms = [Measure(f"{p.run}.{p.config}.{s}", p.run, p.config, s) for s in sources]
            if all(x.text in given for x in ms):
                names = dict(zip("ab", (FIGURE_WORDS.get(s, s) for s in sources),
                                 strict=False))
                values = dict(zip("ab", (number(evaluate(x, figures)) for x in ms),
                                  strict=False))
                lines.append(f"{FIGURE_WORDS.get(name, name)} = {words.format(**names)} = "
                             f"{words.format(**values)} = {number(value)}")
        return number(value) + _unit_of(p.figure)

    top, over = part_names(m, lesson)
    raw = evaluate(m, figures)
    if m.over is not None:
        a, b = known(_part(m)), known(m.over)
        # a time over a count keeps the time's unit (seconds per TRIM); like over like
        # has none
        unit = _unit_of(m.figure) if not _unit_of(m.over.figure) else ""
        lines.append(f"{top} ÷ {over} = {a} ÷ {b} = {number(raw)}{unit}")
    else:
        shown = known(m)
        if not lines:
            lines.append(f"{top} = {shown}")
    if step.scale != 1:
        lines.append(f"× {step.scale:g} = {number(raw * step.scale)} {step.unit}"
                     .rstrip())
    return tuple(lines)


def parse_number(text: str) -> float:
    """A student's number: "4.2", "4,2" or "4.2x"; QuizAnswerError says the form."""
    t = text.strip().lower().replace(",", ".").rstrip("x%").strip()
    try:
        value = float(t)
    except ValueError:
        raise QuizAnswerError(f"type a number, such as 4.2; got {text.strip()!r}") from None
    if not math.isfinite(value):
        raise QuizAnswerError(f"type a finite number; got {text.strip()!r}")
    return value


def right_words(quiz: RunQuiz) -> str:
    """What a right answer got right: the figure the run's numbers give, in the unit asked
    (a time per TRIM in ms, a share in %); the student worked it out, the drive did not
    report it."""
    close = f", to within {quiz.tolerance * 100:.3g} %" if quiz.tolerance > 0 else ""
    unit = "" if quiz.unit in ("", "x") else f", in {quiz.unit} as the question asks"
    return f"that is what the simulated run's figures give{close}{unit}"


def check_run_quiz(quiz: RunQuiz, text: str) -> Verdict:
    guess = parse_number(text)
    if abs(guess - quiz.value) <= quiz.tolerance * abs(quiz.value):
        return Verdict(True, (), right=right_words(quiz))
    spotted = first_fit(quiz.mistakes, guess, quiz.tolerance)
    if spotted is not None:
        return Verdict(False, (spotted.says,), (spotted.kind,))
    # how far off, never the figure itself: the student looks at the run again (Show
    # answer gives it)
    way = "high" if guess > quiz.value else "low"
    far = max(guess, quiz.value) / min(guess, quiz.value) \
        if guess > 0 and quiz.value > 0 else 1.0
    size = "far too" if far >= 2 else "too"
    return Verdict(False, (f"{number(guess)} is {size} {way}; look at the run's figures "
                           "again",))
