"""A lesson's long work in a thread of its own: a run step's configurations, or a compare
step's replay of a documented experiment, through the same LessonPlay the headless player
uses, so the window shows exactly the numbers `ssdlab lesson run` prints.

The thread reports progress, each configuration as it finishes, and (a few times a second)
a snapshot of the drive being run for the block map: per slot, the configuration's index
in its step (two configurations run side by side fill slots 0 and 1 at once). cancel() is
honoured between chunks of work; the play keeps every configuration that finished before it.

A step to watch (pace "teach") hands its first GCs here as they happen: the thread publishes
them as the frames of one snapshot (the victim marked, its pages moved, the erase) and waits
until the display has played them (release()) or the student skips to the end (skip()).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from PySide6.QtCore import QThread, Signal

from ssdlab.lessons.lesson import LessonError
from ssdlab.lessons.player import Cancelled, LessonPlay
from ssdlab.model.flash.amplification import write_amplification
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.gcwatch import TEACH_GCS
from ssdlab.model.host.machine import Machine

from ..run.snapshot import (
    TEACH_PAGES,
    Snapshot,
    drive_snapshot,
    page_states,
    phase_snapshot,
)

FRAME_S = 1 / 15  # block-map snapshots at most this often


def host_bytes_fields(drive: Drive, machine: Machine) -> dict:
    """A file system's snapshot fields counted as its run's figures count them, its steps
    added up (what a step's untimed preparation wrote before it began, such as the test
    file of random writes, is in no step's figures, so not here either): the host's writes
    in pages' worth of the bytes it sent (a part-page write is not a whole page), the flash
    pages and GC copies, and their WA (a compressing drive stores less than a page per
    page)."""
    io = machine.steps_stats
    page = drive.geometry.page_bytes
    stored = machine.profile.compression_ratio
    counts = {"host_writes": io.write_bytes / page, "nand_writes": io.nand_writes,
              "gc_copies": io.gc_copies}
    return {"tally_counts": counts, "stored": stored, "mounted": True,
            "wa": write_amplification(io.nand_writes, page, io.write_bytes, stored)}


class LessonJob(QThread):
    progress = Signal(str, float)  # what is running, fraction done
    config_done = Signal(object)  # a ssdlab.lessons.player.ConfigResult
    drive_ready = Signal(int)  # take_snapshot(slot) has a new snapshot
    finished_ok = Signal(object)  # list of ConfigResult (run) or of Row (compare)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, play: LessonPlay, step, parent=None):
        super().__init__(parent)
        self.play = play
        self.step = step
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._latest: dict[int, Snapshot] = {}
        self._seq = 0
        self._last: dict[int, float] = {}
        self._label = ""
        # configuration index -> (its drive, its Machine or None) while it runs
        self._drives: dict[int, tuple[Drive, Machine | None]] = {}
        self._finals: dict[int, Snapshot] = {}  # configuration index -> its drive at the end
        self.paced = getattr(step, "pace", "full") == "teach"
        self._skip = threading.Event()  # the student chose "Skip to end"
        self._released = threading.Event()  # the display has played the GCs held
        # the GCs held: (number of the first, GCs played, GCs after them in the same write)
        self.gc_held = (0, 0, 0)

    def cancel(self) -> None:
        self._cancel.set()
        self._released.set()

    def skip(self) -> None:
        """Stop watching GCs: the run goes on to its end at full speed."""
        self._skip.set()
        self._released.set()

    @property
    def skipped(self) -> bool:
        return self._skip.is_set()

    def release(self) -> None:
        """The display has played the GCs held: the run goes on."""
        self._released.set()

    def _watch_gc(self, drive: Drive, phases: list, first: int, index: int) -> None:
        """GCs one host page's write made, on the thread: published as frames (the first
        TEACH_GCS of the run; a burst beyond them is counted, not played), then the thread
        waits for the display. The drive is not touched until it is released."""
        if self._cancel.is_set() or self._skip.is_set():
            return
        n = len(phases) // 3
        keep = max(1, min(n, TEACH_GCS - first + 1))
        self._released.clear()
        # every page's state, so the map can zoom in on the GC's pages (gcfollow.py)
        pages = ({"pages": page_states(drive.arrays.p2l)}
                 if drive.geometry.physical_pages <= TEACH_PAGES else {})
        with self._lock:
            self._seq += 1
            # the watched configuration's name (the last progress report may be the other
            # drive's, side by side, or not come before a scenario's first GC)
            what = "merges" if phases[0].episode.kind == "merge" else "GCs"
            label = (f"{self.step.id} 1/{len(self.step.configs)} "
                     f"{self.step.configs[0].label}: its first {what}, slowly")
            base = drive_snapshot(drive, self._seq, segment=label, running=True, **pages)
            frames = tuple(phase_snapshot(base, p) for p in phases[:3 * keep])
            self.gc_held = (first, keep, n - keep)
            self._latest[0] = replace(base, gc_frames=frames, gc_serial=self._seq)
        self.drive_ready.emit(0)
        self._released.wait()

    def take_snapshot(self, slot: int = 0) -> Snapshot | None:
        with self._lock:
            return self._latest.pop(slot, None)

    def _progress(self, what: str, fraction: float) -> None:
        self._label = what
        self.progress.emit(what, float(fraction))

    def final_snapshot(self, index: int) -> Snapshot | None:
        """The drive of the step's configuration `index` as it ended (None: not yet)."""
        with self._lock:
            return self._finals.get(index)

    def _observe(self, drive: Drive, index: int, machine: Machine | None = None,
                 force: bool = False) -> Snapshot | None:
        """The drive of the step's configuration `index` (the player's observe): its map
        slot is 0, or its own where two configurations run side by side. A file system's
        (machine given) counts the host's writes in bytes, as the run's figures do."""
        self._drives[index] = (drive, machine)
        slot = index if self.play.paired(self.step) else 0
        now = time.perf_counter()
        if not force and now - self._last.get(slot, 0.0) < FRAME_S:
            return None
        self._last[slot] = now
        with self._lock:
            self._seq += 1
            snap = self._latest[slot] = drive_snapshot(
                drive, self._seq, segment=self._label, running=not force,
                **({} if machine is None else host_bytes_fields(drive, machine)))
        self.drive_ready.emit(slot)
        return snap

    def _config_done(self, result) -> None:
        """A configuration finished: the map shows its drive as it ended, and keeps it for
        the steps that ask about this configuration."""
        index = next(i for i, c in enumerate(self.step.configs) if c is result.config)
        # the drive of this configuration, never the one run before it in the same slot
        seen = self._drives.pop(index, None)
        if seen is not None:
            self._label = f"{result.config.label}: done"
            snap = self._observe(seen[0], index, seen[1], force=True)
            self._drives.pop(index, None)
            with self._lock:
                self._finals[index] = snap
        self.config_done.emit(result)

    def run(self) -> None:
        play = self.play
        play.progress, play.cancel = self._progress, self._cancel.is_set
        play.observe = self._observe if getattr(self.step, "blockmap", False) else None
        if self.paced:
            play.watch_gc, play.skip_watch = self._watch_gc, self._skip.is_set
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
            play.watch_gc = play.skip_watch = None
