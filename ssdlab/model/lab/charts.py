"""Every chart of the workbench described once, as data: title, axes with units, series with
their colour tokens, and how each chart's table is read off a run's time series.

The live QtCharts view (ssdlab/app/gui/charts/charts.py), the file exporter
(ssdlab/app/chartexport.py) and `ssdlab chart` all read these descriptions and `chart_table`, so a
figure on screen, in a file and from the command line never disagree on content. Colour tokens are
names; their values live in ssdlab/app/palette.py. No Qt here.

The run's series is a dict of equal-length arrays, keyed as the workbench's recorder keys
them: drive_writes (host writes in drive capacities), sim_s (simulated s), wa, wa_window,
host_rate, nand_rate (MB/s when timed, else pages per 1,000 flash page programs), gc_rate
(pages/s when timed, else per 1,000 flash page programs) and free (blocks).

Without a device profile there is no clock, so no MB/s: the flash's page programs are the
unit of work instead. Of every 1,000 pages the flash programs, the host gets 1,000 / WA and
GC copies take the rest; that share is the throughput a drive of any speed would give.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Axis:
    """An axis: what it shows, its unit (empty: a count with no unit), its CSV column;
    whole: it counts things (blocks, erases), so its ticks are whole numbers."""

    label: str
    unit: str
    column: str
    whole: bool = False

    @property
    def title(self) -> str:
        """The axis label with its unit in parentheses, as print style asks; a unit the
        label already ends with ("free blocks", blocks) is not said twice."""
        if not self.unit or self.label.split()[-1:] == [self.unit]:
            return self.label
        return f"{self.label} ({self.unit})"


@dataclass(frozen=True)
class Line:
    """One series: its key in the chart's table, legend label, colour token, dash, and the
    CSV column names (with units) untimed and timed."""

    key: str
    label: str
    token: str
    column: str
    timed_column: str = ""
    dashed: bool = False  # analytic curves are dashed
    marker: bool = False  # measured points of a sweep, or one per step

    def csv_column(self, timed: bool) -> str:
        return self.timed_column if timed and self.timed_column else self.column


@dataclass(frozen=True)
class Chart:
    """One chart of the workbench. x_timed/y_timed replace the axes when a device profile
    gives the run a clock. histogram: the table holds bin counts, drawn as a step outline.
    levels: one value per step, drawn as a level across the step. source: "run" (a run's
    series; the window shows these) or "sweep" (a sweep's results file). short_tab: the tab's
    name in projector type, where seven full names do not fit beside the control panel."""

    name: str
    tab: str
    title: str
    tooltip: str
    x: Axis
    y: Axis
    lines: tuple[Line, ...]
    x_timed: Axis | None = None
    y_timed: Axis | None = None
    histogram: bool = False
    levels: bool = False
    source: str = "run"
    short_tab: str = ""
    log_y: bool = False  # a logarithmic y axis (values over several decades, all above 0)

    def axes(self, timed: bool) -> tuple[Axis, Axis]:
        return ((self.x_timed or self.x) if timed else self.x,
                (self.y_timed or self.y) if timed else self.y)


SWEEP_POLICIES = ("greedy", "fifo", "random-d", "cost-benefit")  # colour tokens too
# the policies as a legend names them (FIFO is an acronym)
POLICY_NAMES = {"greedy": "greedy", "fifo": "FIFO", "random-d": "random-d",
                "cost-benefit": "cost-benefit"}
_DRIVE_WRITES = Axis("host writes", "drive capacities", "drive_writes")
_SECONDS = Axis("simulated time", "s", "sim_s")
_PER_1000 = "per 1,000 NAND pages"

CHARTS: dict[str, Chart] = {c.name: c for c in (
    Chart("wa", "WA", "Write amplification",
          "NAND page writes per host page write: since the start, per window, and the "
          "analytic model for this policy and spare.",
          _DRIVE_WRITES, Axis("write amplification", "NAND/host", "wa"),
          (Line("wa", "cumulative", "wa", "wa"),
           Line("wa_window", "per window", "wa_window", "wa_window"),
           Line("theory", "analytic", "theory", "wa_analytic", dashed=True))),
    Chart("throughput", "Throughput", "Throughput",
          "Host and NAND writes: MB/s over simulated time when a device profile gives "
          "timing. Without one: of every 1,000 pages the flash programs, how many carry "
          "host data (the rest are GC copies), over the last 5 % of the capacity written.",
          _DRIVE_WRITES, Axis("pages", _PER_1000, "rate"),
          (Line("host", "host", "host", "host_pages_per_1000_programs", "host_mb_s"),
           Line("nand", "NAND", "nand", "nand_pages_per_1000_programs", "nand_mb_s")),
          x_timed=_SECONDS, y_timed=Axis("throughput", "MB/s", "throughput_mb_s"),
          short_tab="Speed"),
    Chart("gc", "GC copies", "GC copies",
          "Valid pages garbage collection copied: per simulated second with a profile, "
          "else per 1,000 pages the flash programs (over the last 5 % of the capacity "
          "written).",
          _DRIVE_WRITES, Axis("GC copies", _PER_1000, "gc"),
          (Line("gc", "GC copies", "gc", "gc_pages_per_1000_programs", "gc_pages_s"),),
          x_timed=_SECONDS, y_timed=Axis("GC copies", "pages/s", "gc_pages_s"),
          short_tab="Copies"),
    Chart("free", "Free blocks", "Free blocks",
          "Erased blocks ready to be written. GC runs when this falls to the watermark.",
          _DRIVE_WRITES, Axis("free blocks", "blocks", "free_blocks", whole=True),
          (Line("free", "free blocks", "free", "free_blocks"),), short_tab="Free"),
    Chart("wear", "Wear", "Erase counts",
          "How many blocks have been erased how often: a narrow peak means even wear.",
          Axis("erase count", "erases per block", "erase_count", whole=True),
          Axis("blocks", "blocks", "blocks", whole=True),
          (Line("hist", "blocks", "erase", "blocks"),), histogram=True),
    Chart("victims", "Victims", "Valid pages in GC victims",
          "How full the blocks garbage collection picked were: victims counted by the valid "
          "pages they held, each of which GC copied. Greedy picks the emptiest block; a peak "
          "to the right means expensive GC.",
          Axis("valid pages in the victim", "pages", "victim_valid_pages", whole=True),
          Axis("victims", "blocks", "victims", whole=True),
          (Line("hist", "victims", "gc", "victims"),), histogram=True),
    Chart("steps", "Steps", "File-system steps",
          "File-system steps: MB the drive was asked to write (host) and MB programmed to "
          "flash (NAND), per step.",
          Axis("step", "", "step_number"), Axis("written", "MB", "written_mb"),
          (Line("host_mb", "host", "host", "host_mb", marker=True),
           Line("nand_mb", "NAND", "nand", "nand_mb", marker=True)), levels=True),
    Chart("wa-vs-spare", "WA vs spare", "Write amplification against spare",
          "A sweep's measured WA per GC policy (points) beside its analytic model (dashed).",
          Axis("spare", "% of physical", "spare_pct"),
          Axis("write amplification", "NAND/host", "wa"),
          tuple(line for p in SWEEP_POLICIES for line in (
              Line(p, f"{POLICY_NAMES[p]} (simulated)", p, f"wa_{p}", marker=True),
              Line(f"{p}_theory", f"{POLICY_NAMES[p]} (analytic)", p, f"wa_analytic_{p}",
                   dashed=True))),
          source="sweep"),
)}
RUN_CHARTS = tuple(name for name, c in CHARTS.items() if c.source == "run")

# What a figure's measure means, for its caption (the sidecar's "y"): by the y column
DEFINITIONS = {"wa": "write amplification: what the flash (NAND) programs per unit the host "
                     "writes; above 1 when garbage collection copies valid pages, below 1 "
                     "when the drive compresses the data"}


def define(column: str) -> dict:
    """{"definition": ...} for a y column with one, else {}."""
    return {"definition": DEFINITIONS[column]} if column in DEFINITIONS else {}


@dataclass(frozen=True)
class Table:
    """A chart's data: one x column and one y column per series key, all the same length;
    labels: a name per x value (the steps chart's step names, a category), else empty.
    stats: for a series that is a mean over repeated runs, its n, sd, min and max per x
    (ssdlab/model/lab/plottable.py); spread: what its error bars show, for the legend."""

    chart: Chart
    timed: bool
    x: np.ndarray
    ys: dict[str, np.ndarray]
    labels: tuple[str, ...] = ()
    stats: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    spread: str = ""
    note: str = ""  # why the chart shows nothing (printed on the figure and in the sidecar)
    # what the figure must say was left out or is hidden (failed sweep runs): printed above
    # the legend's entries and listed in the sidecar
    caveats: tuple[str, ...] = ()
    # a series' name where this run's says more than the chart's line label: the analytic
    # line's model and what it assumes ("theory": "Van Houdt's greedy model (2013): ..."),
    # in the window's legend and the file's alike
    names: dict[str, str] = field(default_factory=dict)

    def name(self, line: Line) -> str:
        """What this table's series of `line` is called in a legend."""
        return self.names.get(line.key, line.label)

    def columns(self) -> dict[str, np.ndarray]:
        """CSV columns, units in their names: x first, then one per series (and its n, sd,
        min, max when it is a mean); a series with no value at all has no column."""
        x_axis, _ = self.chart.axes(self.timed)
        out = {x_axis.column: self.x}
        for line in self.chart.lines:
            y = self.ys[line.key]
            if y.size and not np.isfinite(y).any():
                continue
            out[line.csv_column(self.timed)] = y
            for stat, values in self.stats.get(line.key, {}).items():
                out[f"{line.csv_column(self.timed)}_{stat}"] = values
        return out


def chart_table(name: str, series: dict[str, np.ndarray], *, timed: bool,
                erases: np.ndarray | None = None, theory: float | None = None,
                steps: list[dict] | None = None,
                victims: np.ndarray | None = None, mapping: str | None = None,
                theory_name: str = "") -> Table:
    """The table `name` draws, read off a run's series (see the module docstring); erases:
    per-block erase counts (wear); theory: the analytic WA (None: not known, a NaN column);
    theory_name: its model and assumptions, its name in the legend ("": "analytic");
    steps: one dict per file-system step with step, host_mb, nand_mb (steps); victims: GC
    victims by the valid pages they held, index k = k pages (the engine's Drive.victim_valid,
    for victims)."""
    if name not in RUN_CHARTS:
        raise ValueError(f"chart must be one of {', '.join(RUN_CHARTS)} for a run; got "
                         f"{name!r}")
    chart = CHARTS[name]
    rows = len(next(iter(series.values()), ()))

    def f(k: str) -> np.ndarray:  # a column the series lacks is drawn as missing (NaN)
        return np.asarray(series[k], dtype=float) if k in series else np.full(rows, np.nan)

    x = f("drive_writes")
    if name == "wa":
        const = np.full(x.size, np.nan if theory is None else float(theory))
        return Table(chart, timed, x, {"wa": f("wa"), "wa_window": f("wa_window"),
                                        "theory": const},
                     names={"theory": theory_name} if theory_name and theory is not None
                     else {})
    if name in ("throughput", "gc"):
        tx = f("sim_s") if timed else x
        ys = ({"host": f("host_rate"), "nand": f("nand_rate")} if name == "throughput"
              else {"gc": f("gc_rate")})
        return Table(chart, timed, tx, ys)
    if name == "free":
        return Table(chart, timed, x, {"free": f("free")})
    if name in ("wear", "victims"):
        counts = (np.bincount(np.asarray(erases if erases is not None else [], dtype=np.int64))
                  if name == "wear" else np.asarray(victims if victims is not None else [],
                                                    dtype=float))
        note = victims_note(mapping, counts) if name == "victims" else ""
        return Table(chart, timed, np.arange(counts.size, dtype=float),
                     {"hist": counts.astype(float)}, note=note)
    rows = steps or []
    return Table(chart, timed, np.arange(1, len(rows) + 1, dtype=float),
                 {k: np.array([float(r.get(k, np.nan)) for r in rows])
                  for k in ("host_mb", "nand_mb")},
                 tuple(str(r.get("step", "")) for r in rows))


# Steps named as a reader says them; a sync is named by the step it follows, so six syncs
# in one chart are told apart by what they flush.
STEP_WORDS = {"umount": "unmount"}
AFTER_STEPS = ("sync",)


def step_names(labels: tuple[str, ...]) -> tuple[str, ...]:
    """The steps chart's labels in words ("fill_files" -> "fill files"; a sync after it ->
    "sync after fill files"); the CSV keeps the steps' own names."""
    words = [STEP_WORDS.get(s, s.replace("_", " ")) for s in labels]
    out = []
    for i, (step, word) in enumerate(zip(labels, words, strict=True)):
        before = next((words[j] for j in range(i - 1, -1, -1)
                       if labels[j].split(" / ")[0] not in AFTER_STEPS), None)
        out.append(f"{word} after {before}" if step in AFTER_STEPS and before else word)
    return tuple(out)


def victims_note(mapping: str | None, counts: np.ndarray) -> str:
    """Why the victims chart is empty, or "" when it shows victims: a block-mapped or hybrid
    (fast) drive has no GC victims (it merges blocks, and the engine counts a merge's copies
    as GC copies, not by victim), and a page-mapped one may not have collected yet."""
    if np.asarray(counts).sum() > 0:
        return ""
    if mapping in ("block", "fast"):
        kind = "block-mapped" if mapping == "block" else "hybrid (log-block)"
        return (f"No GC victims on a {kind} drive: it merges blocks instead of collecting "
                "them; the merges' copies are in the GC copies chart")
    return "No GC victims yet: garbage collection has not run"


def histogram_outline(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A step outline of bin counts, each count spanning [k, k+1), closed down to zero at
    both ends so a single bin still reads as a bar: (x, y) to draw as one line."""
    if not np.asarray(counts).size:
        return np.empty(0), np.empty(0)
    edges = np.arange(counts.size + 1, dtype=float)
    x = np.concatenate(([0.0], np.repeat(edges, 2)[1:-1], [float(counts.size)]))
    y = np.concatenate(([0.0], np.repeat(np.asarray(counts, float), 2), [0.0]))
    return x, y


WA_WINDOW = 0.05  # per-window WA over windows of this share of the capacity, as the window


def run_series(rows: list[dict], capacity_mb: float) -> dict[str, np.ndarray]:
    """A scenario run's Series rows (ssdlab/model/lab/series.py as_dicts) keyed as the workbench's
    recorder keys its series, on the drive's clock; capacity_mb: the drive's user capacity
    in MB (10^6 bytes), the unit of drive_writes."""
    col = lambda k: np.array([float(r[k]) for r in rows], dtype=float)  # noqa: E731
    t, host, nand, gc = (col(k) for k in ("sim_s", "device_written_mb", "nand_written_mb",
                                           "gc_copies"))
    # Series rows are evenly spaced; the first interval is as long as the others.
    step = t[1] - t[0] if t.size > 1 else 1.0
    dt = np.diff(t, prepend=t[0] - step) if t.size else t
    window = np.full(t.size, np.nan)
    start, current = (0.0, 0.0), np.nan
    for i in range(t.size):
        if host[i] - start[0] >= WA_WINDOW * capacity_mb:
            current = (nand[i] - start[1]) / (host[i] - start[0])
            start = (host[i], nand[i])
        window[i] = current
    with np.errstate(divide="ignore", invalid="ignore"):
        gc_rate = np.diff(gc, prepend=0.0) / dt
    return {"drive_writes": host / capacity_mb, "sim_s": t, "wa": col("wa"),
            "wa_window": window, "host_rate": col("write_mb_s"), "nand_rate": col("nand_mb_s"),
            "gc_rate": gc_rate, "free": col("free_blocks")}
