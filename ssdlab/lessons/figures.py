"""The figures a run produces and how a lesson names them.

A block-level configuration yields the counters of ssdlab.model.flash.runner.RunResult (WA, the
analytic WA, GC copies, ...). A scenario configuration yields, per step, the fields of
ssdlab.model.host.machine.StepResult, named steps[I].FIELD with I 0-based as in the scenario file.
A lesson names a figure as RUN.CONFIG.FIGURE, and may divide one by another with " / ".
steps[I:J].FIELD sums FIELD over steps I to J-1 (a step and the sync after it).
"""

from __future__ import annotations

import math
import re

from .lesson import Measure

BLOCK_FIGURES = {
    "wa": "write amplification: flash bytes programmed / bytes the host wrote",
    "theory_wa": "the analytic model's WA at the drive's effective spare",
    "theory_wa_usable": "the analytic model's WA at the spare GC can really use",
    "gc_copies": "pages GC copied during the measured phase",
    "erases": "blocks erased during the measured phase",
    "trims": "TRIM commands in the measured phase (on a zoned drive its zone resets)",
    "host_writes": "host page writes in the measured phase",
    "nand_writes": "NAND page writes in the measured phase (on a compressing drive the "
                   "pages stored, each a share of a flash page: flash_pages counts flash)",
    "flash_pages": "flash pages programmed in the measured phase: NAND page writes times "
                   "the stored fraction",
    "stored_fraction": "the share of a flash page each page is stored in (1: no "
                       "compression)",
    "erase_count_max": "most erases of any block",
    "erase_count_mean": "mean erases per block",
    "erase_count_min": "fewest erases of any block",
    "lifetime_wa": "flash page writes / host page writes since the drive was new (the fill "
                   "included), what dividing a drive's two lifetime counters gives",
    "host_copies": "pages the host copied in its own garbage collection (a zoned drive; 0 "
                   "elsewhere)",
    "host_wa": "pages the host sent the drive / pages the application wrote (a zoned "
               "drive; 1 elsewhere)",
    "drive_wa": "flash pages / pages the host sent (a zoned drive)",
    "spare": "spare as a fraction of physical capacity",
    "extra_of_user": "spare as a fraction of user capacity",
}
STEP_FIGURES = {
    "seconds": "simulated seconds the step took",
    "fs_written_mb": "MB the file system wrote",
    "data_mb": "MB of file data",
    "journal_mb": "MB written to the journal",
    "device_written_mb": "MB the drive was asked to write",
    "nand_written_mb": "MB programmed into flash",
    "wa": "write amplification: flash bytes programmed / bytes the host wrote "
          "(partial-page read-modify-write included; below 1 on a compressing drive)",
    "trims": "TRIM commands sent",
    "trimmed_mb": "MB trimmed",
    "gc_copies": "pages GC copied",
    "erases": "blocks erased",
    "flushes": "cache flushes",
    "mb_s": "MB per simulated second the drive received",
    "data_mb_s": "MB of file data per simulated second",
}
_NAME = r"[a-z0-9][a-z0-9_-]*"
_ONE = re.compile(rf"^({_NAME})\.({_NAME}|\*)\.((?:steps\[\d+(?::\d+)?\]\.)?[a-z_]+)$")
_STEP = re.compile(r"steps\[(\d+)(?::(\d+))?\]\.([a-z_]+)")


def parse_measure(text: str) -> Measure:
    """RUN.CONFIG.FIGURE [/ RUN.CONFIG.FIGURE]; ValueError says the allowed form."""
    parts = [p.strip() for p in text.split("/")]
    if len(parts) > 2:
        raise ValueError(f"must be RUN.CONFIG.FIGURE, or one such figure / another; got "
                         f"{text!r}")
    found = [_ONE.match(p) for p in parts]
    if not all(found):
        raise ValueError("must be RUN.CONFIG.FIGURE (lower-case ids; FIGURE such as wa or "
                         f"steps[3].seconds), or one such figure / another; got {text!r}")
    over = None
    if len(found) == 2:
        m = found[1]
        over = Measure(parts[1], m.group(1), m.group(2), m.group(3))
    m = found[0]
    return Measure(text, m.group(1), m.group(2), m.group(3), over)


def check_figure(figure: str, level: str, steps: int) -> None:
    """ValueError unless figure exists for a configuration of this level (block or
    scenario, with this many steps)."""
    m = _STEP.fullmatch(figure)
    if level == "block":
        if figure not in BLOCK_FIGURES:
            raise ValueError(f"a block-level run has figures {', '.join(BLOCK_FIGURES)}; "
                             f"got {figure!r}")
        return
    first, end = (int(m.group(1)), int(m.group(2) or int(m.group(1)) + 1)) if m else (0, 0)
    if not m or not first < end <= steps or m.group(3) not in STEP_FIGURES:
        raise ValueError(f"a scenario run has figures steps[I].FIELD (I from 0 to "
                         f"{steps - 1}) or steps[I:J].FIELD (the sum over I to J-1), FIELD one "
                         f"of {', '.join(STEP_FIGURES)}; got {figure!r}")


def block_figures(result) -> dict[str, float]:
    """The named figures of a ssdlab.model.flash.runner.RunResult (nan where there is no model)."""
    out = {}
    for name in BLOCK_FIGURES:
        value = getattr(result, name)
        out[name] = float("nan") if value is None else float(value)
    return out


def step_figures(results) -> dict[str, float]:
    """The named figures of a scenario run's StepResults."""
    out = {}
    for i, r in enumerate(results):
        values = r.as_dict()
        values["data_mb_s"] = r.data_mb / r.seconds if r.seconds > 0 else math.nan
        for name in STEP_FIGURES:
            out[f"steps[{i}].{name}"] = float(values[name])
    return out


def evaluate(measure: Measure, figures: dict[str, dict[str, dict[str, float]]],
             config: str | None = None) -> float:
    """The measure's value from figures[run][config][figure]; config replaces a * config."""
    def one(m: Measure) -> float:
        values = figures[m.run][config if m.config == "*" else m.config]
        span = _STEP.fullmatch(m.figure)
        if span is None or span.group(2) is None:
            return values[m.figure]
        return sum(values[f"steps[{i}].{span.group(3)}"]
                   for i in range(int(span.group(1)), int(span.group(2))))

    value = one(measure)
    if measure.over is not None:
        below = one(measure.over)
        value = value / below if below else math.nan
    return value
