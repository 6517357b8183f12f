"""What the workbench sends its drives (ssdlab/app/gui/frame/workbench.py): the chosen workload as a
segment or a file-system step, checked first (a device profile, a trace file, a drive
formatted or bare as the step needs, asking before a run is discarded), and the progress
line's "starting …" until the workers take it up. A mixin of Workbench.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QFileDialog,
)

from ssdlab.app.session.fsjobs import FsStep
from ssdlab.app.session.streams import Segment

from ..settings.session import FS_WORKLOADS


class Workloads:
    """Workbench methods that build and send the chosen workload."""

    def segment(self) -> Segment:
        """The chosen workload as a segment (drive A's settings, in pages; the workload
        settings are shared)."""
        s = self.views[0].settings
        user = s.user_pages
        if s.workload == "fill":
            total = int(round(user * s.fill_pct / 100))
        elif s.workload == "trim":
            total = int(round(s.amount * user / ((1 + s.trim_max_pages) / 2)))
        else:
            total = int(round(s.amount * user))
        kind = s.workload
        if kind == "steady" and self._all_full():
            kind = "random"  # the fill is done: straight on with the overwrites
        elif kind == "steady" and total:
            total += user  # the fill in order comes first
        self.segments += 1
        return Segment(kind=kind, total=total, seed=s.seed, index=self.segments,
                       hot_lba_fraction=s.hot_lba_pct / 100,
                       hot_write_fraction=s.hot_write_pct / 100,
                       trim_max_pages=s.trim_max_pages,
                       tag_errors=s.tag_errors_pct / 100 if s.placement != "none" else 0.0)

    def _all_full(self) -> bool:
        """Every drive holds every logical page (a fill would only rewrite them)."""
        return all(v.snapshot is not None and v.snapshot.user_pages
                   and float(v.snapshot.valid.sum()) >= v.snapshot.user_pages
                   for v in self.views)

    def is_running(self) -> bool:
        return any(v.is_running() for v in self.views)

    def fs_step(self, kind: str) -> FsStep:
        self.segments += 1
        return FsStep.from_control(kind, self.views[0].settings, self.segments)

    def _send_workload(self) -> bool:
        """Send the chosen workload to every drive. File-system steps need the drive to
        hold a file system and block workloads a bare drive: switching asks before
        discarding a run."""
        s = self.views[0].settings
        fs = s.workload in FS_WORKLOADS
        if fs and not all(v.settings.profile for v in self.views):
            self.controls.show_error("Workload: file-system workloads need a device profile; "
                                     "choose one under Drive > Profile", "profile")
            return False
        if fs and s.workload == "trace" and not s.trace_path:
            self.controls.show_error("Trace file: choose a trace file first", "trace_path")
            return False
        if not self._formatted(fs, "File-system workloads format the drive first" if fs else
                               "Block workloads write the bare drive, without the file "
                               "system"):
            return False
        self.controls.show_error("")
        if fs:
            step = self.fs_step(s.workload)
            self.asked(self.send_all("fs", step), step.label)
            self.charts.setCurrentWidget(self.charts.steps)
        else:
            self.asked(self.send_all("workload", self.segment()), s.workload)
        return True

    def _formatted(self, fs: bool, why: str) -> bool:
        """The drives hold a file system (fs) or are bare, as the next step needs: a drive
        with data the other way is erased after a yes. False: the user said no."""
        if any(v.has_data() and fs != (v.snapshot is not None and v.snapshot.mounted)
               for v in self.views):
            if not self.confirm(why + ": this discards the current run. Continue?"):
                return False
            self.reset_drive()
        return True

    def asked(self, tickets: list[int], text: str) -> None:
        """A run was sent as these commands (one per drive): say so now, not at the
        workers' next frame."""
        line = [v.run_status.asked(t, text) for v, t in zip(self.views, tickets,
                                                             strict=False)][0]
        self.progress_label.setText(line)
        if not self.charts.steps.rows():
            self.charts.steps.message.setText(line)

    def choose_trace(self, path: str | None = None) -> bool:
        """Pick a trace file; a file the parser cannot read is reported at the control (with
        its line number) and the previous choice stays."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Replay trace file", "",
                                                  "Block traces (*.txt *.log *.csv *.gz);;"
                                                  "All files (*)")
            if not path:
                return False
        ok = self.request(trace_path=path)
        if ok:  # a bad file leaves the previous choice, and its note, in place
            self.controls.trace_note.setText(self.session.trace_note)
        return ok
