"""Charts written to files for print: PNG (300 dpi, recorded in the file), SVG (real <text>,
one path per series), PDF (TrueType fonts embedded, no Type 3) and CSV with a JSON sidecar.

Rendered with matplotlib on the headless Agg canvas, from the same chart description and
table the window draws (ssdlab/model/lab/charts.py), in a print profile: white page, Okabe-Ito
series colours, DejaVu Sans from 7.5 to 10 pt (TYPE_PT: at least 7 pt even when a single
column figure is scaled down to 8.5 cm), analytic curves dashed, units in parentheses. Every
file is written to a temporary name and renamed (ssdlab/app/atomicfile.py), so a failed export
leaves an existing file as it was. Used by the window and by `ssdlab chart` alike.

With two drives side by side or a kept reference, the window overlays the runs; so does a
file, from an Overlay (ssdlab/model/lab/overlay.py): the same lines and labels, A solid, B dashed,
references dash-dotted, and a CSV in long format with a run column.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import textwrap
from dataclasses import dataclass

import matplotlib
import numpy as np

# A bare Figure (never pyplot) draws on the Agg canvas for PNG and on matplotlib's own
# vector back ends for SVG and PDF: headless, whatever the front end, and no global state.
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ssdlab.app import chartlegend
from ssdlab.app.atomicfile import OutputFileError, check_writable, write_together
from ssdlab.app.chartnotes import (
    SMALL_PT,
    bar_value,
    drawn_lines,
    fewer_runs,
    fit_titles,
    legend_heading,
    log_axis,
    overlay_of,
    panels_of,
    shown_labels,
    wrapped,
)
from ssdlab.app.chartprovenance import provenance as full_provenance
from ssdlab.app.chartprovenance import save
from ssdlab.app.chartstyle import colour, headroom, line_style, thousands, whole_ticks
from ssdlab.app.palette import PRINT_PAGE
from ssdlab.model.lab.charts import define
from ssdlab.model.lab.overlay import RUN_COLUMN, Overlay
from ssdlab.model.lab.plottable import Facets
from ssdlab.model.provenance import version  # noqa: F401 (ssdlab/app/blockmapexport.py reads it here)

FACET_COLUMN = "facet"  # a faceted plot's CSV: the column naming each row's panel

FORMATS = ("png", "svg", "pdf", "csv")
PNG_DPI = 300
WIDTHS_IN = {"single": 3.5, "double": 7.0}  # journal column widths, inches
HEIGHT_RATIO = {"single": 0.75, "double": 0.42}
FONT_PT = 9.0
TYPE_PT = (SMALL_PT, FONT_PT + 1)  # the smallest and largest type in a figure, in pt
DODGE = 0.12  # categories sit 1 apart: the offset between series drawn side by side in one

PRINT_STYLE = {
    # installed everywhere SSD Lab is (setup.sh); an SVG names sans-serif after it, so a
    # browser without DejaVu still draws a sans-serif face, never its default serif
    "font.family": ["DejaVu Sans", "sans-serif"],
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": FONT_PT,
    "axes.titlesize": FONT_PT + 1,
    "axes.labelsize": FONT_PT,
    "legend.fontsize": FONT_PT - 1,
    "xtick.labelsize": FONT_PT - 1,
    "ytick.labelsize": FONT_PT - 1,
    "svg.fonttype": "none",  # text stays <text>, editable in Inkscape
    "pdf.fonttype": 42,  # TrueType embedded, never Type 3
    "ps.fonttype": 42,
    "svg.hashsalt": "ssdlab",  # the same figure gives the same file
    "figure.facecolor": PRINT_PAGE["background"],
    "axes.facecolor": PRINT_PAGE["background"],
    "savefig.facecolor": PRINT_PAGE["background"],
    "text.color": PRINT_PAGE["text"],
    "axes.labelcolor": PRINT_PAGE["text"],
    "axes.edgecolor": PRINT_PAGE["text"],
    "xtick.color": PRINT_PAGE["text"],
    "ytick.color": PRINT_PAGE["text"],
    "grid.color": PRINT_PAGE["grid"],
    "axes.formatter.useoffset": False,
    "axes.formatter.limits": (-4, 6),  # 30,000 rather than 3e+04
    "axes.formatter.use_mathtext": False,
    "text.parse_math": False,  # names come from files: "$\\x$" is text, never mathtext
    "path.simplify": False,  # every point the table holds is drawn
}


@dataclass(frozen=True)
class Export:
    """What to write: the format (png, svg, pdf, csv) and, for figures, the column width
    (single: 3.5 in, double: 7 in). provenance: what reproduces the figure (the scenario or
    settings, the seed), written into every file (ssdlab/app/chartprovenance.py) and the CSV's
    JSON sidecar. title: False leaves the title to a caption. timestamp: the moment of
    writing goes into PDF and SVG (else they are the same bytes every time)."""

    format: str
    width: str = "single"
    provenance: dict | None = None
    title: bool = True
    timestamp: bool = False


def format_of(path: str) -> str:
    """The export format from the file name's extension; OutputFileError names the allowed
    ones when it has none or another."""
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        raise OutputFileError(f"{path}: the file name has no extension; use one of "
                              f".{', .'.join(FORMATS)}")
    if ext not in FORMATS:
        raise OutputFileError(f"{path}: the extension .{ext} is not an export format; use "
                              f"one of .{', .'.join(FORMATS)}")
    return ext


def check_export(path: str, fmt: str, width: str = "single") -> None:
    """Before any work: the format and width are known, the file name's extension names
    the format, and the path can be written. OutputFileError otherwise."""
    if fmt not in FORMATS:
        raise OutputFileError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if width not in WIDTHS_IN:
        raise OutputFileError(f"width must be one of {', '.join(WIDTHS_IN)}; got {width!r}")
    named = format_of(path)
    if named != fmt:
        raise OutputFileError(f"{path}: the extension .{named} does not match the format "
                              f"{fmt}; name the file .{fmt}")
    check_writable(path)
    if fmt == "csv":
        check_writable(sidecar_path(path))


def sidecar_path(csv_path: str) -> str:
    """data.csv -> data.json, beside it."""
    return os.path.splitext(csv_path)[0] + ".json"


SIDECAR_MAX_BYTES = 16 * 2**20  # a sidecar lists runs and columns, never the data


def is_own_sidecar(path: str) -> bool:
    """Whether the file at `path` is a JSON sidecar SSD Lab wrote (an object naming its
    chart and the SSD Lab version), so that writing it anew loses nothing of anyone's."""
    from ssdlab.model.inputfile import InputFileError, read_input

    try:
        data = json.loads(read_input(path, SIDECAR_MAX_BYTES))
    except (InputFileError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and isinstance(data.get("chart"), str) \
        and isinstance(data.get("ssdlab_version"), str)


EXPORT_MAX_BYTES = 256 * 2**20  # a 300 dpi PNG of a double-column chart is a few MB


def is_own_export(path: str) -> bool:
    """Whether the file at `path` is a chart SSD Lab wrote: a PNG, SVG or PDF carrying its
    provenance (ssdlab/app/chartprovenance.py), or a CSV whose sidecar SSD Lab wrote."""
    from ssdlab.model.inputfile import InputFileError, read_input

    if path.lower().endswith(".csv"):
        return is_own_sidecar(sidecar_path(path))
    try:
        return b'"ssdlab_version"' in read_input(path, EXPORT_MAX_BYTES)
    except InputFileError:
        return False


def foreign_sidecar(csv_path: str) -> str | None:
    """The JSON sidecar's path when a file there would be replaced that SSD Lab did not
    write as a sidecar (the person named the CSV, never that file); else None."""
    side = sidecar_path(csv_path)
    if not os.path.lexists(side) or is_own_sidecar(side):
        return None
    return side


LEGEND_INSIDE_MAX = 3  # more entries than this go under the plot, off the data
BAR_ROW_IN = 0.135  # the steps chart, runs overlaid: height per bar, inches (its 7.5 pt value)
STEP_ROW_IN = 0.19  # one run: height per step, its bars sharing one label


def figure(data, width: str = "single", title: bool = True):
    """A matplotlib Figure of a chart's table, of several runs overlaid as the window
    draws them (ssdlab/model/lab/overlay.py), or of a plot's facets side by side (a list of
    tables), in the print profile (not attached to pyplot). title: False leaves the title
    to the caption."""
    panels = panels_of(data)
    first = panels[0]
    w = WIDTHS_IN[width]
    h = w * HEIGHT_RATIO[width]
    if first.chart.levels:  # a bar's height for each run's series at each step, or one
        # label's height a step when the step's values share one label (one run)
        steps = len(first.step_labels())
        h = max(h, 1.1 + (BAR_ROW_IN * len(first.drawn()) * steps if first.overlaid
                          else STEP_ROW_IN * steps))
    # the entries in as many columns as their labels leave room for, each label broken to
    # fit its column (ssdlab/app/chartlegend.py), a model and its points one entry
    legend = chartlegend.plan(panels, width, w, chartlegend.COLUMNS[width])
    heading = "\n".join(([chartlegend.PAIR_NOTE] if legend.paired else [])
                        + ([legend_heading(panels, width)] if legend_heading(panels, width)
                           else []))
    below = (first.overlaid or len(legend.labels) > LEGEND_INSIDE_MAX or len(panels) > 1
             or heading.count("\n") > 0 or legend.rows > len(legend.labels) or legend.wide)
    if below:  # the legend under the plot gets height of its own
        h += (legend.rows + (heading.count("\n") + 1 if heading else 0)) * chartlegend.ROW_IN
    with matplotlib.rc_context(PRINT_STYLE):
        fig = Figure(figsize=(w, h), layout="constrained")
        axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
        handles, highs = [], []
        facets = data if isinstance(data, Facets) else None
        for i, (ax, overlay) in enumerate(zip(axes, panels, strict=True)):
            # facets: the plot's title over all panels, each panel titled by its value
            name = (facets.panel_title(i) if facets else
                    wrapped(overlay.chart.title, width) if title else "")
            got = _draw(ax, overlay, name, highs, first_panel=i == 0)
            handles = handles or got
        if first.chart.log_y:  # seconds from a tenth to a thousand, each readable
            for ax in axes:
                log_axis(ax, highs)
        elif not first.chart.levels:  # the y axis they share
            whole_ticks(axes[0], False, first.chart.axes(first.timed)[1].whole)
            headroom(axes[0], highs, min(0.0, *(_finite_min(p) for p in panels)))
        notes = [r.table.note for p in panels for r in p.runs if r.table.note]
        if notes:  # an empty chart says why on the page, never blank without a word
            axes[0].set_yticks([])  # no scale for nothing
            axes[0].text(0.5, 0.55, textwrap.fill(notes[0], 34 if width == "single" else 70),
                         transform=axes[0].transAxes, ha="center", va="center",
                         fontsize=FONT_PT - 1,
                         bbox={"facecolor": PRINT_PAGE["background"], "edgecolor": "none"})
        if facets and title:
            fig.suptitle(wrapped(first.chart.title, width), fontsize=FONT_PT + 1)
        spread = heading
        if first.chart.levels and handles:
            names = " / ".join(t for _, _, t in first.drawn())
            fig.legend(handles=[h for _, h in handles], loc="outside lower center",
                       frameon=False, ncols=len(handles) if not first.overlaid else
                       len(first.chart.lines), title_fontsize=FONT_PT - 1,
                       title=None if first.overlaid else f"values: {names}")
        elif handles and (below or len(handles) > 1 or spread):  # spread: say what bars are
            ordered, labels = chartlegend.entries(
                [h for _, h in sorted(handles, key=lambda p: p[0])], legend)
            if below:
                fig.legend(handles=ordered, labels=labels, loc="outside lower center",
                           frameon=False, ncols=legend.columns, title=spread or None,
                           title_fontsize=FONT_PT - 1)
            else:
                axes[0].legend(handles=ordered, labels=labels, frameon=False,
                               title=spread or None, title_fontsize=FONT_PT - 1)
        fig.canvas.draw()  # fonts and layout resolved inside the style's context
        fit_titles(fig, axes)
    return fig


def _draw(ax, overlay: Overlay, title: str, highs: list, first_panel: bool = True) -> list:
    """Draw one panel titled `title` (empty: none); returns (order, artist) of its legend
    entries, and adds to `highs` the values its y axis must show."""
    chart = overlay.chart
    x_axis, y_axis = chart.axes(overlay.timed)
    if title:
        ax.set_title(title)
    if chart.levels:
        return _bars(ax, overlay)
    ax.set_xlabel(x_axis.title)
    if first_panel:
        ax.set_ylabel(y_axis.title)
    ax.grid(True, linewidth=0.5)
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(False)
    refs = [r.key for r in overlay.runs if r.role == "ref"]
    place = {id(r): i for i, r in enumerate(overlay.runs)}
    shown = []
    lines = drawn_lines(overlay)
    paired = _paired(overlay, lines)
    labels = shown_labels(overlay)
    # at named categories, the measured series sit side by side within each category (where
    # in its slot a point sits means nothing), so equal values do not hide one another
    points = [n for n, entry in enumerate(lines) if not entry[1].dashed] if labels else []
    for n, (run, line, label, x, y, bars) in enumerate(lines):
        if n in points:
            x = x + DODGE * (points.index(n) - (len(points) - 1) / 2)
        style = line_style(chart, line, run.role,
                           refs.index(run.key) if run.key in refs else 0, x,
                           overlay.overlaid)
        # measured points on their model's dashed curve are points; so are measurements at
        # named categories (partition starts, policies, steps): a line between two of them
        # would claim values in between
        if line.key in paired or (labels and not line.dashed):
            style["linestyle"] = "none"
        if n in points:
            style["markersize"] = 5.0  # alone, without a line to follow, a point is larger
        (artist,) = ax.plot(x, y, label=label, **style)
        # one <path> per series in the SVG, named by its run when runs are overlaid
        gid = f"series-{run.key}-{line.key}" if run.key else f"series-{line.key}"
        artist.set_gid("".join(c if c.isalnum() or c in "-_." else "_" for c in gid))
        highs.append(y)
        if bars is not None:
            # mean minus min may round to -1e-16: never a negative bar
            # over the points (a bar shorter than a marker would hide under it), under
            # the analytic curves
            ax.errorbar(x, y, yerr=np.maximum(0.0, (y - bars[0], bars[1] - y)), fmt="none",
                        ecolor=style["color"], elinewidth=0.8, capsize=2.5, capthick=0.8,
                        zorder=2.5)
            highs.append(bars[1])
            fewer_runs(ax, x, y, bars[2])
        # legend: measured entries first, then the models (in two columns, side by side)
        shown.append(((place[id(run)], line.dashed and bool(paired), n), artist))
    if labels:
        ax.set_xticks(np.arange(1, len(labels) + 1, dtype=float), labels, rotation=30,
                      ha="right")
    whole_ticks(ax, x_axis.whole and not labels, False)  # y: once all panels are drawn
    return shown


def _paired(overlay: Overlay, lines: list[tuple]) -> set[str]:
    """The measured lines drawn as points: in a chart where measured lines have their
    analytic model beside them (key + "_theory", the WA-against-spare chart), every measured
    line, so the models' dashed curves stay visible where the two agree, and a measured
    line with no model (cost-benefit) never reads as a model's curve."""
    if overlay.overlaid:
        return set()
    drawn = {ln.key for _, ln, *_ in lines}
    measured = {ln.key for _, ln, *_ in lines if not ln.dashed}
    return measured if any(f"{k}_theory" in drawn for k in measured) else set()


def _bars(ax, overlay: Overlay) -> list:
    """The steps chart: horizontal bars per step, one per run and series (host, NAND),
    the step's name beside its group, the value at each bar's end, first step on top.
    Series differ by hatch as well as colour; runs overlaid by colour and edge (B dashed,
    references faded), as their lines do elsewhere."""
    chart = overlay.chart
    _, y_axis = chart.axes(overlay.timed)
    labels = shown_labels(overlay)
    n = len(labels)
    ax.set_xlabel(y_axis.title)
    ax.grid(True, axis="x", linewidth=0.5)
    ax.set_axisbelow(True)
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(False)
    order = sorted(((r, ln, text) for r, ln, text in overlay.drawn()),
                   key=lambda d: (overlay.runs.index(d[0]), chart.lines.index(d[1])))
    height = 0.84 / max(1, len(order))
    shown, top, values = [], 0.0, []
    hatches = ("", "////", "xx", "..")
    edges = {"main": "solid", "second": "dashed", "ref": "dotted"}
    for k, (run, line, text) in enumerate(order):
        i = chart.lines.index(line)
        y = np.full(n, np.nan)  # a step this run did not take: no bar, no number
        got = run.table.ys[line.key]
        y[:got.size] = got
        pos = np.arange(n) + (k - (len(order) - 1) / 2) * height
        bars = ax.barh(pos, np.nan_to_num(y, nan=0.0), height=height * 0.92, label=text,
                       color=colour(line.token, i, run.role), edgecolor=PRINT_PAGE["text"],
                       linewidth=0.5, linestyle=edges[run.role],
                       hatch=hatches[i % len(hatches)])
        prefix = f"series-{run.key}-{line.key}" if run.key else f"series-{line.key}"
        for j, bar in enumerate(bars):
            bar.set_gid(f"{prefix}-{j + 1}")
        if overlay.overlaid:  # each bar its value: runs differ in more than one way
            ax.bar_label(bars, labels=[bar_value(v) for v in y], padding=2,
                         fontsize=SMALL_PT)
        values.append(y)
        top = max(top, float(np.nanmax(y, initial=0.0)))
        shown.append((k, bars))
    if not overlay.overlaid:  # one label a step, "host / NAND" as the legend says
        for j in range(n):
            got = [v[j] for v in values]
            if any(np.isfinite(got)):
                ax.annotate(" / ".join(bar_value(v) for v in got),
                            (float(np.nanmax(got)), j), xytext=(3, 0),
                            textcoords="offset points", ha="left", va="center",
                            fontsize=SMALL_PT)
    ax.set_yticks(np.arange(n, dtype=float), labels or [str(i + 1) for i in range(n)])
    ax.invert_yaxis()
    # few ticks: "12,500" at 8 pt is wide, and a single column holds 5 of them at most
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
    room = top * (1.22 if overlay.overlaid else 1.4) or 1.0  # room for the values' labels
    ax.set_xlim(0, min([t for t in ax.xaxis.get_major_locator().tick_values(0, room)
                        if t >= room], default=room))
    thousands(ax)
    return shown


def _finite_min(overlay: Overlay) -> float:
    values = [y[np.isfinite(y)] for r in overlay.runs for y in r.table.ys.values()]
    values = [v for v in values if v.size]
    return float(min(v.min() for v in values)) if values else 0.0


def render(data, fmt: str, width: str = "single", provenance: dict | None = None,
           title: bool = True, timestamp: bool = False) -> bytes:
    """The figure's file content in png, svg or pdf, its provenance inside
    (ssdlab/app/chartprovenance.py); repeatable byte for byte unless timestamp."""
    fig = figure(data, width, title)
    chart = panels_of(data)[0].chart.name
    return save(fig, fmt, PNG_DPI, PRINT_STYLE, full_provenance(chart, provenance), timestamp)


def _columns(data) -> dict[str, np.ndarray]:
    """The CSV's columns; a faceted plot: long format, a first column naming the panel."""
    if not isinstance(data, Facets):
        return overlay_of(data).columns()
    parts = [t.columns() for t in data.tables]
    out = {FACET_COLUMN: np.concatenate([np.full(t.x.size, f"{data.name} = {v}", dtype=object)
                                         for v, t in zip(data.values, data.tables,
                                                         strict=True)])}
    for name in dict.fromkeys(n for p in parts for n in p):
        out[name] = np.concatenate([np.asarray(p[name], dtype=object) if name in p else
                                    np.full(t.x.size, np.nan)
                                    for p, t in zip(parts, data.tables, strict=True)])
    return out


def csv_text(data) -> str:
    """One column per series, units in the names; runs overlaid (or a plot's facets): long
    format, a first column naming each row's run (or panel)."""
    columns = _columns(data)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in zip(*columns.values(), strict=True):
        writer.writerow(["" if isinstance(v, float) and not math.isfinite(v) else
                         (repr(float(v)) if isinstance(v, (float, np.floating)) else v)
                         for v in row])
    return out.getvalue()


def sidecar(data, provenance: dict | None) -> dict:
    """What reproduces the data: the chart, the scenario or settings and seed, the version
    and source revision; runs overlaid: each run's label, role, rows and what reproduces
    it; a mean over seeds: what its error bars and n, sd, min, max columns are."""
    panels = panels_of(data)
    overlay = panels[0]
    table = overlay.runs[0].table
    x_axis, y_axis = overlay.chart.axes(overlay.timed)
    out = {"chart": overlay.chart.name, "title": overlay.chart.title,
           **full_provenance(overlay.chart.name, None), "timed": overlay.timed,
           "x": {"column": x_axis.column, "label": x_axis.title},
           "y": {"label": y_axis.title, **define(y_axis.column)},
           # one run: the table's columns, as before (the CSV adds the steps' names)
           "columns": list(_columns(data) if overlay.overlaid or len(panels) > 1
                           else table.columns())}
    if table.stats:
        out["statistics"] = {"mean": "the series' column: the mean over the runs that "
                             "differ only in seed", "n": "runs", "sd": "standard deviation "
                             "(n - 1)", "min": "smallest", "max": "largest",
                             "error_bars": table.spread or "none: one run per point"}
    if isinstance(data, Facets):
        out["facet"] = {"column": FACET_COLUMN, "field": data.name, "values": data.values}
    notes = [r.table.note for p in panels for r in p.runs if r.table.note]
    if notes:
        out["note"] = notes[0]
    if overlay.overlaid:
        out["run_column"] = RUN_COLUMN
        out["runs"] = [{"label": r.label, "role": r.role, "rows": int(r.table.x.size),
                        **(r.provenance or {})} for r in overlay.runs]
    return {**out, **(provenance or {})}


def contents(path: str, data, spec: Export) -> list[tuple[str, str | bytes]]:
    """The export of a chart's table, of runs overlaid, or of a plot's facets as (path,
    content) pairs, nothing written: `path` and, for CSV, its sidecar."""
    check_export(path, spec.format, spec.width)
    if spec.format == "csv":
        side = json.dumps(sidecar(data, spec.provenance), indent=2) + "\n"
        return [(path, csv_text(data)), (sidecar_path(path), side)]
    return [(path, render(data, spec.format, spec.width, spec.provenance, spec.title,
                          spec.timestamp))]


def write(path: str, data, spec: Export) -> list[str]:
    """Write the export of a chart's table, of runs overlaid, or of a plot's facets to
    `path` (and the sidecar for CSV); returns the paths written. Both files are whole on
    disk before either replaces anything, so an OutputFileError (one line naming the path)
    leaves every existing file as it was."""
    files = contents(path, data, spec)
    write_together(files)
    return [p for p, _ in files]
