"""The workbench window, a frame around one or two drive views: the control panel on the
left, the button bar, the drives' block maps side by side, the charts below, the status line,
the menus and keys, and the lesson panel docked at the right.

Each drive view (ssdlab/app/gui/drive/driveview.py) holds one drive's worker, map, settings and
newest snapshot. The frame sends every view the same workload; with two (compare mode,
ssdlab/app/gui/frame/compare.py) the charts overlay both runs and the Steps table has A and B
columns. The frame holds no simulation state of its own.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QMainWindow,
    QMessageBox,
    QWidget,
)

from ssdlab.app.session.wanotes import analytic_name
from ssdlab.model.host.profiles import load_profile

from ..appearance import accessnames, appevents, focusring
from ..drive import mapwiring
from ..drive.driveview import DriveView
from ..run import preparing
from ..settings.scenariofiles import profile_settings
from ..settings.session import DRIVE_FIELDS, Settings
from . import (
    arranger,
    buttonbar,
    compare,
    dockedlessons,
    exportall,
    exportdialog,
    runfiles,
    shortcuts,
    speech,
    statusline,
    taborder,
    themefit,
    timekeys,
)
from .windowlayout import WindowLayout
from .workloads import Workloads

WINDOW_TITLE = "SSD Lab"
CHART_PERIOD_S = 0.25  # chart redraws while running flat out


def ask(parent: QWidget, text: str) -> bool:
    """Yes/No question; the workbench calls it through self.confirm so tests can answer.
    No, the answer that keeps what there is, is the default: a stray Return loses nothing."""
    answer = QMessageBox.question(parent, WINDOW_TITLE, text,
                                  defaultButton=QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


class Workbench(QMainWindow, WindowLayout, Workloads):
    """The window; its widgets are built by WindowLayout (windowlayout.py), the workload it
    sends checked and built by Workloads (workloads.py)."""

    def __init__(self, settings: Settings | None = None, parent=None):
        super().__init__(parent)
        # the application's event filter waits while the window is made: Qt sends its
        # widgets some 18,000 events meanwhile, none a filter is for (appevents.py)
        with appevents.held(self):
            self._make(settings)

    def _make(self, settings: Settings | None) -> None:
        self.setWindowTitle(WINDOW_TITLE)
        self.confirm = lambda text: ask(self, text)
        self.views: list[DriveView] = []
        self.edited = 0  # the view the control panel edits
        self.lockstep = None  # the gate two drives share in compare mode
        self.references: list[compare.Reference] = []
        self.segments = 0  # workload segments sent since the drives were built
        self.notice = ""  # the breakpoint that paused the run, on the progress line
        self._charts_at = 0.0
        accessnames.install()  # a screen reader hears each control's label, not its value
        focusring.install()  # a thick ring on the focused control, the map and charts too
        self._build(DriveView("A", settings, parent=self))
        speech.install(self)  # the map, charts and messages said to a screen reader
        self.add_view(self.views[0])
        self.preparer = None  # compiling the engine, when its cache was cold
        if preparing.engine_is_warm():
            self.views[0].start()
        else:
            self._prepare_engine()
        self._apply_theme()
        self.settings_changed(self.views[0], self.views[0].settings, True)
        self.resize(*arranger.opening_size(self))
        self.arranger.update()
        self.presentation.tell = lambda text: statusline.say(self, text)
        if self.presentation.prefs_problem:  # a bad preferences file: said, never raised
            statusline.say(self, self.presentation.prefs_problem)

    def _prepare_engine(self) -> None:
        """Compile the engine before the first drive runs, Run and its neighbours waiting
        (disabled) and the status saying why; the drive's commands queue meanwhile."""
        for b in self._waiting_buttons():
            b.setEnabled(False)
        self.notice = preparing.MESSAGE
        statusline.say(self, preparing.MESSAGE, until=lambda w: w.preparer is None)
        self.progress_label.setText(preparing.MESSAGE)
        self.lesson_panel.hold_for_engine(preparing.MESSAGE)
        self.preparer = preparing.EnginePreparer(self)
        self.preparer.progressed.connect(self._engine_progress)
        self.preparer.finished.connect(self._engine_ready)
        self.preparer.start()

    def _waiting_buttons(self) -> list:
        return [self.run_button, self.play_button, self.step_button, self.gc_button]

    @Slot(int, int, str)
    def _engine_progress(self, done: int, total: int, name: str) -> None:
        self.notice = f"{preparing.MESSAGE} ({done} of {total} ready)"
        self.progress_label.setText(self.notice)
        statusline.say(self, self.notice, until=lambda w: w.preparer is None)
        self.lesson_panel.hold_for_engine(self.notice, done / max(total, 1))

    @Slot(str)
    def _engine_ready(self, error: str) -> None:
        self.preparer = None
        self.notice = ""
        statusline.say(self, "")
        self.progress_label.setText("")
        for b in self._waiting_buttons():
            b.setEnabled(True)
        self.lesson_panel.hold_for_engine("")
        self.views[0].start()
        if error:  # the first run compiles instead, and the message says why it waits
            statusline.say(self, f"Preparing the simulator failed ({error}); the first run "
                           "compiles it, about a minute", until=lambda w: w.snapshot is not None
                           and w.snapshot.counters["host_writes"] > 0)

    # drive A's parts, by the names the window had before it held two drives
    session = property(lambda self: self.views[self.edited].session)
    worker = property(lambda self: self.views[0].worker)
    snapshot = property(lambda self: self.views[0].snapshot)
    blockmap = property(lambda self: self.views[0].blockmap)
    legend = property(lambda self: self.views[0].legend)
    frame_times = property(lambda self: self.views[0].frame_times)
    run_status = property(lambda self: self.views[0].run_status)

    def add_view(self, v: DriveView) -> None:
        """A drive view joins the frame (A at start, B in compare mode)."""
        if v not in self.views:
            self.views.append(v)
        v.session.changed.connect(lambda s, d, v=v: self.settings_changed(v, s, d))
        v.session.error.connect(lambda f, msg: self.controls.show_error(msg, f))
        v.snapshot_taken.connect(self._on_snapshot)
        # the WA follows the map, a GC's phases at teaching pace too, as the tally does
        v.blockmap.shown.connect(lambda _snap: statusline.show_wa(self) if self.views
                                 and self.views[0].snapshot is not None else None)
        v.mount_followed.connect(lambda v: self.show_settings() if v is self.edited_view()
                                 else None)
        v.failed.connect(lambda msg, v=v: self._on_failed(v, msg))
        mapwiring.wire_view(self, v)
        speech.follow(self, v)

    def edited_view(self) -> DriveView:
        return self.views[self.edited]

    def send_all(self, name: str, *args) -> list[int]:
        """Send a command to every drive; returns each one's ticket."""
        if name != "pause":  # the run goes on (or starts afresh): the pause is history
            self.notice = ""
        tickets = [v.send(name, *args) for v in self.views]
        if name != "pause":  # and so is a report of a file saved, a divider moved ...
            statusline.work_sent(self)
        return tickets

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
            "capacity_mib": max(self.session.settings.capacity_mib, least_mib),
            "slc_cache": p.slc_cache}

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

    @Slot()
    def run_workload(self) -> None:
        timekeys.run(self)  # a running drive runs on (timekeys.py says why)

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

    @Slot()
    def toggle_play(self) -> None:
        timekeys.toggle_play(self)

    @Slot()
    def step(self) -> None:
        timekeys.step(self)

    @Slot()
    def step_gc(self) -> None:
        """One garbage collection now (the run pauses)."""
        timekeys.step_gc(self)

    def ask_reset_drive(self) -> None:
        """Ctrl+R, Reset drive: asks first when a run would be lost (timekeys.py)."""
        timekeys.ask_reset_drive(self)

    def ask_reset_all(self) -> None:
        timekeys.ask_reset_all(self)

    @Slot()
    def reset_drive(self) -> None:
        """The drive erased at once; the settings and breakpoints stay."""
        self.segments = 0
        self.send_all("reset")
        self.play_button.setText("Play")
        timekeys.after_reset_drive(self)

    @Slot()
    def reset_all(self) -> None:
        """Back to the start-up state, even mid-run, without asking (ask_reset_all asks)."""
        self.send_all("pause")
        if compare.comparing(self):
            self.set_compare(False)
        self.references = []
        timekeys.after_reset_all(self)  # no breakpoints, as at start-up
        defaults = Settings()
        a = self.views[0]
        a.session.settings = defaults
        a.session.last_error = ""
        self.controls.show_error("")
        self.controls.set_expert(False)
        self.controls.set_fs_shown(False)
        self.presentation.set_panel(True)  # presentation mode stays: the class still watches
        self.charts.setCurrentIndex(0)
        self.settings_changed(a, defaults, True)
        self.play_button.setText("Play")
        if self.in_lesson:
            self.lesson_panel.restart()

    # --- two drives, references ------------------------------------------------------------

    def toggle_compare(self, on: bool) -> None:
        self.set_compare(on)

    def set_compare(self, on: bool) -> bool:
        """Drive B beside A, or A alone (ssdlab/app/gui/frame/compare.py); True when comparing."""
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
            self.arranger.flipper.check()  # a run ended: the charts (a short screen)
        self.play_button.setText("Pause" if self.is_running() else "Play")

    def show_run(self) -> None:
        """Charts and status line from the drives' newest snapshots."""
        self._show_charts()
        self._status()

    def _show_charts(self) -> None:
        a = self.views[0]
        names = compare.labels(self)
        others = compare.others(self, names)
        self.charts.theory = a.session.theory_wa_shown(a.snapshot)
        self.charts.theory_name = analytic_name(a.settings)
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
        snapshot taken after the pause (ssdlab/app/gui/drive/driveview.py)."""
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

    def export_all_dialog(self) -> None:
        exportall.open_dialog(self)

    def toggle_presentation(self, on: bool) -> None:
        self.presentation.set_on(on)
        if on and not self.in_lesson:
            # projector type leaves no room for the welcome page beside the full controls
            # at 1024 px: the class sees the workbench; Ctrl+L or a lesson brings it back
            self.lesson_dock.hide()

    def toggle_panel(self, shown: bool) -> None:
        self.presentation.choose_panel(shown)

    def _presentation_changed(self) -> None:
        """The View menu's check marks follow the state, however it changed."""
        buttonbar.follow_presentation(self)
        self.arranger.update()  # the type or the panel changed
        for slot, on in (("toggle_presentation", self.presentation.on),
                         ("toggle_panel", self.presentation.panel_shown())):
            action = self.actions_by_slot[slot]
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)

    def _apply_theme(self) -> None:
        themefit.apply_theme(self)

    def _share_split(self) -> None:
        arranger.share_split(self)

    def flip_stage(self) -> None:
        """F7: a lesson's drive or its results, or two drives or their charts, whichever is
        hidden (a short screen: stageflip.py)."""
        self.arranger.flip()

    def turn_results(self, step: int) -> None:
        """Page Down (+1) or Page Up (-1): the lesson's results pages, when they show."""
        self.lesson_results.turn_shown(step)

    def _fit_panel(self) -> None:
        themefit.fit_panel(self)

    def focusNextPrevChild(self, next_: bool) -> bool:  # noqa: N802 - Qt name
        # Tab, Shift+Tab, and Qt moving the focus off a control hidden or disabled
        return taborder.move(self, next_)

    # --- lessons (ssdlab/app/gui/frame/dockedlessons.py) ------------------------------------------

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
