"""The charts' legend when runs are overlaid (two drives, a reference): one entry per run,
its label ("A: discard", "B: fstrim every 10 min", "ref: spare 7 %") and a short stroke per
line drawn with the line's own pen (colour, dash, width), named where the run has more than
one ("host", "NAND", "analytic"). Entries flow and wrap, so long labels are never cut to
"A: spar..." as QtCharts' own one-row legend cuts them."""

from __future__ import annotations

from PySide6.QtCore import QLineF, Qt
from PySide6.QtGui import QPainter, QPen, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from ssdlab.model.flash.theory.names import short_model_name

from ..appearance.flowlayout import FlowLayout

LONG_NAME = 32  # characters: a line's name longer than this is shortened to its first part
STROKE_PX = (40, 14)  # the stroke's box: long enough to show a dash pattern at 3 px


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
        self.setToolTip("The lines of the chart: A solid, B dashed, a kept reference faded "
                        "and dash-dotted; a model's analytic level dotted.")
        # runs clearly apart side by side; rows close, leaving the chart its height
        self._flow = FlowLayout(self, spacing=24, row_spacing=2)
        self._shown: list = []
        self.labels: list[str] = []

    def set_entries(self, groups: list[tuple[str, list[tuple[str, str, QPen]]]]) -> None:
        """groups: (run label, [(series name, line name or "", pen)]) per run."""
        key = [(run, [(name, line, pen.color().name(), int(pen.style().value), pen.widthF())
                      for name, line, pen in lines]) for run, lines in groups]
        if key == self._shown:
            return
        self._shown = key
        while self._flow.count():
            widget = self._flow.takeAt(0).widget()
            if widget is not None:  # hidden, never reparented: a parentless one is a window
                widget.hide()
                widget.deleteLater()
        for run, lines in groups:
            # a run's label and strokes on one row where the row holds them, else wrapped
            # within the run's own entry, never past the chart's width: at 1024 px with
            # two drives and the panel, in presentation type, one row held the window
            # 27 px wider than the screen
            entry = QWidget()
            flow = FlowLayout(entry, spacing=6, row_spacing=0)
            # "━ A: spare 7 %  ╍ greedy model", or "A: discard ━ host ━ NAND"
            labelled = bool(lines and lines[0][1])
            if labelled:
                flow.addWidget(QLabel(run))
            for i, (_, line, pen) in enumerate(lines):
                pair = QWidget()
                row = QHBoxLayout(pair)
                row.setContentsMargins(0, 0, 0, 0)
                row.setSpacing(4)
                swatch = QLabel()
                swatch.setPixmap(stroke(pen))
                row.addWidget(swatch)
                # a model's name and assumptions (Table.names) run past a projector's width
                # on one row, and its name with author and year still held the window 250
                # px wider than 1024 with two drives and the panel in presentation type:
                # the model in a word here and on its level, in full in the tip
                shown = QLabel(short_model_name(line.split(": ")[0]) if len(line) > LONG_NAME
                               else line or run)
                if shown.text() != (line or run):
                    shown.setToolTip(line)
                row.addWidget(shown)
                if i == 0 and labelled:  # the run's label never alone at a row's end
                    flow.add_kept_with_previous(pair)
                else:
                    flow.addWidget(pair)
            self._flow.addWidget(entry)
        self.labels = [name for _, lines in groups for name, _, _ in lines]
        self.updateGeometry()
