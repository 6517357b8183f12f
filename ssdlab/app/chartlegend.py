"""A print figure's legend laid out to fit its column (ssdlab/app/chartexport.py draws it): which
entries it lists, in how many columns, how many rows of type that takes, and each label
broken into lines no wider than its column (a model's name and assumptions run to 60
characters, wider than a single column).

Where every measured series has its analytic model beside it (the WA-against-spare chart),
a series and its model are one entry: its marker drawn on its model's dash, in its colour,
named once ("16 pages per block"), under one line saying points are simulated and the
lines analytic. Six pages-per-block pairs listed measured beside model took 12 rows, a
single-column figure 13.6 cm tall; paired they take 3 rows in two columns.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

from ssdlab.app.chartnotes import drawn_lines
from ssdlab.model.lab.overlay import Overlay

PAIR_NOTE = "points: simulated; lines: analytic"  # each model its own dash, one solid
MODEL = "_theory"  # a model's series key (and SVG id) is its measured series' and this
SIMULATED = " (simulated)"
CHAR_IN = 0.062  # a character's width at the legend's 8 pt DejaVu Sans, inches
SAMPLE_IN = 0.55  # the line sample and the gaps around an entry, inches
COLUMNS = {"single": 2, "double": 3}  # a legend under the plot
ROW_IN = 0.17  # a legend row's height at 8 pt, inches


@dataclass(frozen=True)
class LegendPlan:
    """labels: the legend's entries, the widest panel's; columns: how many side by side;
    chars: the most characters of a label's line; rows: the rows of type the entries take,
    their broken lines counted; paired: series and models are merged (PAIR_NOTE heads it);
    wide: a label takes more than half the width, too much to sit over the data."""

    labels: tuple[str, ...]
    columns: int
    chars: int
    rows: int
    paired: bool
    wide: bool = False

    def fill(self, label: str) -> str:
        """A label broken into lines that fit its column."""
        return textwrap.fill(label, self.chars, break_on_hyphens=False)


def is_paired(overlay: Overlay) -> bool:
    """Whether every measured line drawn has its model drawn too, or some has: the chart
    draws measured points beside their models (chartexport._paired)."""
    if overlay.overlaid:
        return False
    keys = {ln.key for _, ln, *_ in drawn_lines(overlay)}
    return any(f"{k}{MODEL}" in keys for k in keys)


def entry_labels(overlay: Overlay) -> list[str]:
    """The legend's labels for this panel, in drawing order: paired, a measured series and
    its model once, named without "(simulated)"; a series without a partner as it is."""
    lines = drawn_lines(overlay)
    if not is_paired(overlay):
        return [label for _, _, label, *_ in lines]
    keys = {ln.key for _, ln, *_ in lines}
    out = []
    for _, line, label, *_ in lines:
        if line.key.endswith(MODEL) and line.key[:-len(MODEL)] in keys:
            continue  # listed with its measured series
        out.append(label.removesuffix(SIMULATED) if f"{line.key}{MODEL}" in keys else label)
    return out


def plan(panels: list[Overlay], width: str, width_in: float, most: int) -> LegendPlan:
    """The legend of these panels at `width` (width_in inches across): as many columns as
    the longest label leaves room for, at most `most` (COLUMNS) and never fewer than one."""
    per_panel = [entry_labels(p) for p in panels]
    labels = tuple(max(per_panel, key=len))
    longest = max((len(t) for t in labels), default=0)
    fit = int(width_in // (longest * CHAR_IN + SAMPLE_IN)) if longest else 1
    columns = max(1, min(most, fit))
    chars = max(16, int((width_in / columns - SAMPLE_IN) / CHAR_IN))
    broken = [len(textwrap.wrap(t, chars, break_on_hyphens=False)) or 1 for t in labels]
    # a row is as tall as its tallest label
    rows = sum(max(broken[i:i + columns]) for i in range(0, len(broken), columns))
    return LegendPlan(labels, columns, chars, max(rows, math.ceil(len(labels) / columns)),
                      any(is_paired(p) for p in panels),
                      longest * CHAR_IN + SAMPLE_IN > width_in / 2)


def entries(artists: list, legend: LegendPlan) -> tuple[list, list[str]]:
    """(handles, labels) for the drawn artists (in legend order, each with its SVG id
    "series-KEY"): paired, each measured artist with its model's as one (model, points)
    handle, drawn one over the other; every label broken to fit its column."""
    if not legend.paired:
        return artists, [legend.fill(a.get_label()) for a in artists]
    by_id = {a.get_gid(): a for a in artists}
    handles, labels = [], []
    for a in artists:
        gid = a.get_gid() or ""
        if gid.endswith(MODEL) and gid[:-len(MODEL)] in by_id:
            continue
        model = by_id.get(f"{gid}{MODEL}")
        handles.append((model, a) if model is not None else a)
        label = a.get_label()
        labels.append(legend.fill(label.removesuffix(SIMULATED) if model is not None
                                  else label))
    return handles, labels
