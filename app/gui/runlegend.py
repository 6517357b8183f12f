"""The charts' legend when runs are overlaid (two drives, a reference): one entry per line,
a short stroke drawn with the line's own pen (colour, dash, width) beside its label
("A: discard", "B: fstrim every 10 min, analytic", "ref: spare 7 %"). Entries flow and wrap,
so long labels are never cut to "A: spar..." as QtCharts' own one-row legend cuts them."""

from __future__ import annotations

from PySide6.QtCore import QLineF, Qt
from PySide6.QtGui import QPainter, QPen, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from .flowlayout import FlowLayout

STROKE_PX = (36, 14)  # the stroke's box: long enough to show a dash pattern


def stroke(pen: QPen, width: int = STROKE_PX[0], height: int = STROKE_PX[1]) -> QPixmap:
    pm = QPixmap(width, height)
    pm.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pm)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(pen)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    painter.setPen(pen)
    painter.drawLine(QLineF(0, height / 2, width, height / 2))
    painter.end()
    return pm


class RunLegend(QWidget):
    """Label and stroke per line; `set_entries` rebuilds only when they change."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setToolTip("The lines of the chart: A solid, B dashed, a kept reference faded.")
        self._flow = FlowLayout(self, spacing=14)
        self._shown: list[tuple[str, str, int, float]] = []
        self.labels: list[str] = []

    def set_entries(self, entries: list[tuple[str, QPen]]) -> None:
        key = [(text, pen.color().name(), int(pen.style().value), pen.widthF())
               for text, pen in entries]
        if key == self._shown:
            return
        self._shown = key
        while self._flow.count():
            widget = self._flow.takeAt(0).widget()
            if widget is not None:  # hidden, never reparented: a parentless one is a window
                widget.hide()
                widget.deleteLater()
        for text, pen in entries:
            entry = QWidget()
            row = QHBoxLayout(entry)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(4)
            swatch = QLabel()
            swatch.setPixmap(stroke(pen))
            row.addWidget(swatch)
            row.addWidget(QLabel(text))
            self._flow.addWidget(entry)
        self.labels = [text for text, _ in entries]
        self.updateGeometry()
