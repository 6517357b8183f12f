"""The timing model: a batch's counters and a device profile in, seconds out.

The model is deliberately small. A batch of host requests (a `BatchStats`) costs four kinds
of work, each in seconds:

flash_s     the dies' work, spread over channels x dies, or the channel buses, whichever
            is slower:
                die_s = (nand_reads * read_us
                         + (nand_writes - slc_writes) * program_us * compression_ratio
                         + slc_writes * slc_program_us
                         + erases * erase_us) * 1e-6 / (channels * dies_per_channel)
                bus_s = (nand_reads + nand_writes * compression_ratio) * page_bytes
                        / (channels * channel_mb_s * 1e6)
                flash_s = max(die_s, bus_s)
            (compression_ratio < 1 models SandForce: the engine stores every page in that
            fraction of a flash page, so nand_writes counts stored pages, host data and GC
            copies, each programming compression_ratio of a page: the flash programs what is
            stored. A Machine's profile carries the engine's own fraction.)
            (slc_writes: host pages a drive with an SLC cache programmed into blocks used one
            bit per cell, at slc_program_us each; folding them into dense flash later reads
            and programs them again, as GC copies, at program_us: slccache.py.)
link_s      the host link: (write_bytes + read_bytes) / (host_link_mb_s * 1e6).
overhead_s  controller time per command: (write, read and flush requests, plus ignored
            TRIMs) * command_overhead_us * 1e-6.
trim_s      TRIM work on a drive that honours it:
                trim_requests * trim_command_us * 1e-6 + trim_bytes / 2^30 * trim_s_per_gib.
            On a drive that ignores TRIM it is 0 and each TRIM costs only command overhead.

How they combine:
- With a queue (queue_depth >= 2) the link, the flash and the controller work as a
  pipeline, so the slowest stage sets the time: io_s = max(flash_s, link_s, overhead_s).
  At queue depth 1 every command waits for the one before: io_s = flash_s + link_s +
  overhead_s.
- A non-queued TRIM (SATA before 3.1) drains the queue and runs alone; nothing overlaps it:
  seconds = io_s + trim_s.
- A queued TRIM (SATA 3.1 queued TRIM, NVMe deallocate) is one more pipeline stage:
  seconds = max(io_s, trim_s) when queue_depth >= 2.

`idle` lets a drive with background GC collect in idle time, and a drive with an SLC cache
fold it into dense flash first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ssdlab.model.flash.drive import Drive

from .blockdev import BatchStats
from .profiles import DeviceProfile

GIB = 2**30
DEFAULT_QUEUE_DEPTH = 32  # SATA NCQ depth; NVMe queues are deeper but 32 already pipelines

# Background GC collects only blocks at most this full of valid pages: cheap victims first,
# the way idle-time collectors avoid wasting erase cycles on nearly full blocks.
IDLE_GC_MAX_VALID_FRACTION = 0.5


@dataclass(frozen=True)
class TimingResult:
    """What a batch cost, in seconds, and the write throughput the host saw."""

    seconds: float  # total time the host waited for the batch
    flash_s: float  # die / channel-bus work (already spread over the parallel units)
    link_s: float  # host link transfer time
    trim_s: float  # TRIM work (0 on a drive that ignores TRIM)
    overhead_s: float  # per-command controller time
    write_mb_s: float  # host bytes written / 1e6 / seconds (nan without writes)


def flash_seconds(profile: DeviceProfile, nand_reads: int, nand_writes: int,
                  erases: int, slc_writes: int = 0) -> float:
    """Seconds of flash work for these page/block counts, spread over the parallel units;
    slc_writes of the nand_writes went into an SLC cache, at slc_program_us each."""
    cr = profile.compression_ratio
    die_us = (nand_reads * profile.read_us
              + (nand_writes - slc_writes) * profile.program_us * cr
              + slc_writes * profile.slc_program_us + erases * profile.erase_us)
    die_s = die_us * 1e-6 / profile.parallel_units
    bus_bytes = (nand_reads + nand_writes * cr) * profile.page_bytes
    bus_s = bus_bytes / (profile.channels * profile.channel_mb_s * 1e6)
    return max(die_s, bus_s)


def trim_seconds(profile: DeviceProfile, trim_requests: int, trim_bytes: int) -> float:
    """Seconds a drive that honours TRIM spends on these TRIM requests (0 if it ignores
    TRIM)."""
    if not profile.trim_honoured:
        return 0.0
    return (trim_requests * profile.trim_command_us * 1e-6
            + trim_bytes / GIB * profile.trim_s_per_gib)


def batch_seconds(profile: DeviceProfile, stats: BatchStats,
                  queue_depth: int = DEFAULT_QUEUE_DEPTH) -> TimingResult:
    """Turn one batch's counters into time on this drive (see the module docstring)."""
    if not isinstance(queue_depth, int) or not 1 <= queue_depth <= 65536:
        raise ValueError(f"queue_depth must be a whole number from 1 to 65536; "
                         f"got {queue_depth!r}")
    seconds, flash_s, link_s, trim_s, overhead_s = _batch_parts(profile, stats, queue_depth)
    write_mb_s = (stats.write_bytes / 1e6 / seconds
                  if stats.write_bytes and seconds > 0 else math.nan)
    return TimingResult(seconds=seconds, flash_s=flash_s, link_s=link_s, trim_s=trim_s,
                        overhead_s=overhead_s, write_mb_s=write_mb_s)


def batch_wait_s(profile: DeviceProfile, stats: BatchStats) -> float:
    """batch_seconds(profile, stats).seconds at the default queue depth, without the
    result record: the Machine charges every batch (13,000 fsyncs in sysbench_vertex60)."""
    return _batch_parts(profile, stats, DEFAULT_QUEUE_DEPTH)[0]


def _batch_parts(profile: DeviceProfile, stats: BatchStats, queue_depth: int
                 ) -> tuple[float, float, float, float, float]:
    """(seconds, flash_s, link_s, trim_s, overhead_s) of a batch; queue_depth checked."""
    flash_s = flash_seconds(profile, stats.nand_reads, stats.nand_writes, stats.erases,
                            stats.slc_writes)
    link_s = (stats.write_bytes + stats.read_bytes) / (profile.host_link_mb_s * 1e6)
    commands = stats.write_requests + stats.read_requests + stats.flush_requests
    if not profile.trim_honoured:
        commands += stats.trim_requests  # acknowledged and dropped: only the overhead
    overhead_s = commands * profile.command_overhead_us * 1e-6
    trim_s = trim_seconds(profile, stats.trim_requests, stats.trim_bytes)
    # A cache flush drains the queue and holds it while the drive persists its caches and
    # tables, so its time adds to everything else.
    flush_s = stats.flush_requests * profile.flush_us * 1e-6

    if queue_depth >= 2:
        io_s = max(flash_s, link_s, overhead_s)
    else:
        io_s = flash_s + link_s + overhead_s
    if profile.trim_queued and queue_depth >= 2:
        seconds = max(io_s, trim_s) + flush_s
    else:
        seconds = io_s + trim_s + flush_s
    return seconds, flash_s, link_s, trim_s, overhead_s


def sequential_write_mb_s(profile: DeviceProfile, request_bytes: int = 512 * 1024,
                          total_bytes: int = 4_096_000_000,
                          queue_depth: int = DEFAULT_QUEUE_DEPTH) -> float:
    """Throughput of a large sequential write to trimmed flash (WA 1, one erase per block
    filled): what a dd or iozone write run measures, from the profile alone."""
    pages = -(-total_bytes // profile.page_bytes)
    stats = BatchStats(write_requests=-(-total_bytes // request_bytes), write_bytes=total_bytes,
                       host_pages_written=pages, nand_writes=pages,
                       erases=-(-pages // profile.pages_per_block))
    return batch_seconds(profile, stats, queue_depth).write_mb_s


def gc_victim_seconds(profile: DeviceProfile,
                      valid_fraction: float = IDLE_GC_MAX_VALID_FRACTION) -> float:
    """Flash seconds to collect one victim holding valid_fraction of its pages valid: read
    and program each valid page, erase the block. The dies other than the victim's carry on
    with other victims, so the work spreads over the parallel units like host work does."""
    copies = int(valid_fraction * profile.pages_per_block)
    return flash_seconds(profile, copies, copies, 1)


def idle(profile: DeviceProfile, drive: Drive, seconds: float) -> int:
    """Let the drive sit idle for `seconds`. After idle_gc_threshold_s a drive with an SLC
    cache folds its full cache blocks into dense flash, then a profile with background GC
    spends what time is left collecting cheap victims (at most half valid) until every spare
    block is free again. Returns the number of victims collected (0 without background GC).
    """
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"idle seconds must be a number of 0 or more; got {seconds!r}")
    if seconds <= profile.idle_gc_threshold_s:
        return 0
    budget_s = seconds - profile.idle_gc_threshold_s
    if drive.config.slc_cache != "none":
        budget_s = _fold(profile, drive, budget_s)
    if not profile.background_gc:
        return 0
    per_victim = gc_victim_seconds(profile)
    max_victims = int(min(budget_s / per_victim, 2**31 - 1)) if per_victim > 0 else 2**31 - 1
    if max_victims <= 0:
        return 0
    target = max(1, int(drive.geometry.spare_blocks))
    return drive.idle_gc(target, max_victims, IDLE_GC_MAX_VALID_FRACTION)


def _fold(profile: DeviceProfile, drive: Drive, budget_s: float) -> float:
    """Fold full SLC-cache blocks while budget_s lasts, the flash work each took charged
    from its counters; returns the seconds left. The engine folds only while the dense
    flash has room beyond GC's reserve: a drive with background GC collects a victim to
    make room, one without waits for the host's next writes to do it."""
    pages = drive.pages_per_block // drive.config.cell_bits
    per_fold = flash_seconds(profile, pages, pages, 1)  # read, program dense, erase
    while budget_s >= per_fold and drive.slc_counters()["slc_full"]:
        before = drive.counters()
        if not drive.fold_step(int(min(budget_s // per_fold, 2**31 - 1)),
                               profile.background_gc):
            break
        after = drive.counters()
        budget_s -= flash_seconds(profile, *(after[k] - before[k] for k in
                                             ("nand_reads", "nand_writes", "erases")))
    return budget_s
