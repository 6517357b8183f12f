"""Compiling the simulator's engine from the window, when numba's cache is cold or stale (a
fresh install without setup.sh, an engine edit): the window says so at once, shows each
function as it becomes ready, and keeps Run waiting, visibly, instead of freezing while a
drive's first use compiles for a minute.

The work is ssdlab/model/flash/warm.py's: it compiles in separate processes, so this thread only
waits on them and the window stays responsive.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from ssdlab.model.flash import warm

MESSAGE = warm.PREPARING_MESSAGE


def engine_is_warm() -> bool:
    return warm.is_warm()


class EnginePreparer(QObject):
    """Runs warm.prepare on a background thread; its signals arrive in the window's thread.
    progressed(done, total, name); finished(error message, "" when it worked)."""

    progressed = Signal(int, int, str)
    finished = Signal(str)

    def start(self) -> None:
        threading.Thread(target=self._work, name="prepare-engine", daemon=True).start()

    def _work(self) -> None:
        try:
            for step in warm.prepare():
                self.progressed.emit(step.done, step.total, step.name)
        except (RuntimeError, OSError) as e:  # the drive compiles on first use instead
            self.finished.emit(str(e))
            return
        self.finished.emit("")
