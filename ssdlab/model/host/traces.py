"""Recorded block traces: `parse` reads a trace file into a `Trace` (ssdlab/model/host/replay.py
sends it on).

Four text formats are understood: Linux tracefs block_rq_issue text and blkparse text
(ssdlab/model/host/kerneltraces.py), fio iolog v2/v3 and MSR-Cambridge CSV
(ssdlab/model/host/iologs.py). The file, plain or gzip-compressed, is streamed line by line
(ssdlab/model/host/tracefile.py): it is never held in memory whole, a line that cannot be read costs
memory only if it is among the first KEEP_PROBLEMS (the rest are counted by kind), and the requests
are kept in numpy columns, about 33 bytes each. Parsing can be cancelled: `cancel` is asked every
thousand lines or so.

Offsets are those of the traced device. A trace of a whole disk (8,0) includes the
partition's start; replay such a trace into a BlockDevice whose Partition starts at 0.
Nothing here imports Qt.
"""

from __future__ import annotations

import math
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice

import numpy as np

from .iologs import (
    FILETIME_TICK_S,
    FIO_HEADER,
    FIO_V3_TIME_UNIT_S,
    MSR_LINE,
    fio_requests,
    msr_requests,
)
from .kerneltraces import (
    BLKPARSE_LINE,
    TRACEFS_LINE,
    blkparse_requests,
    decode_rwbs,
    tracefs_requests,
)
from .tracefile import (
    KEEP_PROBLEMS,
    OPS,
    SECTOR_BYTES,
    WHOLE_MAX,
    TraceCancelled,
    TraceLines,
    TraceLog,
    TraceProblem,
    TraceRequest,
)

__all__ = ["DETECT_LINES", "FILETIME_TICK_S", "FIO_V3_TIME_UNIT_S", "FORMATS",
           "KEEP_PROBLEMS", "OPS", "SECTOR_BYTES", "WHOLE_MAX", "RequestTable", "Trace",
           "TraceCancelled", "TraceProblem", "TraceRequest", "blkparse_requests",
           "decode_rwbs", "detect_format", "fio_requests", "msr_requests", "parse",
           "tracefs_requests"]

FORMATS = ("tracefs", "blkparse", "fio-v2", "fio-v3", "msr")
DETECT_LINES = 50  # lines the format is told from
OP_CODES = {op: i for i, op in enumerate(OPS)}


class RequestTable(Sequence[TraceRequest]):
    """Requests in file order as numpy columns: time_s (float64 seconds, NaN when the
    format has none), op (int8 index into OPS), offset and length (int64 bytes), line
    (int64). Indexing gives a TraceRequest, slicing a RequestTable sharing the columns."""

    def __init__(self, time_s: np.ndarray, op: np.ndarray, offset: np.ndarray,
                 length: np.ndarray, line: np.ndarray):
        self.time_s, self.op, self.offset, self.length, self.line = (
            time_s, op, offset, length, line)

    @classmethod
    def of(cls, requests: Iterable[TraceRequest]) -> RequestTable:
        """A table of requests, read one at a time (an iterator is never listed whole)."""
        cols = (array("d"), array("b"), array("q"), array("q"), array("q"))
        t, o, off, n, ln = (c.append for c in cols)
        for r in requests:
            t(math.nan if r.time_s is None else r.time_s)
            o(OP_CODES[r.op])
            try:  # the parsers cap their numbers; a request built in code may not
                off(r.offset_bytes)
            except OverflowError:
                off(_capped(r.offset_bytes))
            try:
                n(r.length_bytes)
            except OverflowError:
                n(_capped(r.length_bytes))
            ln(r.line)
        return cls(*(np.frombuffer(c, dtype=d) if len(c) else np.empty(0, d)
                     for c, d in zip(cols, (np.float64, np.int8, np.int64, np.int64,
                                            np.int64), strict=True)))

    def __len__(self) -> int:
        return len(self.op)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return RequestTable(self.time_s[i], self.op[i], self.offset[i], self.length[i],
                                self.line[i])
        t = float(self.time_s[i])
        return TraceRequest(None if math.isnan(t) else t, OPS[self.op[i]], int(self.offset[i]),
                            int(self.length[i]), int(self.line[i]))

    def __iter__(self) -> Iterator[TraceRequest]:
        for t, o, off, n, ln in zip(self.time_s.tolist(), self.op.tolist(),
                                    self.offset.tolist(), self.length.tolist(),
                                    self.line.tolist(), strict=True):
            yield TraceRequest(None if math.isnan(t) else t, OPS[o], off, n, ln)

    def count_op(self, op: str) -> int:
        """How many requests are `op` (write, read, discard or flush)."""
        return int(np.count_nonzero(self.op == OP_CODES[op]))


def _capped(value: int) -> int:
    return max(-WHOLE_MAX, min(value, WHOLE_MAX))


def as_table(requests: Sequence[TraceRequest]) -> RequestTable:
    return requests if isinstance(requests, RequestTable) else RequestTable.of(requests)


@dataclass
class Trace:
    """requests in file order (a RequestTable, or any sequence of TraceRequest); problems:
    the first KEEP_PROBLEMS unreadable lines; problem_counts: every unreadable line counted
    by kind; fmt: the format used; skipped: lines left out on purpose, by reason; devices:
    requests seen per device (tracefs, blkparse), disk (msr) or file (fio) before any
    filter; source: where it came from; lines: lines read; complete: False when parsing
    stopped at max_lines before the end."""

    requests: Sequence[TraceRequest]
    problems: list[TraceProblem]
    fmt: str
    skipped: dict[str, int]
    devices: dict[str, int] = field(default_factory=dict)
    source: str = "<lines>"
    problem_counts: dict[str, int] = field(default_factory=dict)
    lines: int = 0
    complete: bool = True

    @property
    def unreadable(self) -> int:
        """Lines that could not be read, all of them (not only those kept)."""
        return max(sum(self.problem_counts.values()), len(self.problems))


def parse(source: str | os.PathLike | Iterable[str], fmt: str = "auto", *,
          device: str | tuple[int, int] | None = None, action: str = "D",
          disk: int | None = None, file: str | None = None,
          fio_time_unit_s: float = FIO_V3_TIME_UNIT_S, event: str = "block_rq_issue",
          cancel: Callable[[], bool] | None = None, max_lines: int | None = None) -> Trace:
    """Read a trace file (plain or gzip-compressed) or an iterable of lines.

    fmt: "auto" or one of FORMATS ("fio" lets the header choose v2 or v3).
    device (tracefs, blkparse): keep only "major,minor". action (blkparse): D, Q or C.
    disk (msr): keep only this DiskNumber. file (fio): keep only this file's requests.
    cancel: asked every tracefile.CANCEL_EVERY_LINES lines; True raises TraceCancelled.
    max_lines: read at most this many lines (a quick look at a big file).
    Raises ValueError naming the source (and the first problem's line) when the whole trace
    holds no request at all."""
    log = TraceLog()
    reader = TraceLines(source, log, cancel, max_lines)
    name = reader.name
    lines = iter(reader)
    head = list(islice(lines, DETECT_LINES))
    fmt = _resolve_format(fmt, head, name, log)
    everything = chain(head, lines)
    if fmt == "tracefs":
        it = tracefs_requests(everything, log, device=device, event=event)
    elif fmt == "blkparse":
        it = blkparse_requests(everything, log, device=device, action=action)
    elif fmt == "msr":
        it = msr_requests(everything, log, disk=disk)
    else:
        it = fio_requests(everything, log, version=int(fmt[-1]), file=file,
                          time_unit_s=fio_time_unit_s)
    requests = RequestTable.of(it)
    problems = log.problems
    trace = Trace(requests, problems.first, fmt, dict(log.skipped), dict(log.devices), name,
                  dict(problems.counts), reader.lines_read, reader.complete)
    if not len(requests) and reader.complete:
        if problems.first:
            p = problems.first[0]
            more = f" ({problems.total:,} unreadable lines)" if problems.total > 1 else ""
            raise ValueError(f"{name}: no block request could be read as {fmt}; first "
                             f"problem at line {p.line}: {p.reason}{more}")
        what = ", ".join(f"{k} {v}" for k, v in log.skipped.items()) or "no lines"
        raise ValueError(f"{name}: no block request in this {fmt} trace (skipped: {what})")
    return trace


def _resolve_format(fmt: str, head: list[str], name: str, log: TraceLog) -> str:
    """fmt as asked for, or told from the head; ValueError names the file when neither."""
    if fmt in ("auto", "fio"):
        try:
            found = detect_format(head)
        except ValueError as e:
            if fmt == "fio":
                return "fio-v2"
            why = f"; line {log.problems.first[0].line}: {log.problems.first[0].reason}" \
                if log.problems.first else ""
            raise ValueError(f"{name}: {e}{why}") from None
        return found if fmt == "auto" or found.startswith("fio-") else "fio-v2"
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be 'auto', 'fio' or one of {', '.join(FORMATS)}; "
                         f"got {fmt!r}")
    return fmt


def detect_format(first_lines: Iterable[str]) -> str:
    """Name the format of a trace from its first lines: one of FORMATS. Raises ValueError
    naming the first non-blank line when nothing fits."""
    first_text: tuple[int, str] | None = None
    for n, text in enumerate(first_lines, 1):
        s = text.strip()
        if not s:
            continue
        if first_text is None:
            first_text = (n, s)
        h = FIO_HEADER.match(s)
        if h:
            return f"fio-v{h.group(1)}" if h.group(1) in ("2", "3") else "fio-v2"
        if s.startswith("# tracer:") or TRACEFS_LINE.match(s):
            return "tracefs"
        if BLKPARSE_LINE.match(s):
            return "blkparse"
        if s.lower().startswith("timestamp,hostname") or MSR_LINE.match(s):
            return "msr"
    if first_text is None:
        raise ValueError("the trace is empty")
    n, s = first_text
    raise ValueError(f"cannot tell the trace format (line {n}: {s[:80]!r}); expected "
                     "tracefs, blkparse, fio iolog v2/v3 or MSR-Cambridge CSV text")
