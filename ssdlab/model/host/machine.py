"""A computer in front of the simulated drive: file system, block device, drive, and a clock.

Machine advances simulated time two ways. CPU work (file operations, priced by the host
profile) moves the clock and lets the file system's timers run; the I/O they queue is sent
to the drive in the background, and the drive works through it in order. Waiting calls
(`sync`, `fstrim`) move the clock to when the drive is done. Each `step` records what one
workload step cost: bytes the file system wrote, bytes the drive received, NAND bytes,
TRIMs and simulated seconds.
"""

from __future__ import annotations

import operator
from collections import deque
from dataclasses import asdict, dataclass, fields, replace

from ssdlab.model.flash.amplification import write_amplification
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import PLACEMENTS

from . import timing
from .blockdev import BatchStats, BlockDevice, astuple
from .filesystem import FileSystem, FsOptions
from .partition import Partition
from .profiles import DeviceProfile, HostProfile
from .writeback import WritebackLimits

MB = 1e6


@dataclass(frozen=True)
class StepResult:
    """One workload step. Sizes in MB (10^6 bytes), time in simulated seconds."""

    name: str
    seconds: float
    fs_written_mb: float  # what ext4's lifetime_write_kbytes would grow by
    data_mb: float
    metadata_mb: float
    journal_mb: float
    device_written_mb: float  # bytes the drive was asked to write
    nand_written_mb: float
    wa: float  # flash bytes programmed / bytes the drive was asked to write (amplification.py)
    trims: int
    trimmed_mb: float
    gc_copies: int
    erases: int
    flushes: int = 0  # cache flushes the drive was sent (fsync, sync, journal commits)

    @property
    def mb_s(self) -> float:
        """MB the host sent the drive per simulated second (nan for an instant step)."""
        return self.device_written_mb / self.seconds if self.seconds > 0 else float("nan")

    def as_dict(self) -> dict:
        out = asdict(self)
        out["mb_s"] = self.mb_s
        return out


_WAIT_KEPT = 4096  # batch times kept by figures; then the memo starts afresh


class Machine:
    """A drive of `profile` (optionally scaled to user_pages) with a partition and an
    ext4-like file system, driven by a host of `host` speed.

    data_compression: what fraction of its size the workload's data keeps when compressed
    (1.0 = incompressible). It replaces the profile's compression_ratio, which describes the
    drive's rating data, on drives that compress (SandForce); other drives ignore it. The
    engine stores every page in that fraction of a flash page (FtlConfig.stored_fraction),
    so compressed data leaves flash free for garbage collection; the machine's profile then
    carries the fraction the engine really uses (whole hundredths of a page).

    placement: how the host tags its writes for a drive with placement handles: "none", or
    "hotcold", which gives the drive two handles and tags the rewrites of a user mix's hot
    blocks with handle 1 while it writes them, everything else 0 (fsworkloads.user_mix);
    tag_errors: the share of those rewritten blocks tagged the other way round.
    """

    def __init__(self, profile: DeviceProfile, host: HostProfile,
                 fs_options: FsOptions | None = None, partition: Partition | None = None,
                 user_pages: int | None = None, data_compression: float | None = None,
                 placement: str = "none", tag_errors: float = 0.0, **ftl_overrides):
        if placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}; got "
                             f"{placement!r}")
        if not 0.0 <= tag_errors <= 1.0:
            raise ValueError(f"tag_errors must be from 0 to 1; got {tag_errors}")
        if placement == "hotcold":
            ftl_overrides.setdefault("placement_handles", 2)
        self.placement, self.tag_errors = placement, tag_errors
        if data_compression is not None:
            if not 0.05 <= data_compression <= 1.0:
                raise ValueError(f"data_compression must be between 0.05 and 1; got "
                                 f"{data_compression}")
            if profile.compression_ratio < 1.0:
                profile = replace(profile, compression_ratio=data_compression)
        self.profile = profile
        self.host = host
        geometry = profile.geometry(user_pages)
        self.drive = Drive(geometry, profile.ftl_config(geometry, **ftl_overrides))
        if self.drive.stored_fraction != profile.compression_ratio:
            # what the timing model and the charts multiply the engine's stored pages by
            profile = replace(profile, compression_ratio=self.drive.stored_fraction)
            self.profile = profile
        self.dev = BlockDevice(self.drive, partition)
        self.writeback = WritebackLimits.for_host(host)
        self.fs = FileSystem(self.dev, fs_options, writeback=self.writeback)
        # the discard worker waits for each TRIM: the drive's time for one request
        self.fs.discard_request_s = lambda n: timing.trim_seconds(profile, 1, n)
        self._in_flight: deque[tuple[float, int]] = deque()  # (done at s, bytes written)
        self._in_flight_bytes = 0  # their sum, kept as they come and go
        self.dev.submit()  # mkfs happens before anything is measured
        self.clock = 0.0
        self.busy_until = 0.0
        # everything sent to the drive so far, field by field in BatchStats' order: summed
        # in place after each batch instead of a new BatchStats each time
        self._io_totals = [0] * len(fields(BatchStats))
        self._wait_s: dict[tuple[int, ...], float] = {}  # batch figures -> seconds (account)
        self._wait_profile = profile  # the profile those seconds are for
        # (start s, end s, BatchStats, free blocks after) of every batch the drive worked
        # on, when something (a time series) asked for it; None: not recorded
        self.timeline: list[tuple[float, float, BatchStats, int]] | None = None
        self._step: tuple[str, float, object, BatchStats] | None = None
        # what the steps ended so far sent, field by field: a step's untimed preparation
        # (sysbench's prepare writing its test file) happens between steps and is not in it
        self._ended_steps = [0] * len(fields(BatchStats))
        self.last_tree = None  # what the last unpack created (fsworkloads)
        self.last_ino = 0  # the last file write_file created (fsworkloads)

    @property
    def io_stats(self) -> BatchStats:
        """Everything sent to the drive so far (requests in bytes, drive counters in pages)."""
        return BatchStats(*self._io_totals)

    @property
    def steps_stats(self) -> BatchStats:
        """What the steps sent so far, the one running included (requests in bytes, drive
        counters in pages): the sum of the steps' results, without what a step's untimed
        preparation wrote before it began. io_stats counts that too."""
        done = self._ended_steps
        if self._step is not None:
            start, now = astuple(self._step[3]), astuple(self.io_stats)
            done = [d + b - a for d, a, b in zip(done, start, now, strict=True)]
        return BatchStats(*done)

    # --- time -------------------------------------------------------------------------------

    def account(self, stats: BatchStats, wait: bool = True) -> None:
        """Charge a batch that was sent to the device from outside (a trace replay)."""
        figures = astuple(stats)
        # a batch's time depends only on its figures and the profile: batches repeat (every
        # fsync of a clean file is one flush), so the time is kept by figures
        if self._wait_profile is not self.profile or len(self._wait_s) >= _WAIT_KEPT:
            self._wait_profile = self.profile
            self._wait_s = {}
        seconds = self._wait_s.get(figures)
        if seconds is None:
            seconds = self._wait_s[figures] = timing.batch_wait_s(self.profile, stats)
        start = max(self.clock, self.busy_until)
        self.busy_until = start + seconds
        if stats.write_bytes:
            self._in_flight.append((self.busy_until, stats.write_bytes))
            self._in_flight_bytes += stats.write_bytes
        self._io_totals[:] = map(operator.add, self._io_totals, figures)
        if self.timeline is not None:
            self.timeline.append((start, self.busy_until, stats, self.drive.free_blocks))
        if wait:
            self.clock = max(self.clock, self.busy_until)

    def _io(self, wait: bool) -> None:
        if self.dev.pending:
            self.account(self.dev.submit(), wait=False)
        if wait:
            self.clock = max(self.clock, self.busy_until)
            self.fs.advance(self.clock)
            if self.dev.pending:
                self._io(wait=True)
        if self.fs.discard_queue:
            # modern ext4's discard worker runs after the commit, at the drive's pace for
            # one TRIM at a time; nobody waits for it
            self.fs.run_discard_worker(self.clock)
            if self.dev.pending:
                self.account(self.dev.submit(), wait=False)

    def finish_discards(self, wait: bool = True) -> None:
        """Let modern ext4's discard worker empty its queue. wait: the host waits for it
        (umount does: ext4_mb_release flushes the work); otherwise the drive works through
        the requests in the background and the clock stays (a run that ends: the kernel
        still sends them, nobody waits)."""
        if self.fs.discard_queue:
            self.fs.issue_queued_discards()
            self.account(self.dev.submit(), wait=wait)
            if wait:
                self.fs.advance(self.clock)

    def _writeback_bytes(self) -> int:
        """Bytes sent to the drive that it has not finished writing by now."""
        while self._in_flight and self._in_flight[0][0] <= self.clock:
            self._in_flight_bytes -= self._in_flight.popleft()[1]
        return self._in_flight_bytes

    def cpu(self, seconds: float) -> None:
        """The host computes for `seconds`; timers fire, background I/O goes out. A writer
        that has pushed dirty plus in-flight data past the throttling threshold waits for
        the drive (the kernel's balance_dirty_pages)."""
        self.clock += seconds
        self.fs.advance(self.clock)
        if self.fs.discard_queue or self.dev.pending:  # what _io(wait=False) looks at first
            self._io(wait=False)
        # in-flight bytes only shrink as the drive finishes them, so under the threshold with
        # all of them counted the drive's progress need not be looked at (most files)
        throttle = self.writeback.throttle_bytes
        if self.fs.dirty_bytes + self._in_flight_bytes > throttle and \
                self.fs.dirty_bytes + self._writeback_bytes() > throttle:
            while (self._in_flight and self.fs.dirty_bytes + self._writeback_bytes()
                   > self.writeback.throttle_bytes):
                self.clock = max(self.clock, self._in_flight[0][0])
            self.fs.advance(self.clock)
            self._io(wait=False)

    def idle(self, seconds: float) -> None:
        """Nothing to do for `seconds`: timers fire; a drive with background GC cleans, and
        one with an SLC cache folds it."""
        start = max(self.clock, self.busy_until)
        self.cpu(seconds)
        quiet_from = max(start, self.busy_until)
        quiet = self.clock - quiet_from
        if quiet > 0:
            before = self.drive.counters()
            timing.idle(self.profile, self.drive, quiet)
            after = self.drive.counters()
            # The drive's own work counts in the step it happened in: copies made in idle
            # time are flash writes the next burst no longer makes, not writes that vanish.
            done = BatchStats(**{name: after[name] - before[name]
                                 for name in ("nand_writes", "nand_reads", "gc_copies",
                                              "erases")})
            self._io_totals[:] = map(operator.add, self._io_totals, astuple(done))
            if self.timeline is not None and done != BatchStats():
                # on the drive's clock too, from when idle work starts for as long as the
                # flash took, so a time series shows the fold or the clean where it happened
                t0 = quiet_from + min(quiet, self.profile.idle_gc_threshold_s)
                work_s = timing.flash_seconds(self.profile, done.nand_reads,
                                              done.nand_writes, done.erases)
                self.timeline.append((t0, min(self.clock, t0 + work_s), done,
                                      self.drive.free_blocks))

    def sync_steps(self):
        """sync, yielding between groups of files so a caller can pause; the clock reaches
        the moment the drive is done at the end."""
        for _ in self.fs.sync_steps():
            self._io(wait=False)
            yield
        self._io(wait=True)

    def sync(self) -> None:
        for _ in self.sync_steps():
            pass

    def fsync(self, ino: int) -> None:
        self.fs.fsync(ino)
        self._io(wait=True)

    def fstrim(self) -> int:
        blocks = self.fs.fstrim()
        self._io(wait=True)
        return blocks

    # --- steps ------------------------------------------------------------------------------

    def begin(self, name: str) -> None:
        self._io(wait=False)
        self._step = (name, self.clock, self.fs.count.copy(), self.io_stats)

    def end(self, settle: bool = False) -> StepResult:
        """Close the step begun last. Background I/O still running belongs to what comes
        next (a later sync waits for it). settle: nothing follows at once (the run ends, or
        a person starts the next step later), so modern ext4's discard worker finishes its
        queue in the background and its requests count in this step; without it they go
        out during the next step, racing its allocations."""
        self._io(wait=False)
        if settle:
            self.finish_discards(wait=False)
        name, t0, c0, s0 = self._step
        self._step = None
        c1, s1 = self.fs.count, self.io_stats
        self._ended_steps[:] = [d + b - a for d, a, b in zip(self._ended_steps, astuple(s0),
                                                             astuple(s1), strict=True)]
        page = self.drive.geometry.page_bytes
        host_bytes = s1.write_bytes - s0.write_bytes
        # the engine's counts: pages it programmed (host data and GC copies), each stored in
        # stored_fraction of a flash page on a compressing drive (SandForce)
        stored = self.drive.stored_fraction
        nand = (s1.nand_writes - s0.nand_writes) * stored
        return StepResult(
            name=name,
            seconds=self.clock - t0,
            fs_written_mb=(c1.written_blocks - c0.written_blocks) * 4096 / MB,
            data_mb=(c1.data_blocks - c0.data_blocks) * 4096 / MB,
            metadata_mb=(c1.metadata_blocks - c0.metadata_blocks) * 4096 / MB,
            journal_mb=(c1.journal_blocks - c0.journal_blocks) * 4096 / MB,
            device_written_mb=host_bytes / MB,
            nand_written_mb=nand * page / MB,
            wa=write_amplification(s1.nand_writes - s0.nand_writes, page, host_bytes, stored),
            trims=s1.trim_requests - s0.trim_requests,
            trimmed_mb=(s1.trim_bytes - s0.trim_bytes) / MB,
            gc_copies=s1.gc_copies - s0.gc_copies,
            erases=s1.erases - s0.erases,
            flushes=s1.flush_requests - s0.flush_requests,
        )
