"""Charts written to files for print: PNG (300 dpi, recorded in the file), SVG (real <text>,
one path per series), PDF (TrueType fonts embedded, no Type 3) and CSV with a JSON sidecar.

Rendered with matplotlib on the headless Agg canvas, from the same chart description and
table the window draws (model/lab/charts.py), in a print profile: white page, Okabe-Ito
series colours, DejaVu Sans at 9 pt, analytic curves dashed, units in parentheses. Every
file is written to a temporary name and renamed (app/atomicfile.py), so a failed export
leaves an existing file as it was. Used by the window and by `ssdlab chart` alike.

With two drives side by side or a kept reference, the window overlays the runs; so does a
file, from an Overlay (model/lab/overlay.py): the same lines and labels, A solid, B dashed,
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
from importlib import metadata

import matplotlib
import numpy as np

# A bare Figure (never pyplot) draws on the Agg canvas for PNG and on matplotlib's own
# vector back ends for SVG and PDF: headless, whatever the front end, and no global state.
from matplotlib.figure import Figure

from app.atomicfile import OutputFileError, atomic_open, check_writable
from app.palette import PRINT_PAGE, dash, run_colour
from model.lab.charts import Line, Table, histogram_outline
from model.lab.overlay import RUN_COLUMN, ChartRun, Overlay

FORMATS = ("png", "svg", "pdf", "csv")
PNG_DPI = 300
WIDTHS_IN = {"single": 3.5, "double": 7.0}  # journal column widths, inches
HEIGHT_RATIO = {"single": 0.75, "double": 0.42}
FONT_PT = 9.0
LINE_WIDTH_PT = 1.2

PRINT_STYLE = {
    "font.family": "DejaVu Sans",  # installed everywhere SSD Lab is (setup.sh)
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
    "path.simplify": False,  # every point the table holds is drawn
}


@dataclass(frozen=True)
class Export:
    """What to write: the format (png, svg, pdf, csv) and, for figures, the column width
    (single: 3.5 in, double: 7 in). provenance: what reproduces the figure (the scenario or
    settings, the seed), copied into the CSV's JSON sidecar."""

    format: str
    width: str = "single"
    provenance: dict | None = None


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


def version() -> str:
    try:
        return metadata.version("ssdlab")
    except metadata.PackageNotFoundError:
        return "unknown"


# How each run's lines are told apart on paper, where colour alone may not survive a grey-scale
# print: A solid, B dashed, analytic levels dotted (the window's patterns, app/palette.py);
# references dash-dotted, each its own pattern, thinner and faded.
DASH = (0, dash("main", True))
SECOND_DASH = {False: (0, dash("second", False)), True: (0, dash("second", True))}
REFERENCE_DASHES = ((0, (6, 1.5, 1.5, 1.5)), (0, (3, 1, 1, 1, 1, 1)), (0, (8, 2, 2, 2, 2, 2)))
REFERENCE_WIDTH = 0.75  # of LINE_WIDTH_PT
LEGEND_COLUMNS = {"single": 1, "double": 2}  # runs' legend under the plot
LEGEND_ROW_IN = 0.17  # a legend row's height at the legend's 8 pt, inches


def _overlay(data: Table | Overlay) -> Overlay:
    return data if isinstance(data, Overlay) else Overlay.of(data)


def _style(run: ChartRun, line: Line, refs: list[str]) -> dict:
    """matplotlib line properties of a run's line in print."""
    colour = run_colour("normal", line.token, run.role)  # the desk profile's page is white
    style = DASH if line.dashed else "-"
    width = LINE_WIDTH_PT
    if run.role == "second":
        style = SECOND_DASH[line.dashed]
    elif run.role == "ref":
        style = REFERENCE_DASHES[refs.index(run.key) % len(REFERENCE_DASHES)]
        width *= REFERENCE_WIDTH
    return {"color": colour, "linewidth": width, "linestyle": style}


def figure(data: Table | Overlay, width: str = "single"):
    """A matplotlib Figure of a chart's table, or of several runs overlaid as the window
    draws them (model/lab/overlay.py), in the print profile (not attached to pyplot)."""
    overlay = _overlay(data)
    chart = overlay.chart
    refs = [r.key for r in overlay.runs if r.role == "ref"]
    w = WIDTHS_IN[width]
    h = w * HEIGHT_RATIO[width]
    columns = LEGEND_COLUMNS[width]
    lines = []  # (run, line, legend text, x, y) of each line with points to draw
    for run, line, label in overlay.drawn():
        x, y = run.table.x, run.table.ys[line.key]
        if chart.histogram:
            x, y = histogram_outline(y)
        ok = np.isfinite(x) & np.isfinite(y)
        if ok.any():  # else nothing to show (no analytic model here): no line, no legend entry
            lines.append((run, line, label, x[ok], y[ok]))
    if overlay.overlaid:  # the legend under the plot gets height of its own
        h += -(-len(lines) // columns) * LEGEND_ROW_IN
    with matplotlib.rc_context(PRINT_STYLE):
        fig = Figure(figsize=(w, h), layout="constrained")
        ax = fig.add_subplot()
        x_axis, y_axis = chart.axes(overlay.timed)
        ax.set_title(chart.title)
        ax.set_xlabel(x_axis.title)
        ax.set_ylabel(y_axis.title)
        ax.grid(True, linewidth=0.5)
        for spine in ("top", "right"):
            ax.spines[spine].set_visible(False)
        place = {id(r): i for i, r in enumerate(overlay.runs)}
        shown = []  # (the run's place in overlay.runs, its line) of each line drawn
        for run, line, label, x, y in lines:
            (artist,) = ax.plot(x, y, label=label, **_style(run, line, refs),
                                marker="o" if line.marker else None, markersize=3,
                                drawstyle="steps-mid" if chart.levels else "default")
            # one <path> per series in the SVG, named by its run when runs are overlaid
            artist.set_gid(f"series-{run.key}-{line.key}" if run.key else f"series-{line.key}")
            shown.append((place[id(run)], artist))
        labels = overlay.step_labels()
        if labels:
            ax.set_xticks(np.arange(1, len(labels) + 1, dtype=float), labels, rotation=30,
                          ha="right")
        if chart.log_y:  # seconds from a tenth to a thousand, each readable
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=min(0.0, _finite_min(overlay)))  # amounts read from zero
        notes = [r.table.note for r in overlay.runs if r.table.note]
        if notes:  # an empty chart says why on the page, never blank without a word
            ax.set_yticks([])  # no scale for nothing
            ax.text(0.5, 0.55, textwrap.fill(notes[0], 34 if width == "single" else 70),
                    transform=ax.transAxes, ha="center", va="center", fontsize=FONT_PT - 1,
                    bbox={"facecolor": PRINT_PAGE["background"], "edgecolor": "none"})
        if overlay.overlaid and ax.get_lines():
            # long run labels: under the plot, never over the data; runs in order (A, B,
            # references), as the window's legend lists them, whatever order they drew in
            handles = [a for _, a in sorted(shown, key=lambda p: p[0])]
            fig.legend(handles=handles, loc="outside lower center", frameon=False,
                       ncols=columns)
        elif len(chart.lines) > 1 and ax.get_lines():
            ax.legend(frameon=False)
        fig.canvas.draw()  # fonts and layout resolved inside the style's context
    return fig


def _finite_min(overlay: Overlay) -> float:
    values = [y[np.isfinite(y)] for r in overlay.runs for y in r.table.ys.values()]
    values = [v for v in values if v.size]
    return float(min(v.min() for v in values)) if values else 0.0


def render(data: Table | Overlay, fmt: str, width: str = "single") -> bytes:
    """The figure's file content in png, svg or pdf."""
    fig = figure(data, width)
    buf = io.BytesIO()
    meta = {"Creator": f"SSD Lab {version()}"}
    with matplotlib.rc_context(PRINT_STYLE):
        fig.savefig(buf, format=fmt, dpi=PNG_DPI,
                    metadata=meta if fmt != "png" else {"Software": meta["Creator"]})
    return buf.getvalue()


def csv_text(data: Table | Overlay) -> str:
    """One column per series, units in the names; runs overlaid: long format, a first
    column naming each row's run."""
    columns = _overlay(data).columns()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in zip(*columns.values(), strict=True):
        writer.writerow(["" if isinstance(v, float) and not math.isfinite(v) else
                         (repr(float(v)) if isinstance(v, (float, np.floating)) else v)
                         for v in row])
    return out.getvalue()


def sidecar(data: Table | Overlay, provenance: dict | None) -> dict:
    """What reproduces the data: the chart, the scenario or settings and seed, the version;
    runs overlaid: each run's label, role, rows and what reproduces it."""
    overlay = _overlay(data)
    x_axis, y_axis = overlay.chart.axes(overlay.timed)
    out = {"chart": overlay.chart.name, "title": overlay.chart.title,
           "ssdlab_version": version(), "timed": overlay.timed,
           "x": {"column": x_axis.column, "label": x_axis.title},
           "y": {"label": y_axis.title},
           # one run: the table's columns, as before (the CSV adds the steps' names)
           "columns": list(overlay.columns() if overlay.overlaid
                           else overlay.runs[0].table.columns())}
    notes = [r.table.note for r in overlay.runs if r.table.note]
    if notes:
        out["note"] = notes[0]
    if overlay.overlaid:
        out["run_column"] = RUN_COLUMN
        out["runs"] = [{"label": r.label, "role": r.role, "rows": int(r.table.x.size),
                        **(r.provenance or {})} for r in overlay.runs]
    return {**out, **(provenance or {})}


def write(path: str, data: Table | Overlay, spec: Export) -> list[str]:
    """Write the export of a chart's table, or of runs overlaid, to `path` (and the sidecar
    for CSV); returns the paths written. OutputFileError (one line naming the path) leaves
    every existing file as it was."""
    check_export(path, spec.format, spec.width)
    if spec.format == "csv":
        text = csv_text(data)
        side = json.dumps(sidecar(data, spec.provenance), indent=2) + "\n"
        # both are made in full before either is written; the CSV goes first
        with atomic_open(path, newline="") as f:
            f.write(text)
        with atomic_open(sidecar_path(path)) as f:
            f.write(side)
        return [path, sidecar_path(path)]
    data = render(data, spec.format, spec.width)
    with atomic_open(path, "wb") as f:
        f.write(data)
    return [path]
