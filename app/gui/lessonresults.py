"""What a lesson's run produced, drawn: its charts (every configuration its own labelled
line or bar, so a comparison never erases the first run) and, beside them, each prediction
about the run with the outcome on the same axis. The data come from lessons/charts.py;
nothing here computes a figure.
"""

from __future__ import annotations

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
from PySide6.QtCore import QMargins, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from lessons.charts import PredictionPicture, RunChart

from . import theme


def run_colour(i: int) -> str:
    """A configuration's colour: the theme's series without orange, which marks the
    student's prediction in the pictures above the chart."""
    s = theme.current().series  # blue, orange, bluish green, vermillion, sky blue, purple
    colours = [s[0], s[3], s[5], s[4], s[2], s[7]]  # no orange; green (right) comes late
    return colours[i % len(colours)]


def _font(scale: float = 1.0) -> QFont:
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

    def legend_html(self) -> str:
        """A legend that wraps: a colour square and the configuration's label each."""
        data = self.chart_data
        if data is None:
            return ""
        return " ".join(f'<span style="color:{run_colour(i)}">■</span>&nbsp;'
                        f"{s.label}&nbsp;&nbsp;" for i, s in enumerate(data.series))

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
        c.setTitle(f"{data.title} ({data.y_unit})" if data.y_unit else data.title)
        c.setBackgroundBrush(QColor(t.colour("chart_background")))
        fg = QColor(t.colour("text"))
        c.setTitleBrush(fg)
        c.setTitleFont(_font())
        c.legend().hide()  # a wrapping legend under the chart instead (long labels)
        y_axis = QValueAxis()
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
                pen = QPen(QColor(run_colour(i)))
                pen.setWidthF(t.line_width)
                line.setPen(pen)
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
                bar.setColor(QColor(run_colour(i)))
                bar.setBorderColor(QColor(t.colour("chart_background")))
                bars.append(bar)
            c.addSeries(bars)
            bars.attachAxis(x_axis)
            bars.attachAxis(y_axis)
            self.caption = " · ".join(data.categories)
        for axis in (x_axis, y_axis):
            axis.setLabelsColor(fg)
            axis.setTitleBrush(fg)
            axis.setLabelsFont(_font())
            axis.setTitleFont(_font())
            axis.setGridLineColor(QColor(t.colour("chart_grid")))


class PredictionView(QWidget):
    """A prediction on one axis: the choices as bands (chosen filled, right one outlined),
    or a guess as a diamond, and the outcome as a dot; or one bar per configuration."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.picture: PredictionPicture | None = None
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def show_picture(self, picture: PredictionPicture) -> None:
        self.picture = picture
        self.updateGeometry()
        self.update()

    def _title_height(self, width: int) -> int:
        """The question wraps (it is a sentence), as many lines as the width needs."""
        fm = QFontMetrics(_font())
        flags = int(Qt.AlignmentFlag.AlignLeft) | int(Qt.TextFlag.TextWordWrap)
        return fm.boundingRect(0, 0, max(50, width - 24), 10000, flags,
                               self.picture.title).height()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt name
        if self.picture is None:
            return 0
        line = QFontMetrics(_font()).height()  # the font paintEvent draws with
        if self.picture.kind in ("bars", "facts", "compare"):
            body = line * (0.4 + 2.6 * len(self.picture.bars)) + 12
        else:
            body = line * 2.7 + 24 + self._label_height(width)
        return int(self._title_height(width) + body)

    def _axis_text(self) -> str:
        p = self.picture
        if p.axis_label and p.unit:
            return f"{p.axis_label} ({p.unit})"
        return p.axis_label or p.unit

    def _label_height(self, width: int) -> int:
        """The axis's label under it wraps too (it names two figures of a ratio)."""
        text = self._axis_text()
        if not text:
            return 0
        fm = QFontMetrics(_font())
        flags = int(Qt.AlignmentFlag.AlignLeft) | int(Qt.TextFlag.TextWordWrap)
        return fm.boundingRect(0, 0, max(50, width - 24), 10000, flags, text).height()

    def sizeHint(self):  # noqa: N802 - Qt name
        from PySide6.QtCore import QSize

        return QSize(300, self.heightForWidth(300))

    def _x(self, value: float, lo: float, hi: float, left: float, width: float) -> float:
        p = self.picture
        if p.log_scale and lo > 0:
            value = max(value, lo)  # a band from 0 starts at the axis's left end
            f = (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))
        else:
            f = (value - lo) / (hi - lo) if hi > lo else 0.5
        return left + width * min(1.0, max(0.0, f))

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt name
        p = self.picture
        if p is None:
            return
        t = theme.current()
        qp = QPainter(self)
        qp.setRenderHint(QPainter.RenderHint.Antialiasing)
        qp.fillRect(self.rect(), QColor(t.colour("chart_background")))
        fg, muted = QColor(t.colour("text")), QColor(t.colour("muted_text"))
        chosen_c, right_c = QColor(t.series[1]), QColor(t.series[2])
        qp.setFont(_font())
        fm = qp.fontMetrics()
        line = fm.height()
        left, right = 12.0, float(self.width() - 12)
        qp.setPen(fg)
        title_h = self._title_height(self.width())
        qp.drawText(QRectF(left, 4, right - left, title_h),
                    int(Qt.AlignmentFlag.AlignLeft) | int(Qt.TextFlag.TextWordWrap), p.title)
        y = 8 + title_h + line * 0.2
        if p.kind in ("bars", "facts", "compare"):
            self._paint_bars(qp, y, left, right, fg, muted, chosen_c, right_c)
        else:
            self._paint_axis(qp, y, left, right, fg, muted, chosen_c, right_c)
        qp.end()

    def _paint_axis(self, qp, y, left, right, fg, muted, chosen_c, right_c) -> None:
        p = self.picture
        fm = qp.fontMetrics()
        line = fm.height()
        lo, hi = p.axis_range()
        width = right - left
        band_y = y + line * 0.2
        for b in p.bands:
            x0 = self._x(max(b.low, lo), lo, hi, left, width)
            x1 = self._x(min(b.high, hi), lo, hi, left, width)
            rect = QRectF(x0, band_y, max(2.0, x1 - x0), line)
            fill = QColor(chosen_c if b.chosen else muted)
            fill.setAlpha(200 if b.chosen else 50)
            qp.fillRect(rect, fill)
            if b.right:
                pen = QPen(right_c)
                pen.setWidthF(3)
                qp.setPen(pen)
                qp.drawRect(rect)
        axis_y = band_y + line * 1.2
        qp.setPen(QPen(fg, 1))
        qp.drawLine(QPointF(left, axis_y), QPointF(right, axis_y))
        for value in _ticks(lo, hi, p.log_scale):
            x = self._x(value, lo, hi, left, width)
            qp.drawLine(QPointF(x, axis_y), QPointF(x, axis_y + 4))
            text = f"{value / 1000:g} k" if value >= 1000 else f"{value:g}"
            qp.drawText(QPointF(x - fm.horizontalAdvance(text) / 2, axis_y + 4 + line * 0.9),
                        text)
        text = self._axis_text()
        if text:
            qp.setPen(muted)
            qp.drawText(QRectF(left, axis_y + 6 + line, right - left,
                               self._label_height(self.width()) + 2),
                        int(Qt.AlignmentFlag.AlignLeft) | int(Qt.TextFlag.TextWordWrap), text)
            qp.setPen(fg)
        if math.isfinite(p.guess):
            self._mark(qp, self._x(p.guess, lo, hi, left, width), band_y + line / 2, chosen_c,
                       "diamond")
        if math.isfinite(p.measured):
            self._mark(qp, self._x(p.measured, lo, hi, left, width), band_y + line / 2, fg,
                       "dot")

    def _paint_bars(self, qp, y, left, right, fg, muted, chosen_c, right_c) -> None:
        """One row per choice: its label on a line of its own (it may be long), then its
        bar and value; the chosen one in the prediction colour, the right one outlined."""
        p = self.picture
        fm = qp.fontMetrics()
        line = fm.height()
        lo, hi = p.axis_range()
        compare = p.kind == "compare"
        for i, b in enumerate(p.bars):
            row = y + i * line * 2.6
            qp.setPen(chosen_c if b.chosen else fg)
            if compare:  # documented in the text colour, simulated in the first series colour
                chosen_c = QColor(theme.current().series[0]) if i else fg
            mine = " (your choice)" if b.chosen else ""
            text = fm.elidedText(b.label + mine, Qt.TextElideMode.ElideRight,
                                 int(right - left - 8))
            qp.drawText(QRectF(left + 4, row, right - left - 8, line),
                        Qt.AlignmentFlag.AlignLeft, text)
            bar_y = row + line * 1.1
            if math.isfinite(b.value):
                value = f"{b.value:.3g} {p.unit}".strip()
                room = right - left - 16 - fm.horizontalAdvance(value)
                w = self._x(b.value, lo, hi, 0.0, max(10.0, room))
                fill = QColor(chosen_c if b.chosen or compare else muted)
                fill.setAlpha(220 if b.chosen or compare else 120)
                qp.fillRect(QRectF(left + 4, bar_y, max(2.0, w), line * 0.9), fill)
                qp.setPen(fg)
                qp.drawText(QPointF(left + 10 + w, bar_y + line * 0.75), value)
            if b.right:
                pen = QPen(right_c)
                pen.setWidthF(3)
                qp.setPen(pen)
                qp.drawRect(QRectF(left + 1, row - 2, right - left - 2, line * 2.2))

    @staticmethod
    def _mark(qp, x: float, y: float, colour: QColor, shape: str) -> None:
        qp.setPen(QPen(QColor(theme.current().colour("chart_background")), 1.5))
        qp.setBrush(colour)
        r = 7.0
        if shape == "dot":
            qp.drawEllipse(QPointF(x, y), r, r)
        else:
            qp.drawPolygon([QPointF(x, y - r - 2), QPointF(x + r + 2, y),
                            QPointF(x, y + r + 2), QPointF(x - r - 2, y)])
        qp.setBrush(Qt.BrushStyle.NoBrush)


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    """A few round values between lo and hi."""
    if log and lo > 0:
        out, v = [], 10 ** math.floor(math.log10(lo))
        steps = (1, 2, 5) if hi / lo <= 1000 else (1,)  # many decades: one tick each
        while v <= hi:
            for m in steps:
                if lo <= v * m <= hi:
                    out.append(v * m)
            v *= 10
        return out
    span = hi - lo
    if span <= 0:
        return [lo]
    step = 10 ** math.floor(math.log10(span / 5))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step) + 1)]


def _bold_label(text: str) -> QLabel:
    label = QLabel(text)
    f = QFont(label.font())
    f.setBold(True)
    label.setFont(f)
    return label


class LessonResults(QScrollArea):
    """The lesson's tab beside the workbench charts: the run's charts, then each
    prediction beside its outcome, with a legend of the marks."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self.setWidget(self._inner)
        self.charts: list[RunChartView] = []
        self.predictions: list[PredictionView] = []
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setObjectName("note")

    def clear(self) -> None:
        while self._layout.count():
            item = self._layout.takeAt(0)
            w = item.widget()
            if w is not None and w is not self.note:
                w.hide()  # at once: deleteLater alone leaves it drawn until the next loop
                w.deleteLater()
        self.charts, self.predictions = [], []

    def show_states(self, parts: list[tuple[str, str]]) -> None:
        """Blocks of monospaced text with a heading each (a quiz's two drive states): here,
        where there is width for them, rather than in the narrow lesson text."""
        self.clear()
        for heading, text in parts:
            self._layout.addWidget(_bold_label(heading))
            body = QLabel(text)
            body.setTextFormat(Qt.TextFormat.PlainText)
            font = QFont("DejaVu Sans Mono")
            font.setStyleHint(QFont.StyleHint.Monospace)
            font.setPointSizeF(theme.current().font_pt)
            body.setFont(font)
            body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._layout.addWidget(body)
        self.note.setText("")
        self._layout.addWidget(self.note)
        self._layout.addStretch(1)

    def show_results(self, charts: list[RunChart], pictures: list[PredictionPicture],
                     note: str = "") -> None:
        self.clear()
        # the prediction first: the guess beside the outcome is the point of the lesson
        if any(p.kind == "compare" for p in pictures):
            key = QLabel("Each figure as the article (or the published model) gives it, and "
                         "as the simulation gives it.")
            key.setWordWrap(True)
            key.setObjectName("note")
            self._layout.addWidget(key)
        elif pictures:
            key = QLabel("Your prediction in orange (the band you chose, or a diamond for "
                         "your estimate); the simulated drive's result is the dot; the right "
                         "answer is outlined in green.")
            key.setWordWrap(True)
            key.setObjectName("note")
            self._layout.addWidget(key)
        for picture in pictures:
            view = PredictionView()
            view.show_picture(picture)
            self._layout.addWidget(view)
            self.predictions.append(view)
        for data in charts:
            view = RunChartView()
            view.show_chart(data)
            view.setMinimumHeight(260)
            self._layout.addWidget(view)
            self.charts.append(view)
            legend = QLabel(view.legend_html())
            legend.setWordWrap(True)
            self._layout.addWidget(legend)
            if view.caption:
                cap = QLabel("Steps: " + view.caption)
                cap.setWordWrap(True)
                cap.setObjectName("note")
                self._layout.addWidget(cap)
        self.note.setText(note)
        self._layout.addWidget(self.note)
        self._layout.addStretch(1)
