"""Where the words on a chart's analytic levels stand, in pixels of the plot: whole and
inside it, and clear of each other. QtCharts centres a point label on its point and clips
it at the plot's ends: centred at a fixed share of the x span, a narrow chart (1024 x 768
in presentation type) showed "reedy model 2.71 (per window", and A's and B's words, pushed
to the same end, were written over each other."""

from __future__ import annotations

from PySide6.QtCharts import QChart, QXYSeries
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFontMetrics

GAP_PX = 8  # between the words and the plot's ends, and between two levels' words
LABEL = QXYSeries.PointConfiguration.LabelFormat


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


def place(chart: QChart, levels: list[tuple[QXYSeries, str, float]]) -> bool:
    """Set each level's shown words and move its middle point (the one labelled) so they
    fit. levels: (series of three points, the full words, the x wanted for them in data
    units). Returns whether anything changed (the view then repaints all of itself)."""
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
        box = None
        for text in shorter(words):
            box = _box(fm.horizontalAdvance(text), fm.height(), at, left, right, placed)
            if box is not None:
                break
        if box is None:  # not even the shortest fits clear of the others: the shortest,
            # centred in the plot, whole at least
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
         placed: list[QRectF]) -> QRectF | None:
    """Where words `width` px wide fit, written above the point `at`: as near its x as the
    plot's ends allow, beside words already placed that they would cross; None if they
    fit nowhere."""
    if width > right - left:
        return None
    centre = min(max(at.x(), left + width / 2), right - width / 2)
    tries = [centre]
    for other in placed:
        tries += [other.right() + GAP_PX + width / 2, other.left() - GAP_PX - width / 2]
    for cx in sorted(tries, key=lambda c: abs(c - centre)):
        box = QRectF(cx - width / 2, at.y() - height, width, height)
        if box.left() >= left and box.right() <= right and \
                not any(box.intersects(o) for o in placed):
            return box
    return None
