"""A lesson's long work in a thread of its own: a run step's configurations, or a compare
step's replay of a documented experiment, through the same LessonPlay the headless player
uses, so the window shows exactly the numbers `ssdlab lesson run` prints.

The thread reports progress, each configuration as it finishes, and (a few times a second)
a snapshot of the drive being run for the block map. cancel() is honoured between chunks
of work; the play keeps every configuration that finished before it.
"""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QThread, Signal

from lessons.lesson import LessonError
from lessons.player import Cancelled, LessonPlay
from model.flash.drive import Drive

from .worker import Snapshot, drive_snapshot

FRAME_S = 1 / 15  # block-map snapshots at most this often


class LessonJob(QThread):
    progress = Signal(str, float)  # what is running, fraction done
    config_done = Signal(object)  # a lessons.player.ConfigResult
    drive_ready = Signal()  # take_snapshot() has a new snapshot
    finished_ok = Signal(object)  # list of ConfigResult (run) or of Row (compare)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, play: LessonPlay, step, parent=None):
        super().__init__(parent)
        self.play = play
        self.step = step
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._latest: Snapshot | None = None
        self._seq = 0
        self._last = 0.0
        self._label = ""
        self._drive: Drive | None = None  # the drive of the configuration under way

    def cancel(self) -> None:
        self._cancel.set()

    def take_snapshot(self) -> Snapshot | None:
        with self._lock:
            snap, self._latest = self._latest, None
        return snap

    def _progress(self, what: str, fraction: float) -> None:
        self._label = what
        self.progress.emit(what, float(fraction))

    def _observe(self, drive: Drive, force: bool = False) -> None:
        self._drive = drive
        now = time.perf_counter()
        if not force and now - self._last < FRAME_S:
            return
        self._last = now
        self._seq += 1
        snap = drive_snapshot(drive, self._seq, segment=self._label, running=not force)
        with self._lock:
            self._latest = snap
        self.drive_ready.emit()

    def _config_done(self, result) -> None:
        """A configuration finished: the map shows its drive as it ended."""
        if self._drive is not None:
            self._label = f"{result.config.label}: done"
            self._observe(self._drive, force=True)
            self._drive = None
        self.config_done.emit(result)

    def run(self) -> None:
        play = self.play
        play.progress, play.cancel = self._progress, self._cancel.is_set
        play.observe = self._observe if getattr(self.step, "blockmap", False) else None
        try:
            if self.step.kind == "run":
                out = play.run(self.step, on_config=self._config_done)
            else:
                out = play.compare(self.step)
        except Cancelled:
            self.cancelled.emit()
        except (LessonError, ValueError, MemoryError) as e:
            self.failed.emit(str(e) or type(e).__name__)
        except Exception as e:  # noqa: BLE001 - a message in the panel, never a traceback
            self.failed.emit(f"{type(e).__name__}: {e}")
        else:
            self.finished_ok.emit(out)
        finally:
            play.progress = play.cancel = play.observe = None
