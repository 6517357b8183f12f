"""The window as a screen reader gets it over AT-SPI (run by tests/test_gui_atspi.py in a
D-Bus session of its own, on an X display: Qt's AT-SPI bridge starts only with the xcb
platform, not offscreen). Plays lesson 1's run at teaching pace in the workbench and, while
a GC's phase is on screen, has a reader in another process (tests/_atspi_reader.py) read the
whole tree; then lets the run go on to its end, and runs the first screen's drive in free
exploration, and reads the tree again. A listener process records every announcement with
its time. Writes what was read, next to what the widgets show, as JSON to argv[1].

    dbus-run-session -- python tests/_atspi_app.py OUT.json [--watch]

--watch: lesson 1's run plays whole at teaching pace (the three GCs, about 12 s) and the
A | B run's end is heard: for the announcement timeline. Without it the first GC's phases
are read and the rest is skipped."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _atspi import a11y_address  # noqa: E402

ADDRESS = a11y_address()  # starts the accessibility bus before Qt looks for it
os.environ["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] = "1"
os.environ["QT_QPA_PLATFORM"] = "xcb"
HANG_S = 300

from PySide6.QtCore import QEventLoop, QProcess, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def wait(condition, what: str) -> None:
    """Process events until condition() holds (a hang guard of HANG_S only)."""
    start = time.monotonic()
    end = start + HANG_S
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError(what)
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)
    if os.environ.get("SSDLAB_ATSPI_TIMES"):  # where the seconds go
        print(f"{time.monotonic() - start:6.1f} s: {what}", file=sys.stderr)


def read_tree() -> list[dict]:
    """The tree as another process reads it over the bus, the window answering meanwhile."""
    proc = QProcess()
    proc.start(sys.executable, [str(HERE / "_atspi_reader.py"), "tree", ADDRESS])
    wait(lambda: proc.state() == QProcess.ProcessState.NotRunning, "the reader")
    out = bytes(proc.readAllStandardOutput()).decode()
    if proc.exitCode() != 0:
        raise RuntimeError(bytes(proc.readAllStandardError()).decode())
    return json.loads(out)


def main(out_path: str, watch: bool) -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    from ssdlab.app.gui.appearance import announce
    from ssdlab.app.gui.frame.workbench import Workbench
    from ssdlab.lessons.catalogue import bundled

    listener = QProcess()
    listener.start(sys.executable, [str(HERE / "_atspi_reader.py"), "listen", ADDRESS])
    listener.waitForReadyRead(30000)  # "listening": it registered for announcements
    t0 = time.monotonic()
    w = Workbench()
    w.confirm = lambda text: True
    w.resize(1366, 768)
    w.show()
    # the keyboard's window, as on a desktop (Xvfb has no window manager to give it): Qt
    # moves the focus, and says so on the bus, only in the active window
    w.activateWindow()
    wait(w.isActiveWindow, "the window to take the keyboard")
    wait(lambda: w.snapshot is not None, "the first snapshot")
    panel = w.lesson_panel
    lesson = next(x for x in bundled() if x.id == "write-amplification")
    run = next(i for i, s in enumerate(lesson.steps) if s.kind == "run")
    panel.start(lesson, run)
    for s in lesson.steps[:run]:
        if s.kind == "predict":
            panel.play.predict(s, s.answer)
    panel.show_step(run)
    panel.run_button.setFocus()
    result: dict = {"t0": t0}
    panel.run_button.click()
    watch_ = panel.watch
    wait(lambda: watch_.playing and watch_.note.text().startswith(("GC", "Merge")), "a GC")
    if not watch:
        watch_.pacer.timer.stop()  # this phase stays on screen while the tree is read
    v = w.views[0]
    tally = {k: label.text() for k, label in v.tally.values.items()}
    wait(lambda: all(lab.accessibleDescription().startswith(lab.text())
                     for lab in v.tally.values.values()), "the tally's descriptions")
    result["teaching"] = {"note": watch_.note.text(), "tally": tally,
                          "names": {k: lab.accessibleName()
                                    for k, lab in v.tally.values.items()},
                          "tree": read_tree()}
    if not watch:  # what was read is all this needs: no waiting for the end
        watch_.skip()
        panel.cancel_job()
    wait(lambda: panel.job is None, "the lesson's run to end")
    settle_until = time.monotonic() + (25 if watch else 1)
    wait(lambda: time.monotonic() > settle_until, "the end's announcements")
    panel.leave()
    panel.explore.emit()
    w.request(speed="fast")
    w.run_button.click()
    wait(lambda: w.snapshot.counters["host_writes"] > 0, "the run to start")
    wait(lambda: not w.snapshot.running and not w.snapshot.segment, "the run to end")
    wait(lambda: w.wa_note.accessibleDescription() == w.wa_note.text(), "the note's words")
    result["explore"] = {"wa_note": w.wa_note.text(), "tree": read_tree()}
    result["voice"] = [(at - t0, text) for at, text, _loud in announce.timeline()]
    listener.kill()
    listener.waitForFinished(5000)
    result["heard"] = [line.split("\t", 1) for line in
                       bytes(listener.readAllStandardOutput()).decode().splitlines()[1:]]
    Path(out_path).write_text(json.dumps(result, indent=1), encoding="utf-8")
    w.close()
    QTimer.singleShot(0, app.quit)


if __name__ == "__main__":
    main(sys.argv[1], "--watch" in sys.argv)
