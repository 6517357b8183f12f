"""A run step's charts and a prediction's picture, described as data.

The window draws these (ssdlab/app/gui/lessons/lessonresults.py) and the headless report tabulates
the same numbers, so what a student sees and what a teacher reads never disagree. Nothing here
draws or imports Qt.

A run chart is either lines (block-level runs: WA in each tenth of the measured writes, one
line per configuration) or grouped bars (scenario runs: one group per scenario step, one
bar per configuration). Every configuration keeps its own labelled series, so a comparison
never hides the first run.

A prediction's picture puts the student's guess beside the outcome on one axis: the choices
of a range question as bands (the chosen one and the right one marked) with the measured
value as a point; a numeric estimate as a point beside the measured point; a question about
which configuration wins as one bar per configuration, the chosen one marked.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .articles import source_words
from .glossary import plain
from .lesson import PredictStep, RunStep

# chart -> (title, y label, y unit, StepResult figure); scenario runs
STEP_CHARTS = {
    "step_seconds": ("Time each step took (simulated)", "time", "s", "seconds"),
    "step_mb_s": ("Write speed of each step (simulated)", "speed", "MB/s", "mb_s"),
    "step_wa": ("Write amplification of each step (simulated)", "write amplification",
                "NAND/host", "wa"),
    "step_nand_mb": ("Flash written by each step (simulated)", "flash written", "MB",
                     "nand_written_mb"),
    "step_fs_mb": ("File-system writes of each step (simulated)", "file system wrote", "MB",
                   "fs_written_mb"),
}
BLOCK_CHARTS = {
    "wa_windows": ("Write amplification while measuring (simulated)", "write amplification",
                   ""),
}


def documented_words(row) -> str:
    """A compare row's documented figure as the source writes it: the cited figures with
    their units (and how the row's value follows from them), a quoted phrase, or the
    analytic model's value."""
    if row.source == "analytic model":
        return f"{row.documented:.3g} {row.unit} (the model)"
    cites = getattr(row, "cites", ())
    figures = [f"{c.figure} {c.unit}".strip() for c in cites if c.figure]
    quotes = [f"“{c.quote}”" for c in cites if c.quote]
    if math.isnan(row.documented):
        return "in words: " + "; ".join(quotes) if quotes else "in words only"
    text = ", ".join(figures)
    if getattr(row, "derive", ""):
        text += f" ({row.derive})"
    return text


# a figure's name as the axis of a prediction says it (short: it sits under a picture)
FIGURE_WORDS = {"wa": "WA", "theory_wa": "the model's WA", "seconds": "time",
                "mb_s": "speed", "data_mb_s": "speed", "fs_written_mb": "file-system writes",
                "nand_written_mb": "flash written", "device_written_mb": "writes sent",
                "journal_mb": "journal writes", "trimmed_mb": "MB trimmed",
                "host_writes": "host pages written", "nand_writes": "flash pages programmed",
                "gc_copies": "pages GC copied", "trims": "TRIM commands",
                "erases": "blocks erased", "extra_of_user": "spare as extra of user",
                "spare": "spare of physical", "lifetime_wa": "lifetime WA",
                "theory_wa_usable": "the model's WA at usable spare",
                "erase_count_max": "most erases of a block",
                "erase_count_mean": "mean erases per block",
                "erase_count_min": "fewest erases of a block", "flushes": "cache flushes",
                "data_mb": "file data", "flash_pages": "flash pages programmed",
                "stored_fraction": "stored share of a page",
                "host_copies": "pages the host copied", "host_wa": "host's WA",
                "drive_wa": "drive's WA"}
_STEP_OF = re.compile(r"steps\[(\d+)(?::(\d+))?\]")


@dataclass(frozen=True)
class Series:
    label: str  # the configuration's label ("7 % of the flash")
    config: str  # its id
    y: tuple[float, ...]
    x: tuple[float, ...] = ()  # lines: where each point sits (its own measured writes)


@dataclass(frozen=True)
class RunChart:
    """kind "lines": x is shared by every series; kind "bars": categories name each group."""

    name: str
    title: str
    kind: str
    x_label: str
    x_unit: str
    y_label: str
    y_unit: str
    series: tuple[Series, ...]
    x: tuple[float, ...] = ()
    categories: tuple[str, ...] = ()

    def y_title(self) -> str:
        return f"{self.y_label} ({self.y_unit})" if self.y_unit else self.y_label


def run_chart(name: str, step: RunStep, results) -> RunChart:
    """The chart `name` of a run step from its ConfigResults (those done so far)."""
    if name in BLOCK_CHARTS:
        title, label, unit = BLOCK_CHARTS[name]
        series = []
        for r in results:  # each run's points at the end of its own tenths
            n, measured = len(r.wa_windows), r.config.spec.measure_drive_writes
            series.append(Series(r.config.label, r.config.id, tuple(r.wa_windows),
                                 tuple(measured * (i + 1) / n for i in range(n))))
        x = max((s.x for s in series), key=len, default=())
        return RunChart(name, title, "lines", "drive writes measured", "", label, unit,
                        tuple(series), x=x)
    if name not in STEP_CHARTS:
        raise ValueError(f"chart must be one of {', '.join([*BLOCK_CHARTS, *STEP_CHARTS])}; "
                         f"got {name!r}")
    title, label, unit, figure = STEP_CHARTS[name]
    longest = max(results, key=lambda r: len(r.steps), default=None)
    categories = tuple(f"{i + 1}. {step_words(s.name)}" for i, s in enumerate(longest.steps)) \
        if longest is not None else ()
    series = tuple(Series(r.config.label, r.config.id,
                          tuple(float(s.as_dict()[figure]) for s in r.steps))
                   for r in results)
    return RunChart(name, title, "bars", "step", "", label, unit, series,
                    categories=categories)


@dataclass(frozen=True)
class Band:
    low: float
    high: float
    text: str
    chosen: bool
    right: bool


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    chosen: bool
    right: bool


@dataclass(frozen=True)
class PredictionPicture:
    """kind "bands": a range question; "estimate": a numeric guess; "bars": which
    configuration wins; "compare": a documented figure beside the simulated one.
    measured: the outcome on the same axis (nan before the run)."""

    title: str
    kind: str
    unit: str
    measured: float = math.nan
    guess: float = math.nan
    bands: tuple[Band, ...] = ()
    bars: tuple[Bar, ...] = ()
    log_scale: bool = False
    axis_label: str = ""  # what the axis measures ("WA of A ÷ WA of B")
    axis_max: float = math.nan  # a shared scale (compare rows of one unit), else nan

    def axis_range(self) -> tuple[float, float]:
        """Where the axis starts and ends: every band edge that is finite and sensible,
        the guess and the measured value, with a little room."""
        values = [v for v in (self.measured, self.guess) if math.isfinite(v)]
        edges = sorted(v for b in self.bands for v in (b.low, b.high) if math.isfinite(v)
                       and (v > 0 or not self.log_scale))
        # an open-ended last choice ("more than 10", drawn up to 1000) runs off the axis's
        # end instead of squeezing every other choice into a corner
        if len(edges) > 2 and edges[-1] > 3 * edges[-2]:
            edges = edges[:-1] + [edges[-2] * (3 if self.log_scale else 1.5)]
        values += edges
        values += [b.value for b in self.bars if math.isfinite(b.value)]
        if self.log_scale:
            values = [v for v in values if v > 0]
        if math.isfinite(self.axis_max):
            values.append(self.axis_max)
        if self.kind == "estimate" and values:  # room around a guess and a result
            values += [min(values) * 0.5, max(values) * 1.5]
        if not values:
            return 0.0, 1.0
        lo, hi = min(values), max(values)
        if self.log_scale and lo > 0:
            return lo / 1.3, hi * 1.3
        pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1.0
        bars = self.kind in ("bars", "compare")
        return (0.0 if lo >= 0 and bars else lo - pad), hi + pad


def step_words(name: str) -> str:
    """A scenario step's name as a student reads it: "random writes data", not the file's
    key random_writes (the file's own name after it stays as written)."""
    do, _, rest = name.partition(" ")
    return do.replace("_", " ") + (f" {rest}" if rest else "")


def _ran(measure, play) -> bool:
    return measure.run in play.runs and (measure.over is None or measure.over.run in play.runs)


def measure_label(measure, lesson) -> str:
    """What a measure is, in the words of its lesson: "WA of 28 % spare ÷ WA of 7 % spare"."""
    def one(m) -> str:
        what = FIGURE_WORDS.get(m.figure.split(".")[-1], m.figure.split(".")[-1])
        step = _STEP_OF.match(m.figure)
        if lesson is not None:
            run = lesson.step_of(m.run)
            if m.config == "*":
                who = "each configuration"
            else:
                who = next((c.label for c in run.configs if c.id == m.config), m.config)
            if step is not None:
                # the configuration's own steps: another may have replaced some (discard
                # where one runs fstrim)
                scenario = next((c.scenario for c in run.configs if c.id == m.config
                                 and c.scenario is not None), None) or next(
                    (c.scenario for c in run.configs if c.scenario is not None), None)
                lo = int(step.group(1))
                hi = int(step.group(2)) if step.group(2) else lo + 1
                if scenario is not None and hi <= len(scenario.steps):
                    names = ", ".join(s.do.replace("_", " ") for s in scenario.steps[lo:hi])
                    if hi == lo + 1:
                        what += f" of step {lo + 1} ({names})"
                    elif hi - lo <= 3:
                        what += f" of steps {lo + 1}-{hi} ({names})"
                    else:  # a long span by its ends: a list of 16 names is unreadable
                        what += f" of steps {lo + 1} to {hi}"
            return f"{what}, {who}"
        return what

    text = one(measure)
    return text if measure.over is None else f"{text} ÷ {one(measure.over)}"


def prediction_picture(step: PredictStep, answer: float | None, play=None,
                       lesson=None) -> PredictionPicture:
    """The prediction beside the outcome. play: the LessonPlay once its run is done (None
    before: the picture then shows the guess alone); lesson: names the axis."""
    lesson = lesson if lesson is not None else getattr(play, "lesson", None)
    done = play is not None and step.measure is not None and _ran(step.measure, play)
    chosen = None if answer is None or not step.choices else int(answer)
    right = play.right_choice(step) if (done or (step.measure is None and play is not None)) \
        and step.choices else None
    title = plain(step.question).replace("`", "")
    label = measure_label(step.measure, lesson) if step.measure is not None else ""
    if step.rule:  # which configuration gives the largest / smallest figure
        bars = []
        for i, c in enumerate(step.choices):
            value = play.measured(step, c.config) if done else math.nan
            bars.append(Bar(c.text, value, i == chosen, i == right))
        return PredictionPicture(title, "bars", step.unit, bars=tuple(bars),
                                 axis_label=label)
    measured = play.measured(step) if done else math.nan
    if not step.choices:
        guess = math.nan if answer is None else float(answer)
        return PredictionPicture(title, "estimate", step.unit, measured, guess,
                                 log_scale=_positive(guess, measured), axis_label=label)
    if step.measure is None or step.choices[0].range is None:  # a fact, not a measurement
        bars = tuple(Bar(c.text, math.nan, i == chosen, i == right)
                     for i, c in enumerate(step.choices))
        return PredictionPicture(title, "facts", step.unit, bars=bars)
    bands = tuple(Band(c.range[0], c.range[1], c.text, i == chosen, i == right)
                  for i, c in enumerate(step.choices))
    # a log axis when the choices span orders of magnitude ("under 10", "10 to 100", ...);
    # a first band from 0 then starts at the axis's left end
    edges = [v for b in bands for v in (b.low, b.high) if math.isfinite(v) and 0 < v < 1e6]
    return PredictionPicture(title, "bands", step.unit, measured, bands=bands,
                             log_scale=bool(edges) and max(edges) / min(edges) > 20,
                             axis_label=label)


def compare_pictures(rows) -> list[PredictionPicture]:
    """Each compare row as two bars on one axis: the documented figure (from the article,
    or the analytic model) and the simulated one, the verdict in the title."""
    out = []
    scale: dict[str, float] = {}  # rows of one unit share a scale: bar lengths compare
    for r in rows:
        for v in (r.documented, r.simulated):
            if math.isfinite(v):
                scale[r.unit] = max(scale.get(r.unit, 0.0), v)
    for r in rows:
        source = source_words(r.source)
        verdict = "agrees" if r.agrees else "does not agree"
        bars = (Bar(f"documented ({source})" if math.isfinite(r.documented)
                    else f"documented ({source}) in words only", r.documented, False, False),
                Bar("simulated", r.simulated, False, False))
        out.append(PredictionPicture(f"{r.experiment}: {r.quantity} ({verdict}; the rule is "
                                     f"{r.check})", "compare", r.unit, bars=bars,
                                     axis_max=scale.get(r.unit, math.nan)))
    return out


def _positive(*values: float) -> bool:
    finite = [v for v in values if math.isfinite(v)]
    return bool(finite) and min(finite) > 0 and max(finite) / min(finite) > 20


def predictions_about(lesson, run_id: str) -> list[PredictStep]:
    """The predict steps whose measure reads this run (drawn beside its result)."""
    return [s for s in lesson.steps if s.kind == "predict" and s.measure is not None
            and run_id in (s.measure.run, getattr(s.measure.over, "run", None))]
