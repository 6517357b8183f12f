"""What a print figure says beside its series (ssdlab/app/chartexport.py draws them): the
legend's heading (what the error bars are and n, the series that coincide, the runs that
failed), n beside a point that has fewer runs than the others, a logarithmic axis written in
plain numbers with each value beside its point, and titles broken to fit the column.

The type sizes of the print profile are here too: nothing smaller than SMALL_PT, so a single
column figure scaled to 8.5 cm (0.956) still prints every word at 7 pt or more.
"""

from __future__ import annotations

import os
import textwrap

import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

from ssdlab.model.lab.charts import Table, histogram_outline, step_names
from ssdlab.model.lab.overlay import Overlay
from ssdlab.model.lab.plottable import Facets

SMALL_PT = 7.5  # the smallest type (bar values, n): 7.2 pt at 8.5 cm, a single column's 0.956
TITLE_CHARS = {"single": 44, "double": 90}  # a title wraps before this many characters


def overlay_of(data: Table | Overlay) -> Overlay:
    return data if isinstance(data, Overlay) else Overlay.of(data)


def panels_of(data) -> list[Overlay]:
    """The panels a figure draws: one chart or overlay, or one per facet of a plot."""
    if isinstance(data, Facets):
        return [overlay_of(d) for d in data.tables]
    return [overlay_of(data)]


def drawn_lines(overlay: Overlay) -> list[tuple]:
    """(run, line, legend text, x, y, (low, high, n) or None) of each line with points."""
    chart = overlay.chart
    out = []
    for run, line, label in overlay.drawn():
        x, y = run.table.x, run.table.ys[line.key]
        stats = run.table.stats.get(line.key)
        bars = (stats["min"], stats["max"], stats["n"]) \
            if stats and np.nanmax(stats["n"], initial=0) > 1 else None
        if chart.histogram:
            x, y = histogram_outline(y)
        ok = np.isfinite(x) & np.isfinite(y)
        if ok.any():  # else nothing to show (no analytic model here): no line, no legend entry
            out.append((run, line, label, x[ok], y[ok],
                        tuple(b[ok] for b in bars) if bars else None))
    return out


def fit_titles(fig, axes) -> None:
    """Break a title again, shorter, while it runs past the page's edge (centred over
    the axes, a title has less room than the figure's width)."""
    fig.draw_without_rendering()  # the constrained layout placed, as saving places it
    page = fig.bbox
    texts = [ax.title for ax in axes] + ([fig._suptitle] if fig._suptitle else [])
    for text in texts:
        words = text.get_text().replace("\n", " ")
        chars = len(words)
        while chars > 12 and not _inside(text.get_window_extent(), page):
            chars -= 4
            text.set_text(textwrap.fill(words, chars, break_on_hyphens=False))
            fig.draw_without_rendering()


def _inside(box, page) -> bool:
    return box.x0 >= page.x0 - 0.5 and box.x1 <= page.x1 + 0.5


def wrapped(title: str, width: str) -> str:
    """A title broken into lines that fit the column (a long one was cut at the edge)."""
    return textwrap.fill(title, TITLE_CHARS[width], break_on_hyphens=False)


def legend_heading(panels: list[Overlay], width: str) -> str:
    """What the legend says above its entries, one statement a line: what the error bars
    are and how many runs each point is (n), the series that coincide (so a hidden one is
    named), and what the tables say was left out (failed sweep runs)."""
    chars = LEGEND_TEXT_CHARS[width]
    out = []
    spread = panels[0].runs[0].table.spread
    if spread:
        ns = sorted({int(n) for p in panels for run, line, *_ in drawn_lines(p)
                     for n in np.asarray(run.table.stats.get(line.key, {}).get("n", []))
                     if np.isfinite(n) and n > 0})
        runs = (f"{ns[0]}" if len(ns) == 1 else f"{ns[0]} to {ns[-1]}") if ns else "?"
        out.append(f"{spread}; n = {runs} runs per point")
    for p in panels:
        out += coincide_notes(p)
    out += list(dict.fromkeys(c for p in panels for r in p.runs for c in r.table.caveats))
    # "90 %" is never broken across lines (a no-break space before each %)
    return "\n".join(textwrap.fill(t.replace(" %", "\u00a0%"), chars,
                                    break_on_hyphens=False) for t in out)


LEGEND_TEXT_CHARS = {"single": 50, "double": 106}  # 8 pt characters across the column
COINCIDE = 0.025  # of the y axis's span: markers closer than this sit on one another
MAX_COINCIDE_NOTES = 3


def coincide_notes(overlay: Overlay) -> list[str]:
    """Where measured points of different series sit on one another (within COINCIDE of
    the y span at the same x), one sentence per group of series: "greedy, FIFO and
    cost-benefit coincide at spare 28 %" (a point hidden under another is named). Not at
    named categories, where the series are drawn side by side."""
    lines = [e for e in drawn_lines(overlay) if e[1].marker and not e[1].dashed]
    # at named categories the series already sit side by side (_draw), never on one another
    if len(lines) < 2 or overlay.chart.levels or overlay.step_labels():
        return []
    ys = np.concatenate([y for *_, y, _ in lines])
    span = float(np.ptp(ys)) if ys.size else 0.0
    if span <= 0:
        return []
    groups: dict[tuple[str, ...], list[str]] = {}
    for x in sorted({float(v) for *_, xs, _, _ in lines for v in xs}):
        at = sorted((float(y[xs == x][0]), i) for i, (*_, xs, y, _) in enumerate(lines)
                    if (xs == x).any())
        cluster = [at[0]] if at else []
        for prev, cur in zip(at, at[1:], strict=False):
            if cur[0] - prev[0] <= COINCIDE * span:
                cluster.append(cur)
                continue
            _group(groups, cluster, lines, x, overlay)
            cluster = [cur]
        _group(groups, cluster, lines, x, overlay)
    notes = []
    for names, where in list(groups.items())[:MAX_COINCIDE_NOTES]:
        who = f"all {len(names)} series" if len(names) == len(lines) > 3 else _listed(names)
        x_axis, _ = overlay.chart.axes(overlay.timed)
        notes.append(f"{who} coincide at {x_axis.label} {_and(where)}")
    return notes


def _and(items) -> str:
    """a, b and c."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def _listed(names: tuple[str, ...]) -> str:
    """Series names listed once their shared words are said once: "greedy, 16, 32 and 64
    pages per block" for "greedy, 16 pages per block", "greedy, 32 pages per block", ..."""
    head = os.path.commonprefix(names)
    head = head[:head.rfind(", ") + 2] if ", " in head else ""
    tail = os.path.commonprefix([n[::-1] for n in names])[::-1]
    tail = tail[tail.find(" "):] if " " in tail else ""
    cores = [n[len(head):len(n) - len(tail)] for n in names]
    if not all(cores) or any(c.endswith(",") for c in cores):  # "greedy, and cost-benefit,"
        return _and(names)
    return head + _and(cores) + tail


def _group(groups: dict, cluster: list, lines: list, x: float, overlay: Overlay) -> None:
    """Record a cluster of two or more coinciding points at x under its series' names."""
    if len(cluster) < 2:
        return
    names = tuple(sorted({lines[i][2].removesuffix(" (simulated)") for _, i in cluster},
                         key=[e[2].removesuffix(" (simulated)") for e in lines].index))
    if len(names) < 2:
        return
    x_axis, _ = overlay.chart.axes(overlay.timed)
    unit = f" {x_axis.unit}" if x_axis.unit.startswith("%") else ""  # "% of physical": %
    groups.setdefault(names, []).append(f"{x:.3g}{unit.split(' of ')[0]}")


def log_axis(ax, highs: list) -> None:
    """A logarithmic y axis from the decade below the smallest value (a tick under 0.17 s),
    its ticks written as plain numbers (0.1, 1, 10, 1,000: no exponents in small
    superscript type), each point's value printed above it, so a point between ticks
    reads as a number; two series' equal values at one category share one label."""
    ax.set_yscale("log")
    values = np.concatenate([h[np.isfinite(h) & (h > 0)] for h in highs] or [np.empty(0)])
    if values.size:
        lo = 10.0 ** np.floor(np.log10(values.min()))
        hi = values.max() * 3  # room for the top point's label
        ax.set_ylim(lo, hi)
        ax.set_yticks(10.0 ** np.arange(np.log10(lo), np.log10(hi) + 1e-9))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: _plain(v)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    labels: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for line in ax.get_lines():  # as drawn: side by side at a category
        if line.get_label().startswith("_"):
            continue
        for xv, yv in zip(line.get_xdata(), line.get_ydata(), strict=True):
            if np.isfinite(xv) and np.isfinite(yv) and yv > 0:
                labels.setdefault((round(xv), _plain(yv)), []).append((xv, yv))
    for (_, text), at in labels.items():
        ax.annotate(text, (float(np.mean([a[0] for a in at])), at[0][1]), xytext=(0, 5),
                    textcoords="offset points", ha="center", va="bottom", fontsize=SMALL_PT)


def _plain(value: float) -> str:
    """A number as a reader writes it: 0.17, 4.2, 40, 1,000."""
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.2g}" if value < 10 else f"{value:.3g}"


def fewer_runs(ax, x: np.ndarray, y: np.ndarray, n: np.ndarray) -> None:
    """Beside each point that is the mean of fewer runs than the others (a failed run, a
    seed missing), its n, so a thinner point is never read as a full one."""
    most = np.nanmax(n, initial=0)
    for xv, yv, k in zip(x, y, n, strict=True):
        if np.isfinite(k) and k < most:
            ax.annotate(f"n = {k:.0f}", (xv, yv), xytext=(4, -4), textcoords="offset points",
                        ha="left", va="top", fontsize=SMALL_PT, zorder=4)


def shown_labels(overlay: Overlay) -> tuple[str, ...]:
    """The x axis's category names as the figure writes them: file-system steps in words,
    each sync named by the step it follows (ssdlab/model/lab/charts.py step_names)."""
    labels = overlay.step_labels()
    x_axis, _ = overlay.chart.axes(overlay.timed)
    return step_names(labels) if x_axis.column == "step_number" else labels


def bar_value(v: float) -> str:
    """A bar's value as its label writes it: 8,589, 43, 0.7, 0; nothing for no bar."""
    if not np.isfinite(v):
        return ""
    return f"{v:,.0f}" if v >= 10 or v == 0 else f"{v:,.1f}"
