"""Chart axes with ticks a reader can take in at a glance: steps of 1, 2 or 5 times a power
of ten, whole numbers for counts (no "2.5 erases"), and numbers as people write them
("30 k", "1,500", "0.25"), never "3e+04".

`ticks` and `tick_text` are plain functions (tested without a display); `TickAxis` puts
them on a QtCharts category axis, whose labels sit on the tick values.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCharts import QCategoryAxis
from PySide6.QtGui import QFontMetrics


def nice_step(span: float, most: int) -> float:
    """The smallest step of 1, 2 or 5 x 10^k that covers span in at most `most` steps."""
    raw = span / max(1, most)
    power = 10.0 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * power >= raw * (1 - 1e-9):
            return m * power
    return 10.0 * power


def ticks(lo: float, hi: float, most: int = 6, integer: bool = False
          ) -> tuple[float, float, np.ndarray]:
    """(axis start, axis end, tick values) for data from lo to hi: at most `most` steps,
    the ends on ticks; integer: steps of whole numbers only (counts)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0.0, 1.0
    if hi <= lo:
        hi = lo + 1.0
    step = nice_step(hi - lo, most)
    if integer:
        step = max(1.0, round(step))
    start = math.floor(lo / step + 1e-9) * step
    end = math.ceil(hi / step - 1e-9) * step
    if end <= start:
        end = start + step
    n = int(round((end - start) / step))
    return start, end, start + step * np.arange(n + 1)


def tick_text(value: float, step: float, top: float) -> str:
    """value as a tick label on an axis of this step whose largest magnitude is top:
    thousands as "k" and millions as "M" from 10,000 up, else with thousands commas and
    as many decimals as the step needs."""
    scale, suffix = 1.0, ""
    if top >= 1e7:
        scale, suffix = 1e6, " M"
    elif top >= 1e4:
        scale, suffix = 1e3, " k"
    s = step / scale
    decimals = max(0, -math.floor(math.log10(s) + 1e-9)) if s > 0 else 0
    v = value / scale
    if abs(v) < s / 2:
        return "0"
    return f"{v:,.{decimals}f}{suffix}"


NBSP = "&nbsp;"  # labels are rich text: a plain leading space would be dropped


class TickAxis(QCategoryAxis):
    """A value axis with the labels of `ticks` / `tick_text`. vertical: a y axis, whose
    labels are padded to the width of "..." at least: QtCharts leaves its title the axis's
    width less that of "...", so under labels as narrow as "0, 2, 4" it cut the title to
    "write amplification..." at any window size."""

    def __init__(self, vertical: bool = False):
        super().__init__()
        self.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
        self.vertical = vertical
        self.shown: tuple = ()  # (start, end, labels) on the axis now

    def set_span(self, lo: float, hi: float, most: int, integer: bool = False) -> None:
        start, end, values = ticks(lo, hi, most, integer)
        step = values[1] - values[0] if values.size > 1 else 1.0
        top = max(abs(start), abs(end))
        labels = tuple(tick_text(v, step, top) for v in values)
        pad = self._padding(labels)
        if (start, end, labels, pad) == self.shown:
            return  # a redraw a few times a second must not rebuild the labels
        for label in self.categoriesLabels():
            self.remove(label)
        self.setStartValue(start)
        for v, label in zip(values, labels, strict=True):
            self.append(pad + label, float(v))
        self.setRange(start, end)
        self.shown = (start, end, labels, pad)

    def _padding(self, labels: tuple[str, ...]) -> str:
        """Non-breaking spaces before each label of a y axis whose labels are narrower
        than "..." (nothing on an x axis, where labels sit centred on their ticks)."""
        if not self.vertical:
            return ""
        fm = QFontMetrics(self.labelsFont())
        short = fm.horizontalAdvance("...") - max(fm.horizontalAdvance(t) for t in labels)
        return NBSP * max(0, -(-short // max(1, fm.horizontalAdvance(" "))))

    def labels(self) -> list[str]:
        return [t.replace(NBSP, "") for t in self.categoriesLabels()]
