"""The workbench's charts: a tab per chart of ssdlab/model/lab/charts.py, each a QtCharts view of
a run's time series (seriescharts.py) or the Steps table (steptable.py). The numbers come
from the worker's snapshot; nothing is computed here beyond choosing which points to draw.

Beside the main run, a chart may draw other runs over it (`Run`): the second drive of a
comparison (B: its own colours, dashed) and pinned references (faded, dash-dotted), each line
labelled with its run ("B: spare 28 %"); analytic levels are dotted (ssdlab/app/palette.py DASHES).
The Steps table then has A and B columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtWidgets import QTabWidget, QWidget

from ssdlab.model.flash.theory.names import short_model_name
from ssdlab.model.lab.charts import CHARTS, RUN_CHARTS, Table, chart_table, histogram_outline
from ssdlab.model.lab.overlay import REFERENCE_SKIPS  # as in files

from ..appearance import theme
from ..run.snapshot import Snapshot
from .runlegend import RunLegend
from .seriescharts import SeriesChart
from .steptable import StepTable


@dataclass(frozen=True)
class Run:
    """A run drawn over the main one. key: its series' prefix ("B", "ref"); label: its
    legend text ("B: fstrim every 10 min"); role: "second" (B) or "ref" (a reference);
    theory: its analytic WA, if any; theory_name: that line's model and what it assumes
    (ssdlab/app/session/wanotes.py analytic_name), its name in the legend as in a file."""

    key: str
    label: str
    snap: Snapshot
    role: str
    theory: float | None = None
    theory_name: str = ""

    def names(self) -> dict[str, str]:
        """Its lines' names where they say more than the chart's labels."""
        return {"theory": self.theory_name} if self.theory is not None and self.theory_name \
            else {}


class Charts(QTabWidget):
    """The workbench's charts, one tab each, built from their descriptions in
    ssdlab/model/lab/charts.py; `show_snapshot` refreshes the visible one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.views: dict[str, QWidget] = {}
        for spec in (CHARTS[name] for name in RUN_CHARTS):
            if spec.name == "steps":
                view = StepTable()  # on screen a table; exported as a chart
            else:
                view = SeriesChart(spec.title, spec.x.title, spec.y, spec.tooltip)
                # the first line (host, cumulative WA) is drawn last, on top: where host and
                # NAND coincide (WA 1) the host line stays visible; the legend keeps the order
                for line in reversed(spec.lines):
                    view.add(line.key, line.label, line.token, dashed=line.dashed)
                view.legend_in_order()
            view.spec = spec
            self.views[spec.name] = view
            self.addTab(view, spec.tab)
        self.wa, self.throughput, self.gc = (self.views[k] for k in ("wa", "throughput", "gc"))
        self.free, self.wear, self.steps = (self.views[k] for k in ("free", "wear", "steps"))
        self.setToolTip("Charts of the run; Ctrl+Tab moves between them.")
        self.setAccessibleName("Charts")  # focusable on the desktop bus: a name, not a tip
        self.run_legend = RunLegend()  # the window places it under the charts
        self.run_legend.hide()
        self.theory: float | None = None
        self.theory_name = ""  # the analytic line's model and assumptions (Run.theory_name)
        self._last: Snapshot | None = None
        self._timed = False
        self._label = ""  # the main run's legend label ("A: discard"; "" when alone)
        self._others: tuple[Run, ...] = ()
        self.currentChanged.connect(lambda _i: self._redraw())
        self.apply_theme()

    def apply_theme(self) -> None:
        short = theme.current().large
        for i in range(self.count()):
            view = self.widget(i)
            view.apply_theme()
            self.setTabText(i, (short and view.spec.short_tab) or view.spec.tab)
            self.setTabToolTip(i, view.spec.title)

    def show_snapshot(self, snap: Snapshot | None, timed: bool, others: Sequence[Run] = (),
                      label: str = "") -> None:
        """Show the main run's snapshot, and the other runs' over it (label: the main
        run's name in the legend when others are shown)."""
        self._last, self._timed = snap, timed
        self._others, self._label = tuple(others), label
        for view in self.views.values():  # each tab's least height, the hidden ones too
            if view is not self.steps:
                view.set_overlaid(bool(self._others))
        self._redraw()

    def table(self, name: str, snap: Snapshot | None = None) -> Table | None:
        """The data chart `name` shows for the last snapshot (None before any), as the
        exporter writes it; or would show for snap (the map's, which the charts follow)."""
        snap = snap or self._last
        if snap is None:
            return None
        return chart_table(name, snap.series, timed=self._timed, erases=snap.erases,
                           theory=self.theory, steps=snap.steps, victims=snap.victim_valid,
                           theory_name=self.theory_name)

    def current_name(self) -> str:
        return self.currentWidget().spec.name

    def _redraw(self) -> None:
        snap = self._last
        chart = self.currentWidget()
        if chart is self.steps:
            self.run_legend.hide()
            self._redraw_steps()
            return
        runs = ([Run("", self._label, snap, "main", self.theory, self.theory_name)]
                if snap is not None else []) + list(self._others)
        main = runs[0].names() if snap is not None else {}
        chart.set_runs([("", self._label, "main", main)]
                       + [(r.key, r.label, r.role, r.names()) for r in self._others])
        if snap is None and not self._others:  # empty axes, never the last run's
            self.run_legend.hide()
            for i in range(self.count()):
                if self.widget(i) is not self.steps:
                    view = self.widget(i)
                    view.set_data({k: (np.empty(0), np.empty(0)) for k in view.series})
            return
        x_axis, y_axis = chart.spec.axes(self._timed)
        chart.set_x_title(x_axis.title)
        chart.set_y_title(y_axis)
        data = {k: (np.empty(0), np.empty(0)) for k in chart.series}
        labels = level_labels(runs, self.theory) if "theory" in chart.series else {}
        for run in runs:
            s = run.snap
            table = chart_table(chart.spec.name, s.series, timed=self._timed, erases=s.erases,
                                theory=run.theory, steps=s.steps, victims=s.victim_valid)
            for key, y in table.ys.items():
                name = f"{run.key}:{key}" if run.key else key
                if name not in data or run.role == "ref" and key in REFERENCE_SKIPS:
                    continue
                if run.role == "second" and key == "theory" and run.theory == self.theory:
                    continue  # the same level as A's: drawn once
                data[name] = histogram_outline(y) if chart.spec.histogram else (table.x, y)
        chart.set_data(data, self._scale_by(chart, data), labels)
        if chart.overlay:
            self.run_legend.set_entries(chart.legend_entries())
        self.run_legend.setVisible(chart.overlay)

    def _scale_by(self, chart, data: dict) -> set[str] | None:
        """The series a histogram's y axis fits: the run's own (and B's), not a kept
        reference's, whose thousands of victims after a long run would flatten a short
        run's bars; None (all) for the other charts, or when only references have data."""
        if not chart.spec.histogram:
            return None
        refs = {f"{r.key}:" for r in self._others if r.role == "ref"}
        own = {n for n, (_x, y) in data.items()
               if not any(n.startswith(k) for k in refs) and np.asarray(y).size
               and np.nanmax(y) > 0}
        return own or None

    def _redraw_steps(self) -> None:
        snap = self._last
        second = next((r for r in self._others if r.role == "second"), None)
        if snap is not None and second is not None:
            self.steps.show_pair(snap.steps, second.snap.steps, (self._label, second.label),
                                 snap.message)
        elif snap is None:
            self.steps.show_steps([], "")
        else:
            self.steps.show_steps(snap.steps, snap.message, snap.segment if snap.running else "")


# Where along the x span each run's analytic level has its words: A's and B's apart, so
# that two levels close in height do not write over each other.
LABEL_AT = {"main": 0.3, "second": 0.72}


def level_labels(runs: Sequence[Run], theory: float | None) -> dict[str, tuple[str, float]]:
    """The words on each analytic level drawn, by series name: whose it is (with two
    drives) and what it predicts, the per-window WA once the drive is rewritten (the
    cumulative WA stays below it, held down by the fill). The figure is the model's, as
    the session gives it (Run.theory); B's level equal to A's is drawn once, for both."""
    second = [r for r in runs if r.role == "second"]
    out = {}
    for run in runs:
        if run.role == "ref" or run.theory is None or not np.isfinite(run.theory):
            continue
        if run.role == "second" and run.theory == theory:
            continue  # drawn once, as A's (Charts._redraw)
        tag = ""
        if second:
            tag = run.label.split(":")[0]
            if run.role == "main" and all(r.theory == run.theory for r in second):
                tag = f"{tag} and {second[0].label.split(':')[0]}"
            tag += ": "
        name = f"{run.key}:theory" if run.key else "theory"
        # the model named on its line in a word, in full with its assumptions in the
        # legend (Run.theory_name): the whole name ran past both ends of the chart in
        # presentation type
        model = (short_model_name(run.theory_name.split(":")[0]) if run.theory_name
                 else "analytic")
        out[name] = (f"{tag}{model} {run.theory:.2f} (per window)", LABEL_AT[run.role])
    return out
