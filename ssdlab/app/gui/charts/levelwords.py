"""Where the words on a chart's analytic levels stand, in pixels of the plot: whole and
inside it, and clear of each other. QtCharts centres a point label on its point and clips
it at the plot's ends: centred at a fixed share of the x span, a narrow chart (1024 x 768
in presentation type) showed "reedy model 2.71 (per window", and A's and B's words, pushed
to the same end, were written over each other. They also keep clear of the curves drawn:
B's level (1.99) sits where B's own per-window curve runs, and its words written over the
curve at the x wanted were grey on purple and green dashes (A | B at 1024 x 768); they move
along their level to where no line crosses them, nearest the x wanted."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCharts import QChart, QXYSeries
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFontMetrics

GAP_PX = 8  # between the words and the plot's ends, and between two levels' words
CLEAR_PX = 2  # between the words and a curve
STEPS = 24  # places tried along a level, each side of the x wanted, for words clear of curves
LABEL = QXYSeries.PointConfiguration.LabelFormat

Curve = tuple[QXYSeries, np.ndarray, np.ndarray]  # a line drawn: its series, x and y data


def shorter(words: str) -> list[str]:
    """The words, then shorter forms for a narrow plot: without "(per window)" first,
    then only whose level it is and its figure ("A: greedy model 7.40 (per window)" ->
    "A: greedy model 7.40" -> "A: 7.40")."""
    out = [words]
    short = words.replace(" (per window)", "")
    if short != words:
        out.append(short)
    tag, _, rest = short.rpartition(": ")
    least = (f"{tag}: " if tag else "") + rest.split(" ")[-1]
    if least not in out:
        out.append(least)
    return out


def place(chart: QChart, levels: list[tuple[QXYSeries, str, float]],
          curves: Sequence[Curve] = ()) -> bool:
    """Set each level's shown words and move its middle point (the one labelled) so they
    fit. levels: (series of three points, the full words, the x wanted for them in data
    units); curves: the lines drawn, which the words keep clear of where they can (a level
    of its own words is no obstacle to them). Returns whether anything changed (the view
    then repaints all of itself)."""
    plot = chart.plotArea()
    left, right = plot.left() + GAP_PX, plot.right() - GAP_PX
    if right <= left:
        return False
    placed: list[QRectF] = []
    changed = False
    for series, words, want_x in levels:
        fm = QFontMetrics(series.pointLabelsFont())
        mid = series.at(1)
        at = chart.mapToPosition(QPointF(want_x, mid.y()), series)
        lines = [_pixels(chart, c) for c in curves if c[0] is not series]
        # clear of every curve where they can be, else crossing as few as they can (a
        # short chart in presentation type may leave no room between the lines)
        box, text, fewest = None, words, len(lines) + 1
        for form in shorter(words):
            found = _box(fm.horizontalAdvance(form), fm.height(), at, left, right, placed,
                         lines)
            if found is not None and found[1] < fewest:
                (box, fewest), text = found, form
                if not fewest:
                    break
        if box is None:  # not even the shortest fits clear of the others: the shortest,
            # centred in the plot, whole at least
            text = shorter(words)[-1]
            width = min(fm.horizontalAdvance(text), right - left)
            box = QRectF((left + right - width) / 2, at.y() - fm.height(), width, fm.height())
        placed.append(box)
        x = chart.mapToValue(QPointF(box.center().x(), at.y()), series).x()
        if series.pointConfiguration(1).get(LABEL) != text:
            series.setPointConfiguration(1, LABEL, text)
            changed = True
        if abs(x - mid.x()) > 1e-12 * max(1.0, abs(x)):
            series.replace(1, x, mid.y())
            changed = True
    return changed


def _box(width: float, height: float, at: QPointF, left: float, right: float,
         placed: list[QRectF], lines: Sequence[tuple[np.ndarray, np.ndarray]] = ()
         ) -> tuple[QRectF, int] | None:
    """Where words `width` px wide fit, written above the point `at`, and how many of the
    lines cross them there: as near its x as the plot's ends allow, beside words already
    placed that they would cross, and (lines given) along the level to where the fewest
    lines cross them; None if they fit nowhere."""
    if width > right - left:
        return None
    centre = min(max(at.x(), left + width / 2), right - width / 2)
    tries = [centre]
    for other in placed:
        tries += [other.right() + GAP_PX + width / 2, other.left() - GAP_PX - width / 2]
    if lines:
        span = (right - left - width) / STEPS
        tries += [left + width / 2 + i * span for i in range(STEPS + 1)]
    # every place tried is at the same height: only the lines' pieces near it can cross
    near = [s for s in (_segments(px, py, at.y() - height, at.y()) for px, py in lines)
            if s[0].size]
    best = None
    for cx in sorted(tries, key=lambda c: abs(c - centre)):
        box = QRectF(cx - width / 2, at.y() - height, width, height)
        if box.left() < left or box.right() > right or any(box.intersects(o) for o in placed):
            continue
        n = sum(_crosses(box, *s) for s in near)
        if best is None or n < best[1]:
            best = (box, n)
            if not n:
                break
    return best


def _pixels(chart: QChart, curve: Curve) -> tuple[np.ndarray, np.ndarray]:
    """A curve's points in pixels of the chart (its axes are linear: two points map it)."""
    series, x, y = curve
    if not series.isVisible() or x.size == 0:
        return np.empty(0), np.empty(0)
    o = chart.mapToPosition(QPointF(0.0, 0.0), series)
    one = chart.mapToPosition(QPointF(1.0, 1.0), series)
    return o.x() + x * (one.x() - o.x()), o.y() + y * (one.y() - o.y())


def _segments(px: np.ndarray, py: np.ndarray, top: float, bottom: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The polyline's segments (x0, x1, y0, y1) that reach the rows top..bottom (CLEAR_PX
    round them); a lone point is a segment of no length."""
    if px.size < 2:
        x0 = x1 = px
        y0 = y1 = py
    else:
        x0, x1, y0, y1 = px[:-1], px[1:], py[:-1], py[1:]
    keep = (np.maximum(y0, y1) >= top - CLEAR_PX) & (np.minimum(y0, y1) <= bottom + CLEAR_PX)
    return x0[keep], x1[keep], y0[keep], y1[keep]


def _crosses(box: QRectF, x0: np.ndarray, x1: np.ndarray, y0: np.ndarray, y1: np.ndarray
             ) -> bool:
    """Whether any of the segments (x0, x1, y0, y1) passes through box (CLEAR_PX round it)."""
    if x0.size == 0:
        return False
    left, right = box.left() - CLEAR_PX, box.right() + CLEAR_PX
    top, bottom = box.top() - CLEAR_PX, box.bottom() + CLEAR_PX
    lo, hi = np.minimum(x0, x1), np.maximum(x0, x1)
    seg = (hi >= left) & (lo <= right)
    if not seg.any():
        return False
    x0, x1, y0, y1 = x0[seg], x1[seg], y0[seg], y1[seg]
    dx = np.where(x1 == x0, 1.0, x1 - x0)
    # each segment's y where it enters and leaves the box's columns (a vertical one: its ends)
    ya = np.where(x1 == x0, y0, y0 + (np.clip(left, np.minimum(x0, x1), np.maximum(x0, x1))
                                      - x0) * (y1 - y0) / dx)
    yb = np.where(x1 == x0, y1, y0 + (np.clip(right, np.minimum(x0, x1), np.maximum(x0, x1))
                                      - x0) * (y1 - y0) / dx)
    return bool(np.any((np.maximum(ya, yb) >= top) & (np.minimum(ya, yb) <= bottom)))
