"""Several runs of one chart drawn together, as the window draws them with two drives side by
side or a run kept as reference: which lines of which run are drawn, in what order, and what
each is called ("A: spare 7 %", "B: analytic").

The window's charts (ssdlab/app/gui/charts/charts.py) and the file exporter
(ssdlab/app/chartexport.py) follow the same rules, so a figure in a file is the figure on screen. An
Overlay of one run with no label is the plain chart: its lines keep their own names. No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .charts import Chart, Line, Table

ROLES = ("main", "second", "ref")  # the only run or A; B of a comparison; a kept reference
# A reference's analytic level would repeat A's; its per-window WA, with no analytic level
# of its own to be read against, is left out too. A's and B's per-window WA stay: an
# analytic level predicts the per-window WA once the drive is rewritten, and without that
# curve on screen the room read the level against the cumulative WA (7.40 against 5.0),
# which the fill holds down.
REFERENCE_SKIPS = ("theory", "wa_window")
RUN_COLUMN = "run"  # the CSV's column naming each row's run (long format)


@dataclass(frozen=True)
class ChartRun:
    """One run of an overlay. label: its name in the legend ("A: spare 7 %"; "" for the
    only run); role: one of ROLES; key: names its series in files ("" for the main run,
    "B", "ref0"); provenance: what reproduces it (its settings, seed)."""

    label: str
    role: str
    table: Table
    key: str = ""
    provenance: dict | None = None


def solid_lines(lines: Iterable[tuple[str, bool]], role: str) -> int:
    """How many solid (measured) lines a run of this role draws, of the chart's lines
    given as (key, dashed): a reference draws fewer (REFERENCE_SKIPS), and one line alone
    needs no name beside its run's."""
    return sum(1 for key, dashed in lines if not dashed
               and not (role == "ref" and key in REFERENCE_SKIPS))


def legend_text(run_label: str, line_label: str, solid_lines: int, dashed: bool) -> str:
    """What a line is called: its own name alone for the only run. With runs overlaid, a
    run's line is its run's label ("B: spare 28 %"), with the line's name where the chart
    draws more than one solid line per run ("B: spare 28 %, NAND"); a dashed level beside
    it (the analytic WA) is its run's tag and its name ("B: analytic")."""
    if not run_label:
        return line_label
    if dashed:
        return f"{run_label.split(':')[0]}: {line_label}"
    return f"{run_label}, {line_label}" if solid_lines > 1 else run_label


@dataclass(frozen=True)
class Overlay:
    """Runs of one chart, the main run first; every table is of the same chart, all timed
    or all not (the main run's clock decides, as in the window)."""

    runs: tuple[ChartRun, ...]

    def __post_init__(self) -> None:
        if not self.runs:
            raise ValueError("an overlay needs at least one run")
        first = self.runs[0].table
        for run in self.runs:
            if run.role not in ROLES:
                raise ValueError(f"role must be one of {', '.join(ROLES)}; got {run.role!r}")
            if run.table.chart != first.chart or run.table.timed != first.timed:
                raise ValueError("every run of an overlay must be a table of the same chart, "
                                 "timed alike")
        if self.runs[0].role != "main" or sum(r.role == "main" for r in self.runs) != 1:
            raise ValueError("an overlay's first run, and only it, has the role 'main'")
        if len({r.key for r in self.runs}) != len(self.runs):
            raise ValueError("each run of an overlay needs its own key")

    @classmethod
    def of(cls, table: Table) -> Overlay:
        """The plain chart: one run, its lines under their own names."""
        return cls((ChartRun("", "main", table),))

    @property
    def chart(self) -> Chart:
        return self.runs[0].table.chart

    @property
    def timed(self) -> bool:
        return self.runs[0].table.timed

    @property
    def overlaid(self) -> bool:
        return len(self.runs) > 1

    def lines(self) -> tuple[Line, ...]:
        """The chart's lines each run may draw."""
        return self.chart.lines

    def drawn(self) -> list[tuple[ChartRun, Line, str]]:
        """(run, line, legend text) of every line drawn, bottom first: references under
        A, B over A, so where two runs agree both stay visible. A reference's analytic
        level and per-window WA are left out, and B's level where it is A's (drawn
        once). Lines without a finite point are listed too; a drawer leaves them out."""
        lines = self.lines()
        order = ([r for r in self.runs if r.role == "ref"] + [self.runs[0]]
                 + [r for r in self.runs if r.role == "second"]) if self.overlaid \
            else list(self.runs)
        main = self.runs[0].table.ys
        out = []
        for run in order:
            for line in lines:
                if run.role == "ref" and line.key in REFERENCE_SKIPS:
                    continue
                if run.role == "second" and line.dashed and _same_level(
                        run.table.ys[line.key], main[line.key]):
                    continue
                solid = solid_lines(((ln.key, ln.dashed) for ln in lines), run.role)
                out.append((run, line, legend_text(run.label, run.table.name(line), solid,
                                                   line.dashed)))
        return out

    def step_labels(self) -> tuple[str, ...]:
        """The x axis's step names (the steps chart): the longest run's, with "A / B" where
        runs name the same position differently."""
        longest = max(len(r.table.labels) for r in self.runs)
        out = []
        for i in range(longest):
            names = list(dict.fromkeys(r.table.labels[i] for r in self.runs
                                       if i < len(r.table.labels)))
            out.append(" / ".join(names))
        return tuple(out)

    def columns(self) -> dict[str, np.ndarray]:
        """The CSV's columns: the plain table's for one run; overlaid, long format, every
        column of every run (nothing left out) with a first column naming the run."""
        if not self.overlaid:
            return _with_steps(self.runs[0].table)
        parts = [_with_steps(r.table) for r in self.runs]
        out = {RUN_COLUMN: np.concatenate([np.full(len(next(iter(p.values()))), r.label,
                                                   dtype=object)
                                           for r, p in zip(self.runs, parts, strict=True)])}
        for name in dict.fromkeys(n for p in parts for n in p):  # a run may lack one
            out[name] = np.concatenate([np.asarray(p[name], dtype=object) if name in p else
                                        np.full(len(next(iter(p.values()))), np.nan)
                                        for p in parts])
        return out


def _with_steps(table: Table) -> dict[str, np.ndarray]:
    columns = table.columns()
    if table.labels:
        columns = {**columns, "step": np.array(table.labels, dtype=object)}
    return columns


def _same_level(a: np.ndarray, b: np.ndarray) -> bool:
    """Two constant levels (analytic WA) at the same height, or both absent."""
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if not a.size or not b.size:
        return not a.size and not b.size
    return bool(np.all(a == a[0]) and np.all(b == b[0]) and a[0] == b[0])
