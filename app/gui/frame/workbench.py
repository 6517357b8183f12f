"""The workbench window, a frame around one or two drive views: the control panel on the
left, the button bar, the drives' block maps side by side, the charts below, the status line,
the menus and keys, and the lesson panel docked at the right.

Each drive view (app/gui/driveview.py) holds one drive's worker, map, settings and newest
snapshot. The frame sends every view the same workload; with two (compare mode,
app/gui/compare.py) the charts overlay both runs and the Steps table has A and B columns.
The frame holds no simulation state of its own.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.session.fsjobs import FsStep
from app.session.streams import Segment
from model.host.profiles import load_profile

from . import (
    buttonbar,
    compare,
    dockedlessons,
    exportdialog,
    mapwiring,
    runfiles,
    shortcuts,
    statusline,
    theme,
)
from .charts import Charts
from .controls import Controls
from .driveview import DriveView
from .lessonresults import LessonResults
from .presentation import Presentation
from .scenariofiles import profile_settings
from .session import DRIVE_FIELDS, FS_WORKLOADS, Settings

WINDOW_TITLE = "SSD Lab"
CHART_PERIOD_S = 0.25  # chart redraws while running flat out


def ask(parent: QWidget, text: str) -> bool:
    """Yes/No question; the workbench calls it through self.confirm so tests can answer."""
    answer = QMessageBox.question(parent, WINDOW_TITLE, text)
    return answer == QMessageBox.StandardButton.Yes


class Workbench(QMainWindow):
    def __init__(self, settings: Settings | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle(WINDOW_TITLE)
        self.confirm = lambda text: ask(self, text)
        self.views: list[DriveView] = []
        self.edited = 0  # the view the control panel edits
        self.lockstep = None  # the gate two drives share in compare mode
        self.references: list[compare.Reference] = []
        self.segments = 0  # workload segments sent since the drives were built
        self.notice = ""  # the breakpoint that paused the run, on the progress line
        self._charts_at = 0.0
        self._build(DriveView("A", settings, parent=self))
        self.add_view(self.views[0])
        self.views[0].start()
        self._apply_theme()
        self.settings_changed(self.views[0], self.views[0].settings, True)
        self._fit_to_screen(1280, 860)

    # drive A's parts, by the names the window had before it held two drives
    session = property(lambda self: self.views[self.edited].session)
    worker = property(lambda self: self.views[0].worker)
    snapshot = property(lambda self: self.views[0].snapshot)
    blockmap = property(lambda self: self.views[0].blockmap)
    legend = property(lambda self: self.views[0].legend)
    frame_times = property(lambda self: self.views[0].frame_times)
    run_status = property(lambda self: self.views[0].run_status)

    def _fit_to_screen(self, width: int, height: int) -> None:
        """Open at the preferred size, or smaller when the screen is smaller."""
        screen = self.screen()
        if screen is not None:
            room = screen.availableGeometry()
            width, height = min(width, room.width()), min(height, room.height())
        self.resize(width, height)

    def add_view(self, v: DriveView) -> None:
        """A drive view joins the frame (A at start, B in compare mode)."""
        if v not in self.views:
            self.views.append(v)
        v.session.changed.connect(lambda s, d, v=v: self.settings_changed(v, s, d))
        v.session.error.connect(lambda f, msg: self.controls.show_error(msg, f))
        v.snapshot_taken.connect(self._on_snapshot)
        v.mount_followed.connect(lambda v: self.show_settings() if v is self.edited_view()
                                 else None)
        v.failed.connect(lambda msg, v=v: self._on_failed(v, msg))
        mapwiring.wire_view(self, v)

    def edited_view(self) -> DriveView:
        return self.views[self.edited]

    def send_all(self, name: str, *args) -> list[int]:
        """Send a command to every drive; returns each one's ticket."""
        if name != "pause":  # the run goes on (or starts afresh): the pause is history
            self.notice = ""
        return [v.send(name, *args) for v in self.views]

    # --- layout ----------------------------------------------------------------------------

    def _build(self, a: DriveView) -> None:
        self.views.append(a)
        self.controls = Controls(self.request)
        self.controls.on_fstrim = self.fstrim_now
        self.controls.on_browse = self.choose_trace
        self.controls.on_drive = self.edit_drive
        scroll = QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.controls_scroll = scroll

        self.presentation = Presentation(self, scroll, self.controls.error, self._apply_theme)
        self.button_bar = buttonbar.build(self)
        # On its own row: a long status line must never widen the window.
        self.progress_label = QLabel()
        self.progress_label.setToolTip("What the worker is doing now.")
        self.progress_label.setWordWrap(True)

        self.maps = QWidget()  # the drives' maps, side by side
        self.maps_layout = QHBoxLayout(self.maps)
        self.maps_layout.setContentsMargins(0, 0, 0, 0)
        self.maps_layout.addWidget(a.widget, 1)
        self.legends = QWidget()  # A's legend across both maps; B's beside it in heat maps
        self.legends_layout = QHBoxLayout(self.legends)
        self.legends_layout.setContentsMargins(0, 0, 0, 0)
        self.legends_layout.addWidget(a.legend, 1)
        top = self.map_area = QWidget()
        v = QVBoxLayout(top)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(2)  # at 18 pt on a 768-line screen every line counts
        v.addWidget(self.button_bar)
        v.addWidget(self.progress_label)
        v.addWidget(self.maps, 1)
        v.addWidget(self.legends)
        self.charts = Charts()
        # why the WA shown is what it is (compression, the blocks a small drive holds back)
        self.wa_note = QLabel()
        self.wa_note.setObjectName("note")
        self.wa_note.setWordWrap(True)
        self.wa_note.setToolTip("Why the write amplification shown differs from 1 or from "
                                "the analytic model.")
        charts_box = self.charts_box = QWidget()
        cv = QVBoxLayout(charts_box)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.setSpacing(2)
        cv.addWidget(self.charts, 1)
        cv.addWidget(self.charts.run_legend)
        cv.addWidget(self.wa_note)
        self.lesson_results = LessonResults()
        self.lower = QStackedWidget()  # the workbench's charts, or a lesson's results
        self.lower.addWidget(charts_box)
        self.lower.addWidget(self.lesson_results)
        right = self.right_split = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(top)
        right.addWidget(self.lower)
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 1)
        right.setSizes([500, 400])
        split = self.main_split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        self.setCentralWidget(split)

        self.status: dict[str, QLabel] = {}
        for key, tip in (("capacity", "User capacity and physical flash."),
                         ("fill", "Share of logical pages holding data."),
                         ("wa", "Write amplification since the drive was erased (of A "
                                "and B in compare mode)."),
                         ("time", "Simulated time (needs a device profile)."),
                         ("speed", "Host page writes per wall-clock second while a run "
                                   "goes (as you see them go by), and frames shown per "
                                   "second.")):
            lab = QLabel()
            lab.setToolTip(tip)
            self.statusBar().addPermanentWidget(lab)
            self.status[key] = lab
        dockedlessons.install(self)
        self.actions_by_slot = shortcuts.install(self, revert=self.show_settings)
        dockedlessons.add_menu(self)
        self.presentation.on_change = self._presentation_changed
        self._presentation_changed()
        exportdialog.install(self)
        mapwiring.install(self)  # zoom, heat maps, breakpoints

    # --- settings --------------------------------------------------------------------------

    def has_data(self) -> bool:
        return any(v.has_data() for v in self.views)

    def request(self, **changes) -> bool:
        """A control asks for a change (of the drive the panel edits; a shared setting goes
        to both drives). A drive change on a drive with data needs a yes, unless a
        reference keeps what is shown."""
        if "profile" in changes and changes["profile"]:
            changes = self._profile_changes(changes["profile"]) | changes
        plan = compare.split(self, changes)
        drive = any(k in DRIVE_FIELDS and getattr(v.settings, k) != x
                    for v, c in plan for k, x in c.items())
        if drive and self.has_data() and not self.references and not self.confirm(
                "Changing the drive discards the current run. Continue?"):
            self.show_settings()
            return False
        for v, c in plan:
            if not v.session.update(**c):
                self.show_settings()  # the controls go back to the state that stayed
                self.controls.show_error(v.session.last_error, v.session.last_field)
                return False
        return True

    def _profile_changes(self, key: str) -> dict:
        p = load_profile(key)
        # at least 256 erase blocks, so the spare leaves GC room
        least_mib = 256 * p.pages_per_block * p.page_bytes / 2**20
        return profile_settings(key) | {
            "capacity_mib": max(self.session.settings.capacity_mib, least_mib)}

    def settings_changed(self, v: DriveView, s: Settings, drive_changed: bool) -> None:
        """View v's settings changed (drive_changed: its drive must be rebuilt)."""
        if v is self.edited_view():
            self.show_settings()
        v.send("speed", s.speed)
        self.speed.blockSignals(True)
        self.speed.setCurrentIndex(self.speed.findData(s.speed))
        self.speed.blockSignals(False)
        mapwiring.follow_settings(self, v, s, drive_changed)
        if drive_changed:
            self.configure_view(v, s)
            for other in self.views:  # a comparison starts both drives afresh together
                if other is not v:
                    other.send("reset")
        else:
            v.send("settings", s)
        compare.titles(self)
        self._show_charts()
        self._status()  # the WA's note follows the settings too

    def configure_view(self, v: DriveView, s: Settings) -> None:
        self.segments = 0
        v.configure(s)

    def show_settings(self) -> None:
        self.controls.show_settings(self.session.settings, self.session.op_text(),
                                    self.session.alignment_note())

    # --- time controls ---------------------------------------------------------------------

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
        self.segments += 1
        return Segment(kind=s.workload, total=total, seed=s.seed, index=self.segments,
                       hot_lba_fraction=s.hot_lba_pct / 100,
                       hot_write_fraction=s.hot_write_pct / 100,
                       trim_max_pages=s.trim_max_pages)

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

    @Slot()
    def run_workload(self) -> None:
        if self._send_workload():
            self.play_button.setText("Pause")

    @Slot()
    def fstrim_now(self) -> None:
        if not all(v.settings.profile for v in self.views):
            self.controls.show_error("fstrim: the file system needs a device profile; choose "
                                     "one under Drive > Profile", "profile")
            return
        if not self._formatted(True, "fstrim needs a file system: formatting the drive"):
            return
        self.asked(self.send_all("fs", self.fs_step("fstrim")), "fstrim")
        self.charts.setCurrentWidget(self.charts.steps)

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

    @Slot()
    def toggle_play(self) -> None:
        if self.is_running():
            self.send_all("pause")
            self.play_button.setText("Play")
        elif any(v.snapshot is not None and v.snapshot.segment for v in self.views):
            self.send_all("play")
            self.play_button.setText("Pause")
        else:
            self.run_workload()

    @Slot()
    def step(self) -> None:
        snap = self.snapshot
        if snap is None or not snap.segment:
            if not self._send_workload():
                return
            self.send_all("pause")
        self.send_all("step")
        self.play_button.setText("Play")

    @Slot()
    def step_gc(self) -> None:
        """One garbage collection now (the run pauses)."""
        self.send_all("gc")
        self.play_button.setText("Play")

    @Slot()
    def reset_drive(self) -> None:
        self.segments = 0
        self.send_all("reset")
        self.play_button.setText("Play")

    @Slot()
    def reset_all(self) -> None:
        """Back to the start-up state, even mid-run, without asking."""
        self.send_all("pause")
        if compare.comparing(self):
            self.set_compare(False)
        self.references = []
        defaults = Settings()
        a = self.views[0]
        a.session.settings = defaults
        a.session.last_error = ""
        self.controls.show_error("")
        self.controls.set_expert(False)
        self.controls.set_fs_shown(False)
        self.presentation.reset()
        self.charts.setCurrentIndex(0)
        self.settings_changed(a, defaults, True)
        self.play_button.setText("Play")
        if self.in_lesson:
            self.lesson_panel.restart()

    # --- two drives, references ------------------------------------------------------------

    def toggle_compare(self, on: bool) -> None:
        self.set_compare(on)

    def set_compare(self, on: bool) -> bool:
        """Drive B beside A, or A alone (app/gui/compare.py); True when comparing."""
        return compare.set_on(self, on)

    def compare(self, settings_a: Settings, settings_b: Settings) -> bool:
        """Show drives A and B with these settings (for a lesson that runs two
        configurations); False when either is refused (the message names the field)."""
        return compare.show_pair(self, settings_a, settings_b)

    def edit_drive(self, index: int) -> None:
        """The control panel edits drive A (0) or B (1)."""
        if index < len(self.views):
            self.edited = index
            self.show_settings()
        compare.titles(self)

    def pin_reference(self) -> None:
        compare.pin(self)

    def clear_reference(self) -> None:
        compare.clear(self)

    def breakpoint_fired(self, v: DriveView, text: str) -> None:
        """A breakpoint paused drive v: the other pauses too (they stay in step)."""
        self.send_all("pause")
        who = f" ({v.name})" if compare.comparing(self) else ""
        self.notice = f"Breakpoint{who}: {text}"
        statusline.say(self, self.notice)
        self._status()

    # --- snapshots -------------------------------------------------------------------------

    def _on_snapshot(self, v: DriveView) -> None:
        snap = v.snapshot
        # Charts cost a few ms each: while a run goes flat out, redraw them a few times a
        # second; every frame of an animation, and always when the run stops.
        now = time.perf_counter()
        if not snap.running or snap.animated or now - self._charts_at >= CHART_PERIOD_S:
            self._charts_at = now
            self._show_charts()
        if not self.in_lesson:  # the status line and map label describe the lesson's run
            self._status()
        self.play_button.setText("Pause" if self.is_running() else "Play")

    def show_run(self) -> None:
        """Charts and status line from the drives' newest snapshots."""
        self._show_charts()
        self._status()

    def _show_charts(self) -> None:
        a = self.views[0]
        names = compare.labels(self)
        others = compare.others(self, names)
        self.charts.theory = a.session.theory_wa()
        self.charts.show_snapshot(a.snapshot, bool(a.settings.profile), others,
                                  names["A"] if others else "")

    def _on_failed(self, v: DriveView, message: str) -> None:
        """A drive's run failed and ended: in a comparison the other's run ends with it (one
        drive running on alone would compare nothing), and the message names the drive."""
        if compare.comparing(self):
            for other in self.views:
                if other is not v:
                    other.send("halt")
            message = f"{v.name}: {message}"
        self.play_button.setText("Play")
        self.controls.show_error(f"Engine: {message}")

    def fps(self) -> float:
        return self.views[0].fps()

    def _status(self) -> None:
        statusline.show(self)

    # --- files, help, theme ----------------------------------------------------------------

    def settle(self) -> None:
        """Pause every drive, and wait (the window still answering) until each has shown a
        snapshot taken after the pause (app/gui/driveview.py)."""
        for v in self.views:
            v.settle()

    def save(self, path: str) -> bool:
        return runfiles.save(self, path)

    def open(self, path: str) -> bool:
        return runfiles.open_session(self, path)

    def open_scenario(self, path: str) -> bool:
        return runfiles.open_scenario(self, path)

    def save_scenario(self, path: str) -> bool:
        return runfiles.save_scenario(self, path)

    def may_discard(self, what: str) -> bool:
        """True when nothing would be lost, or the user agrees to lose the current run."""
        busy = self.has_data() or self.is_running()
        return not busy or self.confirm(f"{what} discards the current run. Continue?")

    def open_scenario_dialog(self) -> None:
        runfiles.dialog(self, "open_scenario_dialog")

    def save_scenario_dialog(self) -> None:
        runfiles.dialog(self, "save_scenario_dialog")

    def save_dialog(self) -> None:
        runfiles.dialog(self, "save_dialog")

    def open_dialog(self) -> None:
        runfiles.dialog(self, "open_dialog")

    def show_help(self) -> None:
        self.help_dialog = shortcuts.help_dialog(self)
        self.help_dialog.show()

    def set_speed(self, key: str) -> None:
        self.speed.setCurrentIndex(self.speed.findData(key))

    def next_chart(self, step: int) -> None:
        self.charts.setCurrentIndex((self.charts.currentIndex() + step) % self.charts.count())

    def export_dialog(self) -> None:
        exportdialog.open_dialog(self)

    def toggle_presentation(self, on: bool) -> None:
        self.presentation.set_on(on)
        if on and not self.in_lesson:
            # projector type leaves no room for the welcome page beside the full controls
            # at 1024 px: the class sees the workbench; Ctrl+L or a lesson brings it back
            self.lesson_dock.hide()

    def toggle_panel(self, shown: bool) -> None:
        self.presentation.set_panel(shown)

    def _presentation_changed(self) -> None:
        """The View menu's check marks follow the state, however it changed."""
        statusline.fit(self)
        for slot, on in (("toggle_presentation", self.presentation.on),
                         ("toggle_panel", self.presentation.panel_shown())):
            action = self.actions_by_slot[slot]
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)

    def _apply_theme(self) -> None:
        app = QApplication.instance()
        app.setPalette(theme.current().palette())
        app.setStyleSheet(theme.current().stylesheet())
        self.controls.set_rows_wrapped(theme.current().name == "projector")
        self._fit_panel()
        # presentation type needs more room for the charts' labels: they get 60 %, and the
        # map may shrink further (at 18 pt a 768-line screen has room for little else)
        present = theme.current().name == "projector"
        share = 0.52 if present else 0.45
        self._map_share = 1 - share
        compare.apply_theme(self)
        self._share_split()
        # again once the map's legend has wrapped in the new type: setSizes honours the
        # minimum heights as they are then, so the legend's last row is not cut off
        QTimer.singleShot(0, self._share_split)
        self.charts.apply_theme()
        QTimer.singleShot(0, self._show_charts)

    def _share_split(self) -> None:
        if self.in_lesson:
            return  # a lesson sets its own share
        height = sum(self.right_split.sizes()) or self.height()
        top = int(height * self._map_share)
        self.right_split.setSizes([top, height - top])

    def _fit_panel(self) -> None:
        """The panel is as wide as its widest row needs, and may grow a little; with its
        scroll bar, nothing in it is cut at the side."""
        bar = self.controls_scroll.verticalScrollBar().sizeHint().width() + 8
        least = self._controls_width = self.controls.minimumSizeHint().width() + bar
        if getattr(self, "in_lesson", False):
            return  # a lesson narrows the panel to the settings it uses
        self.controls_scroll.setMinimumWidth(least)
        self.controls_scroll.setMaximumWidth(max(least, int(0.4 * self.width())))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._fit_panel()

    # --- lessons (app/gui/dockedlessons.py) -------------------------------------------------

    def show_glossary(self, term: str = "") -> None:
        dockedlessons.show_glossary(self, term)

    def open_lesson(self, path: str) -> bool:
        return dockedlessons.open_lesson(self, path)

    def open_lesson_dialog(self) -> None:
        dockedlessons.open_lesson_dialog(self)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt name
        if self.lesson_panel.job is not None:
            self.lesson_panel.job.cancel()
            self.lesson_panel.job.wait()
        for v in self.views:
            v.stop()
        super().closeEvent(event)
