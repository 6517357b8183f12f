"""What a lesson refers to must exist, in the right order: step ids are unique, a
prediction comes before the run it measures and names a configuration and figure that run
has, every run has a prediction before it, a reflection follows its prediction and run, and
every glossary link and image in the text resolves (images are local files only)."""

from __future__ import annotations

import re
from pathlib import Path

from ssdlab.model.inputfile import inside

from .configs import lesson_folders
from .fields import Reader
from .figures import check_figure
from .glossary import Glossary, links
from .lesson import Lesson, RunStep

ROOT = Path(__file__).resolve().parents[1]
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")


def check_references(r: Reader, lesson: Lesson) -> None:
    """Ids resolve, predictions come before the runs they measure, and every run has one."""
    where = {}
    for i, step in enumerate(lesson.steps):
        sid = getattr(step, "id", None)
        if sid is not None:
            if sid in where:
                r.fail(("steps", i, "id"), f"step ids must differ; {sid!r} is also step "
                       f"{where[sid]}")
            where[sid] = i
    predicted = set()
    for i, step in enumerate(lesson.steps):
        at = ("steps", i)
        if step.kind == "predict" and step.measure is not None:
            for m in (step.measure, step.measure.over):
                if m is None:
                    continue
                run = _run_named(r, lesson, where, m.run, at + ("measure",))
                if where[m.run] < i:
                    r.fail(at + ("measure",), f"a prediction comes before the run it "
                           f"measures; {m.run!r} is step {where[m.run]}")
                _check_measure(r, run, m, step, at)
                predicted.add(m.run)
        elif step.kind == "run" and step.id not in predicted:
            r.fail(at, f"run {step.id!r} needs a predict step before it that measures it "
                   "(the student predicts before every run)")
        elif step.kind == "reflect":
            if step.predict not in where or lesson.steps[where[step.predict]].kind != \
                    "predict" or where[step.predict] > i:
                r.fail(at + ("predict",), f"must name a predict step before this one; got "
                       f"{step.predict!r}")
            p = lesson.steps[where[step.predict]]
            if p.measure is not None and where[p.measure.run] > i:
                r.fail(at, f"a reflection comes after the run {p.measure.run!r} it explains")
        elif step.kind == "quiz" and step.measure is not None:
            for j, m in enumerate((step.measure, *step.given)):
                key = ("measure",) if j == 0 else ("given", j - 1)
                for part in (m, m.over):
                    if part is None:
                        continue
                    run = _run_named(r, lesson, where, part.run, at + key)
                    if where[part.run] > i:
                        r.fail(at + key, f"a quiz comes after the run it asks about; "
                               f"{part.run!r} is step {where[part.run]}")
                    _check_measure(r, run, part, step, at)
        if step.kind in ("quiz", "predict"):
            _check_mistakes(r, lesson, where, step, at)
        if step.kind == "compare" and step.run is not None:
            run = _run_named(r, lesson, where, step.run, at + ("run",))
            if where[step.run] > i or run.configs[0].level != "block":
                r.fail(at + ("run",), "must name a block-level run step before this one")


def _check_mistakes(r: Reader, lesson: Lesson, where: dict, step, at: tuple) -> None:
    """A mistake's figure names a run the student has seen by then (an estimate's: the run
    it predicts, read once that run is done); a difference is of a ratio's two figures."""
    for j, m in enumerate(getattr(step, "mistakes", ())):
        here = at + ("mistakes", j)
        if m.kind == "difference" and (step.measure is None or step.measure.over is None):
            r.fail(here + ("kind",), "a difference is of a ratio's two figures: the step's "
                   "measure divides one figure by another")
        if m.measure is None:
            continue
        run = _run_named(r, lesson, where, m.measure.run, here + ("measure",))
        if step.kind == "predict" and m.measure.run != step.measure.run:
            r.fail(here + ("measure",), f"an estimate's mistake names the run it predicts "
                   f"({step.measure.run!r}); got {m.measure.run!r}")
        if step.kind == "quiz" and where[m.measure.run] > at[1]:
            r.fail(here + ("measure",), f"a quiz comes after the run it asks about; "
                   f"{m.measure.run!r} is step {where[m.measure.run]}")
        _check_measure(r, run, m.measure, step, here)


def _run_named(r: Reader, lesson: Lesson, where: dict, name: str, at: tuple) -> RunStep:
    if name not in where or lesson.steps[where[name]].kind != "run":
        runs = [s.id for s in lesson.steps if s.kind == "run"]
        r.fail(at, f"must name a run step ({', '.join(runs) or 'none in this lesson'}); got "
               f"{name!r}")
    return lesson.steps[where[name]]


def _check_measure(r: Reader, run: RunStep, m, step, at: tuple) -> None:
    ids = [c.id for c in run.configs]
    if m.config != "*" and m.config not in ids:
        r.fail(at + ("measure",), f"configuration must be one of {', '.join(ids)}; got "
               f"{m.config!r}")
    for c in run.configs:
        if m.config not in ("*", c.id):
            continue
        try:
            check_figure(m.figure, c.level, len(c.scenario.steps) if c.scenario else 0)
        except ValueError as e:
            r.fail(at + ("measure",), str(e))
    for j, choice in enumerate(getattr(step, "choices", ())):
        if choice.config is not None and choice.config not in ids:
            r.fail(at + ("choices", j, "config"), f"must be one of {', '.join(ids)}; got "
                   f"{choice.config!r}")


def image_folders(lesson_dir: Path | None) -> tuple[Path, ...]:
    """Where a lesson's images (![alt](src)) are looked up, in order: beside the lesson,
    then the project folder, so that a bundled lesson names assets/figures/NAME.svg. The
    window's text view and the report look in the same places."""
    return tuple(dict.fromkeys((lesson_dir or ROOT, ROOT)))


def check_text(r: Reader, raw_steps: list, lesson_dir: Path | None,
                glossary: Glossary) -> tuple[str, ...]:
    """Every glossary link resolves; every image is a local file (nothing from the network).
    Returns the terms linked, in first-use order."""
    terms = []
    for i, raw in enumerate(raw_steps):
        texts = [(k, raw[k]) for k in ("text", "question", "why") if isinstance(raw.get(k),
                                                                                 str)]
        texts += [(("choices", j, k), c[k]) for j, c in enumerate(raw.get("choices") or [])
                  for k in ("text", "explain") if isinstance(c, dict) and k in c]
        for key, text in texts:
            at = ("steps", i) + (key if isinstance(key, tuple) else (key,))
            for name in links(text):
                term = glossary.find(name)
                if term is None:
                    r.fail(at, f"the link [[{name}]] names no glossary term (see "
                           "ssdlab/lessons/glossary.toml)")
                if term.term not in terms:
                    terms.append(term.term)
            for src in _IMAGE.findall(text):
                if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I):
                    r.fail(at, f"images are local files (nothing from the network); got {src}")
                folders = lesson_folders(lesson_dir)
                found = [base / src for base in image_folders(lesson_dir)
                         if (base / src).is_file()]
                if not found:
                    r.fail(at, f"image {src} is not a file beside the lesson or in the "
                           "project")
                if not any(inside(f, folders) for f in found):
                    r.fail(at, f"image {src} lies outside the lesson's folder and the "
                           "project's assets (a lesson reads only beside itself)")
    return tuple(terms)
