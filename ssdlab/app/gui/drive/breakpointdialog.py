"""A small dialog that sets the run's breakpoints (ssdlab/model/lab/breakpoints.py): a tick and a
value per condition. The values are checked against the drive before the dialog closes;
a bad one is named under the fields and the breakpoints set before stay."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
)

from ssdlab.model.flash.geometry import Geometry
from ssdlab.model.lab.breakpoints import Breakpoints

INT_MAX = 2**31 - 1  # a spin box holds 32-bit numbers

TIPS = {
    "wa_above": "Pause when the cumulative write amplification rises past this value.",
    "gc_count": "Pause at the Nth garbage collection (victims collected since the drive "
                "was erased).",
    "victim_valid": "Pause whenever GC picks a victim holding at least this many valid "
                    "pages (a nearly full victim: expensive GC).",
    "free_blocks": "Pause when the free blocks fall to this many.",
    "erases": "Pause when any block reaches this many erases.",
    "lpn": "Pause when the host writes this logical page (4 KiB pages from 0).",
}


# each condition as the status bar names it while it is armed, and (short) as the
# progress line does, whose one line must hold it beside the run's progress in large type
ARMED = {"wa_above": ("WA past {:,g}", "WA past {:,g}"), "gc_count": ("at GC number {:,}",
                                                               "GC {:,}"),
         "victim_valid": ("a victim with {:,}+ valid pages", "victim {:,}+ valid"),
         "free_blocks": ("free blocks down to {:,}", "free {:,}"),
         "erases": ("a block at {:,} erases", "{:,} erases"),
         "lpn": ("a write of logical page {:,}", "page {:,}")}


def armed_words(bp: Breakpoints, short: bool = False) -> str:
    """The breakpoints set ("" when none): "breakpoint armed: at GC number 1", "breakpoints
    armed: WA past 2, at GC number 50"; short: "breakpoint: GC 1"."""
    chosen = bp.as_dict()
    if not chosen:
        return ""
    said = ", ".join(ARMED[k][short].format(v) for k, v in chosen.items())
    return f"breakpoint{'s' if len(chosen) > 1 else ''}{'' if short else ' armed'}: {said}"


class BreakpointDialog(QDialog):
    """Edits Breakpoints for a drive of geometry g; `result_breakpoints` holds them after
    accept()."""

    def __init__(self, current: Breakpoints, g: Geometry, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Breakpoints")
        self.geometry_ = g
        self.result_breakpoints = current
        grid = QGridLayout()
        self.ticks: dict[str, QCheckBox] = {}
        self.values: dict[str, QSpinBox | QDoubleSpinBox] = {}
        limits = current.limits(g)
        for row, (name, label) in enumerate(Breakpoints.LABELS.items()):
            lo, hi = limits[name]
            if name == "wa_above":
                box = QDoubleSpinBox()
                box.setDecimals(3)
                box.setSingleStep(0.1)
                box.setRange(0.001, hi)
                box.setValue(2.0)
            else:
                box = QSpinBox()
                box.setRange(int(lo), int(min(hi, INT_MAX)))
                box.setGroupSeparatorShown(True)
            value = getattr(current, name)
            if value is not None:
                box.setValue(value)
            tick = QCheckBox(label)
            tick.setChecked(value is not None)
            box.setEnabled(value is not None)
            tick.toggled.connect(box.setEnabled)
            box.setAccessibleName(label)  # the number's name is its tick box's words
            for w in (tick, box):
                w.setToolTip(TIPS[name])
            grid.addWidget(tick, row, 0)
            grid.addWidget(box, row, 1)
            self.ticks[name], self.values[name] = tick, box
        self.error = QLabel()
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.hide()  # its dark-red bar shows only with a message in it
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.Reset)
        buttons.button(QDialogButtonBox.StandardButton.Reset).setText("Clear all")
        buttons.button(QDialogButtonBox.StandardButton.Reset).clicked.connect(self.clear)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        note = QLabel("The run pauses where a condition becomes true and the status bar "
                      "says which. A fast run checks between batches: it stops at the end "
                      "of the batch where it happened.")
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(grid)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def clear(self) -> None:
        for tick in self.ticks.values():
            tick.setChecked(False)

    def chosen(self) -> dict:
        return {name: self.values[name].value() for name, tick in self.ticks.items()
                if tick.isChecked()}

    def accept(self) -> None:
        try:
            self.result_breakpoints = Breakpoints.from_dict(self.chosen(), self.geometry_)
        except ValueError as e:  # the dialog stays open, naming the field
            self.error.setText(str(e))
            self.error.setVisible(bool(str(e)))
            return
        super().accept()
