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

Between batches the worker checks the breakpoints set (model/lab/breakpoints.py) and pauses
when one fires. A snapshot carries the pages of a small drive, or of the blocks a zoomed
block map shows (the "view" command), and the engine's count of GC victims by valid pages.

In compare mode two workers share a Lockstep gate (app/gui/lockstep.py): each reports its
position in the workload between batches, waits on its queue while it is ahead of the
other, and runs batches of the size both agree on.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from dataclasses import dataclass, field, replace

import numpy as np
from PySide6.QtCore import QThread, Signal

from app.session.fsjobs import FsJob, FsStep, build_machine, remount
from app.session.recorder import Recorder
from app.session.streams import Segment, Stream
from model.flash.commands import Commands
from model.flash.drive import Drive, DriveError, event_capacity_for
from model.flash.state import (
    BLOCK_FREE,
    BLOCK_OPEN,
    BLOCK_VICTIM,
    EV_COPY,
    EV_ERASE,
    EV_VICTIM,
    FREE_PAGE,
    INVALID_PAGE,
    OP_WRITE,
)
from model.host.machine import Machine
from model.lab.breakpoints import Breakpoints, BreakpointWatch
from model.lab.steps import Context


def _plan_item(d: dict):
    """A saved log entry as something the worker can run again: a Segment, or a
    ("fs", FsStep, units done) for a file-system step."""
    if d.get("fs"):
        return ("fs", FsStep.from_dict(d), d.get("done"))
    return Segment(**d)

FRAME_S = 1 / 36  # snapshots at most this often: a little above 30 so 30 fps is met
BATCH_S = 0.02  # engine time per flat-out batch
EVENT_BLOCKS = 16384  # drives with at most this many blocks animate with events
PAGE_LEVEL_PAGES = 1 << 18  # physical pages up to which snapshots carry page states
VIEW_PAGES = 1 << 20  # pages of the blocks a zoomed map shows that a snapshot may carry
# Commands that discard the run: a preparation under way is abandoned for them.
SUPERSEDING = ("stop", "reset", "configure", "replay")
# Seconds one whole drive write takes at each animation speed ("fast" is flat out).
SPEED_DRIVE_WRITE_S = {"slow": 120.0, "normal": 20.0}

# Marks for blocks and pages in a snapshot (what happened since the previous snapshot).
MARK_VICTIM, MARK_ERASED = 1, 2
PAGE_FREE, PAGE_VALID, PAGE_INVALID, PAGE_COPIED = 0, 1, 2, 3
# Colour codes per block (uint16), theme-free: 0..255 a full block's valid fraction (the
# block map looks them up in viridis), then the block states and marks.
CODE_FREE, CODE_OPEN, CODE_VICTIM, CODE_ERASED = 256, 257, 258, 259
CODES = 260


def block_codes(state: np.ndarray, valid: np.ndarray, marks: np.ndarray,
                pages_per_block: int) -> np.ndarray:
    """uint16 per block: what colour the block map paints it (see CODE_*). Computed in the
    worker, so the GUI thread only looks colours up."""
    codes = (valid.astype(np.int32) * 255 // pages_per_block).astype(np.uint16)
    np.minimum(codes, 255, out=codes)
    codes[state == BLOCK_FREE] = CODE_FREE
    codes[state == BLOCK_OPEN] = CODE_OPEN
    codes[state == BLOCK_VICTIM] = CODE_VICTIM
    if marks.any():
        codes[marks == MARK_ERASED] = CODE_ERASED
        codes[marks == MARK_VICTIM] = CODE_VICTIM
    return codes


@dataclass
class Snapshot:
    """Copies of what the display needs; the GUI may keep it as long as it likes."""

    seq: int
    blocks: int
    pages_per_block: int
    user_pages: int
    state: np.ndarray  # int8 per block (model BLOCK_*)
    valid: np.ndarray  # int32 per block
    erases: np.ndarray  # int32 per block
    close_seq: np.ndarray  # int64 per block: NAND writes when it closed, -1 if open/free
    marks: np.ndarray  # int8 per block: MARK_VICTIM / MARK_ERASED since the last frame
    codes: np.ndarray  # uint16 per block: colour code (block_codes)
    pages: np.ndarray | None  # int8 per page (PAGE_*) of the blocks page_blocks names
    counters: dict
    free_blocks: int
    series: dict[str, np.ndarray]
    running: bool
    segment: str
    progress: float  # of the current segment, 0..1 (nan when endless)
    engine_pages_per_s: float
    sim_s: float
    animated: bool
    events_dropped: int = 0
    log: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)  # file-system steps run (StepResult)
    mounted: bool = False  # the drive holds the file system (a Machine drives it)
    mount: tuple[str, bool] | None = None  # its mount options now: (atime, discard)
    message: str = ""  # what the last file-system step reported (trace summary)
    handled: int = 0  # the ticket (Worker.send) of the last command handled before it
    # the blocks whose pages `pages` holds, in that order (None: every block)
    page_blocks: np.ndarray | None = None
    victim_valid: np.ndarray | None = None  # int64[ppb + 1]: GC victims by valid pages
    breakpoint: str = ""  # what the last breakpoint that fired said
    breakpoint_hits: int = 0  # breakpoints fired since the worker started


def page_states(p2l: np.ndarray) -> np.ndarray:
    """int8 PAGE_* per entry of an engine p2l array (or a slice of one)."""
    pages = np.full(p2l.shape, PAGE_VALID, dtype=np.int8)
    pages[p2l == FREE_PAGE] = PAGE_FREE
    pages[p2l == INVALID_PAGE] = PAGE_INVALID
    return pages


def drive_snapshot(drive: Drive, seq: int, marks: np.ndarray | None = None,
                   **fields) -> Snapshot:
    """A Snapshot of a drive's blocks and counters, taken by the thread that runs it between
    chunks of work (the worker, or a lesson's run); marks: MARK_* per block since the last
    frame (none by default); fields sets the rest (series, segment, progress, pages, ...).
    Without pages in fields, a drive small enough gets every page's state."""
    g = drive.geometry
    views = drive.block_views()
    marks = np.zeros(g.blocks, dtype=np.int8) if marks is None else marks.copy()
    if "pages" not in fields and g.physical_pages <= PAGE_LEVEL_PAGES:
        fields["pages"] = page_states(drive.arrays.p2l)
    base = dict(seq=seq, blocks=g.blocks, pages_per_block=g.pages_per_block,
                user_pages=g.user_pages, state=views["state"].copy(),
                valid=views["valid"].copy(), erases=views["erases"].copy(),
                close_seq=drive.arrays.close_seq.copy(), marks=marks, pages=None,
                codes=block_codes(views["state"], views["valid"], marks, g.pages_per_block),
                counters=drive.counters(), free_blocks=drive.free_blocks, series={},
                running=True, segment="", progress=float("nan"), engine_pages_per_s=0.0,
                sim_s=0.0, animated=False, events_dropped=drive.events_dropped,
                victim_valid=drive.victim_valid())
    return Snapshot(**(base | fields))


class Worker(QThread):
    """Runs the drive; see the module docstring."""

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

    def take_snapshot(self) -> Snapshot | None:
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
            busy = self._running and (self._stream is not None or self._job is not None)
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
        elif name == "play":
            self._running = self._stream is not None or self._job is not None
            self._publish(force=True)
        elif name == "pause":
            self._running = False
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
                    self.drive.collect_one()
                except DriveError as e:
                    self.failed.emit(str(e))
                if self.drive.event_capacity:
                    self._batch_events = []
                    self._mark(self.drive.take_events())
                self._check_breakpoints("one GC step")
            self._publish(force=True)
        elif name == "speed":
            self._speed = args[0]
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

    # --- breakpoints -----------------------------------------------------------------------

    def _arm_breakpoints(self) -> None:
        """Watch the current drive for the breakpoints set (a new drive starts afresh)."""
        self._bp_watch = None
        if self._breakpoints is None or self.drive is None:
            return
        try:
            self._bp_watch = BreakpointWatch(self._breakpoints, self.drive,
                                             self._recorder.stored)
        except ValueError as e:  # set for a bigger drive: say so, run without them
            self.failed.emit(str(e))

    def _check_breakpoints(self, batch: str) -> bool:
        """After a batch: pause if a breakpoint fired (the snapshot says which)."""
        w = self._bp_watch
        if w is None or w.drive is not self.drive:
            return False
        events = np.concatenate(self._batch_events) if self._batch_events else None
        if events is None and self.drive.event_capacity:
            events = np.empty((0, 4), dtype=np.int64)
        self._batch_events = []
        hit = w.after_batch(events, batch)
        if hit and not self._replaying:  # a replay rebuilds a saved run: it never stops
            self._running = False
            self._bp_message, self._bp_hits = hit, self._bp_hits + 1
            self.breakpoint_hit.emit(hit)
            return True
        return False

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
            self._log.append(item.as_dict() | {"total": 0})
        if self._stream is None and self._job is None and self._replaying:
            self._replaying = False
            self._restore_series()

    def _restore_series(self) -> None:
        """After a replay, show the time series the saved run recorded."""
        saved, self._restore = self._restore, None
        self._sim_s = self._recorder.restore(saved, self.drive, self._sim_s)

    # --- file-system steps -----------------------------------------------------------------

    def _fresh(self) -> None:
        """A new bare drive (and a new log), keeping the plan being run."""
        plan, replaying, restore = self._plan, self._replaying, self._restore
        seg_no = self._seg_no
        self._reset_state(self._geometry, self._config, self._profile, self._settings)
        self._plan, self._replaying, self._restore = plan, replaying, restore
        self._seg_no = seg_no

    def _mount(self) -> None:
        """Put a file system on the drive (a fresh drive: mkfs writes its metadata)."""
        if self._settings is None or not self._settings.profile:
            raise ValueError("file-system workloads need a device profile")
        settings = self._settings
        if self._replaying and self._initial_mount:
            settings = replace(settings, **self._initial_mount)
        m = build_machine(settings)
        self._machine = m
        self._recorder.follow(m)
        self.drive = m.drive
        self.animated = False
        self._marks = np.zeros(m.drive.geometry.blocks, dtype=np.int8)
        self._copied = []
        self._sim_s = m.clock
        self._schedule_fstrim()
        self._arm_breakpoints()

    def _remount(self) -> None:
        """New mount options on the mounted file system, logged as a step so a replay or a
        saved scenario remounts at the same point."""
        m = self._machine
        old = (m.fs.opt.atime, m.fs.opt.discard)
        try:
            remount(m, self._settings)
        except ValueError as e:
            self.failed.emit(str(e))
            return
        if (m.fs.opt.atime, m.fs.opt.discard) != old and not self._replaying:
            # Logged after the step running now, if any: a replay remounts when it ends.
            step = FsStep("remount", {"atime": m.fs.opt.atime, "discard": m.fs.opt.discard},
                          total=1)
            self._log.append(step.as_dict() | {"done": 1, "from": {"atime": old[0],
                                                                   "discard": old[1]}})
            self._steps.append({"step": step.label, "host_mb": 0.0, "nand_mb": 0.0,
                                "wa": float("nan"), "trims": 0, "seconds": 0.0,
                                "mb_s": float("nan")})

    def _schedule_fstrim(self) -> None:
        every = self._settings.fstrim_every_min if self._settings is not None else 0
        if self._machine is None or every <= 0:
            self._next_fstrim = float("inf")
        else:
            self._next_fstrim = self._machine.clock + 60.0 * every

    def _start_job(self, step: FsStep, limit: int | None) -> None:
        if self._machine is None:
            if self.drive is not None and self.drive.counters()["host_writes"] > 0:
                self._fresh()
            self._mount()
        m = self._machine
        self._preparing = step.label
        self._publish(force=True)  # the window shows "preparing ..." meanwhile
        # untimed preparation; it asks cancelled() as it goes
        self._job = FsJob(m, step, self._context, limit=limit, cancel=self.cancelled)
        self._preparing = ""
        m.begin(step.label)
        self._message = ""
        self._job_entry = replace(step, total=self._job.total).as_dict() | {"done": 0}
        self._log.append(self._job_entry)

    def _tick_fs(self, single: bool = False) -> None:
        job, m = self._job, self._machine
        t0 = time.perf_counter()
        job.advance(t0 + (0.0 if single else BATCH_S), time.perf_counter)
        while m.clock >= self._next_fstrim:  # fstrim every N simulated minutes
            m.fstrim()
            self._next_fstrim += 60.0 * self._settings.fstrim_every_min
        self._sim_s = m.clock
        self._job_entry["done"] = job.done
        fired = self._check_breakpoints(f"a {1000 * BATCH_S:.0f} ms slice of {job.step.label}")
        if job.finished:
            self._end_job()
            self._next_segment()
            if self._stream is None and self._job is None:
                self._running = False
                self.segment_done.emit(job.step.do)
            self._publish(force=True)
        elif not single:
            self._publish(force=fired)

    def _end_job(self, failed: bool = False, why: str = "failed") -> None:
        """The file-system step running ends; a failed one is named so in the Steps table
        with why ("failed", or "stopped" when the other drive of a comparison failed)."""
        job, self._job = self._job, None
        if job is None:
            return
        # nothing queued after this step: the person starts the next one later, so modern
        # discard's worker finishes in between (a saved log replays it the same way)
        settle = not failed and not (self._plan and isinstance(self._plan[0], tuple))
        if settle and self._machine.fs.discard_queue:
            self._job_entry["settled"] = True
        r = self._machine.end(settle=settle)
        self._recorder.record(self.drive, self._sim_s, force=True)  # the step's last part
        self._message = job.message
        self._steps.append({
            "step": r.name + (f" ({why})" if failed else ""),
            "host_mb": r.device_written_mb, "nand_mb": r.nand_written_mb, "wa": r.wa,
            "trims": r.trims, "seconds": r.seconds,
            "mb_s": r.device_written_mb / r.seconds if r.seconds > 0 else float("nan")})

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
        work = stream.take(n)
        self._run(work)
        dt = time.perf_counter() - t0
        pages = len(work) if stream.is_trim else work.size
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

    def _run(self, work) -> None:
        drive = self.drive
        self._batch_events = []
        before = drive.counters()
        if isinstance(work, Commands):
            cmds = work
        elif drive.event_capacity:
            cmds = Commands.single_page(OP_WRITE, work)
        else:
            drive.write_pages(work)
            cmds = None
        if cmds is not None:
            start = 0
            while start < len(cmds):
                start = drive.run(cmds, start)
                if drive.event_capacity:
                    self._mark(drive.take_events())
        if self._profile is not None:
            self._sim_s += self._batch_seconds(before, drive.counters(), work)

    def _batch_seconds(self, before: dict, after: dict, work) -> float:
        from model.host.blockdev import BatchStats
        from model.host.timing import batch_seconds

        d = {k: after[k] - before[k] for k in after}
        page_bytes = self._geometry.page_bytes
        if isinstance(work, Commands):
            stats = BatchStats(trim_requests=len(work),
                               trim_bytes=int(work.counts.sum()) * page_bytes,
                               trimmed_pages=d["trimmed_pages"])
        else:
            stats = BatchStats(write_requests=work.size, write_bytes=work.size * page_bytes,
                               host_pages_written=d["host_writes"], nand_writes=d["nand_writes"],
                               nand_reads=d["nand_reads"], gc_copies=d["gc_copies"],
                               erases=d["erases"])
        return batch_seconds(self._profile, stats).seconds

    def _mark(self, events: np.ndarray) -> None:
        if not events.size:
            return
        self._batch_events.append(events)
        kind = events[:, 0]
        self._marks[events[kind == EV_ERASE, 1]] = MARK_ERASED
        self._marks[events[kind == EV_VICTIM, 1]] = MARK_VICTIM  # a victim is erased too
        copies = events[kind == EV_COPY, 2]  # b: the page copied to
        if copies.size:
            self._copied.append(copies)

    def _page_view(self, drive: Drive) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Page states for the snapshot: every page of a small drive; of a bigger one, the
        pages of the blocks the zoomed map shows (never the whole page map), as (pages,
        the blocks they belong to; None: all)."""
        g = drive.geometry
        ppb = g.pages_per_block
        blocks = None
        if g.physical_pages <= PAGE_LEVEL_PAGES:
            pages = page_states(drive.arrays.p2l)
        else:
            blocks = self._view_blocks
            if blocks is None or not 0 < blocks.size * ppb <= VIEW_PAGES:
                return None, None
            blocks = blocks[blocks < g.blocks]
            pages = page_states(drive.arrays.p2l.reshape(g.blocks, ppb)[blocks]).ravel()
        if self._copied:  # pages GC copied since the last frame, where they are shown
            ppn = np.concatenate(self._copied)
            if blocks is not None:
                row = np.searchsorted(blocks, ppn // ppb)
                shown = row < blocks.size
                shown[shown] &= blocks[row[shown]] == ppn[shown] // ppb
                ppn = row[shown] * ppb + ppn[shown] % ppb
            pages[ppn[pages[ppn] == PAGE_VALID]] = PAGE_COPIED
        return pages, blocks

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
            self._latest = None
            self.snapshot_ready.emit()
            return
        self._recorder.record(self.drive, self._sim_s)
        drive = self.drive
        pages, page_blocks = self._page_view(drive)
        if not view_only:
            self._copied = []
        stream = self._stream
        progress = float("nan")
        segment = "" if stream is None else stream.segment.kind
        if stream is not None and stream.segment.total > 0:
            progress = stream.done / stream.segment.total
        if self._job is not None:
            segment = self._job.step.label
            progress = self._job.done / max(1, self._job.total)
        elif self._preparing:
            segment = f"preparing {self._preparing}"
        done, secs = self._rate
        snap = drive_snapshot(
            drive, self._seq, self._marks, pages=pages, page_blocks=page_blocks,
            series=self._recorder.series(),
            running=self._running or bool(self._preparing), segment=segment,
            progress=progress, engine_pages_per_s=done / secs if secs > 0 else 0.0,
            sim_s=self._sim_s, animated=self.animated and not self._replaying,
            log=[dict(d) for d in self._log],
            steps=[dict(d) for d in self._steps], mounted=self._machine is not None,
            mount=None if self._machine is None else (self._machine.fs.opt.atime,
                                                      self._machine.fs.opt.discard),
            message=self._message, handled=self._working_on, breakpoint=self._bp_message,
            breakpoint_hits=self._bp_hits,
        )
        if not view_only:
            self._marks[:] = 0
        if secs > 0.5:
            self._rate = (0, 0.0)
        self._latest = snap
        self.snapshot_ready.emit()
