"""QtCharts views of a run's time series. Each update replaces whole series (replaceNp),
decimated to at most MAX_POINTS, never point by point. The numbers come from the worker's
snapshot; nothing is computed here beyond choosing which points to draw."""

from __future__ import annotations

import numpy as np
from PySide6.QtCharts import QChart, QChartView, QLineSeries, QValueAxis
from PySide6.QtCore import QMargins, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model.lab.charts import CHARTS, RUN_CHARTS, Table, chart_table, histogram_outline

from . import theme
from .worker import Snapshot

MAX_POINTS = 600


def decimate(x: np.ndarray, y: np.ndarray, n: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Finite points only, at most about n of them (every k-th, always keeping the last)."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size > n:
        idx = np.unique(np.append(np.arange(0, x.size, x.size // n + 1), x.size - 1))
        x, y = x[idx], y[idx]
    return np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float)



def upright_title(axis) -> str:
    """A vertical axis's title on two lines, label over unit: on one line the unit was cut
    off ("write amplification (NAND/h...") once the window is 1024 x 768."""
    return f"{axis.label}<br>({axis.unit})" if axis.unit else axis.label

class SeriesChart(QChartView):
    """One chart with named line series and auto-ranged value axes."""

    def __init__(self, title: str, x_title: str, y_title: str, tooltip: str, parent=None):
        self._chart = QChart()
        super().__init__(self._chart, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setToolTip(tooltip)
        self.setMinimumSize(220, 150)
        self._chart.setTitle(title)
        self._chart.setMargins(QMargins(2, 2, 2, 2))
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.x_axis, self.y_axis = QValueAxis(), QValueAxis()
        self.x_axis.setTitleText(x_title)
        self.y_axis.setTitleText(y_title)
        self._chart.addAxis(self.x_axis, Qt.AlignmentFlag.AlignBottom)
        self._chart.addAxis(self.y_axis, Qt.AlignmentFlag.AlignLeft)
        self.series: dict[str, QLineSeries] = {}
        self._styles: dict[str, tuple[str, bool]] = {}
        self.y_floor = 0.0
        self.y_axis.setLabelFormat("%.3g")
        self.x_axis.setLabelFormat("%.3g")

    def add(self, name: str, label: str, token: str, dashed: bool = False) -> None:
        s = QLineSeries()
        s.setName(label)
        self._chart.addSeries(s)
        s.attachAxis(self.x_axis)
        s.attachAxis(self.y_axis)
        self.series[name] = s
        self._styles[name] = (token, dashed)
        self._style(name)

    def _style(self, name: str) -> None:
        t = theme.current()
        token, dashed = self._styles[name]
        pen = QPen(QColor(t.series_colour(token)))
        pen.setWidthF(t.line_width)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        self.series[name].setPen(pen)

    def apply_theme(self) -> None:
        t = theme.current()
        bg, fg = QColor(t.colour("chart_background")), QColor(t.colour("text"))
        self._chart.setBackgroundBrush(bg)
        self._chart.setTitleBrush(fg)
        font = QFont()
        font.setPointSize(t.font_pt)
        self._chart.setTitleFont(font)
        self._chart.legend().setLabelColor(fg)
        self._chart.legend().setFont(font)
        for axis in (self.x_axis, self.y_axis):
            axis.setLabelsColor(fg)
            axis.setTitleBrush(fg)
            axis.setLabelsFont(font)
            axis.setTitleFont(font)
            axis.setGridLineColor(QColor(t.colour("chart_grid")))
        for name in self.series:
            self._style(name)

    def set_data(self, data: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """Replace each named series; rescale the axes to what is shown."""
        xs, ys = [], []
        for name, (x, y) in data.items():
            x, y = decimate(np.asarray(x, float), np.asarray(y, float))
            if y.size > 2 and np.all(y == y[0]):  # a level (the analytic WA): its two ends
                x, y = x[[0, -1]], y[[0, -1]]
            self.series[name].replaceNp(x, y)
            xs.append(x)
            ys.append(y)
        x = np.concatenate(xs) if xs else np.empty(0)
        y = np.concatenate(ys) if ys else np.empty(0)
        if x.size:
            lo, hi = float(x.min()), float(x.max())
            self.x_axis.setRange(lo, hi if hi > lo else lo + 1)
            self.x_axis.applyNiceNumbers()
        if y.size:
            top = float(y.max())
            self.y_axis.setRange(min(self.y_floor, float(y.min())), top * 1.08 if top > 0 else 1)
            self.y_axis.applyNiceNumbers()

    def points(self, name: str) -> int:
        return self.series[name].count()


STEP_COLUMNS = (("step", "step", "{}"), ("host_mb", "host MB", "{:,.1f}"),
                ("nand_mb", "NAND MB", "{:,.1f}"), ("wa", "WA", "{:.3f}"),
                ("trims", "TRIMs", "{:,}"), ("seconds", "simulated s", "{:,.2f}"),
                ("mb_s", "MB/s", "{:,.1f}"))


class StepTable(QWidget):
    """The file-system steps run so far, one row each, and what the last one reported."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setToolTip("File-system steps: MB the drive was asked to write (host), MB "
                        "programmed to flash (NAND), their ratio (WA), TRIM commands, "
                        "simulated seconds (each step ends with sync) and host MB/s.")
        self.table = QTableWidget(0, len(STEP_COLUMNS))
        self.table.setHorizontalHeaderLabels([c[1] for c in STEP_COLUMNS])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the step's name
        self.message = QLabel()
        self.message.setObjectName("note")
        self.message.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        self._shown: list[dict] = []
        self.show_steps([], "")

    def apply_theme(self) -> None:
        pass  # the style sheet and palette cover it

    def show_steps(self, steps: list[dict], message: str) -> None:
        if not steps:
            message = message or ("No file-system steps yet: choose a device profile and a "
                                  "file-system workload (kernel tree unpack, rm -rf, "
                                  "sequential write, trace replay) or press fstrim now.")
        self.message.setText(message)
        if steps == self._shown:
            return
        self._shown = [dict(d) for d in steps]
        self.table.setRowCount(len(steps))
        for row, step in enumerate(steps):
            for col, (key, _, fmt) in enumerate(STEP_COLUMNS):
                v = step.get(key)
                text = "-" if v is None or (isinstance(v, float) and v != v) else fmt.format(v)
                item = QTableWidgetItem(text)
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
        self.table.scrollToBottom()

    def rows(self) -> list[list[str]]:
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]


class Charts(QTabWidget):
    """The workbench's charts, one tab each, built from their descriptions in
    model/lab/charts.py; `show_snapshot` refreshes the visible one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.views: dict[str, QWidget] = {}
        for spec in (CHARTS[name] for name in RUN_CHARTS):
            if spec.name == "steps":
                view = StepTable()  # on screen a table; exported as a chart
            else:
                view = SeriesChart(spec.title, spec.x.title, upright_title(spec.y), spec.tooltip)
                for line in spec.lines:
                    view.add(line.key, line.label, line.token, dashed=line.dashed)
            view.spec = spec
            self.views[spec.name] = view
            self.addTab(view, spec.tab)
        self.wa, self.throughput, self.gc = (self.views[k] for k in ("wa", "throughput", "gc"))
        self.free, self.wear, self.steps = (self.views[k] for k in ("free", "wear", "steps"))
        self.setToolTip("Charts of the run; Ctrl+Tab moves between them.")
        self.theory: float | None = None
        self._last: Snapshot | None = None
        self._timed = False
        self.currentChanged.connect(lambda _i: self._redraw())
        self.apply_theme()

    def apply_theme(self) -> None:
        for i in range(self.count()):
            self.widget(i).apply_theme()

    def show_snapshot(self, snap: Snapshot | None, timed: bool) -> None:
        self._last, self._timed = snap, timed
        self._redraw()

    def table(self, name: str) -> Table | None:
        """The data chart `name` shows for the last snapshot (None before any), as the
        exporter writes it."""
        snap = self._last
        if snap is None:
            return None
        return chart_table(name, snap.series, timed=self._timed, erases=snap.erases,
                           theory=self.theory, steps=snap.steps, victims=snap.victim_valid)

    def current_name(self) -> str:
        return self.currentWidget().spec.name

    def _redraw(self) -> None:
        snap = self._last
        if snap is None:
            for i in range(self.count()):
                chart = self.widget(i)
                if chart is self.steps:
                    chart.show_steps([], "")
                else:
                    chart.set_data({k: (np.empty(0), np.empty(0)) for k in chart.series})
            return
        if self.currentWidget() is self.steps:
            self.steps.show_steps(snap.steps, snap.message)
            return
        chart = self.currentWidget()
        table = self.table(chart.spec.name)
        x_axis, y_axis = chart.spec.axes(self._timed)
        chart.x_axis.setTitleText(x_axis.title)
        chart.y_axis.setTitleText(upright_title(y_axis))
        if chart.spec.histogram:
            (key, counts), = table.ys.items()
            chart.set_data({key: histogram_outline(counts)})
            return
        chart.set_data({k: (table.x, y) for k, y in table.ys.items()})
