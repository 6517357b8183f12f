"""The simulation thread: owns the Drive, runs batches, hands out snapshots.

The GUI talks to the worker only through its command queue (configure, workload, play,
pause, step, speed, reset, replay, stop) and reads `take_snapshot()`, which returns the
newest snapshot and drops older ones. Batches are sized to take about BATCH_S of engine time,
so a pause, reset or stop is seen within a few tens of milliseconds.

Two modes, chosen by drive size: a drive of at most EVENT_BLOCKS erase blocks runs with the
engine's event buffer on, one small batch per frame (animation: victims, erases and GC copies
are marked in the snapshot); a bigger drive runs without events, batch after batch, flat out.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QThread, Signal

from model.commands import Commands
from model.drive import Drive, DriveError, event_capacity_for, window_wa
from model.state import (
    EV_COPY,
    EV_ERASE,
    EV_VICTIM,
    FREE_PAGE,
    INVALID_PAGE,
    OP_WRITE,
)

from .streams import Segment, Stream

FRAME_S = 1 / 30  # snapshots at most this often
BATCH_S = 0.02  # engine time per flat-out batch
EVENT_BLOCKS = 16384  # drives with at most this many blocks animate with events
PAGE_LEVEL_PAGES = 1 << 18  # physical pages up to which snapshots carry page states
MAX_SERIES_ROWS = 4000
WA_WINDOW = 0.05  # per-window WA: windows of this share of the user capacity
# Seconds one whole drive write takes at each animation speed ("fast" is flat out).
SPEED_DRIVE_WRITE_S = {"slow": 120.0, "normal": 20.0}
SERIES_COLUMNS = ("drive_writes", "sim_s", "host", "nand", "gc", "erases", "free", "wa",
                  "wa_window", "host_rate", "nand_rate", "gc_rate")

# Marks for blocks and pages in a snapshot (what happened since the previous snapshot).
MARK_VICTIM, MARK_ERASED = 1, 2
PAGE_FREE, PAGE_VALID, PAGE_INVALID, PAGE_COPIED = 0, 1, 2, 3


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
    pages: np.ndarray | None  # int8 per physical page (PAGE_*) on small drives
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


class Worker(QThread):
    """Runs the drive; see the module docstring."""

    snapshot_ready = Signal()
    failed = Signal(str)
    segment_done = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._queue: queue.Queue = queue.Queue()
        self._latest: Snapshot | None = None
        self._seq = 0
        self.drive: Drive | None = None

    # --- GUI side (thread-safe) ------------------------------------------------------------

    def send(self, name: str, *args) -> None:
        self._queue.put((name, args))

    def configure(self, geometry, config, profile=None) -> None:
        self.send("configure", geometry, config, profile)

    def take_snapshot(self) -> Snapshot | None:
        snap, self._latest = self._latest, None
        return snap

    def stop(self) -> None:
        self.send("stop")
        self.wait(5000)

    # --- worker thread ---------------------------------------------------------------------

    def run(self) -> None:  # noqa: C901 - one command loop
        self._reset_state(None, None, None)
        self._alive = True
        while self._alive:
            busy = self._running and self._stream is not None
            try:
                name, args = self._queue.get(block=not busy, timeout=None if not busy else 0)
            except queue.Empty:
                name = None
            if name is not None:
                self._handle(name, args)
                continue
            try:
                self._tick()
            except (DriveError, ValueError) as e:
                self._running = False
                self.failed.emit(str(e))
                self._publish(force=True)

    def _handle(self, name: str, args: tuple) -> None:
        if name == "stop":
            self._alive = False
        elif name == "configure":
            try:
                self._reset_state(*args)
            except (ValueError, MemoryError) as e:
                self.failed.emit(str(e))
            self._publish(force=True)
        elif name == "reset":
            self._reset_state(self._geometry, self._config, self._profile)
            self._publish(force=True)
        elif name == "workload":
            self._plan = [args[0]]
            self._next_segment()
            self._running = True
        elif name == "replay":
            self._reset_state(self._geometry, self._config, self._profile)
            self._plan = [Segment(**d) for d in args[0] if d["total"] > 0]
            self._restore = args[1] if len(args) > 1 else None
            self._replaying = True
            self._next_segment()
            self._running = self._stream is not None
            self._publish(force=True)
        elif name == "play":
            self._running = self._stream is not None
            self._publish(force=True)
        elif name == "pause":
            self._running = False
            self._publish(force=True)
        elif name == "step":
            if self._stream is not None:
                self._tick(single=True)
            self._publish(force=True)
        elif name == "speed":
            self._speed = args[0]

    def _reset_state(self, geometry, config, profile) -> None:
        self._geometry, self._config, self._profile = geometry, config, profile
        self.drive = None
        self._running = False
        self._replaying = False
        self._restore = None
        self._plan: list[Segment] = []
        self._stream: Stream | None = None
        self._log: list[dict] = []
        self._rows: list[tuple] = []
        self._sim_s = 0.0
        self._marks = None
        self._pages_marked = None
        self._rate = (0, 0.0)
        self._last_publish = 0.0
        self._last_row = None
        self._window_start = None
        self._wa_window = float("nan")
        self._speed = getattr(self, "_speed", "normal")
        self._batch = 4096
        if geometry is None:
            return
        self.animated = geometry.blocks <= EVENT_BLOCKS
        capacity = event_capacity_for(geometry, config, 1) if self.animated else 0
        self.drive = Drive(geometry, config, event_capacity=capacity)
        self._marks = np.zeros(geometry.blocks, dtype=np.int8)
        self._copied: list[np.ndarray] = []
        self._record_row()

    def _next_segment(self) -> None:
        self._stream = None
        while self._plan and self._stream is None:
            seg = self._plan.pop(0)
            self._stream = Stream(seg, self._geometry.user_pages)
            self._log.append(seg.as_dict() | {"total": 0})
        if self._stream is None and self._replaying:
            self._replaying = False
            self._restore_series()

    def _restore_series(self) -> None:
        """After a replay, show the time series the saved run recorded."""
        saved, self._restore = self._restore, None
        if not saved or "drive_writes" not in saved:
            return
        cols = [saved.get(k, [float("nan")] * len(saved["drive_writes"]))
                for k in SERIES_COLUMNS]
        self._rows = [tuple(r) for r in zip(*cols, strict=True)]
        if self._rows:
            self._sim_s = float(self._rows[-1][1])
        self._last_row = (self._sim_s, self.drive.counters())

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
        t0 = time.perf_counter()
        work = stream.take(n)
        self._run(work)
        dt = time.perf_counter() - t0
        pages = len(work) if stream.is_trim else work.size
        self._rate = (self._rate[0] + pages, self._rate[1] + dt)
        if flat and dt > 0:
            self._batch = int(min(1 << 22, max(256, self._batch * min(4.0, BATCH_S / dt))))
        self._log[-1]["total"] = stream.done
        if stream.finished:
            label = stream.segment.kind
            self._next_segment()
            if self._stream is None:
                self._running = False
                self.segment_done.emit(label)
            self._publish(force=True)
        elif single:
            return
        elif flat:
            self._publish()
        else:
            self._publish(force=True)
            left = FRAME_S - (time.perf_counter() - t0)
            if left > 0:
                time.sleep(left)

    def _run(self, work) -> None:
        drive = self.drive
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
        from model.blockdev import BatchStats
        from model.timing import batch_seconds

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
        kind = events[:, 0]
        self._marks[events[kind == EV_ERASE, 1]] = MARK_ERASED
        self._marks[events[kind == EV_VICTIM, 1]] = MARK_VICTIM  # a victim is erased too
        copies = events[kind == EV_COPY, 2]  # b: the page copied to
        if copies.size:
            self._copied.append(copies)

    def _record_row(self) -> None:
        """Append one time-series row (cumulative counters and rates since the last row)."""
        c = self.drive.counters()
        g = self._geometry
        prev = self._last_row
        if prev is not None and c["host_writes"] == prev[1]["host_writes"] \
                and c["trims"] == prev[1]["trims"]:
            return
        wa = window_wa(dict.fromkeys(c, 0), c)
        # Per-window WA over windows of WA_WINDOW of the user capacity, not per frame:
        # a frame of a slow animation is a few dozen pages, far too noisy.
        start = self._window_start
        if start is None:
            self._window_start = c
        elif c["host_writes"] - start["host_writes"] >= WA_WINDOW * g.user_pages:
            self._wa_window = window_wa(start, c)
            self._window_start = c
        rates = (float("nan"),) * 3
        if prev is not None:
            host = c["host_writes"] - prev[1]["host_writes"]
            dt = self._sim_s - prev[0]
            if self._profile is not None and dt > 0:  # MB/s, and GC pages per second
                mb = g.page_bytes / 1e6
                scales = (mb / dt, mb / dt, 1.0 / dt)
            elif self._profile is None and host > 0:  # pages per 1,000 host page writes
                scales = (1000.0 / host,) * 3
            else:
                scales = None
            if scales is not None:
                rates = tuple((c[k] - prev[1][k]) * f for k, f in zip(
                    ("host_writes", "nand_writes", "gc_copies"), scales, strict=True))
        row = (c["host_writes"] / g.user_pages, self._sim_s, c["host_writes"],
               c["nand_writes"], c["gc_copies"], c["erases"], self.drive.free_blocks, wa,
               self._wa_window, *rates)
        self._rows.append(row)
        self._last_row = (self._sim_s, c)
        if len(self._rows) > MAX_SERIES_ROWS:
            self._rows = self._rows[::2]

    def _publish(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._last_publish < FRAME_S:
            return
        self._last_publish = now
        self._seq += 1
        if self.drive is None:
            self._latest = None
            self.snapshot_ready.emit()
            return
        self._record_row()
        drive, g = self.drive, self._geometry
        views = drive.block_views()
        pages = None
        if g.physical_pages <= PAGE_LEVEL_PAGES:
            p2l = drive.arrays.p2l
            pages = np.full(p2l.shape, PAGE_VALID, dtype=np.int8)
            pages[p2l == FREE_PAGE] = PAGE_FREE
            pages[p2l == INVALID_PAGE] = PAGE_INVALID
            if self._copied:
                ppn = np.concatenate(self._copied)
                pages[ppn[pages[ppn] == PAGE_VALID]] = PAGE_COPIED
        self._copied = []
        series = np.array(self._rows, dtype=float).reshape(-1, len(SERIES_COLUMNS))
        stream = self._stream
        progress = float("nan")
        if stream is not None and stream.segment.total > 0:
            progress = stream.done / stream.segment.total
        done, secs = self._rate
        snap = Snapshot(
            seq=self._seq, blocks=g.blocks, pages_per_block=g.pages_per_block,
            user_pages=g.user_pages, state=views["state"].copy(), valid=views["valid"].copy(),
            erases=views["erases"].copy(), close_seq=drive.arrays.close_seq.copy(),
            marks=self._marks.copy(), pages=pages, counters=drive.counters(),
            free_blocks=drive.free_blocks,
            series={k: series[:, i].copy() for i, k in enumerate(SERIES_COLUMNS)},
            running=self._running, segment="" if stream is None else stream.segment.kind,
            progress=progress, engine_pages_per_s=done / secs if secs > 0 else 0.0,
            sim_s=self._sim_s, animated=self.animated and not self._replaying,
            events_dropped=drive.events_dropped, log=[dict(d) for d in self._log],
        )
        self._marks[:] = 0
        if secs > 0.5:
            self._rate = (0, 0.0)
        self._latest = snap
        self.snapshot_ready.emit()
