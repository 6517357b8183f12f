"""What a lesson is, once loaded: frozen dataclasses a player (the window's or the headless
one) walks step by step. Nothing here runs anything; ssdlab/lessons/loader.py builds these from a
TOML file and ssdlab/lessons/player.py plays them.

A lesson is a list of steps, each one of:
  read     Markdown text with [[glossary]] links and local images;
  predict  a question asked before a run: multiple choice or a numeric estimate;
  run      one or more drive configurations played one after another;
  compare  documented figures beside simulated ones (ssdlab.model.lab.experiments rows, or the
           analytic model beside a block-level run);
  reflect  "you predicted X; the drive did Y" and why, shown after the run;
  quiz     two states of a tiny seeded drive; the student names the operations between them
           (ask = "operations"), or two readings of a drive's counters; the student works
           out the write amplification between them (ask = "wa").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.model.flash.runner import RunSpec
from ssdlab.model.lab.scenario import Scenario

FORMATS = (1,)  # lesson format versions this loader reads
STEP_KINDS = ("read", "predict", "run", "compare", "reflect", "quiz")
# Charts a run step may ask for; a block chart needs block-level configurations and a step
# chart scenario configurations.
BLOCK_CHARTS = ("wa_windows",)
STEP_CHARTS = ("step_seconds", "step_mb_s", "step_wa", "step_nand_mb", "step_fs_mb")
CHARTS = BLOCK_CHARTS + STEP_CHARTS
RULES = ("largest", "smallest")
QUIZ_ASKS = ("operations", "wa")
# How a window plays a run step: "teach" (the default of a step with a block map) shows the
# first GCs of its first configuration on the block map at a pace a person can follow, then
# runs on; "full" at full speed (with a block map, only with a reason: RunStep.pace_why)
PACES = ("full", "teach")


class LessonError(ValueError):
    """A lesson file that cannot be used: the message names the file, the line, the field
    and the allowed values."""


@dataclass(frozen=True)
class Measure:
    """A figure a run produces: RUN.CONFIG.FIGURE, optionally divided by another
    (a ratio such as "discard.on.steps[3].seconds / discard.off.steps[3].seconds").
    CONFIG may be * in a choice question that compares configurations."""

    text: str
    run: str
    config: str
    figure: str
    over: Measure | None = None


@dataclass(frozen=True)
class Mistake:
    """A usual wrong way to a quiz's answer (or a numeric estimate), declared on its step so
    a wrong answer that fits it hears what went wrong, never the right number. kind: one of
    ssdlab/lessons/mistakes.py KINDS; factor: a unit slip's factor (the wrong answer is the
    right one times factor); measure: the run's figure the mistake gives (the lifetime WA that
    counts the first fill, another configuration's figure); says: the message, in the
    lesson's words (default: the kind's own)."""

    kind: str
    says: str = ""
    factor: float | None = None
    measure: Measure | None = None
    line: int = 0


@dataclass(frozen=True)
class Choice:
    text: str
    explain: str
    correct: bool | None = None  # fixed answer (a fact, not a simulated outcome)
    range: tuple[float, float] | None = None  # right when the measured value is in it
    config: str | None = None  # right when this configuration wins under the rule


@dataclass(frozen=True)
class ReadStep:
    title: str
    text: str
    line: int = 0
    kind: str = "read"


@dataclass(frozen=True)
class PredictStep:
    """Asked before the run it measures. choices empty: a numeric estimate in unit.
    answer: the recorded answer the headless player gives (a 0-based choice index, or the
    estimate)."""

    id: str
    title: str
    question: str
    answer: float
    choices: tuple[Choice, ...] = ()
    measure: Measure | None = None
    unit: str = ""
    rule: str | None = None
    line: int = 0
    kind: str = "predict"
    mistakes: tuple[Mistake, ...] = ()  # a numeric estimate's usual slips (reflect names them)


@dataclass(frozen=True)
class RunConfig:
    """One drive configuration: a block-level run (spec) or a scenario file (scenario)."""

    id: str
    label: str
    spec: RunSpec | None = None
    scenario: Scenario | None = None
    line: int = 0

    @property
    def level(self) -> str:
        return "block" if self.spec is not None else "scenario"


@dataclass(frozen=True)
class RunStep:
    """Configurations run one after another; their curves stay on the chart together.
    max_seconds: the wall time each configuration is allowed on a classroom machine (time
    spent watching GCs at teaching pace not counted). pace: one of PACES; pace_why: why a
    step is not watched at teaching pace (its drive never collects garbage, or it shows no
    block map), for the lesson's author and its tests."""

    id: str
    title: str
    text: str
    varies: str
    configs: tuple[RunConfig, ...]
    charts: tuple[str, ...]
    blockmap: bool
    max_seconds: float
    line: int = 0
    kind: str = "run"
    pace: str = "full"
    pace_why: str = ""


@dataclass(frozen=True)
class CompareStep:
    """Documented beside simulated. Either experiment (a name in
    ssdlab.model.lab.experiments.EXPERIMENTS) with rows (text each chosen row contains), or run (a
    run step of block-level configurations) compared against the analytic model within
    tolerance (a fraction)."""

    title: str
    text: str
    experiment: str | None = None
    rows: tuple[str, ...] = ()
    run: str | None = None
    tolerance: float = 0.1
    why: str = ""
    line: int = 0
    kind: str = "compare"


@dataclass(frozen=True)
class ReflectStep:
    title: str
    predict: str  # the id of the prediction it answers
    text: str
    line: int = 0
    kind: str = "reflect"


@dataclass(frozen=True)
class QuizStep:
    """Three forms. The tiny drive (no measure; ask "operations", the default): seed (the
    same seed gives the same question), operations (how many happen between the two
    states), frontier ("shared": GC copies go into the host's open block, as lesson 1
    teaches; "separate": a block of their own, lesson 3). Counter readings (no measure; ask
    "wa"): the write amplification between two readings of a seeded drive's host and flash
    counters. From a run (measure given): the student computes measure (a figure of an
    earlier run step, or a ratio of two, times scale, in unit) from the figures given (shown
    labelled simulated); right within tolerance (a fraction). answer: the recorded answer
    ("write 3 5; gc 2; trim 10-12", or a number). mistakes: what a wrong answer is
    recognised as (ssdlab/lessons/mistakes.py)."""

    title: str
    text: str
    seed: int = 0
    operations: int = 3
    answer: str = ""
    line: int = 0
    kind: str = "quiz"
    frontier: str = "shared"
    given: tuple[Measure, ...] = ()
    measure: Measure | None = None
    unit: str = ""
    scale: float = 1.0
    tolerance: float = 0.02
    ask: str = "operations"
    mistakes: tuple[Mistake, ...] = ()  # the usual wrong ways a wrong answer is checked for


Step = ReadStep | PredictStep | RunStep | CompareStep | ReflectStep | QuizStep


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    order: int
    minutes: int
    summary: str
    steps: tuple[Step, ...]
    path: Path | None = None
    format: int = 1
    terms: tuple[str, ...] = field(default=())  # glossary terms the lesson links
    sources: tuple = ()  # ssdlab.lessons.sources.Source: the documented figures and quotes shown

    def step_of(self, step_id: str) -> Step:
        for s in self.steps:
            if getattr(s, "id", None) == step_id:
                return s
        raise KeyError(step_id)
