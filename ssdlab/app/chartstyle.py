"""How each series looks on paper, so a grey-scale print tells them apart without colour:
every series has its own colour, marker and dash; analytic curves are dashed, drawn above the
measured lines with hollow markers of their series' shape; and the axes leave headroom above
the largest value and count in whole numbers where the data counts things.

Runs overlaid keep the window's patterns (A solid, B long dashes, references dash-dotted,
ssdlab/app/palette.py); each series still gets its own marker. Used by ssdlab/app/chartexport.py.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ssdlab.app.palette import OKABE_ITO, SERIES, dash, run_colour
from ssdlab.model.lab.charts import Chart, Line

LINE_WIDTH_PT = 1.2
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# measured lines: solid, dotted, dash-dot, dash-dot-dot ... (never plain dashes: analytic)
MEASURED_DASHES = ("-", (0, (1, 1.3)), (0, (4, 1.5, 1, 1.5)), (0, (4, 1.2, 1, 1.2, 1, 1.2)),
                   (0, (7, 1.5)), (0, (1, 2.5)), (0, (7, 1.5, 1, 1.5)), (0, (2, 1)))
# analytic curves: dashes of lengths of their own (docs/author.md calls them dashed)
ANALYTIC_DASHES = ((0, (3.5, 2)), (0, (7, 2)), (0, (2.5, 1.2)), (0, (9, 2.5, 2.5, 2.5)))
# colours for series no token names (a plot's lines), in Okabe-Ito order; mid grey, not
# yellow: yellow is faint on white
CYCLE = tuple(OKABE_ITO[k] for k in ("blue", "vermillion", "bluish_green", "reddish_purple",
                                     "orange", "sky_blue", "black")) + ("#7f7f7f",)
SECOND_DASH = {False: (0, dash("second", False)), True: (0, dash("second", True))}
REFERENCE_DASHES = ((0, (6, 1.5, 1.5, 1.5)), (0, (3, 1, 1, 1, 1, 1)), (0, (8, 2, 2, 2, 2, 2)))
REFERENCE_WIDTH = 0.75  # of LINE_WIDTH_PT
MARKERS_PER_LINE = 9  # a long series shows this many markers, staggered between series
HEADROOM = 0.08  # of the y span, above the largest value


def series_index(chart: Chart, line: Line) -> int:
    """The series a line belongs to, for its marker and dash: an analytic line that pairs a
    measured one (key + "_theory") shares its index; any other line has its own."""
    measured = [x.key for x in chart.lines if not x.dashed]
    partner = line.key.removesuffix("_theory")
    if line.dashed and partner in measured:
        return measured.index(partner)
    if not line.dashed:
        return measured.index(line.key)
    alone = [x.key for x in chart.lines if x.dashed and x.key.removesuffix("_theory")
             not in measured]
    return len(measured) + alone.index(line.key)


# On paper a line's grey must differ from its neighbours': the window's orange per-window
# WA prints as a pale grey next to the blue cumulative line (luminance 0.63 against 0.34),
# vermillion as a mid grey (0.47) between it and the black analytic level.
PRINT_COLOURS = {"wa_window": OKABE_ITO["vermillion"]}


def colour(token: str, index: int, role: str) -> str:
    """A series' colour: its token's (ssdlab/app/palette.py, PRINT_COLOURS on paper), else
    the index's in CYCLE."""
    if token in PRINT_COLOURS and role == "main":
        return PRINT_COLOURS[token]
    if token in SERIES:
        return run_colour("normal", token, role)  # the desk profile's page is white
    return CYCLE[index % len(CYCLE)]


def shares_colour(chart: Chart, line: Line) -> bool:
    """Whether the line's token names more than one measured series (a sweep's policy
    drawn once per pages-per-block value): then each series takes its own colour from
    CYCLE, never one blue for six lines."""
    return line.token in SERIES and [x.token for x in chart.lines
                                     if not x.dashed].count(line.token) > 1


def line_style(chart: Chart, line: Line, role: str, ref_index: int, x: np.ndarray,
               overlaid: bool = False) -> dict:
    """matplotlib line properties of a line of a run with `role` (main, second, ref) drawn
    at `x`; overlaid: runs are told apart by dash (A solid), series by marker."""
    i = series_index(chart, line)
    token = f"cycle{i}" if shares_colour(chart, line) else line.token
    style = {"color": colour(token, i, role), "linewidth": LINE_WIDTH_PT,
             "zorder": 2.0}
    if line.dashed:
        style.update(linestyle=ANALYTIC_DASHES[i % len(ANALYTIC_DASHES)], zorder=3.0,
                     linewidth=LINE_WIDTH_PT * 0.85)
    else:
        style["linestyle"] = MEASURED_DASHES[i % len(MEASURED_DASHES)]
    if overlaid and role == "main" and not line.dashed:
        style["linestyle"] = "-"
    if role == "second":
        style["linestyle"] = SECOND_DASH[line.dashed]
    elif role == "ref":
        style["linestyle"] = REFERENCE_DASHES[ref_index % len(REFERENCE_DASHES)]
        style["linewidth"] = LINE_WIDTH_PT * REFERENCE_WIDTH
    if chart.histogram:
        return style  # one outline per run: its dash tells it apart
    style.update(marker=MARKERS[i % len(MARKERS)], markersize=3.5 if not line.dashed else 4.5,
                 markeredgewidth=0.8)
    if line.dashed:
        style.update(fillstyle="none")  # hollow, so the measured marker under it shows
    if x.size > 2 * MARKERS_PER_LINE:
        style["markevery"] = marker_points(x, i)
    return style


def marker_points(x: np.ndarray, index: int) -> list[int]:
    """Where a long series shows its markers: the points nearest MARKERS_PER_LINE evenly
    spaced x values, staggered by series so two lines' markers do not sit on each other
    (evenly along x, not along the path: a jagged rate would crowd them)."""
    lo, hi = float(np.nanmin(x)), float(np.nanmax(x))
    gap = (hi - lo) / MARKERS_PER_LINE
    targets = lo + gap * (np.arange(MARKERS_PER_LINE) + 0.25 + 0.5 * ((index % 4) / 4))
    order = np.argsort(x, kind="stable")
    at = np.clip(np.searchsorted(x[order], targets), 0, x.size - 1)
    return sorted({int(order[k]) for k in at})


def headroom(ax, highs: list[np.ndarray], bottom: float) -> None:
    """y from `bottom` to a little above the largest value, so no line runs along the
    top edge (a flat WA of 17.49 reads as 17.49, not as the frame)."""
    values = [h[np.isfinite(h)] for h in highs]
    values = [v for v in values if v.size]
    top = max((float(v.max()) for v in values), default=1.0)
    span = top - bottom
    if span <= 1e-12 * max(1.0, abs(top)):  # nothing but one level (or nothing): 0 to 1
        ax.set_ylim(bottom, bottom + (abs(top) or 1.0))
    else:
        ax.set_ylim(bottom, top + HEADROOM * span)
        ticks = [t for t in ax.yaxis.get_major_locator().tick_values(
            bottom, top + HEADROOM * span) if t >= top + 0.05 * span]
        if ticks:  # end on the first tick above the data: the top reads as a number
            ax.set_ylim(bottom, min(ticks[0], top + 3 * HEADROOM * span))
    thousands(ax)


def thousands(ax) -> None:
    """Big numbers with thousands separators on both axes."""
    for axis in (ax.xaxis, ax.yaxis):
        lo, hi = axis.get_view_interval()
        if max(abs(lo), abs(hi)) >= 10_000:  # 270,000 rather than 270000
            axis.set_major_formatter(FuncFormatter(_thousands))


def _thousands(value: float, _pos) -> str:
    return f"{value:,.0f}" if value == round(value) else f"{value:,g}"


def whole_ticks(ax, x: bool, y: bool) -> None:
    """Whole-number ticks on an axis that counts things (blocks, erases, victims)."""
    if x:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if y:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
