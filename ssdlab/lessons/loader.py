"""Read and check a lesson file whole, before anything plays.

Every error is one LessonError line: FILE:LINE: FIELD PATH: what is allowed, and what the
file says. Unknown keys are refused (a misspelt key is never silently ignored), and an
unknown format is refused with the versions this loader reads. Lessons are data: nothing in
them is executed; run configurations become the model's own objects, checked by the model.
"""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

from ssdlab.model.flash.geometry import PLACEMENTS
from ssdlab.model.inputfile import InputFileError, read_text_input
from ssdlab.model.lab.experiments import EXPERIMENTS
from ssdlab.model.lab.scenario import ScenarioError

from . import configs
from .counterquiz import parse_number
from .fields import Reader
from .figures import parse_measure
from .glossary import Glossary, load_glossary
from .lesson import (
    BLOCK_CHARTS,
    CHARTS,
    FORMATS,
    PACES,
    QUIZ_ASKS,
    RULES,
    STEP_CHARTS,
    STEP_KINDS,
    Choice,
    CompareStep,
    Lesson,
    LessonError,
    PredictStep,
    QuizStep,
    ReadStep,
    ReflectStep,
    RunConfig,
    RunStep,
)
from .mistakes import read_mistakes
from .quiz import QuizAnswerError, parse_answer
from .references import check_references, check_text
from .runquiz import parse_number as parse_run_number
from .sourcelint import check_attributions
from .sources import check_uses, read_sources, render

STEP_KEYS = {
    "read": ("kind", "title", "text"),
    "predict": ("kind", "id", "title", "question", "answer", "choices", "measure", "unit",
                "rule", "mistakes"),
    "run": ("kind", "id", "title", "text", "varies", "configs", "charts", "blockmap",
            "max_seconds", "pace", "pace_why"),
    "compare": ("kind", "title", "text", "experiment", "rows", "run", "tolerance", "why"),
    "reflect": ("kind", "title", "predict", "text"),
    "quiz": ("kind", "title", "text", "seed", "operations", "answer", "frontier", "ask",
             "given", "measure", "unit", "scale", "tolerance", "mistakes"),
}
TOP_KEYS = ("format", "id", "title", "order", "minutes", "summary", "steps", "sources")
QUIZ_FRONTIERS = ("shared", "separate")
CONFIG_KEYS = ("id", "label", "scenario", "set", *configs.BLOCK_TABLES, *configs.BLOCK_SCALARS)
CHOICE_KEYS = ("text", "explain", "correct", "range", "config")


def load_lesson(path: str | Path, glossary: Glossary | None = None) -> Lesson:
    """Read and check a lesson file; LessonError names file, line, field, allowed values."""
    path = Path(path)
    try:
        text = read_text_input(path, what="a lesson file (TOML)")
    except InputFileError as e:
        raise LessonError(str(e)) from None
    return parse_lesson(text, str(path), path.parent, glossary)


def parse_lesson(text: str, path: str = "<lesson>", lesson_dir: Path | None = None,
                 glossary: Glossary | None = None) -> Lesson:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LessonError(f"{path}: not valid TOML: {e}") from e
    except RecursionError:
        raise LessonError(f"{path}: not a lesson: arrays or tables nested too deeply") from None
    r = Reader(text, path)
    fmt = data.get("format")
    if type(fmt) is not int or fmt not in FORMATS:
        r.fail(("format",), f"format must be one of the supported versions "
               f"{', '.join(map(str, FORMATS))}; got {fmt!r}")
    r.table(data, (), TOP_KEYS)
    sources = read_sources(r, data.get("sources"))
    check_uses(r, data, sources)
    check_attributions(r, data, sources)
    data = render(data, sources)
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        r.fail(("steps",), "a lesson needs at least one [[steps]] entry")
    steps = tuple(_step(r, raw, ("steps", i), lesson_dir) for i, raw in enumerate(raw_steps))
    lesson = Lesson(
        id=r.ident(data, "id", ()), title=r.text(data, "title", ()),
        order=r.number(data, "order", (), 1, 999, integer=True),
        minutes=r.number(data, "minutes", (), 1, 60, integer=True),
        summary=r.text(data, "summary", ()), steps=steps,
        path=Path(path) if lesson_dir is not None else None, format=fmt, sources=sources)
    check_references(r, lesson)
    terms = check_text(r, raw_steps, lesson_dir, glossary or load_glossary())
    return Lesson(**{**lesson.__dict__, "terms": terms})


def _step(r: Reader, raw, at: tuple, lesson_dir: Path | None):
    if not isinstance(raw, dict):
        r.fail(at, "must be a table")
    kind = r.one_of(raw, "kind", at, STEP_KINDS)
    r.table(raw, at, STEP_KEYS[kind])
    line = r.line(at)
    title = r.text(raw, "title", at)
    if kind == "read":
        return ReadStep(title, r.text(raw, "text", at), line)
    if kind == "predict":
        return _predict(r, raw, at, title, line)
    if kind == "run":
        return _run(r, raw, at, title, line, lesson_dir)
    if kind == "compare":
        return _compare(r, raw, at, title, line)
    if kind == "reflect":
        return ReflectStep(title, r.ident(raw, "predict", at), r.text(raw, "text", at), line)
    return _quiz(r, raw, at, title, line)


def _quiz(r: Reader, raw: dict, at: tuple, title: str, line: int) -> QuizStep:
    """The tiny drive's quiz (seed), or a quiz on an earlier run's figures (measure)."""
    answer = r.text(raw, "answer", at, required=False)
    if "measure" not in raw:
        for key in ("given", "unit", "scale", "tolerance"):
            if key in raw:
                r.fail(at + (key,), f"{key} belongs to a quiz on a run's figures (with "
                       "measure); the tiny drive's quiz has seed, operations and frontier")
        ask = r.one_of(raw, "ask", at, QUIZ_ASKS, default="operations")
        if ask == "wa":
            for key in ("operations", "frontier"):
                if key in raw:
                    r.fail(at + (key,), f"{key} is for ask = \"operations\"; a counter "
                           "quiz (ask = \"wa\") has seed, text and answer")
        try:
            if ask == "wa" and answer:
                parse_number(answer)
            elif ask == "operations":
                parse_answer(answer)
        except QuizAnswerError as e:
            r.fail(at + ("answer",), str(e))
        return QuizStep(title, r.text(raw, "text", at),
                        r.number(raw, "seed", at, 0, 2**31 - 1, integer=True),
                        r.number(raw, "operations", at, 1, 6, default=3, integer=True),
                        answer, line,
                        frontier=r.one_of(raw, "frontier", at, QUIZ_FRONTIERS, "shared"),
                        ask=ask, mistakes=read_mistakes(
                            r, raw, at, "counter" if ask == "wa" else "operations",
                            parse_measure))
    for key in ("seed", "operations", "frontier", "ask"):
        if key in raw:
            r.fail(at + (key,), f"{key} belongs to the tiny drive's quiz; a quiz with "
                   "measure is about an earlier run's figures")
    measures = []
    for key, text in [("measure", r.text(raw, "measure", at))] + [
            (("given", j), g) for j, g in enumerate(r.strings(raw, "given", at))]:
        try:
            m = parse_measure(text)
        except ValueError as e:
            r.fail(at + (key if isinstance(key, tuple) else (key,)), str(e))
        if m.config == "*":
            r.fail(at + (key if isinstance(key, tuple) else (key,)), "a quiz figure names "
                   "one configuration (no *)")
        measures.append(m)
    if not measures[1:]:
        r.fail(at + ("given",), "a quiz on a run lists the figures the student works from "
               "(given = [\"RUN.CONFIG.FIGURE\", ...])")
    if answer:
        try:
            parse_run_number(answer)
        except QuizAnswerError as e:
            r.fail(at + ("answer",), str(e))
    return QuizStep(title, r.text(raw, "text", at), answer=answer, line=line,
                    given=tuple(measures[1:]), measure=measures[0],
                    unit=r.text(raw, "unit", at, required=False),
                    scale=float(r.number(raw, "scale", at, 1e-9, 1e9, default=1.0)),
                    tolerance=float(r.number(raw, "tolerance", at, 0.001, 0.5,
                                             default=0.02)),
                    mistakes=read_mistakes(r, raw, at, "run", parse_measure))


def _predict(r: Reader, raw: dict, at: tuple, title: str, line: int) -> PredictStep:
    measure = None
    if "measure" in raw:
        try:
            measure = parse_measure(r.text(raw, "measure", at))
        except ValueError as e:
            r.fail(at + ("measure",), str(e))
    rule = r.one_of(raw, "rule", at, (None, *RULES)) if "rule" in raw else None
    raw_choices = raw.get("choices", [])
    if not isinstance(raw_choices, list):
        r.fail(at + ("choices",), "must be a list of [[steps.choices]] tables")
    choices = tuple(_choice(r, c, at + ("choices", i)) for i, c in enumerate(raw_choices))
    if choices:
        answer = r.number(raw, "answer", at, 0, len(choices) - 1, integer=True)
        _check_choices(r, at, choices, measure, rule)
        unit = r.text(raw, "unit", at, required=False)
        if "mistakes" in raw:
            r.fail(at + ("mistakes",), "mistakes are for a numeric estimate; a choice "
                   "explains itself (explain)")
    else:
        if measure is None:
            r.fail(at + ("measure",), "a numeric estimate needs measure = RUN.CONFIG.FIGURE "
                   "(or give [[steps.choices]])")
        if measure.config == "*" or rule is not None:
            r.fail(at + ("measure",), "a numeric estimate measures one configuration (no * "
                   "and no rule)")
        answer = r.number(raw, "answer", at, -1e12, 1e12)
        unit = r.text(raw, "unit", at)
    return PredictStep(r.ident(raw, "id", at), title, r.text(raw, "question", at),
                       float(answer), choices, measure, unit, rule, line,
                       mistakes=() if choices else read_mistakes(r, raw, at, "estimate",
                                                                 parse_measure))


def _choice(r: Reader, raw, at: tuple) -> Choice:
    r.table(raw, at, CHOICE_KEYS)
    rng = None
    if "range" in raw:
        value = raw["range"]
        if not (isinstance(value, list) and len(value) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in value) and value[0] < value[1]):
            r.fail(at + ("range",), f"must be [low, high] with low < high; got {value!r}")
        rng = (float(value[0]), float(value[1]))
    correct = r.flag(raw, "correct", at, False) if "correct" in raw else None
    config = r.ident(raw, "config", at) if "config" in raw else None
    return Choice(r.text(raw, "text", at), r.text(raw, "explain", at), correct, rng, config)


def _check_choices(r: Reader, at: tuple, choices, measure, rule) -> None:
    """Who decides the right answer: the run (range or config), or the lesson (correct)."""
    where = at + ("choices",)
    if measure is None:
        if any(c.range or c.config for c in choices) or rule:
            r.fail(at + ("measure",), "choices with range or config need measure")
        if sum(bool(c.correct) for c in choices) != 1:
            r.fail(where, "exactly one choice must have correct = true when no run decides")
        return
    if any(c.correct is not None for c in choices):
        r.fail(where, "when measure is given the run decides the right choice: use range "
               "or config, not correct")
    if rule:
        if measure.config != "*" or not all(c.config for c in choices):
            r.fail(where, "with rule, measure's configuration is * and every choice names a "
                   "config")
    else:
        if measure.config == "*" or not all(c.range for c in choices):
            r.fail(where, "without rule, every choice gives a range [low, high] of the "
                   "measured value")
        ranges = sorted(c.range for c in choices)
        for a, b in zip(ranges, ranges[1:], strict=False):
            if b[0] < a[1]:
                r.fail(where, f"ranges must not overlap; got {list(a)} and {list(b)}")


def _run(r: Reader, raw: dict, at: tuple, title: str, line: int,
         lesson_dir: Path | None) -> RunStep:
    raw_configs = raw.get("configs")
    if not isinstance(raw_configs, list) or not raw_configs:
        r.fail(at + ("configs",), "a run needs at least one [[steps.configs]] table")
    cfgs = tuple(_config(r, c, at + ("configs", i), lesson_dir)
                 for i, c in enumerate(raw_configs))
    ids = [c.id for c in cfgs]
    if len(set(ids)) != len(ids):
        r.fail(at + ("configs",), f"configuration ids must differ; got {', '.join(ids)}")
    levels = {c.level for c in cfgs}
    if len(levels) > 1:
        r.fail(at + ("configs",), "configurations of one run are all block-level or all "
               "scenarios, so their curves share a chart")
    charts = r.strings(raw, "charts", at)
    allowed = BLOCK_CHARTS if "block" in levels else STEP_CHARTS
    for chart in charts:
        if chart not in allowed:
            r.fail(at + ("charts",), f"this run's charts must be among {', '.join(allowed)} "
                   f"(all charts: {', '.join(CHARTS)}); got {chart!r}")
    varies = r.text(raw, "varies", at, required=len(cfgs) > 1)
    blockmap = r.flag(raw, "blockmap", at, False)
    if blockmap and any(c.spec is not None and c.spec.zoned for c in cfgs):
        r.fail(at + ("blockmap",), "a zoned drive's run shows no block map: its host does "
               "the garbage collection, and the window watches only a drive's own; "
               "blockmap = false")
    # a run with a block map shows its first GCs at teaching pace unless it says why not
    pace = r.one_of(raw, "pace", at, PACES, "teach" if blockmap else "full")
    why = r.text(raw, "pace_why", at, required=False)
    if pace == "teach" and not blockmap:
        r.fail(at + ("pace",), 'pace = "teach" shows GCs on the block map: it needs '
               'blockmap = true')
    if pace == "teach" and why:
        r.fail(at + ("pace_why",), 'pace_why says why a run is not watched at teaching '
               'pace; this one is (pace = "teach")')
    if pace == "full" and blockmap and not why:
        r.fail(at + ("pace_why",), 'a run with a block map shows its first GCs at teaching '
               'pace; pace = "full" needs pace_why, the reason the student does not watch '
               'them')
    return RunStep(r.ident(raw, "id", at), title, r.text(raw, "text", at, required=False),
                   varies, cfgs, charts, blockmap,
                   float(r.number(raw, "max_seconds", at, 1, 300, default=30)), line,
                   pace=pace, pace_why=why)


def _config(r: Reader, raw, at: tuple, lesson_dir: Path | None) -> RunConfig:
    r.table(raw, at, CONFIG_KEYS)
    cid, label, line = r.ident(raw, "id", at), r.text(raw, "label", at), r.line(at)
    if "scenario" in raw:
        extra = [k for k in raw if k not in ("id", "label", "scenario", "set")]
        if extra:
            r.fail(at + (extra[0],), "a scenario configuration has id, label, scenario and "
                   "set (the scenario's own tables); block-level fields go in a block run")
        changes = r.table(raw.get("set", {}), at + ("set",), configs.SCENARIO_TABLES)
        try:
            scenario = configs.scenario_config(r.text(raw, "scenario", at), changes,
                                               lesson_dir)
        except (ValueError, ScenarioError) as e:
            where = "set" if "set" in raw else "scenario"
            r.fail(at + (where,), _without_location(str(e)))
        return RunConfig(cid, label, scenario=scenario, line=line)
    tables = {}
    for key, allowed in configs.BLOCK_TABLES.items():
        if key in raw:
            tables[key] = r.table(raw[key], at + (key,), allowed)
    if "drive" not in tables:
        r.fail(at + ("drive",), "a block-level configuration needs a drive table "
               "(user_pages, pages_per_block, spare), or scenario = NAME")
    # Run lengths and seed are checked here: the model would take inf or "x" badly.
    limits = {"warmup_drive_writes": (0, 1000, False), "measure_drive_writes": (0.001, 1000,
              False), "seed": (0, 2**31 - 1, True), "windows": (1, 10000, True),
              "tag_errors": (0, 1, False), "zone_blocks": (1, 4096, True),
              "open_zones": (1, 8, True)}
    for key, (lo, hi, whole) in limits.items():
        if key in raw:
            tables[key] = r.number(raw, key, at, lo, hi, integer=whole)
    if "placement" in raw:
        tables["placement"] = r.one_of(raw, "placement", at, PLACEMENTS)
    if "zoned" in raw:
        tables["zoned"] = r.flag(raw, "zoned", at, False)
    if "honour_trim" in tables.get("ftl", {}):
        r.flag(tables["ftl"], "honour_trim", at + ("ftl",), True)
    try:
        spec = configs.block_spec(tables)
    except (ValueError, TypeError) as e:
        r.fail(at + (_field_named(str(e), raw),), str(e))
    return RunConfig(cid, label, spec=spec, line=line)


def _without_location(message: str) -> str:
    """A scenario loader message without its generated file's FILE:LINE: prefix."""
    m = re.match(r"^.*?\.toml(?::\d+)?: (.*)$", message, re.S)
    return m.group(1) if m else message


def _field_named(message: str, raw: dict) -> str:
    """The lesson table a model error is about, so the line points at it."""
    name = message.split()[0] if message else ""
    for key, fields in configs.BLOCK_TABLES.items():
        if any(name.startswith(f) for f in fields) and key in raw:
            return key
    return name.replace("-", "_") if name.replace("-", "_") in raw else "drive"


def _compare(r: Reader, raw: dict, at: tuple, title: str, line: int) -> CompareStep:
    text = r.text(raw, "text", at, required=False)
    if ("experiment" in raw) == ("run" in raw):
        r.fail(at + ("experiment",), "a compare step has either experiment (documented "
               "figures) or run (a block run against the analytic model)")
    if "experiment" in raw:
        if "tolerance" in raw or "why" in raw:
            r.fail(at + ("experiment",), "an experiment's rows carry their own agreement "
                   "rule and reason; tolerance and why are for run = ... comparisons")
        return CompareStep(title, text, experiment=r.one_of(raw, "experiment", at,
                                                             tuple(EXPERIMENTS)),
                           rows=r.strings(raw, "rows", at), line=line)
    if "rows" in raw:
        r.fail(at + ("rows",), "rows choose among an experiment's rows; a run comparison "
               "has one row per configuration")
    return CompareStep(title, text, run=r.ident(raw, "run", at),
                       tolerance=float(r.number(raw, "tolerance", at, 0.001, 1.0, 0.1)),
                       why=r.text(raw, "why", at), line=line)
