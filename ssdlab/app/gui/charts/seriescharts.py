"""One QtCharts view of a run's time series (SeriesChart): each update replaces whole series
(replaceNp), decimated to at most MAX_POINTS, never point by point, with readable axes
(chartaxes.py), titles that fit and lines styled per run (colour, dash, width) for the
legend of overlaid runs (runlegend.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCharts import QChart, QChartView, QLegend, QLineSeries, QXYSeries
from PySide6.QtCore import QMargins, Qt
from PySide6.QtGui import QAccessible, QColor, QFont, QFontMetrics, QPainter, QPen

from ssdlab.app.palette import dash, run_colour
from ssdlab.model.flash.theory.names import short_model_name
from ssdlab.model.lab.overlay import legend_text, solid_lines  # as in files

from ..appearance import theme
from . import levelwords
from .chartaxes import TickAxis

MAX_POINTS = 600


def decimate(x: np.ndarray, y: np.ndarray, n: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Finite points only, at most about n of them (every k-th, always keeping the last)."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size > n:
        idx = np.arange(0, x.size, x.size // n + 1)  # rising: no sort needed to add the last
        if idx[-1] != x.size - 1:
            idx = np.append(idx, x.size - 1)
        x, y = x[idx], y[idx]
    return np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float)


def _unit(axis) -> str:
    """The axis's unit, or "" where the label already says it ("free blocks", not "free
    blocks (blocks)")."""
    return "" if not axis.unit or axis.label.endswith(axis.unit) else axis.unit


def upright_title(axis) -> str:
    """A vertical axis's title on two lines, label over unit: on one line the unit was cut
    off ("write amplification (NAND/h...") once the window is 1024 x 768."""
    unit = _unit(axis)
    return f"{axis.label}<br>({unit})" if unit else axis.label


def title_above(axis) -> str:
    """The vertical axis's title as one line over the plot (presentation type)."""
    unit = _unit(axis)
    return f"{axis.label} ({unit})" if unit else axis.label


class SeriesChart(QChartView):
    """One chart with named line series and auto-ranged value axes."""

    ACCESSIBLE_ROLE = QAccessible.Role.Chart  # not "filler": appearance/accessnames.py

    def __init__(self, title: str, x_title: str, y_axis, tooltip: str, parent=None):
        self._chart = QChart()
        super().__init__(self._chart, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setToolTip(tooltip)
        self.setMinimumSize(220, 150)
        self._title = title
        self.setAccessibleName(f"Chart: {title}")  # Tab stops here: a name, not only a tip
        # the drawing area inside is focusable on the desktop bus too: named for the chart
        self.viewport().setAccessibleName(f"Chart: {title}, plot")
        self._chart.setTitle(title)
        self._chart.setMargins(QMargins(2, 2, 2, 2))
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        # each entry a stroke of its line's pen: a dotted analytic level shows dotted
        self._chart.legend().setMarkerShape(QLegend.MarkerShape.MarkerShapeFromSeries)
        self.x_axis, self.y_axis = TickAxis(), TickAxis(vertical=True)
        self.x_axis.setTitleText(x_title)
        self._y = y_axis  # the y axis's description (ssdlab/model/lab/charts.py Axis)
        self._chart.addAxis(self.x_axis, Qt.AlignmentFlag.AlignBottom)
        self._chart.addAxis(self.y_axis, Qt.AlignmentFlag.AlignLeft)
        self.series: dict[str, QLineSeries] = {}
        self._styles: dict[str, tuple[str, bool, str]] = {}
        self._lines: list[tuple[str, str, str, bool]] = []  # (key, label, token, dashed)
        self._runs: list[tuple[str, str]] = [("", "main")]  # (prefix, role), main first
        self._order: list[str] = []  # series names, runs in order, each run's lines in order
        self.overlay = False  # runs overlaid: the window's RunLegend names the lines
        self.y_floor = 0.0
        self._label_px = 40  # width of a typical tick label in the current type
        self._spans = ((0.0, 1.0, False), (0.0, 1.0, False))  # (lo, hi, whole) of x and y
        self._titles_above = False
        self._show_titles()
        self._chart.plotAreaChanged.connect(self._titles_still_fit)
        self._level_text: dict[str, str] = {}  # a level's full words, by series name
        self._level_x: dict[str, float] = {}  # where along x they are wanted, data units
        self._xy: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # each line's data, drawn
        self._chart.plotAreaChanged.connect(self._labels_in_sight)

    def set_y_title(self, axis) -> None:
        """The y axis shows this description's label and unit (timed or not)."""
        if axis != self._y:
            self._y = axis
            self._show_titles()

    def set_x_title(self, text: str) -> None:
        if text != self.x_axis.titleText():
            self.x_axis.setTitleText(text)
            self._show_titles()

    def _show_titles(self) -> None:
        """At the desk the chart's title on top and the y axis's title upright beside it.
        In presentation type the tab names the chart, and the axes' titles go on top, on one
        line ("write amplification (NAND/host) against drive writes"): upright at 18 pt the
        y title is longer than the plot is tall and QtCharts cut it to "write a..." at
        1024 x 768, and the x title under the tick labels took a line the plot needs (at
        1024 x 768 QtCharts dropped it, or cut the tick labels to "...")."""
        above = self._titles_above = self._want_above()
        self.y_axis.setTitleText(upright_title(self._y))
        self.y_axis.setTitleVisible(not above)
        self.x_axis.setTitleVisible(not above)
        self._chart.setTitle(self._title_above() if above else self._title)

    def _too_short(self) -> bool:
        """The plot is shorter than the y title's words upright: QtCharts cut them ("write
        ampl...") at the least chart height at 1.5x scaling. Then the titles go above, as
        in presentation type. Judged with the room the x title's line would give back, so
        that moving the titles above does not make the plot tall enough to move them back
        at once."""
        plot = int(self._chart.plotArea().height())
        if plot <= 0:
            return False
        fm = QFontMetrics(self.y_axis.titleFont())
        # the longer of its two lines: "(per 1,000 NAND writes)" under "pages" was cut when
        # A | B's charts got their least height at 1024 x 768 (the main area scrolling)
        unit = _unit(self._y)
        words = max(fm.horizontalAdvance(line) for line in (self._y.label, f"({unit})"))
        if self._titles_above:
            plot -= 2 * fm.lineSpacing()  # the x title's line comes back with them upright
        return plot < words + fm.lineSpacing()

    def _titles_still_fit(self, _area) -> None:
        """The plot changed size (the legend, a second line of note, wider tick labels):
        above or upright again, if that changed; above, as much of the x title as the
        plot's new width holds (a plot narrowed by its data, not by a resize, left the
        title QtCharts then cut: "... host writes (drive c...")."""
        if self._want_above() != self._titles_above:
            self._show_titles()
        elif self._titles_above and self._chart.title() != self._title_above():
            self._chart.setTitle(self._title_above())

    def _want_above(self) -> bool:
        """The axes' titles go above the plot: presentation type, or a plot too short."""
        return theme.current().large or self._too_short()

    def _title_above(self) -> str:
        """The axes' titles on one line, as much of the x title as the chart's width holds
        (its unit first goes, then the whole of it)."""
        y, x = title_above(self._y), self.x_axis.titleText()
        plot = int(self._chart.plotArea().width())
        room = plot if plot > 0 else self.width() - 8 * self._label_px // 7
        fm = QFontMetrics(self._chart.titleFont())
        for text in (f"{y} against {x}", f"{y} against {x.split(' (')[0]}"):
            if fm.horizontalAdvance(text) <= room:
                return text
        return y

    def legend_in_order(self) -> None:
        """Series added last to first: the legend lists them first to last."""
        self._chart.legend().setReverseMarkers(True)

    def add(self, name: str, label: str, token: str, dashed: bool = False,
            role: str = "main") -> None:
        """A line of the main run (name: its key), or of another run (name "B:wa")."""
        s = QLineSeries()
        s.setName(label)
        self._chart.addSeries(s)
        s.attachAxis(self.x_axis)
        s.attachAxis(self.y_axis)
        self.series[name] = s
        self._styles[name] = (token, dashed, role)
        if role == "main" and not any(k == name for k, *_ in self._lines):
            self._lines.insert(0, (name, label, token, dashed))  # added last line first
        self._style(name)

    def set_runs(self, runs: Sequence[tuple]) -> None:
        """Draw these runs, (prefix, label, role[, names]) each, the main run ("" prefix)
        first: series are made or dropped when the runs shown change, and renamed always.
        names: a run's line names where they say more than the chart's labels (its analytic
        line's model and assumptions, ssdlab/model/lab/charts.py Table.names)."""
        runs = [(*r[:3], r[3] if len(r) > 3 else {}) for r in runs]
        shape = [(key, role) for key, _, role, _ in runs]
        overlay = len(runs) > 1
        lines = list(self._lines)
        if shape != self._runs:
            for series in self.series.values():
                self._chart.removeSeries(series)
                series.deleteLater()
            self.series.clear()
            self._styles.clear()
            # alone, the main run's first line is drawn last (on top; the legend reversed
            # lists the lines first to last); overlaid, references go under A, and B's
            # dashes over A, so where the two runs agree both stay visible
            order = [r for r in runs if r[2] == "ref"] + [r for r in runs if r[2] == "main"] \
                + [r for r in runs if r[2] == "second"]
            for key, _, role, _ in order if overlay else runs:
                for name, label, token, dashed in reversed(lines):
                    self.add(f"{key}:{name}" if key else name, label, token, dashed, role)
            self._runs = shape
        self.set_overlaid(overlay)
        self._chart.legend().setVisible(not overlay)  # QtCharts cuts long labels short
        self._order = [f"{key}:{ln[0]}" if key else ln[0] for key, *_ in runs for ln in lines]
        self._parts = {}  # series name: (run label, the line's name where it needs one)
        for key, label, role, names in runs:
            solid = solid_lines(((n, d) for n, _, _, d in lines), role)
            for name, line_label, _, dashed in lines:
                line_label = names.get(name, line_label)
                if theme.current().large and ": " in line_label and not overlay:
                    # beside the chart in presentation type the legend cut a model's whole
                    # name short ("Van Houdt's greedy mod..."): the model in a word here,
                    # with its author and year in the note under the chart
                    line_label = short_model_name(line_label.split(": ")[0])
                series = self.series[f"{key}:{name}" if key else name]
                own = dashed or solid > 1
                self._parts[f"{key}:{name}" if key else name] = (label, line_label if own
                                                                  else "")
                text = legend_text(label, line_label, solid, dashed)
                if series.name() != text:
                    series.setName(text)

    def _style(self, name: str) -> None:
        t = theme.current()
        token, dashed, role = self._styles[name]
        pen = QPen(QColor(run_colour(t.name, token, role)))
        pen.setWidthF(t.line_width if role != "ref" else 0.75 * t.line_width)
        pattern = dash(role, dashed)  # B dashed, a reference dash-dotted, analytic dotted
        if pattern is not None:
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)  # square caps would fill the gaps
            pen.setDashPattern(list(pattern))
        self.series[name].setPen(pen)

    def apply_theme(self) -> None:
        t = theme.current()
        bg, fg = QColor(t.colour("chart_background")), QColor(t.colour("text"))
        self._chart.setBackgroundBrush(bg)
        self._show_titles()
        self._chart.setTitleBrush(fg)
        font = QFont()
        font.setPointSize(t.font_pt)
        self._chart.setTitleFont(font)
        # room at the right for half the last x label, which is centred on the axis end
        fm = QFontMetrics(font)
        self._label_px = fm.horizontalAdvance("0,000 k")
        self._chart.setMargins(QMargins(2, 2, fm.horizontalAdvance("0,000") // 2 + 4, 2))
        self._least_height()
        # in presentation type a chart is short and wide: its legend goes beside the plot,
        # leaving the plot the line of height a legend underneath takes
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignRight if t.large
                                          else Qt.AlignmentFlag.AlignBottom)
        # beside the plot, its strokes clear of the last x label's right half (the "1.5"
        # under the legend's marks at 1024 x 768)
        half = fm.horizontalAdvance("0,000") // 2 + 4 if t.large else 0
        self._chart.legend().setContentsMargins(half, 0, 0, 0)
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

    def set_data(self, data: dict[str, tuple[np.ndarray, np.ndarray]],
                 scale_by: set[str] | None = None,
                 labels: dict[str, tuple[str, float]] | None = None) -> None:
        """Replace each named series; rescale the axes to what is shown (an empty chart
        goes back to empty axes, never keeps the last run's). scale_by: the series the y
        axis fits (others may run off its top), None for all. A series without a point
        leaves the legend. labels: words written on a level (an analytic WA), by series
        name: (text, where along the x span, 0 to 1)."""
        xs, ys = [], []
        changed = False
        labels = labels or {}
        for name, (x, y) in data.items():
            x, y = decimate(np.asarray(x, float), np.asarray(y, float))
            if y.size > 2 and np.all(y == y[0]):  # a level (the analytic WA): its two ends
                x, y = x[[0, -1]], y[[0, -1]]
            self.series[name].replaceNp(x, y)
            self._xy[name] = (x, y)  # the words on a level keep clear of it
            self._label_level(name, x, y, labels.get(name))
            for marker in self._chart.legend().markers(self.series[name]):
                if marker.isVisible() != bool(x.size):
                    marker.setVisible(bool(x.size))
                    changed = True
            xs.append(x)
            if scale_by is None or name in scale_by:
                ys.append(y)
        if changed and not self.overlay:  # QtCharts lays a marker's text out only when the
            # legend is shown again
            self._chart.legend().hide()
            self._chart.legend().show()
        x = np.concatenate(xs) if xs else np.empty(0)
        y = np.concatenate(ys) if ys else np.empty(0)
        if x.size and np.ptp(x) == 0:  # a run not yet begun (one row, at 0): its analytic
            # level is a point; drawn across 0 to 1 drive writes in tenths, it reads as a
            # level, where the axis of that one x had only the whole ticks 0 and 1
            for name, (_x, ly) in data.items():
                ly = np.asarray(ly, float)
                if ly.size and np.all(ly == ly[0]) and np.isfinite(ly[0]):
                    self.series[name].replaceNp(np.array([0.0, 1.0]), ly[[0, 0]])
            x = np.empty(0)
        self._spans = ((float(x.min()), float(x.max()), _whole(x)) if x.size else (0.0, 1.0, False),
                       (min(self.y_floor, float(y.min())),
                        float(y.max()) * 1.04 if y.max() > 0 else 1.0, _whole(y))
                       if y.size else (0.0, 1.0, False))
        self._show_spans()
        self._labels_in_sight()

    def _labels_in_sight(self, _area=None) -> None:
        """Each level's words whole within the plot and clear of the other levels' words
        (levelwords.place), and of the lines drawn, again whenever the plot changes size.
        The view repaints whole after a move: the words stand above their series' line,
        outside what QtCharts repaints of it, and the old place's words stayed drawn under
        the new."""
        levels = [(s, self._level_text[n], self._level_x[n]) for n, s in self.series.items()
                  if n in self._level_text and self._level_words(s)]
        curves = [(s, *self._xy[n]) for n, s in self.series.items() if n in self._xy]
        if levels and levelwords.place(self._chart, levels, curves):
            self.viewport().update()

    def set_overlaid(self, on: bool) -> None:
        """Runs are overlaid (their legend under the charts), on this chart and on the
        tabs not shown, whose least height the tab widget counts too."""
        if on != self.overlay:
            self.overlay = on
            self._least_height()

    def _least_height(self) -> None:
        """The chart's least height, in lines of its type. QtCharts cuts the x tick labels
        to "..." when the chart is short: with the legend and the axis title underneath
        that was 150 px (ten lines) in the normal type (the first screen at 1.5x scaling,
        where the charts get their least height and scroll); in presentation type the
        legend beside the plot gives back its line underneath (tests/test_gui_fit768.py).
        With runs overlaid the chart holds no legend (the run legend under the charts
        names the lines): in presentation type a line less, which a kept reference's
        window needs at 1024 x 768 (its run legend and three lines of note under the
        charts, the map legend on three rows at the width the main area's scroll bar
        leaves: 791 px with 7 lines)."""
        t = theme.current()
        lines = (6 if self.overlay else 7) if t.large else 14
        font = QFont()
        font.setPointSize(t.font_pt)
        self.setMinimumHeight(max(150, lines * QFontMetrics(font).height()))

    def _label_level(self, name: str, x: np.ndarray, y: np.ndarray,
                     label: tuple[str, float] | None) -> None:
        """Words on a level, written over it at `where` along its span: which drive's
        analytic WA it is, and what it predicts. A legend's colour and dash alone did not
        tell the room which dotted line went with which drive's curve."""
        series = self.series[name]
        series.clearPointsConfiguration()
        self._level_text.pop(name, None)
        if label is None or x.size != 2 or x[0] == x[1]:
            series.setPointLabelsVisible(False)
            return
        text, where = label
        # a point of its own for the words (the level stays a straight line through it)
        mid = x[0] + where * (x[1] - x[0])
        self._level_text[name], self._level_x[name] = text, float(mid)
        series.replaceNp(np.array([x[0], mid, x[1]]), np.array([y[0], y[0], y[0]]))
        off = {QXYSeries.PointConfiguration.LabelVisibility: False}
        series.setPointConfiguration(0, off)
        series.setPointConfiguration(2, off)
        series.setPointConfiguration(1, {QXYSeries.PointConfiguration.LabelVisibility: True,
                                         QXYSeries.PointConfiguration.LabelFormat: text})
        series.setPointLabelsColor(series.pen().color())
        font = QFont()
        font.setPointSize(theme.current().font_pt)
        series.setPointLabelsFont(font)
        series.setPointLabelsVisible(True)

    def level_label(self, name: str) -> str:
        """The words written on a level ("" when none)."""
        return self._level_words(self.series[name])

    @staticmethod
    def _level_words(series) -> str:
        if not series.pointLabelsVisible() or series.count() != 3:
            return ""
        return str(series.pointConfiguration(1).get(
            QXYSeries.PointConfiguration.LabelFormat, ""))

    def _room_for_level_words(self, y0: float, y1: float) -> float:
        """The top the y axis needs for the words on its highest level to stand inside the
        plot: written above the level, near the top of a short chart they ran into its
        title (A | B in presentation type)."""
        levels = [s for s in self.series.values() if s.isVisible() and self._level_words(s)]
        plot_px = self._chart.plotArea().height()
        if not levels or plot_px <= 0 or y1 <= y0:
            return y1
        words_px = 1.3 * max(QFontMetrics(s.pointLabelsFont()).height() for s in levels)
        share = min(0.5, words_px / plot_px)  # of the plot's height the words take
        return y0 + (max(s.at(1).y() for s in levels) - y0) / (1 - share)

    def _show_spans(self) -> None:
        """The axes' ticks for the data shown: as many as labels fit, fewer in large type
        or a small chart."""
        (x0, x1, x_whole), (y0, y1, y_whole) = self._spans
        most_x = max(2, min(8, (self.width() - 80) // max(1, 2 * self._label_px)))
        most_y = max(2, min(8, (self.height() - 80) // max(1, 3 * self.fontMetrics().height())))
        y1 = max(y1, self._room_for_level_words(y0, y1))
        self.x_axis.set_span(x0, x1, most_x, x_whole)
        self.y_axis.set_span(y0, y1, most_y, y_whole)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        # ticks for the new size at once: the next redraw may be a while off, and the
        # old size's labels overlap (QtCharts cuts them to "...") in a smaller chart
        super().resizeEvent(event)
        self._show_titles()  # the x title's words as the width holds them, above or not
        self._show_spans()
        self._labels_in_sight()

    def points(self, name: str) -> int:
        return self.series[name].count()

    def legend_entries(self) -> list[tuple[str, list[tuple[str, str, QPen]]]]:
        """For the RunLegend, runs in order: (run label, [(series name, line name or "",
        pen) of each of its lines drawn])."""
        groups: dict[str, list[tuple[str, str, QPen]]] = {}
        for n in self._order:
            if n in self.series and self.series[n].count():
                run, line = self._parts[n]
                groups.setdefault(run, []).append((self.series[n].name(), line,
                                                   self.series[n].pen()))
        return list(groups.items())


def _whole(values: np.ndarray) -> bool:
    """Counts (erase counts, blocks): ticks on whole numbers only."""
    return bool(np.all(values == np.round(values)))
