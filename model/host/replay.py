"""Replaying a parsed block trace through a BlockDevice, and a summary for people.

Requests go through the partition to the drive in batches; a request outside the partition
is counted (with its line) instead of stopping the replay, and a caller can follow progress
and cancel between batches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .blockdev import BatchStats, BlockDevice
from .traces import Trace


@dataclass(frozen=True)
class ReplayResult:
    """stats: what the replay cost, summed over batches. requests: requests sent to the
    device. skipped_out_of_range: requests that fell outside the partition, the first of
    them at first_out_of_range_line. duration_s: time span of the trace (None if the
    format has no times). cancelled: the replay stopped early at the caller's request."""

    stats: BatchStats
    requests: int
    skipped_out_of_range: int
    first_out_of_range_line: int | None
    duration_s: float | None
    cancelled: bool = False


def _span(trace: Trace) -> float | None:
    times = [r.time_s for r in trace.requests if r.time_s is not None]
    return max(times) - min(times) if times else None


def replay(trace: Trace, device: BlockDevice, batch_requests: int = 4096,
           progress: Callable[[int, int], None] | None = None,
           cancel: Callable[[], bool] | None = None) -> ReplayResult:
    """Send every request of trace through device, submitting every batch_requests
    requests. progress(done, total) is called after each batch; cancel() is asked after
    each batch and stops the replay (what ran so far is still counted) when it says True.
    Requests outside the partition are counted and skipped, not fatal."""
    if batch_requests < 1:
        raise ValueError(f"batch_requests must be at least 1; got {batch_requests}")
    size = device.size_bytes
    total = BatchStats()
    sent = skipped = 0
    first_bad: int | None = None
    cancelled = False
    n = len(trace.requests)
    ops = {"write": device.write, "read": device.read, "discard": device.trim}
    for i, r in enumerate(trace.requests, 1):
        if r.op == "flush":
            device.flush()
            sent += 1
        elif r.offset_bytes < 0 or r.length_bytes <= 0 or r.offset_bytes + r.length_bytes > size:
            skipped += 1
            if first_bad is None:
                first_bad = r.line
        else:
            ops[r.op](r.offset_bytes, r.length_bytes)
            sent += 1
        if i % batch_requests == 0 or i == n:
            total = total + device.submit()
            if progress is not None:
                progress(i, n)
            if cancel is not None and i < n and cancel():
                cancelled = True
                break
    return ReplayResult(total, sent, skipped, first_bad, _span(trace), cancelled)


def _mb(b: int) -> str:
    return f"{b / 1e6:.2f} MB"


def _lines_list(lines: list[int], limit: int = 5) -> str:
    shown = ", ".join(str(x) for x in lines[:limit])
    return shown + (f" and {len(lines) - limit} more" if len(lines) > limit else "")


def summary(result: ReplayResult, trace: Trace, page_bytes: int = 4096) -> str:
    """A few lines for people: what was replayed, what it cost, what was left out and why.
    page_bytes: the drive's flash page size, for the host-side write amplification."""
    s = result.stats
    kinds = Counter(r.op for r in trace.requests)
    span = f" over {result.duration_s:.3f} s of trace time" if result.duration_s else ""
    out = [f"{trace.source} ({trace.fmt}): {result.requests} of {len(trace.requests)} "
           f"requests replayed{span}" + (" - cancelled early" if result.cancelled else "")]
    out.append(f"trace holds {kinds['write']} writes, {kinds['read']} reads, "
               f"{kinds['discard']} discards, {kinds['flush']} flushes")
    out.append(f"replayed: written {_mb(s.write_bytes)}, read {_mb(s.read_bytes)}, "
               f"trimmed {_mb(s.trim_bytes)}, {s.flush_requests} flushes")
    if s.host_pages_written:
        wa = (f"WA {s.drive_wa:.2f} per page the drive was sent, "
              f"{s.host_wa(page_bytes):.2f} per byte the host wrote")
    else:
        wa = "WA n/a (nothing written)"
    out.append(f"flash: {s.host_pages_written} host pages, {s.nand_writes} NAND page writes, "
               f"{wa}; {s.gc_copies} GC copies, {s.erases} erases, "
               f"{s.rmw_pages} read-modify-write pages")
    if result.skipped_out_of_range:
        out.append(f"skipped {result.skipped_out_of_range} requests outside the partition "
                   f"(first at line {result.first_out_of_range_line}); a whole-disk trace "
                   "needs a partition starting at 0 or a larger drive")
    if trace.skipped:
        out.append("ignored on purpose: " + ", ".join(
            f"{k} {v}" for k, v in sorted(trace.skipped.items())))
    if len(trace.devices) > 1 and "other device" not in trace.skipped \
            and "other disk" not in trace.skipped and "other file" not in trace.skipped:
        out.append("requests from several sources were mixed onto one device: " + ", ".join(
            f"{k} ({v})" for k, v in sorted(trace.devices.items())) + "; pick one to "
            "replay a single device")
    if trace.problems:
        p = trace.problems[0]
        out.append(f"{len(trace.problems)} lines could not be read (lines "
                   f"{_lines_list([q.line for q in trace.problems])}); line {p.line}: "
                   f"{p.reason}")
    return "\n".join(out)
