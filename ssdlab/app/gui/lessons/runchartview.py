"""One chart of a lesson's run (RunChartView): every configuration its own labelled line or
bar, in a colour of its own (never the prediction's orange), so a comparison never erases
the first run. The chart comes from ssdlab/lessons/charts.py; nothing here computes a figure.
"""

from __future__ import annotations

import html
import math

from PySide6.QtCharts import (
    QBarCategoryAxis,
    QBarSeries,
    QBarSet,
    QChart,
    QChartView,
    QLineSeries,
    QValueAxis,
)
from PySide6.QtCore import QMargins, QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter

from ssdlab.lessons.charts import RunChart

from ..appearance import theme
from . import seriesmarks


def run_colour(i: int) -> str:
    """A configuration's colour: the theme's series without orange, which marks the
    student's prediction in the pictures above the chart."""
    s = theme.current().series  # blue, orange, bluish green, vermillion, sky blue, purple
    colours = [s[0], s[3], s[5], s[4], s[2], s[7]]  # no orange; green (right) comes late
    return colours[i % len(colours)]


# the y axis's words where the plot is too short for them upright (the glossary's alias);
# the chart's title above says them in full
SHORT_Y = {"write amplification": "WA"}


def results_font(scale: float = 1.0) -> QFont:
    f = QFont()
    f.setPointSizeF(theme.current().font_pt * scale)
    return f


class RunChartView(QChartView):
    """One RunChart: lines (x shared) or grouped bars (one group per step)."""

    def __init__(self, parent=None):
        self._chart = QChart()
        super().__init__(self._chart, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setMinimumSize(200, 200)
        self._chart.setMargins(QMargins(2, 2, 2, 2))
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.chart_data: RunChart | None = None
        self.caption = ""
        self._title = ""
        self.y_axis: QValueAxis | None = None
        self._chart.plotAreaChanged.connect(lambda _area: self._fit_y_title())

    def legend_html(self) -> str:
        """A legend that wraps: each configuration's sample (its line, dash and marker, or
        its hatched bar: seriesmarks.py) and its label."""
        return " ".join(self.legend_entries())

    def legend_entries(self) -> list[str]:
        """The legend's entries, each its sample and its label as one piece of rich text:
        shown apart (lessonresults.py), a wrapping line never leaves a sample at one line's
        end with its label on the next, where it read as that label's (lesson 18 at
        1366x768); a label too long for the panel wraps inside its own entry, so it is never
        read as two entries ("7 % of / physical" once was)."""
        data = self.chart_data
        if data is None:
            return []
        px = QFontMetrics(results_font()).ascent()
        bars = data.kind != "lines"
        width = theme.current().line_width
        return [f"{seriesmarks.legend_sample(i, run_colour(i), px, bars, width)}"
                f"&nbsp;{html.escape(s.label)}&nbsp;&nbsp;"
                for i, s in enumerate(data.series)]

    def labels(self) -> list[str]:
        """The legend's labels (for tests and screenshots)."""
        out = []
        for s in self._chart.series():
            if isinstance(s, QBarSeries):
                out += [b.label() for b in s.barSets()]
            else:
                out.append(s.name())
        return out

    def show_chart(self, data: RunChart) -> None:
        self.chart_data = data
        c, t = self._chart, theme.current()
        c.removeAllSeries()
        for axis in c.axes():
            c.removeAxis(axis)
        # the unit goes in the title: a short chart has no room for a two-line axis title
        self._title = f"{data.title} ({data.y_unit})" if data.y_unit else data.title
        c.setTitle(html.escape(self._title))
        c.setBackgroundBrush(QColor(t.colour("chart_background")))
        fg = QColor(t.colour("text"))
        c.setTitleBrush(fg)
        c.setTitleFont(results_font())
        c.legend().hide()  # a wrapping legend under the chart instead (long labels)
        y_axis = self.y_axis = QValueAxis()
        y_axis.setTitleText(data.y_label)
        y_axis.setLabelFormat("%.3g")
        values = [v for s in data.series for v in s.y if math.isfinite(v)]
        top = max(values, default=1.0)
        y_axis.setRange(0.0, top * 1.1 if top > 0 else 1.0)
        y_axis.applyNiceNumbers()
        y_axis.setLabelFormat("%.0f" if top >= 100 else "%.3g")  # never "1.5e+03"
        if data.kind == "lines":
            x_axis = QValueAxis()
            x_axis.setTitleText(f"{data.x_label} ({data.x_unit})" if data.x_unit
                                else data.x_label)
            x_axis.setLabelFormat("%.2g")
            x_axis.setRange(0.0, max(data.x, default=1.0))
            c.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
            c.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
            for i, s in enumerate(data.series):
                line = QLineSeries()
                line.setName(s.label)
                for x, y in zip(s.x or data.x, s.y, strict=False):
                    if math.isfinite(y):
                        line.append(QPointF(x, y))
                # its own dash and marker as well as its colour (seriesmarks.py)
                line.setPen(seriesmarks.line_pen(i, run_colour(i), t.line_width))
                marker_px = max(8, int(2.5 * t.line_width) + 6)
                line.setLightMarker(seriesmarks.marker_image(i, run_colour(i), marker_px))
                line.setMarkerSize(marker_px)
                line.setPointsVisible(True)
                c.addSeries(line)
                line.attachAxis(x_axis)
                line.attachAxis(y_axis)
            self.caption = ""
        else:
            # numbers under the bars, names in a caption that wraps: a step's name ("rm -rf
            # of the tree") does not fit under a bar in a narrow panel
            cats = [str(i + 1) for i in range(len(data.categories))]
            x_axis = QBarCategoryAxis()
            x_axis.append(cats)
            many = len(cats) > 12  # numbers would be cut to "..."; the caption names them
            x_axis.setLabelsVisible(not many)
            x_axis.setTitleText("steps, left to right" if many else "step")
            c.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
            c.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
            bars = QBarSeries()
            for i, s in enumerate(data.series):
                bar = QBarSet(s.label)
                bar.append([v if math.isfinite(v) else 0.0 for v in s.y]
                           + [0.0] * (len(cats) - len(s.y)))
                bar.setBrush(seriesmarks.bar_brush(i, run_colour(i)))
                # a hatched bar outlined in its colour; a solid one in the background's,
                # apart from the bar beside it
                bar.setBorderColor(QColor(run_colour(i) if i % len(seriesmarks.HATCHES)
                                          else t.colour("chart_background")))
                bars.append(bar)
            c.addSeries(bars)
            bars.attachAxis(x_axis)
            bars.attachAxis(y_axis)
            self.caption = " · ".join(data.categories)
        for axis in (x_axis, y_axis):
            axis.setLabelsColor(fg)
            axis.setTitleBrush(fg)
            axis.setLabelsFont(results_font())
            axis.setTitleFont(results_font())
            axis.setGridLineColor(QColor(t.colour("chart_grid")))
        self._fit_title()
        self._fit_y_title()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._fit_title()

    def _fit_title(self) -> None:
        """The chart's title on as many lines as its width needs: QtCharts cut it to
        "... measuring (simulate..." in a 600 px results column at 18 pt."""
        if not self._title:
            return
        fm = QFontMetrics(self._chart.titleFont())
        room = self.width() - 40  # the chart's margins and the title's own padding
        lines: list[str] = []
        for word in self._title.split(" "):
            if lines and fm.horizontalAdvance(f"{lines[-1]} {word}") <= room:
                lines[-1] += f" {word}"
            else:
                lines.append(word)
        title = "<br>".join(html.escape(line) for line in lines)
        if title != self._chart.title():
            self._chart.setTitle(title)

    def y_titles(self) -> list[str]:
        """The y axis's words, longest first: its label, then a short form if it has one."""
        label = self.chart_data.y_label if self.chart_data else ""
        return [label] + ([SHORT_Y[label]] if label in SHORT_Y else [])

    def _fit_y_title(self) -> None:
        """The longest of y_titles that the plot is tall enough to show upright: QtCharts
        cut "write amplification" to "write a..." where it was not (18 pt at 1024 x 768).
        The plot's height does not depend on the title's length (it is one line wide
        either way), so choosing cannot make it choose again."""
        if self.y_axis is None:
            return
        room = int(self._chart.plotArea().height())
        if room <= 0:
            return
        fm = QFontMetrics(self.y_axis.titleFont())
        titles = self.y_titles()
        # QtCharts gives the title the plot's height less a tick label's and its padding
        spare = QFontMetrics(self.y_axis.labelsFont()).height() + 8
        title = next((t for t in titles if fm.horizontalAdvance(t) + spare <= room),
                     titles[-1])
        if title != self.y_axis.titleText():
            self.y_axis.setTitleText(title)
