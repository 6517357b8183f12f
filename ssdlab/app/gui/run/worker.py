"""The simulation thread: owns the Drive, runs batches, hands out snapshots.

The GUI talks to the worker only through its command queue (configure, workload, play,
pause, step, speed, reset, replay, lockstep, stop) and reads `take_snapshot()`, which returns
the newest snapshot and drops older ones. Batches are sized to take about BATCH_S of engine time,
so a pause, reset or stop is seen within a few tens of milliseconds.

A file-system step first prepares (builds the file list, reads a tar or parses a trace),
which can take a while. The preparation asks `cancelled()` as it goes: true once a command
that discards the run (stop, reset, configure, replay) is waiting, so that command is
carried out promptly, and `stop()` can wait for the thread to end without a time limit.

Two modes, chosen by drive size: a drive of at most EVENT_BLOCKS erase blocks runs with the
engine's event buffer on, one small batch per frame (animation: victims, erases and GC copies
are marked in the snapshot); a bigger drive runs without events, batch after batch, flat out.

Between batches the worker checks the breakpoints set (ssdlab/model/lab/breakpoints.py) and pauses
when one fires. A snapshot carries the pages of a small drive, or of the blocks a zoomed
block map shows (the "view" command), and the engine's count of GC victims by valid pages.

In compare mode two workers share a Lockstep gate (ssdlab/model/lab/lockstep.py): each reports its
position in the workload between batches, waits on its queue while it is ahead of the
other, and runs batches of the size both agree on.
"""

from __future__ import annotations

import math
import queue
import threading
import time

import numpy as np
from PySide6.QtCore import QThread, Signal

from ssdlab.app.session.fsjobs import FsJob, FsStep
from ssdlab.app.session.recorder import Recorder
from ssdlab.app.session.streams import Segment, Stream
from ssdlab.model.flash.drive import Drive, DriveError, event_capacity_for
from ssdlab.model.host.machine import Machine
from ssdlab.model.lab.breakpoints import Breakpoints, BreakpointWatch
from ssdlab.model.lab.steps import Context

from .batches import BlockBatches
from .fssteps import BATCH_S, FileSystemSteps
from .snapshot import Snapshot, drive_snapshot, page_view
from .teaching import TeachingPace


def _plan_item(d: dict):
    """A saved log entry as something the worker can run again: a Segment, or a
    ("fs", FsStep, units done) for a file-system step."""
    if d.get("fs"):
        return ("fs", FsStep.from_dict(d), d.get("done"))
    return Segment(**d)

FRAME_S = 1 / 36  # snapshots at most this often: a little above 30 so 30 fps is met
EVENT_BLOCKS = 16384  # drives with at most this many blocks animate with events
# Commands that discard the run: a preparation under way is abandoned for them.
SUPERSEDING = ("stop", "reset", "configure", "replay")
# Seconds one whole drive write takes at each animation speed ("fast" is flat out).
# "teach" writes as slowly as "slow" between garbage collections and plays each one phase by
# phase (teaching.py); "fast" is flat out.
SPEED_DRIVE_WRITE_S = {"teach": 120.0, "slow": 120.0, "normal": 20.0}


class Worker(QThread, FileSystemSteps, BlockBatches, TeachingPace):
    """Runs the drive; see the module docstring. File-system steps are FileSystemSteps'
    (fssteps.py), a batch's work and the breakpoints after it BlockBatches' (batches.py),
    the teaching pace and the GC a step names TeachingPace's (teaching.py)."""

    snapshot_ready = Signal()
    failed = Signal(str)
    segment_done = Signal(str)
    breakpoint_hit = Signal(str)  # what fired; the run has paused

    def __init__(self, parent=None):
        super().__init__(parent)
        self._queue: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._sent = 0  # tickets handed out
        self._superseded_by = 0  # ticket of the newest command that discards the run
        self._working_on = 0  # ticket of the command being handled, or handled last
        self._preparing = ""  # label of the step being prepared
        self.published = 0  # the ticket of the last command handled before a publish
        self._latest: Snapshot | None = None
        self._seq = 0
        self._initial_mount: dict | None = None  # mount options a replayed run began with
        # Mount options as this worker last set or saw them, and how many times the run
        # itself (a scenario's remount step) changed them since: the view follows those
        # changes however many snapshots it skipped, and never undoes one the controls asked.
        self._mount_seen: tuple[str, bool] | None = None
        self._run_remounts = 0
        self.drive: Drive | None = None
        self._view_blocks: np.ndarray | None = None  # blocks whose pages the map shows
        self._breakpoints: Breakpoints | None = None
        self._bp_watch: BreakpointWatch | None = None
        self._bp_message, self._bp_hits = "", 0
        self.lockstep = None  # a Lockstep shared with the other drive of a comparison
        self._seg_no = 0  # segments started since the drive was built (lockstep position)

    # --- GUI side (thread-safe) ------------------------------------------------------------

    def send(self, name: str, *args) -> int:
        """Queue a command; returns its ticket (snapshots say which they have handled)."""
        with self._lock:
            self._sent += 1
            if name in SUPERSEDING:
                self._superseded_by = self._sent
            self._queue.put((self._sent, name, args))
            return self._sent

    def cancelled(self) -> bool:
        """True when the work under way is obsolete: a command that discards the run is
        waiting behind it. Safe to call from any thread."""
        return self._superseded_by > self._working_on

    def configure(self, geometry, config, profile=None, settings=None) -> None:
        self.send("configure", geometry, config, profile, settings)

    def run_series(self):
        """The file-system run so far binned as `ssdlab chart` bins a scenario run (a
        ssdlab/model/lab/series.Series over a copy of the batches the drive has done), or None
        (block workloads, or nothing run). For the window's export; safe from the GUI."""
        recorder = getattr(self, "_recorder", None)
        return None if recorder is None else recorder.run_series()

    def take_snapshot(self) -> Snapshot | None:
        # Under the lock: unlocked, the worker could publish between this read and the
        # clear, and its snapshot (the last of a run, when it then waits idle) was lost;
        # the window kept showing a running drive for ever.
        with self._lock:
            snap, self._latest = self._latest, None
        return snap

    def stop(self) -> None:
        """End the thread and wait until it has: a preparation under way sees cancelled()
        and gives up, so the wait is short, and it has no time limit because a QThread
        destroyed while running aborts the whole program."""
        self.send("stop")
        self.wait()

    # --- worker thread ---------------------------------------------------------------------

    def run(self) -> None:  # noqa: C901 - one command loop
        self._reset_state(None, None, None)
        self._alive = True
        if self.lockstep is not None:
            self.lockstep.join(self)
        while self._alive:
            gate = self.lockstep
            busy = self._running and self._gc_held is None and (
                self._stream is not None or self._job is not None)
            if gate is not None and not gate.go(self, self._position(), busy, self._wake):
                busy = False  # ahead of the other drive: wait on the queue until it moves
            try:
                ticket, name, args = self._queue.get(block=not busy,
                                                     timeout=None if not busy else 0)
            except queue.Empty:
                name = None
            if name == "wake":
                continue
            if name is not None:
                self._working_on = ticket
                try:
                    self._handle(name, args)
                except Exception as e:  # noqa: BLE001 - a bad request must not end the thread
                    self._fail(e)
                continue
            try:
                if self._job is not None:
                    self._tick_fs()
                else:
                    self._tick()
            except Exception as e:  # noqa: BLE001 - any model error ends the run, not the app
                self._end_job(failed=True)
                self._fail(e)
        if self.lockstep is not None:
            self.lockstep.leave(self)

    def _wake(self) -> None:
        """The other drive of a comparison moved: look at the gate again (no ticket: a
        wake is no command, and settle() counts commands)."""
        self._queue.put((0, "wake", ()))

    def _position(self) -> tuple[int, float]:
        """Where this drive is in the workload, for the lockstep gate."""
        if self._stream is not None:
            return (self._seg_no, float(self._stream.done))
        if self._job is not None:
            return (self._seg_no, float(self._job.done))
        return (self._seg_no, math.inf)

    def _fail(self, e: Exception) -> None:
        """A command or a slice failed: the run stops and the window says why. A preparation
        that stopped because cancelled() said so is no failure: the command that discards
        the run is next in the queue."""
        self._end_run()
        self._preparing = ""
        if not self.cancelled():
            self.failed.emit(str(e) or type(e).__name__)
        self._publish(force=True)

    def _end_run(self) -> None:
        """The run ends where it is (the drive keeps what it holds): no segment is left to
        resume, so Play starts the chosen workload anew, and in a comparison this drive,
        at the end of its plan, holds the other back no longer."""
        self._running = False
        self._stream = None
        self._plan = []

    def _handle(self, name: str, args: tuple) -> None:
        if name == "stop":
            self._alive = False
        elif name == "halt":  # the other drive of a comparison failed: this run ends too
            self._end_job(failed=True, why="stopped")
            self._end_run()
            self._publish(force=True)
        elif name == "configure":
            try:
                self._reset_state(*args)
            except (ValueError, MemoryError) as e:
                self.failed.emit(str(e))
            self._publish(force=True)
        elif name == "reset":
            self._reset_state(self._geometry, self._config, self._profile, self._settings)
            self._publish(force=True)
        elif name == "fs":  # one step, or a list of them (a scenario)
            self._gc_note = None
            steps = args[0] if isinstance(args[0], list) else [args[0]]
            self._plan = [("fs", step, None) for step in steps]
            self._next_segment()
            self._running = self._job is not None
            self._publish(force=True)
        elif name == "settings":  # mount options and the fstrim period, no new drive
            self._settings = args[0]
            if self._machine is not None:
                self._remount()
                self._publish(force=True)
                self._schedule_fstrim()
        elif name == "workload":
            self._gc_note = None
            self._plan = [args[0]]
            self._next_segment()
            self._running = True
        elif name == "replay":
            self._reset_state(self._geometry, self._config, self._profile, self._settings)
            self._plan = [_plan_item(d) for d in args[0] if d.get("done", d["total"]) > 0]
            # a run that remounted began with the options its first remount replaced
            first = next((d for d in args[0] if d.get("do") == "remount" and "from" in d),
                         None)
            self._initial_mount = first["from"] if first else None
            self._restore = args[1] if len(args) > 1 else None
            self._replaying = True
            self._next_segment()
            self._running = self._stream is not None or self._job is not None
            self._publish(force=True)
        elif name == "release":  # the display has played the held GC (teaching pace)
            self._release()
        elif name == "play":
            self._gc_note = None
            self._running = self._stream is not None or self._job is not None
            self._publish(force=True)
        elif name == "pause":
            self._running = False
            self._settle_marks()
            self._publish(force=True)
        elif name == "step":
            gate = self.lockstep
            if gate is not None and not gate.go(self, self._position(), True, self._wake):
                self._publish(force=True)  # ahead of the other drive: it steps, this waits
            elif self._job is not None:
                self._tick_fs(single=True)
            elif self._stream is not None:
                self._tick(single=True)
            self._publish(force=True)
        elif name == "gc":  # one garbage collection, now, with its events shown
            if self.drive is not None:
                self._running = False
                try:
                    self._step_one_gc()
                except DriveError as e:
                    self.failed.emit(str(e))
                self._check_breakpoints("one GC step")
            self._publish(force=True)
        elif name == "speed":
            self._speed = args[0]
            if self._speed != "teach":
                self._release()
        elif name == "lockstep":  # join a comparison's gate (a Lockstep), or leave it (None)
            if self.lockstep is not None:
                self.lockstep.leave(self)
            self.lockstep = args[0]
            if self.lockstep is not None:
                self.lockstep.join(self)
        elif name == "view":  # the blocks a zoomed map shows: their pages in each snapshot
            self._view_blocks = None if args[0] is None else np.unique(
                np.asarray(args[0], dtype=np.int64))
            if not self._running:
                self._publish(force=True, view_only=True)
        elif name == "breakpoints":
            self._breakpoints = args[0] if args[0] is not None and args[0].active() else None
            self._arm_breakpoints()
            self._publish(force=True, view_only=True)

    def _reset_state(self, geometry, config, profile, settings=None) -> None:
        self._geometry, self._config, self._profile = geometry, config, profile
        self._settings = settings
        self.drive = None
        self._machine: Machine | None = None
        self._job: FsJob | None = None
        self._steps: list[dict] = []
        self._context = Context()
        self._message = ""
        self._next_fstrim = float("inf")
        self._running = False
        self._replaying = False
        self._restore = None
        self._plan: list[Segment] = []
        self._stream: Stream | None = None
        self._log: list[dict] = []
        self._recorder = Recorder(geometry, profile)
        self._sim_s = 0.0
        self._marks = None
        self._batch_events: list[np.ndarray] = []
        self._pages_marked = None
        self._rate = (0, 0.0)
        self._last_publish = 0.0
        self._speed = getattr(self, "_speed", "normal")
        self._teach_reset()
        self._batch = 4096
        self._seg_no = 0
        if geometry is None:
            return
        self.animated = geometry.blocks <= EVENT_BLOCKS
        capacity = event_capacity_for(geometry, config, 1) if self.animated else 0
        self.drive = Drive(geometry, config, event_capacity=capacity)
        self._marks = np.zeros(geometry.blocks, dtype=np.int8)
        self._copied: list[np.ndarray] = []
        self._recorder.record(self.drive, self._sim_s)
        self._arm_breakpoints()

    def _next_segment(self) -> None:
        self._stream = None
        while self._plan and self._stream is None and self._job is None:
            item = self._plan.pop(0)
            self._seg_no += 1
            if isinstance(item, tuple):
                self._start_job(item[1], item[2])
                continue
            if self._machine is not None:  # block workloads start on a bare drive again
                self._fresh()
            self._stream = Stream(item, self._geometry.user_pages)
            Stream.tag(item, self.drive)
            self._log.append(item.as_dict() | {"total": 0})
        if self._stream is None and self._job is None and self._replaying:
            self._replaying = False
            self._restore_series()

    def _restore_series(self) -> None:
        """After a replay, show the time series the saved run recorded."""
        saved, self._restore = self._restore, None
        self._sim_s = self._recorder.restore(saved, self.drive, self._sim_s)

    def _tick(self, single: bool = False) -> None:
        stream = self._stream
        flat = self._replaying or self._speed == "fast" or not self.animated
        if flat:
            n = self._batch
        else:
            per_drive = SPEED_DRIVE_WRITE_S[self._speed]
            n = max(1, int(round(self._geometry.user_pages * FRAME_S / per_drive)))
            if stream.is_trim:
                n = max(1, n // max(1, stream.segment.trim_max_pages // 2))
        if self.lockstep is not None:  # both drives take batches of the same size
            n = self.lockstep.batch(self, n)
        t0 = time.perf_counter()
        self._before_batch()
        if self._teaching():
            if not stream.is_trim:  # it ends where the next row of the series belongs
                n = min(n, self._recorder.pages_to_next_row(self.drive))
            pages = self._teach_run(stream, n)
        else:
            pages = self._run_to_rows(stream, n)
        self._recorder.record(self.drive, self._sim_s, force=stream.finished)
        dt = time.perf_counter() - t0
        self._rate = (self._rate[0] + pages, self._rate[1] + dt)
        if flat and dt > 0:
            self._batch = int(min(1 << 22, max(256, self._batch * min(4.0, BATCH_S / dt))))
        self._log[-1]["total"] = stream.done
        fired = self._check_breakpoints(f"{pages:,} host "
                                        + ("pages trimmed" if stream.is_trim else "writes"))
        if stream.finished:
            label = stream.segment.kind
            self._next_segment()
            if self._stream is None:
                self._running = False
                self.segment_done.emit(label)
                self._settle_marks()
            self._publish(force=True)
        elif single:
            return
        elif fired:
            self._publish(force=True)
        elif flat:
            self._publish()
        else:
            self._publish(force=True)
            left = FRAME_S - (time.perf_counter() - t0)
            if left > 0:
                time.sleep(left)

    def _settle_marks(self) -> None:
        """A flat-out run that stops shows the drive as it is: its last frame's marks (every
        victim, erase and copy of a batch of up to four million pages) stayed crossed out
        on the map after the run, and nothing was happening to them any more. An animated
        run keeps its last frame's few marks: a class pauses to look at them."""
        flat = self._replaying or self._speed == "fast" or not self.animated
        if flat and self._marks is not None:
            self._marks[:] = 0
            self._copied = []

    def _publish(self, force: bool = False, view_only: bool = False) -> None:
        """Hand the GUI a snapshot (at most one a frame unless forced). view_only: the same
        moment shown again (a zoom, new breakpoints): the marks stay for the next frame."""
        now = time.perf_counter()
        if not force and now - self._last_publish < FRAME_S:
            return
        self._last_publish = now
        self._seq += 1
        self.published = self._working_on  # (no snapshot says so while there is no drive)
        if self.drive is None:
            with self._lock:
                self._latest = None
            self.snapshot_ready.emit()
            return
        self._recorder.record(self.drive, self._sim_s)
        drive = self.drive
        pages, page_blocks = page_view(drive, self._view_blocks, self._copied)
        if not view_only:
            self._copied = []
        stream = self._stream
        progress = float("nan")
        segment = "" if stream is None else stream.segment.name
        if stream is not None and stream.segment.total > 0:
            progress = stream.done / stream.segment.total
        if self._job is not None:
            segment = self._job.step.label
            progress = self._job.done / max(1, self._job.total)
        elif self._preparing:
            segment = f"preparing {self._preparing}"
        done, secs = self._rate
        series = self._recorder.series()
        # a file system's WA is in bytes the host wrote (read-modify-write counted): the
        # recorder's; a bare drive's follows from the snapshot's own counters
        wa = {} if self._machine is None else {
            "wa": float(series["wa"][-1]) if series["wa"].size else float("nan")}
        snap = drive_snapshot(
            drive, self._seq, self._marks, pages=pages, page_blocks=page_blocks,
            series=series, stored=self._recorder.stored, **wa,
            running=self._running or bool(self._preparing), segment=segment,
            progress=progress, engine_pages_per_s=done / secs if secs > 0 else 0.0,
            sim_s=self._sim_s, animated=self.animated and not self._replaying,
            log=[dict(d) for d in self._log],
            steps=[dict(d) for d in self._steps], mounted=self._machine is not None,
            mount=self._mount_now(), run_remounts=self._run_remounts,
            message=self._message, handled=self._working_on, breakpoint=self._bp_message,
            breakpoint_hits=self._bp_hits,
        )
        snap = self._gc_view(snap)
        if not view_only:
            self._marks[:] = 0
        if secs > 0.5:
            self._rate = (0, 0.0)
        with self._lock:
            self._latest = snap
        self.snapshot_ready.emit()
