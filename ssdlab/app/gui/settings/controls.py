"""The control panel: every setting of the Session, bound both ways.

A control sends `request(field=value)` to its owner (the workbench decides whether a drive
change needs confirming, then asks the Session); `show(settings)` sets every control from the
Session without echoing back. Expert controls (GC details, alignment) start folded.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ssdlab.app.session.fsjobs import FS_KINDS
from ssdlab.app.session.schema import LVM_OFFSETS, PARTITION_STARTS, SETTINGS
from ssdlab.app.session.streams import KINDS
from ssdlab.model.host.profiles import load_profile

from ..appearance.elidedcombo import ElidedCombo
from ..appearance.fullnote import FullNote
from .controltips import FS_TIP, MAPPING_NAMES, PLACEMENT_NAMES, TIPS, glossary_tip
from .session import Settings


def _spin(name: str) -> QWidget:
    """A spin box with the range, decimals and step the schema gives the setting."""
    f = SETTINGS[name]
    double = f.kind is float
    w = QDoubleSpinBox() if double else QSpinBox()
    if double:
        w.setDecimals(f.decimals)
    w.setRange(f.lo, f.hi)
    w.setSingleStep(f.step)
    w.setKeyboardTracking(False)  # one change per edit, not per keystroke
    return w


def _profile_name(key: str) -> str:
    if not key:
        return "none (count pages)"
    return load_profile(key).name.split(" (")[0].split(" with ")[0]


class Controls(QWidget):
    """Left-hand panel. request(**changes) -> bool is supplied by the owner."""

    def __init__(self, request: Callable[..., bool], parent=None):
        super().__init__(parent)
        self.request = request
        self.invalid_field = ""
        self.on_fstrim: Callable[[], None] = lambda: None  # the owner supplies these
        self.on_browse: Callable[[], None] = lambda: None
        # a section opened or folded: its rows may need a wider panel (the owner fits it)
        self.on_fold: Callable[[], None] = lambda: None
        self.widgets: dict[str, QWidget] = {}
        self._form_of: dict[str, QFormLayout] = {}
        self._before_lesson: tuple[bool, bool] | None = None  # expert, fs shown
        self._loading = False
        self._forms: list[QFormLayout] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.error = QLabel()
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        self.lesson_note = QLabel("The lesson sets these: the highlighted ones are what its "
                                  "run varies. Leave the lesson to change them.")
        self.lesson_note.setWordWrap(True)
        self.lesson_note.setObjectName("note")
        self.lesson_note.hide()
        layout.addWidget(self.lesson_note)
        # compare mode: which drive the panel edits (A or B); hidden with one drive
        self.on_drive: Callable[[int], None] = lambda _i: None
        self.drive_row = QWidget()
        row = QHBoxLayout(self.drive_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Settings of"))
        self.drive_buttons: list[QPushButton] = []
        for i, (name, keys) in enumerate((("A", "Ctrl+1"), ("B", "Ctrl+2"))):
            b = QPushButton(name)
            b.setObjectName("drive")  # the style sheet marks the drive being edited
            b.setCheckable(True)
            b.setAutoExclusive(True)
            b.setToolTip(f"Edit drive {name}'s settings ({keys}). The workload is shared; "
                         f"settings where B differs from A are framed.")
            b.clicked.connect(lambda _c=False, i=i: self.on_drive(i))
            self.drive_buttons.append(b)
            row.addWidget(b)
        row.addStretch(1)
        self.drive_row.hide()
        layout.addWidget(self.drive_row)

        drive = self.drive_group = QGroupBox("Drive")
        form = self._form(drive)
        self._add(form, "profile", "Profile", self._combo("profile", _profile_name))
        self._add(form, "capacity_mib", "Capacity (MiB)", _spin("capacity_mib"))
        self._add(form, "spare_pct", "Spare (%)", _spin("spare_pct"))
        self.op_note = self._note(form, "Both definitions of over-provisioning, and the "
                                  "erase blocks the drive has.")
        self._add(form, "page_kib", "Page size", self._combo("page_kib", "{} KiB".format))
        self._add(form, "pages_per_block", "Pages / block", _spin("pages_per_block"))
        self.block_note = self._note(form, "Erase-block size: pages per block x page size.")
        self._add(form, "mapping", "Mapping", self._combo("mapping", MAPPING_NAMES.get))
        self._add(form, "gc", "GC policy", self._combo("gc"))
        self._add(form, "slc_cache", "SLC cache", self._combo("slc_cache"))
        self._add(form, "placement", "Placement", self._combo("placement", PLACEMENT_NAMES.get))
        layout.addWidget(drive)

        self.expert_toggle = QToolButton()
        self.expert_toggle.setText("Expert options")
        self.expert_toggle.setCheckable(True)
        self.expert_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.expert_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.expert_toggle.setToolTip("Show or hide the expert controls: GC details and "
                                      "alignment: random-d's d, the GC watermark, write "
                                      "frontier and victim order, the seed, partition "
                                      "start and LVM offset.")
        self.expert_toggle.toggled.connect(self.set_expert)
        layout.addWidget(self.expert_toggle)
        self.expert = QGroupBox("Expert")
        form = self._form(self.expert)
        self._add(form, "d", "d (random-d)", _spin("d"))
        self._add(form, "gc_low_blocks", "GC watermark", _spin("gc_low_blocks"))
        self._add(form, "gc_frontier", "GC frontier", self._combo("gc_frontier"))
        self._add(form, "victim_order", "Victim order", self._combo("victim_order"))
        self._add(form, "wear_leveling_gap", "Wear levelling", _spin("wear_leveling_gap"))
        self._add(form, "handle_gc", "Handle GC", self._combo("handle_gc"))
        self._add(form, "tag_errors_pct", "Wrong tags (%)", _spin("tag_errors_pct"))
        self._add(form, "seed", "Seed", _spin("seed"))
        starts = QComboBox()
        for sectors, text in PARTITION_STARTS:
            starts.addItem(text, sectors)
        starts.addItem("custom", -1)
        self._add(form, "partition_start", "Partition start", starts)
        custom = _spin("partition_start")
        custom.setToolTip(TIPS["partition_custom"])
        custom.valueChanged.connect(lambda v: self._send("partition_start", int(v)))
        self.widgets["partition_custom"] = custom
        form.addRow("Start sector", custom)
        self._form_of["partition_custom"] = form  # folds with the partition start
        self._add(form, "lvm_kib", "LVM offset",
                  self._combo("lvm_kib", dict(LVM_OFFSETS).__getitem__))
        self.align_note = self._note(form, "Whether the file system starts on a flash page and "
                                     "erase block boundary (from partition start + LVM).")
        self.expert.hide()
        layout.addWidget(self.expert)

        self.fs_toggle = QToolButton()
        self.fs_toggle.setText("File system")
        self.fs_toggle.setCheckable(True)
        self.fs_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.fs_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.fs_toggle.setToolTip("Show or hide the file-system options: journal, atime, "
                                  "discard, fstrim. " + FS_TIP)
        self.fs_toggle.toggled.connect(self.set_fs_shown)
        layout.addWidget(self.fs_toggle)
        self.fs = QGroupBox("File system")
        self.fs.setToolTip(FS_TIP)
        form = self._form(self.fs)
        self._add(form, "journal", "Journal", QCheckBox("on"))
        self._add(form, "atime", "atime", self._combo("atime"))
        self._add(form, "discard", "discard", QCheckBox("on"))
        self._add(form, "kernel", "Kernel", self._combo("kernel"))
        self._add(form, "fstrim_every_min", "fstrim every (min)", _spin("fstrim_every_min"))
        self.fstrim_button = QPushButton("fstrim now")
        self.fstrim_button.setToolTip("Walk the file system's free space and TRIM every free "
                                      "range now (a step of its own in the Steps tab).")
        self.fstrim_button.clicked.connect(lambda: self.on_fstrim())
        form.addRow(self.fstrim_button)
        self.fs.hide()
        layout.addWidget(self.fs)

        work = self.work_group = QGroupBox("Workload")
        form = self._form(work)
        self._add(form, "workload", "Workload",
                  self._combo("workload", (KINDS | FS_KINDS).__getitem__))
        for name, label in (("fill_pct", "Fill to (%)"), ("amount", "Drive writes"),
                            ("hot_lba_pct", "Hot LBAs (%)"), ("hot_write_pct", "Hot writes (%)"),
                            ("trim_max_pages", "TRIM size"), ("kernel_scale", "Tree scale"),
                            ("seq_mb", "Write (MB)")):
            self._add(form, name, label, _spin(name))
        trace = QLineEdit()
        trace.setReadOnly(True)
        trace.setPlaceholderText("no file chosen")
        self._add(form, "trace_path", "Trace file", trace)
        self.browse_button = QPushButton("Choose trace file…")
        self.browse_button.setToolTip(TIPS["trace_path"])
        self.browse_button.clicked.connect(lambda: self.on_browse())
        form.addRow(self.browse_button)
        self.trace_note = self._note(form, "What the chosen trace holds, or why it cannot be "
                                     "read (with the line number).")
        self._work_form = form
        layout.addWidget(work)
        layout.addStretch(1)

    # --- building --------------------------------------------------------------------------

    @staticmethod
    def _combo(name: str, text=str) -> QComboBox:
        """A list of the schema's choices for the setting; text(choice) labels each."""
        w = ElidedCombo()
        for item in SETTINGS[name].choices:
            w.addItem(text(item), item)
        return w

    def _form(self, box: QGroupBox) -> QFormLayout:
        form = QFormLayout(box)
        self._forms.append(form)
        return form

    def set_rows_wrapped(self, wrapped: bool) -> None:
        """Labels above their fields (large presentation type in a narrow panel), or
        beside them."""
        self._rows_wrapped = wrapped
        policy = QFormLayout.RowWrapPolicy
        for form in self._forms:
            form.setRowWrapPolicy(policy.WrapAllRows if wrapped else policy.DontWrapRows)

    def _note(self, form: QFormLayout, tip: str) -> QLabel:
        note = FullNote()  # never squashed over the field above it
        note.setObjectName("note")
        note.setToolTip(tip)
        form.addRow(note)
        return note

    def _add(self, form: QFormLayout, name: str, label: str, w: QWidget) -> None:
        tip = glossary_tip(name)
        w.setToolTip(tip)
        self.widgets[name] = w
        self._form_of[name] = form
        lab = QLabel(label)
        lab.setToolTip(tip)
        lab.setBuddy(w)
        form.addRow(lab, w)
        if isinstance(w, QComboBox):
            # long item names must not widen the panel past the screen (projector type)
            w.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(10)
            w.currentIndexChanged.connect(lambda _i, n=name, w=w: self._send(n, w.currentData()))
        elif isinstance(w, QCheckBox):
            w.toggled.connect(lambda v, n=name: self._send(n, bool(v)))
        elif isinstance(w, QLineEdit):
            pass  # set through its button
        elif isinstance(w, QDoubleSpinBox):
            w.valueChanged.connect(lambda v, n=name: self._send(n, float(v)))
        else:
            w.valueChanged.connect(lambda v, n=name: self._send(n, int(v)))

    def _send(self, name: str, value) -> None:
        if self._loading or self._before_lesson is not None:
            return
        if name == "partition_start" and value == -1:  # "custom": use the sector spin box
            value = int(self.widgets["partition_custom"].value())
        self.request(**{name: value})

    def set_expert(self, shown: bool) -> None:
        self.expert.setVisible(shown)
        self.expert_toggle.setChecked(shown)
        self.expert_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                        else Qt.ArrowType.RightArrow)
        self.on_fold()

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
                elif isinstance(w, QCheckBox):
                    w.setChecked(bool(value))
                elif isinstance(w, QLineEdit):
                    w.setText(value)
                    w.setToolTip(value or TIPS[name])
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
        for name in ("handle_gc", "tag_errors_pct"):  # only a host that tags has them
            self._form_of[name].setRowVisible(self.widgets[name], s.placement != "none")

    @staticmethod
    def _workload_uses(kind: str) -> dict[str, bool]:
        """The workload's own fields, each with whether a workload of `kind` uses it."""
        return {"fill_pct": kind in ("fill", "fillfiles"),
                "amount": kind in KINDS and kind != "fill",
                "hot_lba_pct": kind == "hotcold", "hot_write_pct": kind == "hotcold",
                "trim_max_pages": kind == "trim",
                "kernel_scale": kind in ("unpack", "gitclone"),
                "seq_mb": kind == "seqwrite", "trace_path": kind == "trace"}

    def _show_workload_fields(self, kind: str) -> None:
        for name, visible in self._workload_uses(kind).items():
            self._work_form.setRowVisible(self.widgets[name], visible)
        self._work_form.setRowVisible(self.browse_button, kind == "trace")
        self._work_form.setRowVisible(self.trace_note, kind == "trace")

    def set_lesson(self, used: set[str] | None) -> None:
        """During a lesson's run: only the settings it uses are shown, read-only, those it
        varies highlighted; None gives the panel back as it was before the lesson."""
        # read-only in a lesson: labels above their fields, so the panel can be narrow
        wrap = QFormLayout.RowWrapPolicy
        back = wrap.WrapAllRows if getattr(self, "_rows_wrapped", False) else wrap.DontWrapRows
        for form in set(self._form_of.values()):
            form.setRowWrapPolicy(back if used is None else wrap.WrapAllRows)
        if used is None:
            if self._before_lesson is None:
                return
            expert, fs = self._before_lesson
            self._before_lesson = None
            self.lesson_note.hide()
            for name, w in self.widgets.items():
                w.setEnabled(True)
                w.setMinimumWidth(0)  # its own least width again (set by its contents)
                self._mark(w, "")
                if name in self._form_of:
                    self._form_of[name].setRowVisible(w, True)
            for w in (self.drive_group, self.work_group, self.expert_toggle, self.fs_toggle,
                      self.fstrim_button, self.browse_button):
                w.show()
            self.set_expert(expert)
            self.set_fs_shown(fs)
            return
        if self._before_lesson is None:
            self._before_lesson = (self.expert.isVisible(), self.fs.isVisible())
        self.lesson_note.show()
        groups: dict[QGroupBox, bool] = {}
        shown = set(used) | {"profile", "capacity_mib", "spare_pct", "gc", "mapping"}
        if self.widgets["slc_cache"].currentData() != "none":  # a drive with a cache says so
            shown.add("slc_cache")
        if self.widgets["placement"].currentData() != "none":  # and a host that tags
            shown |= {"placement", "handle_gc", "tag_errors_pct"}
        # a setting the run varies that this configuration's workload does not use (the
        # hot share of lesson 13's even rewrites) is not shown as if it did
        unused = {n for n, on in self._workload_uses(self.widgets["workload"].currentData())
                  .items() if not on}
        for name, w in self.widgets.items():
            form = self._form_of.get(name)
            key = "partition_start" if name == "partition_custom" else name
            visible = key in shown and key not in unused
            w.setEnabled(False)
            # read-only, it may be narrower than its longest value: in projector type a
            # list's ten characters or a spin box's largest number (216 px) were wider
            # than the lesson's narrow panel, and cut it at its right edge
            w.setMinimumWidth(1)
            self._mark(w, "used" if key in used else "")
            if form is not None:
                form.setRowVisible(w, visible)
                box = w.parentWidget()
                groups[box] = groups.get(box, False) or visible
        for w in (self.expert_toggle, self.fs_toggle, self.fstrim_button, self.browse_button):
            w.hide()
        for box, visible in groups.items():
            box.setVisible(visible)

    @staticmethod
    def _mark(w: QWidget, value: str) -> None:
        if (w.property("lesson") or "") != value:
            w.setProperty("lesson", value)
            w.style().unpolish(w)
            w.style().polish(w)

    def show_drive_choice(self, edited: int | None) -> None:
        """Compare mode: the A | B choice, `edited` checked; None hides it (one drive)."""
        self.drive_row.setVisible(edited is not None)
        if edited is not None:
            self.drive_buttons[edited].setChecked(True)

    def mark_differences(self, names: set[str] | frozenset[str]) -> None:
        """Frame the controls of the settings where drive B differs from A."""
        for name, w in self.widgets.items():
            key = "partition_start" if name == "partition_custom" else name
            differs = key in names
            if bool(w.property("differs")) != differs:
                w.setProperty("differs", differs)
                w.style().unpolish(w)
                w.style().polish(w)

    def set_fs_shown(self, shown: bool) -> None:
        self.fs.setVisible(shown)
        self.fs_toggle.setChecked(shown)
        self.fs_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                    else Qt.ArrowType.RightArrow)
        self.on_fold()

    def show_error(self, message: str, field: str = "") -> None:
        """Show (or, with "", clear) the inline message; mark the control it is about."""
        self.error.setText(message)
        self.error.setVisible(bool(message))
        self.invalid_field = field if message else ""
        for name, w in self.widgets.items():
            bad = bool(message) and name == field
            if bool(w.property("invalid")) != bad:
                w.setProperty("invalid", bad)
                w.style().unpolish(w)
                w.style().polish(w)
        if message and field in self.widgets:
            w = self.widgets[field]
            if w.parentWidget() is self.expert and not self.expert.isVisible():
                self.set_expert(True)
            if w.parentWidget() is self.fs and not self.fs.isVisible():
                self.set_fs_shown(True)
