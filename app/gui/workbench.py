"""The workbench window: controls on the left, block map and charts on the right.

It wires a Session (settings), a Worker (the drive, in its own thread) and the views, and
owns the keyboard. It holds no simulation state of its own beyond the newest snapshot.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEventLoop, Qt, QTimer, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.atomicfile import OutputFileError, write_atomic
from app.session.fsjobs import FsStep
from app.session.progress import load_progress
from app.session.schema import SETTINGS
from app.session.sessionfile import SessionFileError, read_session, write_session
from app.session.streams import Segment
from app.session.wanotes import wa_note, wa_status
from lessons.catalogue import bundled
from lessons.glossary import load_glossary
from lessons.lesson import LessonError
from lessons.loader import load_lesson
from model.host.profiles import load_profile
from model.lab.scenario import load_scenario, scenario_text

from . import exportdialog, mapwiring, shortcuts, theme
from .blockmap import BlockMap, Legend
from .charts import Charts
from .controls import Controls
from .flowlayout import FlowLayout
from .glossarywindow import GlossaryWindow
from .lessonpanel import LessonPanel
from .lessonresults import LessonResults
from .presentation import Presentation
from .scenariofiles import profile_settings, scenario_for, settings_for, steps_for
from .session import DRIVE_FIELDS, FS_WORKLOADS, Session, Settings
from .statusline import RunStatus
from .worker import Snapshot, Worker

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "assets" / "scenarios"

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
        self.session = Session(settings)
        self.worker = Worker()
        self.snapshot: Snapshot | None = None
        self._last_mount: tuple[str, bool] | None = None  # mount options of the last snapshot
        self.frame_times: deque[float] = deque(maxlen=240)
        self.run_status = RunStatus()
        self._segments = 0
        self._charts_at = 0.0
        self._settling: list[tuple[int, QEventLoop]] = []  # (ticket, loop) of each settle()
        self._build()
        self.session.changed.connect(self._on_settings)
        self.session.error.connect(lambda f, msg: self.controls.show_error(msg, f))
        self.worker.snapshot_ready.connect(self._on_snapshot, Qt.ConnectionType.QueuedConnection)
        self.worker.failed.connect(self._on_failed, Qt.ConnectionType.QueuedConnection)
        self.worker.start()
        self._apply_theme()
        self._on_settings(self.session.settings, True)
        self._fit_to_screen(1280, 860)

    def _fit_to_screen(self, width: int, height: int) -> None:
        """Open at the preferred size, or smaller when the screen is smaller."""
        screen = self.screen()
        if screen is not None:
            room = screen.availableGeometry()
            width, height = min(width, room.width()), min(height, room.height())
        self.resize(width, height)

    # --- layout ----------------------------------------------------------------------------

    def _build(self) -> None:
        self.controls = Controls(self.request)
        self.controls.on_fstrim = self.fstrim_now
        self.controls.on_browse = self.choose_trace
        scroll = QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.controls_scroll = scroll

        self.run_button = self._button("Run", "Start the chosen workload from its "
                                       "beginning (Ctrl+Enter).", self.run_workload)
        self.play_button = self._button("Play", "Play or pause the run (Space).",
                                        self.toggle_play, longest="Pause")
        self.step_button = self._button("Step", "Run one batch, then stop (Right arrow).",
                                        self.step)
        self.gc_button = self._button("GC", "Collect one victim block now and show its "
                                      "copies and erase (G).", self.step_gc)
        self.reset_button = self._button("Reset drive", "Erase the drive and clear the charts; "
                                         "settings stay (Ctrl+R).", self.reset_drive)
        self.reset_all_button = self._button("Reset All", "Everything back to the start-up "
                                             "state: settings, drive, charts, theme (Alt+R).",
                                             self.reset_all)
        self.speed = QComboBox()
        for key in SETTINGS["speed"].choices:
            self.speed.addItem(key, key)
        self.speed.setCurrentIndex(self.speed.findData(Settings().speed))
        self.speed.setToolTip("Animation speed: slow and normal show every batch; fast runs "
                              "flat out and shows a frame 30 times a second (keys 1, 2, 3).")
        self.speed.currentIndexChanged.connect(
            lambda _i: self.request(speed=self.speed.currentData()))
        help_button = self._button("?", "Keyboard help (F1).", self.show_help)
        self.presentation = Presentation(self, scroll, self.controls.error, self._apply_theme)
        self.button_bar = QWidget()
        bar = FlowLayout(self.button_bar)  # wraps rather than clips in large type
        speed = QWidget()  # the label stays with its list when the row wraps
        pair = QHBoxLayout(speed)
        pair.setContentsMargins(0, 0, 0, 0)
        pair.addWidget(QLabel("Speed"))
        pair.addWidget(self.speed)
        for w in (self.run_button, self.play_button, self.step_button, self.gc_button,
                  speed, self.reset_button, self.reset_all_button,
                  self.presentation.panel_button, help_button):
            bar.addWidget(w)
        # On its own row: a long status line must never widen the window.
        self.progress_label = QLabel()
        self.progress_label.setToolTip("What the worker is doing now.")
        self.progress_label.setWordWrap(True)

        self.blockmap = BlockMap()
        self.legend = Legend()
        top = self.map_area = QWidget()
        v = QVBoxLayout(top)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(2)  # at 18 pt on a 768-line screen every line counts
        v.addWidget(self.button_bar)
        v.addWidget(self.progress_label)
        v.addWidget(self.blockmap, 1)
        v.addWidget(self.legend)
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
                         ("wa", "Write amplification since the drive was erased."),
                         ("time", "Simulated time (needs a device profile)."),
                         ("speed", "Host page writes per wall-clock second while a run "
                                   "goes (as you see them go by), and frames shown per "
                                   "second.")):
            lab = QLabel()
            lab.setToolTip(tip)
            self.statusBar().addPermanentWidget(lab)
            self.status[key] = lab
        self._lessons()
        self.actions_by_slot = shortcuts.install(self, revert=self._show_settings)
        self._lesson_menu()
        self.presentation.on_change = self._presentation_changed
        self._presentation_changed()
        exportdialog.install(self)
        mapwiring.install(self)  # zoom, heat maps, breakpoints

    def _lessons(self) -> None:
        """The lesson panel, docked beside the workbench; it opens on the welcome page."""
        lessons = bundled()
        self.glossary = load_glossary()
        self.lesson_titles = {x.id: f"{x.order}. {x.title}" for x in lessons}
        self.glossary_window: GlossaryWindow | None = None
        self.lesson_progress = load_progress()
        panel = self.lesson_panel = LessonPanel(lessons, self.lesson_progress,
                                                self.lesson_results)
        panel.focus.connect(self._lesson_focus)
        panel.drive_snapshot.connect(self._lesson_drive)
        panel.glossary_asked.connect(self.show_glossary)
        panel.explore.connect(lambda: self.lesson_dock.hide())
        panel.open_file_asked.connect(self.open_lesson_dialog)
        panel.active_changed.connect(self._lesson_active)
        dock = self.lesson_dock = QDockWidget("Lessons")
        dock.setObjectName("lessons")
        dock.setWidget(panel)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        dock.setMinimumWidth(280)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self.resizeDocks([dock], [320], Qt.Orientation.Horizontal)
        self.in_lesson = False
        self._split_before: list[int] = []  # the map / charts split before a lesson

    def _button(self, text: str, tip: str, slot, longest: str = "") -> QPushButton:
        b = QPushButton(text)
        b.setToolTip(tip)
        b.clicked.connect(slot)
        # The style's default minimum (about 80 px) would keep the window wider than 1024;
        # the text's own width is enough. `longest` is a label the button switches to.
        fm = b.fontMetrics()
        b.setMinimumWidth(max(fm.horizontalAdvance(t) for t in (text, longest)) + 20)
        return b

    def _lesson_menu(self) -> None:
        """The Lessons menu; its keys are listed in shortcuts.TABLE with the rest."""
        lessons = self.menuBar().addMenu("&Lessons")
        toggle = self.lesson_dock.toggleViewAction()
        toggle.setText("&Lessons panel")
        toggle.setShortcut(QKeySequence("Ctrl+L"))
        lessons.addAction(toggle)
        for text, keys, slot in (("Open lesson &file...", QKeySequence(),
                                  self.open_lesson_dialog),
                                 ("&Glossary", QKeySequence("Ctrl+G"),
                                  lambda: self.show_glossary(""))):
            action = QAction(text, self)
            action.setShortcut(keys)
            action.triggered.connect(slot)
            lessons.addAction(action)

    # --- settings --------------------------------------------------------------------------

    def has_data(self) -> bool:
        s = self.snapshot
        return s is not None and (s.counters["host_writes"] > 0 or s.counters["trims"] > 0)

    def request(self, **changes) -> bool:
        """A control asks for a change. Drive changes on a drive with data need a yes."""
        if "profile" in changes and changes["profile"]:
            changes = self._profile_changes(changes["profile"]) | changes
        drive = any(k in DRIVE_FIELDS and getattr(self.session.settings, k) != v
                    for k, v in changes.items())
        if drive and self.has_data() and not self.confirm(
                "Changing the drive discards the current run. Continue?"):
            self._show_settings()
            return False
        ok = self.session.update(**changes)
        if not ok:
            self._show_settings()  # the controls go back to the state that stayed
            self.controls.show_error(self.session.last_error, self.session.last_field)
        return ok

    def _profile_changes(self, key: str) -> dict:
        p = load_profile(key)
        # at least 256 erase blocks, so the spare leaves GC room
        least_mib = 256 * p.pages_per_block * p.page_bytes / 2**20
        return profile_settings(key) | {
            "capacity_mib": max(self.session.settings.capacity_mib, least_mib)}

    @Slot(object, bool)
    def _on_settings(self, s: Settings, drive_changed: bool) -> None:
        self._show_settings()
        self.worker.send("speed", s.speed)
        self.speed.blockSignals(True)
        self.speed.setCurrentIndex(self.speed.findData(s.speed))
        self.speed.blockSignals(False)
        self.charts.theory = self.session.theory_wa()
        mapwiring.follow_settings(self, s, drive_changed)
        if drive_changed:
            self._segments = 0
            profile = load_profile(s.profile) if s.profile else None
            self.worker.configure(s.geometry(), s.config(), profile, s)
        else:
            self.worker.send("settings", s)
        self.charts.show_snapshot(self.snapshot, bool(s.profile))
        if self.snapshot is not None:
            self._status(self.snapshot)  # the WA's note follows the settings too

    def _follow_mount(self, snap: Snapshot) -> None:
        """A scenario's remount step changed the mount options: the controls show them (the
        file system already has them, so nothing is sent back)."""
        s = self.session.settings
        last, self._last_mount = self._last_mount, snap.mount
        # only a change the model made: a snapshot taken before a remount the controls asked
        # for still shows the old options, and must not undo the request
        if snap.mount is not None and last is not None and snap.mount != last \
                and snap.mount != (s.atime, s.discard):
            self.session.settings = replace(s, atime=snap.mount[0], discard=snap.mount[1])
            self._show_settings()

    def _show_settings(self) -> None:
        self.controls.show_settings(self.session.settings, self.session.op_text(),
                                    self.session.alignment_note())

    # --- time controls ---------------------------------------------------------------------

    def segment(self) -> Segment:
        """The chosen workload as a segment (the Session's settings, in pages)."""
        s = self.session.settings
        user = s.user_pages
        if s.workload == "fill":
            total = int(round(user * s.fill_pct / 100))
        elif s.workload == "trim":
            total = int(round(s.amount * user / ((1 + s.trim_max_pages) / 2)))
        else:
            total = int(round(s.amount * user))
        self._segments += 1
        return Segment(kind=s.workload, total=total, seed=s.seed, index=self._segments,
                       hot_lba_fraction=s.hot_lba_pct / 100,
                       hot_write_fraction=s.hot_write_pct / 100,
                       trim_max_pages=s.trim_max_pages)

    def is_running(self) -> bool:
        return self.snapshot is not None and self.snapshot.running

    def fs_step(self, kind: str) -> FsStep:
        self._segments += 1
        return FsStep.from_control(kind, self.session.settings, self._segments)

    def _send_workload(self) -> bool:
        """Send the chosen workload. File-system steps need the drive to hold a file system
        and block workloads a bare drive: switching asks before discarding a run."""
        s = self.session.settings
        snap = self.snapshot
        fs = s.workload in FS_WORKLOADS
        if fs and not s.profile:
            self.controls.show_error("Workload: file-system workloads need a device profile; "
                                     "choose one under Drive > Profile", "profile")
            return False
        if fs and s.workload == "trace" and not s.trace_path:
            self.controls.show_error("Trace file: choose a trace file first", "trace_path")
            return False
        mounted = snap is not None and snap.mounted
        if self.has_data() and fs != mounted:
            text = ("File-system workloads format the drive first" if fs else
                    "Block workloads write the bare drive, without the file system")
            if not self.confirm(text + ": this discards the current run. Continue?"):
                return False
            self.reset_drive()
        self.controls.show_error("")
        if fs:
            step = self.fs_step(s.workload)
            self._asked(self.worker.send("fs", step), step.label)
            self.charts.setCurrentWidget(self.charts.steps)
        else:
            self._asked(self.worker.send("workload", self.segment()), s.workload)
        return True

    def _asked(self, ticket: int, text: str) -> None:
        """A run was sent as command `ticket`: say so now, not at the worker's next frame."""
        line = self.run_status.asked(ticket, text)
        self.progress_label.setText(line)
        if not self.charts.steps.rows():
            self.charts.steps.message.setText(line)

    @Slot()
    def run_workload(self) -> None:
        if self._send_workload():
            self.play_button.setText("Pause")

    @Slot()
    def fstrim_now(self) -> None:
        s = self.session.settings
        if not s.profile:
            self.controls.show_error("fstrim: the file system needs a device profile; choose "
                                     "one under Drive > Profile", "profile")
            return
        snap = self.snapshot
        if self.has_data() and not (snap is not None and snap.mounted):
            if not self.confirm("fstrim needs a file system: formatting the drive discards "
                                "the current run. Continue?"):
                return
            self.reset_drive()
        self._asked(self.worker.send("fs", self.fs_step("fstrim")), "fstrim")
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
        snap = self.snapshot
        if snap is not None and snap.running:
            self.worker.send("pause")
            self.play_button.setText("Play")
        elif snap is not None and snap.segment:
            self.worker.send("play")
            self.play_button.setText("Pause")
        else:
            self.run_workload()

    @Slot()
    def step(self) -> None:
        snap = self.snapshot
        if snap is None or not snap.segment:
            if not self._send_workload():
                return
            self.worker.send("pause")
        self.worker.send("step")
        self.play_button.setText("Play")

    @Slot()
    def step_gc(self) -> None:
        """One garbage collection now (the run pauses)."""
        self.worker.send("gc")
        self.play_button.setText("Play")

    @Slot()
    def reset_drive(self) -> None:
        self._segments = 0
        self.worker.send("reset")
        self.play_button.setText("Play")

    @Slot()
    def reset_all(self) -> None:
        """Back to the start-up state, even mid-run, without asking."""
        self.worker.send("pause")
        defaults = Settings()
        self.session.settings = defaults
        self.session.last_error = ""
        self.controls.show_error("")
        self.controls.set_expert(False)
        self.controls.set_fs_shown(False)
        self.presentation.reset()
        self.charts.setCurrentIndex(0)
        self._on_settings(defaults, True)
        self.play_button.setText("Play")
        if self.in_lesson:
            self.lesson_panel.restart()

    # --- snapshots -------------------------------------------------------------------------

    @Slot()
    def _on_snapshot(self) -> None:
        snap = self.worker.take_snapshot()
        if snap is None:
            self._end_settle()
            return
        self.snapshot = snap
        self.frame_times.append(time.perf_counter())
        self._follow_mount(snap)
        if not self.in_lesson:  # during a lesson the map shows the lesson's drive
            self.blockmap.set_snapshot(snap)
        # Charts cost a few ms each: while a run goes flat out, redraw them a few times a
        # second; every frame of an animation, and always when the run stops.
        now = time.perf_counter()
        if not snap.running or snap.animated or now - self._charts_at >= CHART_PERIOD_S:
            self._charts_at = now
            self.charts.show_snapshot(snap, bool(self.session.settings.profile))
        if not self.in_lesson:  # the status line and map label describe the lesson's run
            self._status(snap)
        self.play_button.setText("Pause" if snap.running else "Play")
        self._end_settle()

    def _end_settle(self) -> None:
        for ticket, loop in self._settling:
            if self._settled(ticket):
                loop.quit()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.controls.show_error(f"Engine: {message}")

    def fps(self) -> float:
        now = time.perf_counter()
        recent = [t for t in self.frame_times if now - t <= 1.0]
        return float(len(recent))

    def _status(self, snap: Snapshot) -> None:
        s = self.session.settings
        g = s.geometry()
        mib = g.user_bytes / 2**20
        self.status["capacity"].setText(
            f"{mib:,.0f} MiB user, {g.physical_bytes / 2**20:,.0f} MiB flash, "
            f"{g.blocks:,} blocks")
        fill = float(snap.valid.sum()) / snap.user_pages
        self.status["fill"].setText(f"fill {100 * fill:.1f} %")
        wa = snap.series["wa"][-1] if snap.series["wa"].size else float("nan")
        self.status["wa"].setText(wa_status(s, wa))
        note = wa_note(s, wa)
        self.wa_note.setText(note)
        self.wa_note.setVisible(bool(note))
        self.status["time"].setText(f"sim {snap.sim_s:,.2f} s" if s.profile else "sim time -")
        self.status["speed"].setText(self.run_status.speed(snap, time.perf_counter(),
                                                           self.fps()))
        self.progress_label.setText(self.run_status.progress(snap))

    # --- files, help, theme ----------------------------------------------------------------

    def settle(self) -> None:
        """Pause, and wait (the window still answering) until the worker has published a
        snapshot taken after the pause, or has stopped. No time limit: a step being
        prepared pauses when its preparation ends, and a stopped worker ends the wait."""
        ticket = self.worker.send("pause")
        loop = QEventLoop()
        # _on_snapshot ends the loop once settled (a save asked for meanwhile nests one more)
        self._settling.append((ticket, loop))
        self.worker.finished.connect(loop.quit)  # before the check: it may end meanwhile
        try:
            if not self._settled(ticket):
                loop.exec()
        finally:
            self._settling.remove((ticket, loop))
            self.worker.finished.disconnect(loop.quit)

    def _settled(self, ticket: int) -> bool:
        snap, w = self.snapshot, self.worker
        return (not w.isRunning() or (snap is not None and snap.handled >= ticket)
                or (w.drive is None and w.published >= ticket))

    def save(self, path: str) -> bool:
        """Write the settings, the log and the series to a session file (the old file stays
        whole if writing fails)."""
        self.settle()
        snap = self.snapshot
        log = snap.log if snap else []
        series = snap.series if snap else {}
        try:
            write_session(path, self.session.settings, log, series)
        except OutputFileError as e:  # names the path and why; the old file is whole
            self.controls.show_error(f"Save: {e}")
            return False
        self.statusBar().showMessage(f"Saved session {path}", 10000)
        return True

    def may_discard(self, what: str) -> bool:
        """True when nothing would be lost, or the user agrees to lose the current run."""
        busy = self.has_data() or self.is_running()
        return not busy or self.confirm(f"{what} discards the current run. Continue?")

    def open(self, path: str) -> bool:
        """Replay a session file. The whole file is checked first; a bad file is reported
        and the current run stays; a good one replaces the run after a yes."""
        try:
            settings, log, series = read_session(path)
        except SessionFileError as e:
            self.controls.show_error(f"Open: {e}")
            return False
        if not self.may_discard("Opening a session"):
            return False
        self.worker.send("pause")
        self.session.settings = settings
        self._on_settings(settings, True)
        self._segments = max((d.get("index", 0) for d in log), default=0)
        self._asked(self.worker.send("replay", log, series), "replaying the session")
        self.controls.show_error("")
        self.statusBar().showMessage(f"Session: {path} ({len(log)} steps)", 10000)
        return True

    def open_scenario(self, path: str) -> bool:
        """Set the drive, partition and file system a scenario file names and run its steps,
        as `ssdlab run` would. A bad file is reported and the current run stays."""
        try:
            sc = load_scenario(path)
            settings = settings_for(sc, self.session.settings)
            Session.check(settings)
        except ValueError as e:  # ScenarioError is a ValueError
            self.controls.show_error(f"Open scenario: {e}")
            return False
        if not self.may_discard("Opening a scenario"):
            return False
        self.worker.send("pause")
        self.session.settings = settings
        self._on_settings(settings, True)
        steps = steps_for(sc)
        self._segments = len(steps)
        self._asked(self.worker.send("fs", steps), f"scenario {sc.name}")
        self.controls.show_error("")
        self.controls.set_fs_shown(True)  # the mount options and partition it set
        self.play_button.setText("Pause")
        self.charts.setCurrentWidget(self.charts.steps)
        self.statusBar().showMessage(f"Scenario: {sc.name} ({len(steps)} steps)", 10000)
        return True

    def save_scenario(self, path: str) -> bool:
        """Write this file-system run as a scenario file `ssdlab run` plays to the same
        counters; a run a scenario cannot hold is refused with the reason."""
        self.settle()
        snap = self.snapshot
        try:
            sc = scenario_for(self.session.settings, snap.log if snap else [],
                              Path(path).name.split(".")[0])
            write_atomic(path, scenario_text(
                sc, "Saved from the SSD Lab workbench. Play it with: ssdlab run FILE"))
        except ValueError as e:
            self.controls.show_error(f"Save as scenario: {e}")
            return False
        except OutputFileError as e:
            self.controls.show_error(f"Save as scenario: {e}")
            return False
        self.statusBar().showMessage(f"Saved scenario {path}", 10000)
        return True

    def open_scenario_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scenario", str(SCENARIO_DIR),
                                              "Scenario files (*.toml)")
        if path:
            self.open_scenario(path)

    def save_scenario_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save as scenario", "run.toml",
                                              "Scenario files (*.toml)")
        if path:
            self.save_scenario(path)

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save session", "session.ssdlab.json",
                                              "SSD Lab sessions (*.json)")
        if path:
            self.save(path)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open session", "",
                                              "SSD Lab sessions (*.json)")
        if path:
            self.open(path)

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
        # at 18 pt the status bar has room for the run's figures, not the drive's size
        self.status["capacity"].setVisible(not self.presentation.on)
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
        self.blockmap.setMinimumHeight(100 if present else 160)
        self._map_share = 1 - share
        self._share_split()
        # again once the map's legend has wrapped in the new type: setSizes honours the
        # minimum heights as they are then, so the legend's last row is not cut off
        QTimer.singleShot(0, self._share_split)
        self.charts.apply_theme()
        self.legend.refresh()
        self.blockmap.set_snapshot(self.snapshot)
        QTimer.singleShot(0, lambda: self.charts.show_snapshot(
            self.snapshot, bool(self.session.settings.profile)))

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

    # --- lessons ---------------------------------------------------------------------------

    def _lesson_active(self, on: bool) -> None:
        """A lesson drives the map and the lower half; the workbench's own run waits."""
        self.in_lesson = on
        if on:
            self.worker.send("pause")
            self.blockmap.set_snapshot(None)
            self.progress_label.setText("The drive of the lesson's run appears here when it "
                                        "runs.")
        elif theme.current().name == "projector":
            # before the controls widen again: projector type leaves no room for the list of
            # lessons beside them at 1024 px (the window would grow past the screen)
            self.lesson_dock.hide()
        # the lesson runs the drive: the workbench's own buttons fold away, and the controls
        # (only the settings the lesson uses) need less width than the map and results
        self.button_bar.setVisible(not on)
        if on:
            self.controls_scroll.setMaximumWidth(240)
            self.controls_scroll.setMinimumWidth(min(180, self._controls_width))
        else:
            self._fit_panel()
        self.controls_scroll.setHorizontalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.lower.setCurrentWidget(self.lesson_results if on else self.charts_box)
        for label in self.status.values():  # they describe the workbench's own drive
            label.setVisible(not on)
        if on:  # after the controls narrowed, so the window need not grow to hold it
            self.lesson_dock.show()
            self._split_before = self.right_split.sizes()
            total = sum(self._split_before)
            self.right_split.setSizes([int(total * 0.42), total - int(total * 0.42)])
            left, right = self.main_split.sizes()  # no gutter beside the narrowed controls
            self.main_split.setSizes([240, left + right - 240])
        if not on:
            if self._split_before:
                self.right_split.setSizes(self._split_before)
            self.blockmap.set_snapshot(self.snapshot)
            if self.snapshot is not None:
                self._status(self.snapshot)

    def _lesson_focus(self, focus) -> None:
        if focus is None:
            self.controls.set_lesson(None)
            self._show_settings()
            self.map_area.show()
            return
        settings, used, blockmap = focus
        # a run that does not draw the map (a file-system scenario) leaves its room to results
        self.map_area.setVisible(blockmap)
        shown = Session(settings)
        self.controls.show_settings(settings, shown.op_text(), shown.alignment_note())
        self.controls.set_lesson(used)

    def _lesson_drive(self, snap) -> None:
        if snap is None:
            self.blockmap.set_snapshot(self.snapshot)
            return
        self.blockmap.set_snapshot(snap)
        if snap.segment:
            self.progress_label.setText(f"Lesson run: {snap.segment}")

    def show_glossary(self, term: str = "") -> None:
        if self.glossary_window is None:
            self.glossary_window = GlossaryWindow(self.glossary, self.lesson_titles, self)
            self.glossary_window.open_lesson.connect(self._open_lesson_id)
        if not (term and self.glossary_window.show_term(term)):
            self.glossary_window.show()
            self.glossary_window.raise_()

    def _open_lesson_id(self, lesson_id: str) -> None:
        lesson = next((x for x in self.lesson_panel.lessons if x.id == lesson_id), None)
        if lesson is not None:
            self.lesson_dock.show()
            self.lesson_panel.start(lesson)

    def open_lesson(self, path: str) -> bool:
        """Play a lesson file from disk (a teacher's). A bad file is reported, with its
        line and field, and whatever was on screen stays."""
        try:
            lesson = load_lesson(path, self.glossary)
        except LessonError as e:
            self.lesson_dock.show()
            self.lesson_panel.home_note.setText(f"Open lesson: {e}")
            self.statusBar().showMessage(f"Open lesson: {e}", 15000)
            return False
        self.lesson_dock.show()
        self.lesson_panel.start(lesson)
        return True

    def open_lesson_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open lesson", "",
                                              "SSD Lab lessons (*.toml)")
        if path:
            self.open_lesson(path)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt name
        if self.lesson_panel.job is not None:
            self.lesson_panel.job.cancel()
            self.lesson_panel.job.wait()
        self.worker.stop()
        super().closeEvent(event)
