"""A quiz on a lesson's own run: the student computes a figure (a write amplification
from host and flash counts, a ratio of two times) from figures the run produced, shown
labelled as simulated. The right answer is the run's own figure, so the quiz is checked
against the model, never against a number written in the lesson.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .figures import evaluate
from .lesson import Lesson, QuizStep
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

    def truth_text(self) -> str:
        return f"{number(self.value)} {self.unit}".strip() + " (from the simulated run)"

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
    return RunQuiz(given, evaluate(step.measure, figures) * step.scale, step.unit,
                   step.tolerance)


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


def check_run_quiz(quiz: RunQuiz, text: str) -> Verdict:
    guess = parse_number(text)
    if abs(guess - quiz.value) <= quiz.tolerance * abs(quiz.value):
        return Verdict(True, ())
    # how far off, never the figure itself: the student looks at the run again (Show
    # answer gives it)
    way = "high" if guess > quiz.value else "low"
    far = max(guess, quiz.value) / min(guess, quiz.value) \
        if guess > 0 and quiz.value > 0 else 1.0
    size = "far too" if far >= 2 else "too"
    return Verdict(False, (f"{number(guess)} is {size} {way}; look at the run's figures "
                           "again",))
