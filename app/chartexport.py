"""Charts written to files for print: PNG (300 dpi, recorded in the file), SVG (real <text>,
one path per series), PDF (TrueType fonts embedded, no Type 3) and CSV with a JSON sidecar.

Rendered with matplotlib on the headless Agg canvas, from the same chart description and
table the window draws (model/lab/charts.py), in a print profile: white page, Okabe-Ito
series colours, DejaVu Sans at 9 pt, analytic curves dashed, units in parentheses. Every
file is written to a temporary name and renamed (app/atomicfile.py), so a failed export
leaves an existing file as it was. Used by the window and by `ssdlab chart` alike.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass
from importlib import metadata

import matplotlib
import numpy as np

# A bare Figure (never pyplot) draws on the Agg canvas for PNG and on matplotlib's own
# vector back ends for SVG and PDF: headless, whatever the front end, and no global state.
from matplotlib.figure import Figure

from app.atomicfile import OutputFileError, atomic_open, check_writable
from app.palette import PRINT_PAGE, series_colour
from model.lab.charts import Table, histogram_outline

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


def figure(table: Table, width: str = "single"):
    """A matplotlib Figure of `table` in the print profile (not attached to pyplot)."""
    chart = table.chart
    w = WIDTHS_IN[width]
    with matplotlib.rc_context(PRINT_STYLE):
        fig = Figure(figsize=(w, w * HEIGHT_RATIO[width]), layout="constrained")
        ax = fig.add_subplot()
        x_axis, y_axis = chart.axes(table.timed)
        ax.set_title(chart.title)
        ax.set_xlabel(x_axis.title)
        ax.set_ylabel(y_axis.title)
        ax.grid(True, linewidth=0.5)
        for spine in ("top", "right"):
            ax.spines[spine].set_visible(False)
        for line in chart.lines:
            x, y = table.x, table.ys[line.key]
            if chart.histogram:
                x, y = histogram_outline(y)
            ok = np.isfinite(x) & np.isfinite(y)
            if not ok.any():
                continue  # nothing to show (no analytic model here): no line, no legend entry
            (artist,) = ax.plot(x[ok], y[ok], color=series_colour(line.token),
                                linewidth=LINE_WIDTH_PT, label=line.label,
                                linestyle=(0, (4, 2)) if line.dashed else "-",
                                marker="o" if line.marker else None, markersize=3,
                                drawstyle="steps-mid" if chart.levels else "default")
            artist.set_gid(f"series-{line.key}")  # one <path> per series in the SVG
        if table.labels:
            ax.set_xticks(table.x, table.labels, rotation=30, ha="right")
        ax.set_ylim(bottom=min(0.0, _finite_min(table)))  # amounts read from zero
        if len(chart.lines) > 1 and ax.get_lines():
            ax.legend(frameon=False)
        fig.canvas.draw()  # fonts and layout resolved inside the style's context
    return fig


def _finite_min(table: Table) -> float:
    values = [y[np.isfinite(y)] for y in table.ys.values()]
    values = [v for v in values if v.size]
    return float(min(v.min() for v in values)) if values else 0.0


def render(table: Table, fmt: str, width: str = "single") -> bytes:
    """The figure's file content in png, svg or pdf."""
    fig = figure(table, width)
    buf = io.BytesIO()
    meta = {"Creator": f"SSD Lab {version()}"}
    with matplotlib.rc_context(PRINT_STYLE):
        fig.savefig(buf, format=fmt, dpi=PNG_DPI,
                    metadata=meta if fmt != "png" else {"Software": meta["Creator"]})
    return buf.getvalue()


def csv_text(table: Table) -> str:
    columns = table.columns()
    if table.labels:
        columns = {**columns, "step": np.array(table.labels, dtype=object)}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in zip(*columns.values(), strict=True):
        writer.writerow(["" if isinstance(v, float) and not math.isfinite(v) else
                         (repr(float(v)) if isinstance(v, (float, np.floating)) else v)
                         for v in row])
    return out.getvalue()


def sidecar(table: Table, provenance: dict | None) -> dict:
    """What reproduces the data: the chart, the scenario or settings and seed, the version."""
    x_axis, y_axis = table.chart.axes(table.timed)
    return {"chart": table.chart.name, "title": table.chart.title,
            "ssdlab_version": version(), "timed": table.timed,
            "x": {"column": x_axis.column, "label": x_axis.title},
            "y": {"label": y_axis.title},
            "columns": list(table.columns()), **(provenance or {})}


def write(path: str, table: Table, spec: Export) -> list[str]:
    """Write the export to `path` (and the sidecar for CSV); returns the paths written.
    OutputFileError (one line naming the path) leaves every existing file as it was."""
    check_export(path, spec.format, spec.width)
    if spec.format == "csv":
        text = csv_text(table)
        side = json.dumps(sidecar(table, spec.provenance), indent=2) + "\n"
        # both are made in full before either is written; the CSV goes first
        with atomic_open(path, newline="") as f:
            f.write(text)
        with atomic_open(sidecar_path(path)) as f:
            f.write(side)
        return [path, sidecar_path(path)]
    data = render(table, spec.format, spec.width)
    with atomic_open(path, "wb") as f:
        f.write(data)
    return [path]
