"""The usual wrong ways to a quiz's answer, recognised so that a wrong answer hears what
went wrong in plain words, never the right number (Show answer gives that, with the
working).

A quiz step, or a numeric estimate, declares the mistakes that fit it as data:

    [[steps.mistakes]]
    kind = "counted-fill"
    measure = "overwrite.first.lifetime_wa"   # the figure this mistake gives
    says = "..."                              # optional: the lesson's own words

Each kind knows the quiz forms it fits ("run": a run's figures; "counter": two counter
readings; "operations": the tiny drive; "estimate": a numeric prediction), what else it
needs (a factor or a measure), and its own message. The wrong answer a kind gives is
worked out from the quiz's own figures (the run's, the engine's), never written in a lesson.
The tiny drive's kinds are checked in ssdlab/lessons/quiz.py against the engine's log.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .lesson import Measure, Mistake

FORMS = ("run", "counter", "operations", "estimate")
MISTAKE_KEYS = ("kind", "says", "factor", "measure")
# A wrong answer counts as a recognised mistake within this fraction of what the mistake
# gives (or the quiz's own tolerance when larger): a student rounds to two figures.
MISTAKE_TOLERANCE = 0.05


@dataclass(frozen=True)
class Kind:
    forms: tuple[str, ...]
    needs: str  # "", "factor" or "measure"
    says: dict[str, str]  # form -> message ("*": any form); {top}, {over}, {unit}, {other}


WA_BELOW_ONE = ("a write amplification below 1 would mean the flash stored less than the "
                "computer sent; this drive programs every page the computer writes at least "
                "once, and garbage collection's copies come on top")
KINDS: dict[str, Kind] = {
    "inverted": Kind(("run", "counter", "estimate"), "", {
        "run": "that is the division the other way round ({over} over {top}); the question "
               "asks for {top} over {over}",
        "counter": "that is host writes over flash writes; WA is flash writes over host "
                   "writes",
        "estimate": "that looks like the ratio turned upside down"}),
    "copies-only": Kind(("run",), "", {
        "*": "that counts only the pages garbage collection copied; the flash also "
             "programmed every page the computer wrote, once each, so those count too"}),
    "more-not-times": Kind(("run",), "", {
        "*": "that is how much more, not how many times as much: the question asks for the "
             "whole ratio, not only the part above 1"}),
    "times-not-more": Kind(("run",), "", {
        "*": "that counts the whole, not only the extra on top: the question asks for the "
             "part that comes on top"}),
    "difference": Kind(("run",), "", {
        "*": "that is the difference between the two figures; the question asks how many "
             "times the one is the other: divide, do not subtract"}),
    "complement": Kind(("run",), "", {
        "*": "that is the other part, what is missing to the whole; the question asks for "
             "the part itself"}),
    "unit": Kind(("run", "estimate"), "factor", {
        "*": "the working looks right but the unit does not: the question asks for {unit}"}),
    "counted-fill": Kind(("run", "counter"), "measure", {  # a counter quiz's: its own
        "run": "that counts the drive's first fill too, as a drive's counters since it "
               "was new do; the question is about the measured writes only, after the fill",
        "counter": "that divides the totals since the drive was new, which include its "
                   "first fill, written once; use how much each counter grew between the "
                   "readings"}),
    "other-run": Kind(("run", "estimate"), "measure", {
        "*": "that is the figure of another run ({other}); the question is about {this}"}),
    "given-figure": Kind(("run",), "measure", {
        "*": "that is the given figure as it stands; the question asks you to work "
             "something out from it"}),
    "below-one": Kind(("run", "counter", "estimate"), "", {"*": WA_BELOW_ONE}),
    "copies-as-writes": Kind(("operations",), "", {
        "*": "write: {count} you named {was} not written by the computer: garbage "
             "collection copied {it} out of the block it cleaned, and a copied page keeps "
             "its number"}),
    "overwrite-as-trim": Kind(("operations",), "", {
        "*": "trim: {count} you named as trimmed still {holds} data afterwards: the computer "
             "wrote {it} again, which also turns the old place stale (x)"}),
    "gc-destination": Kind(("operations",), "", {
        "*": "gc: {count} you named only received the pages garbage collection copied; the "
             "block it cleaned is the one they came from, and it was erased"}),
}
# What a quiz recognises when its step declares nothing: the forms whose mistakes need no
# figures of a lesson's own.
DEFAULTS = {"operations": ("copies-as-writes", "overwrite-as-trim", "gc-destination"),
            "counter": ("counted-fill", "inverted"), "run": (), "estimate": ()}


def kinds_for(form: str) -> tuple[str, ...]:
    return tuple(k for k, kind in KINDS.items() if form in kind.forms)


def read_mistakes(r, raw: dict, at: tuple, form: str, parse_measure) -> tuple[Mistake, ...]:
    """The step's [[steps.mistakes]] tables (r: the loader's fields.Reader), or the form's
    defaults when it has none."""
    if "mistakes" not in raw:
        return tuple(Mistake(k) for k in DEFAULTS[form])
    value = raw["mistakes"]
    if not isinstance(value, list):
        r.fail(at + ("mistakes",), "must be a list of [[steps.mistakes]] tables")
    out = []
    for j, m in enumerate(value):
        where = at + ("mistakes", j)
        r.table(m, where, MISTAKE_KEYS)
        kind = r.one_of(m, "kind", where, kinds_for(form))
        needs = "" if form == "counter" else KINDS[kind].needs  # it has its own totals
        for key in ("factor", "measure"):
            if key in m and key != needs:
                owners = "unit" if key == "factor" else \
                    "counted-fill, other-run or given-figure"
                r.fail(where + (key,), f"{key} belongs to a mistake of kind {owners}; "
                       f"{kind!r} here takes {needs or 'only says'}")
        factor, measure = None, None
        if needs == "factor":
            factor = float(r.number(m, "factor", where, 1e-9, 1e9))
            if factor == 1:
                r.fail(where + ("factor",), "a unit slip's factor differs from 1; got 1")
        elif needs == "measure":
            try:
                measure = parse_measure(r.text(m, "measure", where))
            except ValueError as e:
                r.fail(where + ("measure",), str(e))
            if measure.config == "*":
                r.fail(where + ("measure",), "a mistake's figure names one configuration "
                       "(no *)")
        out.append(Mistake(kind, r.text(m, "says", where, required=False), factor, measure,
                           r.line(where)))
    plain = [m.kind for m in out if not KINDS[m.kind].needs]
    if len(set(plain)) != len(plain):
        r.fail(at + ("mistakes",), "each kind once (a kind with a factor or a figure may "
               f"repeat, each with its own); got {', '.join(plain)}")
    return tuple(out)


@dataclass(frozen=True)
class Spotted:
    """A declared mistake made concrete for one quiz: the wrong answers it gives (or below:
    any answer under it, such as a WA under 1) and its message."""

    kind: str
    says: str
    values: tuple[float, ...] = ()
    below: float | None = None

    def fits(self, answer: float, tolerance: float) -> bool:
        if self.below is not None and 0 < answer < self.below:
            return True
        band = max(tolerance, MISTAKE_TOLERANCE)
        return any(math.isfinite(v) and abs(answer - v) <= max(band * abs(v), 1e-9)
                   for v in self.values)


def message(m: Mistake, form: str, **words) -> str:
    """The mistake's words: the lesson's own (says), or its kind's with the words filled."""
    if m.says:
        return m.says
    texts = KINDS[m.kind].says
    text = texts.get(form, texts.get("*", ""))
    return text.format_map(_Blank(words))


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "the other figure" if key in ("top", "over", "other", "this") else ""


def numeric(m: Mistake, raw: float, scale: float, parts: tuple[float, float] | None,
            other=None) -> Spotted | None:
    """A numeric mistake for an answer that is raw * scale: raw, the run's unscaled figure;
    parts, the ratio's two figures (top, over) when it is one; other(measure), the value of
    another figure of the run. None for a kind that does not fit (a difference of no ratio)."""
    kind = m.kind
    if kind == "inverted":
        values = (scale / raw, 1 / raw) if raw else ()
    elif kind in ("copies-only", "more-not-times"):
        values = ((raw - 1) * scale,) + (((raw - 1) * 100,) if kind == "more-not-times"
                                         and scale == 1 else ())
    elif kind == "times-not-more":
        values = ((raw + 1) * scale,)
    elif kind == "difference":
        if parts is None:
            return None
        values = (parts[0] - parts[1], parts[1] - parts[0])  # "151 MB/s lost" is positive
    elif kind == "complement":
        values = ((1 - raw) * scale,)
    elif kind == "unit":
        values = (raw * scale * m.factor,)
    elif kind in ("counted-fill", "other-run", "given-figure") and m.measure is not None:
        values = (other(m.measure) * scale,)
    elif kind == "below-one":
        return Spotted(kind, "", below=1.0)
    else:
        return None
    return Spotted(kind, "", tuple(float(v) for v in values))


def spot(mistakes: tuple[Mistake, ...], form: str, raw: float, scale: float,
         parts: tuple[float, float] | None, value_of, name_of, **words) -> tuple[Spotted, ...]:
    """The numeric mistakes of a quiz or estimate, each with its message. value_of(measure)
    and name_of(measure): another figure of the run and the name of its configuration."""
    out = []
    for m in mistakes:
        s = numeric(m, raw, scale, parts, value_of)
        if s is not None:
            said = dict(words, other=name_of(m.measure)) if m.measure is not None else words
            out.append(Spotted(s.kind, message(m, form, **said), s.values, s.below))
    return tuple(out)


def first_fit(spotted: tuple[Spotted, ...], answer: float, tolerance: float) -> Spotted | None:
    return next((s for s in spotted if s.fits(answer, tolerance)), None)


def part_names(measure: Measure, lesson) -> tuple[str, str]:
    """Short names of a ratio's two figures for a message or the working ("flash pages
    programmed", "host pages written"): the figure's words, and where the two share them,
    what tells them apart (the configuration, the scenario step, or both)."""
    from .charts import FIGURE_WORDS, measure_label

    def words(m: Measure) -> str:
        return FIGURE_WORDS.get(m.figure.split(".")[-1], m.figure.split(".")[-1])

    def config(m: Measure) -> str:
        run = lesson.step_of(m.run)
        return next((c.label for c in run.configs if c.id == m.config), m.config)

    if measure.over is None:
        return measure_label(measure, lesson), ""
    a, b = Measure(measure.text, measure.run, measure.config, measure.figure), measure.over
    if words(a) != words(b):
        return words(a), words(b)
    same_config = (a.run, a.config) == (b.run, b.config)
    if a.figure == b.figure:  # the same figure of two configurations
        return f"{words(a)}, {config(a)}", f"{words(b)}, {config(b)}"
    full = [measure_label(m, lesson) for m in (a, b)]  # "WHAT of step N (name), WHO"
    if same_config:
        return tuple(f.removesuffix(f", {config(a)}") for f in full)
    return full[0], full[1]
