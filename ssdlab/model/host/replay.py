"""Replaying a parsed block trace through a BlockDevice, and what it tells people.

Requests go through the partition to the drive in slices; a caller can follow progress and
cancel between slices. A request the partition cannot hold is never sent and never lost
silently: it is counted by reason (past the partition's end; longer than the whole
partition), with its first line numbers, beside the lines the parser could not read. The
counts travel in ReplayResult and read the same everywhere: `headline` (one line: the
window's step message and `ssdlab run`'s stderr), `summary` (a few lines) and `report` (data:
`ssdlab run --json`).

Dropped requests and unreadable lines are a warning, not an error: a whole-disk or long
recording often holds some requests outside the partition being modelled, and the rest
still replays meaningfully, so the replay runs and says what it left out (`ssdlab run`
exits 0 and prints the counts on stderr). A trace with no read, write or discard that fits
the partition is an error (ValueError naming the file and why; `ssdlab run` exits 2): a
replay of it would only show a row of zeros.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .blockdev import BatchStats, BlockDevice
from .tracefile import KEEP_PROBLEMS
from .traces import OP_CODES, Trace, as_table

PAST_END = "past the partition's end"
TOO_LONG = "longer than the whole partition"
_FLUSH = OP_CODES["flush"]
_SHOWN_LINES = 5  # line numbers quoted per reason in messages


@dataclass(frozen=True)
class Dropped:
    """Requests left out of a replay: counts by reason (PAST_END, TOO_LONG) and, per
    reason, the trace lines of the first KEEP_PROBLEMS of them."""

    counts: dict[str, int]
    lines: dict[str, tuple[int, ...]]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class ReplayResult:
    """stats: what the replay cost, summed over slices. requests: requests sent to the
    device. dropped: requests the partition could not hold, by reason. duration_s: time span
    of the trace in seconds (None if the format has no times). cancelled: the replay stopped
    early at the caller's request."""

    stats: BatchStats
    requests: int
    dropped: Dropped
    duration_s: float | None
    cancelled: bool = False

    @property
    def skipped_out_of_range(self) -> int:
        return self.dropped.total

    @property
    def first_out_of_range_line(self) -> int | None:
        firsts = [lines[0] for lines in self.dropped.lines.values() if lines]
        return min(firsts) if firsts else None


class Replay:
    """A trace on its way through a device. Which requests fit the partition is decided up
    front (`dropped`); `slices(n)` then sends the rest n trace requests at a time. Raises
    ValueError, naming the trace and what was dropped, when no read, write or discard fits."""

    def __init__(self, trace: Trace, device: BlockDevice):
        self.trace = trace
        self.device = device
        self.table = t = as_table(trace.requests)
        size = device.size_bytes
        data = t.op != _FLUSH
        too_long = data & ((t.length > size) | (t.length <= 0))
        # offset + length could pass 2^63: compare the offset with what is left instead
        past_end = data & ~too_long & ((t.offset < 0) | (t.offset > size - t.length))
        counts, lines = {}, {}
        for reason, mask in ((PAST_END, past_end), (TOO_LONG, too_long)):
            n = int(np.count_nonzero(mask))
            if n:
                counts[reason] = n
                lines[reason] = tuple(t.line[np.flatnonzero(mask)[:KEEP_PROBLEMS]].tolist())
        self.dropped = Dropped(counts, lines)
        self.keep = ~(past_end | too_long)
        if not np.any(self.keep & data):
            raise ValueError(self._nothing_fits(int(np.count_nonzero(data)), size))
        self.stats = BatchStats()
        self.sent = 0
        self.cancelled = False

    def _nothing_fits(self, data_requests: int, size: int) -> str:
        name = self.trace.source
        if not data_requests:
            return (f"{name}: the trace holds only cache flushes ({len(self.table):,}); "
                    "there is no read, write or discard to replay")
        return (f"{name}: no read, write or discard of the trace fits the partition (0 to "
                f"{size:,} bytes): "
                f"{_reasons(self.dropped.counts, self.dropped.lines)}; a whole-disk trace "
                "needs a partition starting at 0 or a larger drive")

    def slices(self, n: int) -> Iterator[tuple[int, BatchStats]]:
        """Send the requests n at a time; yields (trace requests done, that slice's stats)."""
        if n < 1:
            raise ValueError(f"batch_requests must be at least 1; got {n}")
        t, dev = self.table, self.device
        send = (dev.write, dev.read, dev.trim)
        for start in range(0, len(t), n):
            stop = min(start + n, len(t))
            for op, offset, length, keep in zip(
                    t.op[start:stop].tolist(), t.offset[start:stop].tolist(),
                    t.length[start:stop].tolist(), self.keep[start:stop].tolist(),
                    strict=True):
                if not keep:
                    continue
                if op == _FLUSH:
                    dev.flush()
                else:
                    send[op](offset, length)
                self.sent += 1
            stats = dev.submit()
            self.stats = self.stats + stats
            yield stop, stats

    def result(self) -> ReplayResult:
        return ReplayResult(self.stats, self.sent, self.dropped, _span(self.table.time_s),
                            self.cancelled)


def replay(trace: Trace, device: BlockDevice, batch_requests: int = 4096,
           progress: Callable[[int, int], None] | None = None,
           cancel: Callable[[], bool] | None = None) -> ReplayResult:
    """Send every request of trace that fits through device, submitting every
    batch_requests requests. progress(done, total) is called after each batch; cancel() is
    asked after each batch and stops the replay (what ran so far is still counted) when it
    says True. Requests the partition cannot hold are counted in the result's `dropped`;
    ValueError when none fits."""
    run = Replay(trace, device)
    n = len(run.table)
    for done, _ in run.slices(batch_requests):
        if progress is not None:
            progress(done, n)
        if cancel is not None and done < n and cancel():
            run.cancelled = True
            break
    return run.result()


def _span(times: np.ndarray) -> float | None:
    known = times[np.isfinite(times)]
    return float(known.max() - known.min()) if len(known) else None


# --- for people ------------------------------------------------------------------------------

def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _lines_text(lines: tuple[int, ...] | list[int], count: int) -> str:
    shown = ", ".join(f"{x:,}" for x in lines[:_SHOWN_LINES])
    more = ", ..." if count > min(len(lines), _SHOWN_LINES) else ""
    return f"line{'s' if count > 1 else ''} {shown}{more}"


def _reasons(counts: dict[str, int], lines: dict[str, tuple[int, ...]]) -> str:
    """"2 past the partition's end (lines 5, 9), 1 ... (line 12)": each reason, largest
    first, with its count and first lines."""
    return ", ".join(f"{n:,} {reason}" + (f" ({_lines_text(lines[reason], n)})"
                                           if lines.get(reason) else "")
                     for reason, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def _unreadable(trace: Trace) -> tuple[dict[str, int], dict[str, tuple[int, ...]]]:
    counts = trace.problem_counts or dict(Counter(p.kind or p.reason for p in trace.problems))
    lines: dict[str, tuple[int, ...]] = {}
    for p in trace.problems:
        kind = p.kind or p.reason
        lines[kind] = lines.get(kind, ()) + (p.line,)
    return counts, lines


def notes(result: ReplayResult, trace: Trace) -> list[str]:
    """What was left out and why: dropped requests, unreadable lines ([] when nothing)."""
    out = []
    if result.dropped.total:
        out.append(f"{_plural(result.dropped.total, 'request')} dropped: "
                   + _reasons(result.dropped.counts, result.dropped.lines))
    if trace.unreadable:
        counts, lines = _unreadable(trace)
        out.append(f"{_plural(trace.unreadable, 'line')} unreadable: {_reasons(counts, lines)}")
    return out


def headline(result: ReplayResult, trace: Trace) -> str:
    """One line: what was replayed and what was left out and why."""
    name = str(trace.source).replace("\\", "/").rsplit("/", 1)[-1]
    head = (f"{name} ({trace.fmt}): {result.requests:,} of {len(trace.requests):,} requests "
            "replayed" + (" - cancelled early" if result.cancelled else ""))
    return "; ".join([head] + notes(result, trace))


def report(result: ReplayResult, trace: Trace) -> dict:
    """The replay's outcome as data (JSON-ready): counts and first lines per reason."""
    counts, lines = _unreadable(trace)
    return {
        "trace": trace.source, "format": trace.fmt, "requests": len(trace.requests),
        "replayed": result.requests, "cancelled": result.cancelled,
        "dropped": {r: {"count": n, "first_lines": list(result.dropped.lines.get(r, ()))}
                    for r, n in result.dropped.counts.items()},
        "unreadable": {k: {"count": n, "first_lines": list(lines.get(k, ()))}
                       for k, n in counts.items()},
        "ignored": dict(trace.skipped),
        "summary": headline(result, trace),
    }


def _mb(b: int) -> str:
    return f"{b / 1e6:.2f} MB"


def summary(result: ReplayResult, trace: Trace, page_bytes: int = 4096) -> str:
    """A few lines for people: what was replayed, what it cost, what was left out and why.
    page_bytes: the drive's flash page size, for the host-side write amplification."""
    s = result.stats
    t = as_table(trace.requests)
    span = f" over {result.duration_s:.3f} s of trace time" if result.duration_s else ""
    out = [f"{trace.source} ({trace.fmt}): {result.requests:,} of {len(t):,} "
           f"requests replayed{span}" + (" - cancelled early" if result.cancelled else "")]
    out.append(f"trace holds {t.count_op('write')} writes, {t.count_op('read')} reads, "
               f"{t.count_op('discard')} discards, {t.count_op('flush')} flushes")
    out.append(f"replayed: written {_mb(s.write_bytes)}, read {_mb(s.read_bytes)}, "
               f"trimmed {_mb(s.trim_bytes)}, {s.flush_requests} flushes")
    if s.host_pages_written:
        wa = (f"WA {s.wa(page_bytes):.2f} (flash bytes / bytes the host wrote); "
              f"{s.page_wa:.2f} pages programmed per page touched")
    else:
        wa = "WA n/a (nothing written)"
    out.append(f"flash: {s.host_pages_written} host pages, {s.nand_writes} NAND page writes, "
               f"{wa}; {s.gc_copies} GC copies, {s.erases} erases, "
               f"{s.rmw_pages} read-modify-write pages")
    out += notes(result, trace)
    if result.dropped.total:
        out.append("a whole-disk trace needs a partition starting at 0 or a larger drive")
    if trace.skipped:
        out.append("ignored on purpose: " + ", ".join(
            f"{k} {v}" for k, v in sorted(trace.skipped.items())))
    if len(trace.devices) > 1 and "other device" not in trace.skipped \
            and "other disk" not in trace.skipped and "other file" not in trace.skipped:
        out.append("requests from several sources were mixed onto one device: " + ", ".join(
            f"{k} ({v})" for k, v in sorted(trace.devices.items())) + "; pick one to "
            "replay a single device")
    return "\n".join(out)
