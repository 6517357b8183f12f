"""The workbench's settings owner, with Qt signals (the settings themselves and their checks
are Qt-free, in ssdlab/app/session/settings.py).

`Session` owns one frozen `Settings`. `update(**changes)` builds the model objects the new
settings imply (Geometry, FtlConfig, Partition, a device profile); the model's own ValueError
names the field and the allowed range, and the session passes it on through `error` with the
control's label in front, keeping the previous settings. A valid change is applied and
announced through `changed`. Session files (ssdlab/app/session/sessionfile.py) hold these settings,
the log of workload segments run (replaying it rebuilds the same drive) and the recorded
time series.
"""

from __future__ import annotations

from dataclasses import fields, replace

from PySide6.QtCore import QObject, Signal

from ssdlab.app.session.fsjobs import check_trace
from ssdlab.app.session.schema import FieldError
from ssdlab.app.session.settings import (  # noqa: F401  (the window's names for them)
    DRIVE_FIELDS,
    FS_WORKLOADS,
    LABELS,
    MOUNT_FIELDS,
    Settings,
    _field_of,
    check_settings,
    run_theory_wa,
    theory_wa,
)


class Session(QObject):
    """Settings owner: validates, then emits; views only subscribe."""

    changed = Signal(object, bool)  # (Settings, the drive must be rebuilt)
    error = Signal(str, str)  # (field, message naming the field and its range)

    def __init__(self, settings: Settings | None = None, parent=None):
        super().__init__(parent)
        self.settings = settings or Settings()
        self.last_error = ""
        self.last_field = ""
        self.trace_note = ""

    def update(self, **changes) -> bool:
        """Apply changes if the model accepts them; otherwise emit error and keep state."""
        unknown = set(changes) - {f.name for f in fields(Settings)}
        if unknown:
            raise TypeError(f"unknown settings: {sorted(unknown)}")
        new = replace(self.settings, **changes)
        try:
            if changes.get("trace_path"):
                self.trace_note = check_trace(changes["trace_path"])
            self.check(new)
        except (ValueError, OSError) as e:
            name = e.field if isinstance(e, FieldError) else _field_of(str(e), changes)
            reason = e.reason if isinstance(e, FieldError) else e
            self.last_error = f"{LABELS.get(name, name)}: {reason}"
            self.last_field = name
            self.error.emit(name, self.last_error)
            return False
        if new == self.settings:
            return True
        drive_changed = any(getattr(new, k) != getattr(self.settings, k) for k in DRIVE_FIELDS)
        self.settings = new
        self.last_error = ""
        self.error.emit("", "")
        self.changed.emit(new, drive_changed)
        return True

    @staticmethod
    def check(s: Settings) -> None:
        """Raise ValueError for settings the controls cannot show or the model cannot
        build (ssdlab/app/session/settings.py)."""
        check_settings(s)

    # --- derived text the controls show (the model does the arithmetic) --------------------

    def op_text(self, of_user: bool = True) -> str:
        """The spare in both definitions (of_user False: as a share of physical only, the
        other being what a lesson's quiz asks for) and the drive's erase blocks."""
        g = self.settings.geometry()
        other = f" = {100 * g.extra_of_user:.1f} % of user capacity" if of_user else ""
        return f"{100 * g.spare_of_physical:.1f} % of physical{other}; {g.blocks:,} blocks"

    def alignment_note(self) -> str:
        s = self.settings
        return s.partition().describe(s.page_kib * 1024, s.page_kib * 1024 * s.pages_per_block)

    def theory_wa(self) -> float | None:
        """The analytic WA for the current policy and spare, where a model exists."""
        return theory_wa(self.settings)

    def theory_wa_shown(self, snap) -> float | None:
        """The analytic WA the window shows (and exports) beside a drive: only once it has
        been written, and only for a run the model describes (run_modelled: not beside a
        scenario's file-system steps, where it drew 2.01 over a measured 0.30). On the empty
        drive of the first screen it stated lesson 1's answer (7.40 beside a question whose
        drive does 6.79) before the lesson asked it."""
        written = snap is not None and snap.counters.get("host_writes", 0) > 0
        return run_theory_wa(self.settings, snap.log) if written else None
