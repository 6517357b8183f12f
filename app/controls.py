"""The control panel: every setting of the Session, bound both ways.

A control sends `request(field=value)` to its owner (the workbench decides whether a drive
change needs confirming, then asks the Session); `show(settings)` sets every control from the
Session without echoing back. Expert controls (GC details, alignment) start folded.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.partition import CYLINDER_START_SECTOR, DOS_START_SECTOR, MIB_START_SECTOR
from model.profiles import list_profiles, load_profile

from .session import Settings
from .streams import KINDS

PARTITION_STARTS = ((DOS_START_SECTOR, "63 (old DOS)"), (MIB_START_SECTOR, "2048 (1 MiB)"),
                    (CYLINDER_START_SECTOR, "12544 (224 x 56 cylinder)"))
LVM_OFFSETS = ((0, "no LVM"), (192, "192 KiB (old default)"), (256, "256 KiB (aligned)"))

TIPS = {
    "profile": "A real drive's geometry and timing. With a profile the throughput chart shows "
               "MB/s over simulated time; without one it counts pages.",
    "capacity_mib": "User capacity the host sees, in MiB. Small drives animate page by page; "
                    "big ones run flat out.",
    "spare_pct": "Flash the host never sees, as % of physical capacity. More spare means "
                 "GC finds emptier victims and WA falls.",
    "page_kib": "Size of one flash page, the unit the drive programs.",
    "pages_per_block": "Pages in one erase block, the unit the drive erases. GC must copy a "
                       "block's valid pages before erasing it.",
    "mapping": "Page-mapped (modern) puts any logical page anywhere; block-mapped (first "
               "generation) rewrites a whole erase block for a small write.",
    "gc": "How GC picks a victim block: greedy (fewest valid pages), FIFO (oldest), "
          "cost-benefit (age vs. emptiness) or random-d (best of d at random).",
    "d": "random-d: blocks sampled per choice; the emptiest of them is collected.",
    "gc_low_blocks": "Foreground GC runs while free blocks are at or below this many.",
    "seed": "Seeds the workload generators and the engine; same seed, same run.",
    "partition_start": "Where the partition starts, in 512-byte sectors. 63 was the old DOS "
                       "default; 2048 (1 MiB) is aligned.",
    "partition_custom": "A partition start in sectors not in the list.",
    "lvm_kib": "LVM's data offset (pe_start) inside the partition: 192 KiB was LVM2's old "
               "default, 256 KiB lines up with 128 KiB erase blocks.",
    "workload": "What the host does next: fill the drive in order, rewrite it at random or in "
                "order, skewed hot/cold writes, or random TRIMs.",
    "fill_pct": "Fill to %: the share of logical pages written in order from the start.",
    "amount": "How much to write, in multiples of the user capacity. 0 runs until paused.",
    "hot_lba_pct": "Share of logical pages that are hot.",
    "hot_write_pct": "Share of writes that go to the hot pages.",
    "trim_max_pages": "Each TRIM unmaps a random range of 1 to this many pages.",
}


def _spin(double: bool, lo: float, hi: float, decimals: int = 1, step: float = 1) -> QWidget:
    w = QDoubleSpinBox() if double else QSpinBox()
    if double:
        w.setDecimals(decimals)
    w.setRange(lo, hi)
    w.setSingleStep(step)
    w.setKeyboardTracking(False)  # one change per edit, not per keystroke
    return w


class Controls(QWidget):
    """Left-hand panel. request(**changes) -> bool is supplied by the owner."""

    def __init__(self, request: Callable[..., bool], parent=None):
        super().__init__(parent)
        self.request = request
        self.widgets: dict[str, QWidget] = {}
        self._loading = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.error = QLabel()
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)

        drive = QGroupBox("Drive")
        form = QFormLayout(drive)
        profiles = QComboBox()
        profiles.addItem("none (count pages)", "")
        for key in list_profiles():
            name = load_profile(key).name.split(" (")[0].split(" with ")[0]
            profiles.addItem(name, key)
        self._add(form, "profile", "Profile", profiles)
        self._add(form, "capacity_mib", "Capacity (MiB)", _spin(True, 0, 1e8, 1, 16))
        self._add(form, "spare_pct", "Spare (%)", _spin(True, 0, 99, 1, 1))
        self.op_note = self._note(form, "Both definitions of over-provisioning, and the "
                                  "erase blocks the drive has.")
        pages = QComboBox()
        for kib in (4, 8, 16):
            pages.addItem(f"{kib} KiB", kib)
        self._add(form, "page_kib", "Page size", pages)
        self._add(form, "pages_per_block", "Pages / block", _spin(False, 0, 100000))
        self.block_note = self._note(form, "Erase-block size: pages per block x page size.")
        self._add(form, "mapping", "Mapping", self._combo(("page", "block")))
        self._add(form, "gc", "GC policy",
                  self._combo(("greedy", "fifo", "cost-benefit", "random-d")))
        layout.addWidget(drive)

        self.expert_toggle = QToolButton()
        self.expert_toggle.setText("Expert: GC details and alignment")
        self.expert_toggle.setCheckable(True)
        self.expert_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.expert_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.expert_toggle.setToolTip("Show or hide the expert controls: random-d's d, the GC "
                                      "watermark, the seed, partition start and LVM offset.")
        self.expert_toggle.toggled.connect(self.set_expert)
        layout.addWidget(self.expert_toggle)
        self.expert = QGroupBox("Expert")
        form = QFormLayout(self.expert)
        self._add(form, "d", "d (random-d)", _spin(False, 0, 4096))
        self._add(form, "gc_low_blocks", "GC watermark", _spin(False, 0, 1000))
        self._add(form, "seed", "Seed", _spin(False, 0, 2**31 - 1))
        starts = QComboBox()
        for sectors, text in PARTITION_STARTS:
            starts.addItem(text, sectors)
        starts.addItem("custom", -1)
        self._add(form, "partition_start", "Partition start", starts)
        custom = _spin(False, 0, 2**31 - 1)
        custom.setToolTip(TIPS["partition_custom"])
        custom.valueChanged.connect(lambda v: self._send("partition_start", int(v)))
        self.widgets["partition_custom"] = custom
        form.addRow("Start sector", custom)
        lvm = QComboBox()
        for kib, text in LVM_OFFSETS:
            lvm.addItem(text, kib)
        self._add(form, "lvm_kib", "LVM offset", lvm)
        self.align_note = self._note(form, "Whether the file system starts on a flash page and "
                                     "erase block boundary (from partition start + LVM).")
        self.expert.hide()
        layout.addWidget(self.expert)

        work = QGroupBox("Workload")
        form = QFormLayout(work)
        kinds = QComboBox()
        for key, text in KINDS.items():
            kinds.addItem(text, key)
        self._add(form, "workload", "Workload", kinds)
        self._add(form, "fill_pct", "Fill to (%)", _spin(True, 0, 200, 1, 5))
        self._add(form, "amount", "Drive writes", _spin(True, 0, 5000, 2, 0.5))
        self._add(form, "hot_lba_pct", "Hot LBAs (%)", _spin(True, 0, 200, 1, 5))
        self._add(form, "hot_write_pct", "Hot writes (%)", _spin(True, 0, 200, 1, 5))
        self._add(form, "trim_max_pages", "TRIM size", _spin(False, 1, 1 << 20))
        self._work_form = form
        layout.addWidget(work)
        layout.addStretch(1)

    # --- building --------------------------------------------------------------------------

    @staticmethod
    def _combo(items) -> QComboBox:
        w = QComboBox()
        for item in items:
            w.addItem(item, item)
        return w

    def _note(self, form: QFormLayout, tip: str) -> QLabel:
        note = QLabel()
        note.setObjectName("note")
        note.setWordWrap(True)
        note.setToolTip(tip)
        form.addRow(note)
        return note

    def _add(self, form: QFormLayout, name: str, label: str, w: QWidget) -> None:
        w.setToolTip(TIPS[name])
        self.widgets[name] = w
        lab = QLabel(label)
        lab.setToolTip(TIPS[name])
        lab.setBuddy(w)
        form.addRow(lab, w)
        if isinstance(w, QComboBox):
            w.currentIndexChanged.connect(lambda _i, n=name, w=w: self._send(n, w.currentData()))
        elif isinstance(w, QDoubleSpinBox):
            w.valueChanged.connect(lambda v, n=name: self._send(n, float(v)))
        else:
            w.valueChanged.connect(lambda v, n=name: self._send(n, int(v)))

    def _send(self, name: str, value) -> None:
        if self._loading:
            return
        if name == "partition_start" and value == -1:  # "custom": use the sector spin box
            value = int(self.widgets["partition_custom"].value())
        self.request(**{name: value})

    def set_expert(self, shown: bool) -> None:
        self.expert.setVisible(shown)
        self.expert_toggle.setChecked(shown)
        self.expert_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                        else Qt.ArrowType.RightArrow)

    # --- showing ---------------------------------------------------------------------------

    def show_settings(self, s: Settings, op_note: str, align_note: str) -> None:
        """Set every control from s without sending requests back."""
        self._loading = True
        try:
            for name, w in self.widgets.items():
                if name == "partition_custom":
                    w.setValue(s.partition_start)
                    continue
                value = getattr(s, name)
                if isinstance(w, QComboBox):
                    i = w.findData(value)
                    if i < 0 and name == "partition_start":
                        i = w.findData(-1)
                    w.setCurrentIndex(i)
                else:
                    w.setValue(value)
        finally:
            self._loading = False
        self.op_note.setText(op_note)
        ebytes = s.pages_per_block * s.page_kib
        self.block_note.setText(f"erase block = {s.pages_per_block} x {s.page_kib} KiB = "
                                f"{ebytes:,} KiB")
        self.align_note.setText(align_note)
        self._show_workload_fields(s.workload)

    def _show_workload_fields(self, kind: str) -> None:
        shown = {"fill_pct": kind == "fill", "amount": kind != "fill",
                 "hot_lba_pct": kind == "hotcold", "hot_write_pct": kind == "hotcold",
                 "trim_max_pages": kind == "trim"}
        for name, visible in shown.items():
            self._work_form.setRowVisible(self.widgets[name], visible)

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))
