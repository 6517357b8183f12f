"""The workbench's files: session files (a run's settings, log and series, replayed on
opening) and scenario files (a drive, partition, file system and steps, run as `ssdlab run`
would). Each function takes the workbench; a bad file is reported in the window's error
line, and the run on screen stays. Files are written to a temporary name and renamed.

In compare mode a session file holds drive A's run; opening one goes back to one drive. A
scenario opened in compare mode runs on both drives, B keeping its own differences.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from ssdlab.app.atomicfile import OutputFileError, check_writable, write_atomic
from ssdlab.app.cli.outputs import files_read
from ssdlab.app.session.sessionfile import SessionFileError, read_session, write_session
from ssdlab.model.lab.scenario import load_scenario, scenario_text

from ..settings.scenariofiles import scenario_for, settings_for, steps_for
from ..settings.session import Session
from . import compare, statusline

SCENARIO_DIR = Path(__file__).resolve().parents[3] / "assets" / "scenarios"


def save(w, path: str) -> bool:
    """Write the settings, the log and the series to a session file (the old file stays
    whole if writing fails)."""
    try:  # before any work: a FIFO or a folder is refused, never opened
        check_writable(path)
    except OutputFileError as e:
        w.controls.show_error(f"Save: {e}")
        return False
    w.settle()
    a = w.views[0]
    snap = a.snapshot
    try:
        write_session(path, a.settings, snap.log if snap else [], snap.series if snap else {})
    except OutputFileError as e:  # names the path and why; the old file is whole
        w.controls.show_error(f"Save: {e}")
        return False
    statusline.say(w, f"Saved session {path}", until=statusline.next_work(w))
    return True


def open_session(w, path: str) -> bool:
    """Replay a session file. The whole file is checked first; a bad file is reported
    and the current run stays; a good one replaces the run after a yes."""
    try:
        settings, log, series = read_session(path)
    except SessionFileError as e:
        w.controls.show_error(f"Open: {e}")
        return False
    if not w.may_discard("Opening a session"):
        return False
    if compare.comparing(w):
        w.set_compare(False)
    a = w.views[0]
    a.send("pause")
    a.session.settings = settings
    w.settings_changed(a, settings, True)
    w.segments = max((d.get("index", 0) for d in log), default=0)
    w.opened_files = {"session": path}  # an export must not replace it
    w.opened_scenario = None
    w.asked([a.send("replay", log, series)], "replaying the session")
    w.controls.show_error("")
    statusline.say(w, f"Session: {path} ({len(log)} steps)", until=statusline.next_work(w))
    return True


def open_scenario(w, path: str) -> bool:
    """Set the drive, partition and file system a scenario file names and run its steps,
    as `ssdlab run` would. A bad file is reported and the current run stays."""
    try:
        sc = load_scenario(path)
        settings = [settings_for(sc, w.views[0].settings)]
        if compare.comparing(w):
            settings.append(compare.scenario_for_b(w, settings[0]))
        for s in settings:
            Session.check(s)
    except ValueError as e:  # ScenarioError is a ValueError
        w.controls.show_error(f"Open scenario: {e}")
        return False
    if not w.may_discard("Opening a scenario"):
        return False
    w.send_all("pause")
    for v, s in zip(w.views, settings, strict=True):
        v.session.settings = s
        w.settings_changed(v, s, True)
    steps = steps_for(sc)
    w.segments = len(steps)
    w.opened_files = files_read(path, sc.steps)  # the scenario and its traces and tars
    w.opened_scenario = (path, sc)  # an export of its run names it, as `ssdlab chart` does
    w.asked(w.send_all("fs", steps), f"scenario {sc.name}")
    w.controls.show_error("")
    w.controls.set_fs_shown(True)  # the mount options and partition it set
    w.play_button.setText("Pause")
    w.charts.setCurrentWidget(w.charts.steps)
    statusline.say(w, f"Scenario: {sc.name} ({len(steps)} steps)", until=statusline.next_work(w))
    return True


def save_scenario(w, path: str) -> bool:
    """Write this file-system run (drive A's) as a scenario file `ssdlab run` plays to the
    same counters; a run a scenario cannot hold is refused with the reason."""
    try:
        check_writable(path)
    except OutputFileError as e:
        w.controls.show_error(f"Save as scenario: {e}")
        return False
    w.settle()
    a = w.views[0]
    snap = a.snapshot
    try:
        sc = scenario_for(a.settings, snap.log if snap else [], Path(path).name.split(".")[0])
        write_atomic(path, scenario_text(
            sc, "Saved from the SSD Lab workbench. Play it with: ssdlab run FILE"))
    except (ValueError, OutputFileError) as e:
        w.controls.show_error(f"Save as scenario: {e}")
        return False
    statusline.say(w, f"Saved scenario {path}", until=statusline.next_work(w))
    return True


def choose(w, title: str, saving: bool, default: str, filters: str) -> str:
    """A file dialog's answer ("" when cancelled)."""
    ask = QFileDialog.getSaveFileName if saving else QFileDialog.getOpenFileName
    path, _ = ask(w, title, default, filters)
    return path


DIALOGS = {  # slot: (title, saving, default, filters, what to do with the path)
    "open_scenario_dialog": ("Open scenario", False, str(SCENARIO_DIR),
                             "Scenario files (*.toml)", open_scenario),
    "save_scenario_dialog": ("Save as scenario", True, "run.toml", "Scenario files (*.toml)",
                             save_scenario),
    "save_dialog": ("Save session", True, "session.ssdlab.json", "SSD Lab sessions (*.json)",
                    save),
    "open_dialog": ("Open session", False, "", "SSD Lab sessions (*.json)", open_session),
}


def dialog(w, slot: str) -> None:
    title, saving, default, filters, then = DIALOGS[slot]
    path = choose(w, title, saving, default, filters)
    if path:
        then(w, path)
