"""The Steps table: one row per file-system step run (host and NAND MB, WA, TRIMs, simulated
seconds, MB/s), or in compare mode each figure for A then B, the steps of the two drives
side by side.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

STEP_COLUMNS = (("step", "step", "{}"), ("host_mb", "host MB", "{:,.1f}"),
                ("nand_mb", "NAND MB", "{:,.1f}"), ("wa", "WA", "{:.3f}"),
                ("trims", "TRIMs", "{:,}"), ("seconds", "simulated s", "{:,.2f}"),
                ("mb_s", "MB/s", "{:,.1f}"))


# Compare mode: each figure for A then B, those that tell two drives apart first, under
# short heads: at 18 pt on 1024 px "simulated s A" pushed B's time out of sight.
PAIR_HEADS = {"seconds": "sim s"}
PAIR_COLUMNS = tuple((k, PAIR_HEADS.get(k, head), fmt)
                     for want in ("wa", "seconds", "trims", "mb_s", "host_mb", "nand_mb")
                     for k, head, fmt in STEP_COLUMNS if k == want)


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

    def show_steps(self, steps: list[dict], message: str, running: str = "") -> None:
        """running: the step under way, if any (its row comes when it ends)."""
        if not steps and running:
            message = message or f"{running}: running; each step's row appears when it ends."
        elif not steps:
            message = message or ("No file-system steps yet: choose a device profile and a "
                                  "file-system workload (kernel tree unpack, rm -rf, "
                                  "sequential write, trace replay) or press fstrim now.")
        self.message.setText(message)
        if steps == self._shown:
            return
        if self.table.columnCount() != len(STEP_COLUMNS):  # back from A and B columns
            self.table.setColumnCount(len(STEP_COLUMNS))
            self.table.setHorizontalHeaderLabels([c[1] for c in STEP_COLUMNS])
            self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
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

    def show_pair(self, a: list[dict], b: list[dict], tags: tuple[str, str],
                  message: str) -> None:
        """Two drives' steps side by side: per step, each figure for A then for B (tags:
        the runs' labels, said under the table). Steps are matched in order; a remount
        one drive made alone gets a row of its own."""
        self.message.setText(f"{tags[0]}; {tags[1]}" + (f". {message}" if message else ""))
        shown = [("pair", [dict(d) for d in a], [dict(d) for d in b], tags)]
        if shown == self._shown:
            return
        self._shown = shown
        cols = PAIR_COLUMNS
        self.table.setColumnCount(1 + 2 * len(cols))
        # the step's name in full, and the figures that tell two drives apart first (WA,
        # time, TRIMs): on a projector the rest may be scrolled to
        self.table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setHorizontalHeaderLabels(
            ["step"] + [f"{head} {tag[0]}" for _, head, _ in cols for tag in tags])
        rows = _paired(a, b)
        self.table.setRowCount(len(rows))
        for row, (sa, sb) in enumerate(rows):
            name = (sa or sb)["step"]
            self.table.setItem(row, 0, QTableWidgetItem(name))
            for i, (key, _, fmt) in enumerate(cols):
                for j, step in enumerate((sa, sb)):
                    v = None if step is None else step.get(key)
                    text = "-" if v is None or (isinstance(v, float) and v != v) \
                        else fmt.format(v)
                    item = QTableWidgetItem(text)
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                    self.table.setItem(row, 1 + 2 * i + j, item)
        self.table.scrollToBottom()

    def rows(self) -> list[list[str]]:
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]


def _paired(a: list[dict], b: list[dict]) -> list[tuple[dict | None, dict | None]]:
    """Rows of two step lists, matched in order; a remount only one drive made (its mount
    options changed alone) stands on its own row."""
    rows, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        sa = a[i] if i < len(a) else None
        sb = b[j] if j < len(b) else None
        if sa is not None and sb is not None and sa["step"] != sb["step"]:
            if sa["step"].startswith("remount"):
                sb = None
            elif sb["step"].startswith("remount"):
                sa = None
        rows.append((sa, sb))
        i += sa is not None
        j += sb is not None
    return rows
