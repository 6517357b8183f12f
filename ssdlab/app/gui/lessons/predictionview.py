"""A prediction drawn beside the outcome of the run it is about (PredictionView): the
choices as bands on one axis (linear or log, with readable ticks), or the estimate, or one
bar per configuration for "which is larger", the student's answer and the drive's outcome
marked in colours and shapes that survive grey-scale and colour blindness: the right
answer outlined solid and labelled, the chosen one outlined dashed (ssdlab/app/palette.py). The
picture comes from ssdlab/lessons/charts.py; nothing here computes a figure.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ssdlab.app.palette import ANSWER_DASHES, CHOSEN_ANSWER_LABEL, RIGHT_ANSWER_LABEL
from ssdlab.lessons.charts import PredictionPicture

from ..appearance import theme
from .runchartview import results_font


class PredictionView(QWidget):
    """A prediction on one axis: the choices as bands (chosen filled, right one outlined),
    or a guess as a diamond, and the outcome as a dot; or one bar per configuration."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.picture: PredictionPicture | None = None
        # its height for the width it has (the layout asks); Fixed made its height at
        # 300 px wide the least, 145 px taller than at the results' width in 18 pt type,
        # and the results scrolled by that much
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def show_picture(self, picture: PredictionPicture) -> None:
        self.picture = picture
        self.updateGeometry()
        self.update()

    def _title_height(self, width: int) -> int:
        """The question wraps (it is a sentence), as many lines as the width needs."""
        fm = QFontMetrics(results_font())
        flags = int(Qt.AlignmentFlag.AlignLeft) | int(Qt.TextFlag.TextWordWrap)
        return fm.boundingRect(0, 0, max(50, width - 24), 10000, flags,
                               self.picture.title).height()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt name
        if self.picture is None:
            return 0
        line = QFontMetrics(results_font()).height()  # the font paintEvent draws with
        if self.picture.kind in ("bars", "facts", "compare"):
            body = line * (0.4 + 2.6 * len(self.picture.bars)) + 12
        else:
            rows = 1 + self._key_places(width)[-1][1]
            key = line * 1.2 * rows if self.picture.bands else 0  # the outlines' key
            body = line * 2.7 + 24 + self._label_height(width) + key
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
        fm = QFontMetrics(results_font())
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
        qp.setFont(results_font())
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
            for i, mark in enumerate(answer_marks(b.chosen, b.right)):
                qp.setPen(answer_pen(right_c if mark == "right" else fg, mark))
                qp.drawRect(rect.adjusted(4 * i, 4 * i, -4 * i, -4 * i))
            if b.right and rect.width() > fm.horizontalAdvance("\N{CHECK MARK}") + 8:
                qp.setPen(fg)
                qp.drawText(rect, Qt.AlignmentFlag.AlignCenter, "\N{CHECK MARK}")
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
        if p.bands:
            key_y = axis_y + 8 + line + self._label_height(self.width())
            self._paint_key(qp, left, key_y, line, fg, right_c)
        if math.isfinite(p.guess):
            self._mark(qp, self._x(p.guess, lo, hi, left, width), band_y + line / 2, chosen_c,
                       "diamond")
        if math.isfinite(p.measured):
            self._mark(qp, self._x(p.measured, lo, hi, left, width), band_y + line / 2, fg,
                       "dot")

    def _key_places(self, width: int) -> list[tuple[float, int]]:
        """(x, line) of each key entry: side by side, or one a line where the view is
        narrow (a lesson beside the map in presentation type)."""
        fm = QFontMetrics(results_font())
        line = fm.height()
        places, x, row = [], 12.0, 0
        for label in (RIGHT_ANSWER_LABEL, CHOSEN_ANSWER_LABEL):
            need = 1.6 * line + 8 + fm.horizontalAdvance(label)
            if places and x + need > width - 12:
                x, row = 12.0, row + 1
            places.append((x, row))
            x += need + line
        return places

    def _paint_key(self, qp, left: float, y: float, line: float, fg, right_c) -> None:
        """Under the axis, what the outlines mean: a sample of each, then its label."""
        fm = qp.fontMetrics()
        entries = (("right", RIGHT_ANSWER_LABEL, right_c), ("chosen", CHOSEN_ANSWER_LABEL, fg))
        for (mark, label, colour), (x, row) in zip(entries, self._key_places(self.width()),
                                                   strict=True):
            top = y + row * line * 1.2
            qp.setPen(answer_pen(colour, mark))
            qp.drawRect(QRectF(x + 2, top + 2, 1.6 * line, line - 4))
            qp.setPen(fg)
            qp.drawText(QPointF(x + 1.6 * line + 8, top + fm.ascent()), label)

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
            # the chosen answer's words in a darker orange: 4.5:1 on the page (text_pen)
            qp.setPen(text_pen(b.chosen, fg))
            if compare:  # documented in the text colour, simulated in the first series colour
                chosen_c = QColor(theme.current().series[0]) if i else fg
            marks = answer_marks(b.chosen and not compare, b.right)
            tail = answer_tail(marks)
            # the label gives way, never the words that say which answer this is
            text = fm.elidedText(b.label, Qt.TextElideMode.ElideRight,
                                 int(right - left - 8 - fm.horizontalAdvance(tail))) + tail
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
            for k, mark in enumerate(marks):
                qp.setPen(answer_pen(right_c if mark == "right" else fg, mark))
                qp.drawRect(QRectF(left + 1 + 4 * k, row - 2 + 4 * k, right - left - 2 - 8 * k,
                                   line * 2.2 - 8 * k))

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


def text_pen(chosen: bool, fg: QColor) -> QColor:
    """A choice's label: the chosen one in the theme's "chosen_text" (Okabe-Ito's orange
    itself is 2.2:1 on the light page), the others in the text colour."""
    return QColor(theme.current().colour("chosen_text")) if chosen else fg


def answer_marks(chosen: bool, right: bool) -> list[str]:
    """What marks an answer besides its colour, in the order drawn: "right" (a solid
    outline and the label RIGHT_ANSWER_LABEL), "chosen" (a dashed outline, and the label
    CHOSEN_ANSWER_LABEL); a hue alone turns grey to a colour-blind viewer."""
    return [name for name, on in (("right", right), ("chosen", chosen)) if on]


def answer_tail(marks: list[str]) -> str:
    """The words after an answer's label that say what its outline says."""
    said = {"right": f"  {RIGHT_ANSWER_LABEL}", "chosen": f"  ({CHOSEN_ANSWER_LABEL})"}
    return "".join(said[m] for m in marks)


def answer_pen(colour: QColor, mark: str, width: float = 3.0) -> QPen:
    """The outline of a right (solid) or chosen (dashed) answer."""
    pen = QPen(colour)
    pen.setWidthF(width)
    pattern = ANSWER_DASHES[mark]
    if pattern is not None:
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        pen.setDashPattern(list(pattern))
    return pen


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
