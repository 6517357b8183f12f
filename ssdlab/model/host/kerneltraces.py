"""Linux block-layer trace text: tracefs and blkparse, read into `TraceRequest` records.

- "tracefs": the text of /sys/kernel/tracing/trace (or trace_pipe) with the
  block:block_rq_issue event, as printed by recent kernels
  (``7,0 WS 4096 () 123456 + 8 none,0,0 [jbd2/loop0-8]``) and by older ones without the
  byte count or the I/O-priority field.
- "blkparse": blkparse's default text output; only one action (D, issued, by default) is
  used, since every request appears once per stage it passes (Q, G, I, D, C ...).

Both name the operation with the kernel's rwbs letters and the device as major,minor.
Each parser takes lines (numbered from first_line) and a TraceLog; a line that cannot be
read is recorded there as a problem and parsing goes on; lines left out on purpose (other
events, other devices, comments ...) are counted in its `skipped`. Nothing here imports Qt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .tracefile import SECTOR_BYTES, WHOLE_MAX, TraceLog, TraceRequest, whole

# --- rwbs ------------------------------------------------------------------------------------

def decode_rwbs(rwbs: str) -> tuple[bool, str | None]:
    """Split a kernel/blkparse rwbs string into (flush, data op).

    A leading F is a cache flush before the data (REQ_PREFLUSH); a lone F, or F in the op
    position, is a flush request; an F after the op letter is FUA, which needs no separate
    flush. W write, R read, D discard, E (secure erase) counts as discard, N carries no data.
    The remaining letters (S sync, M meta, A read-ahead, F fua, ...) change nothing here.
    Raises ValueError for an unknown op letter."""
    s = rwbs.strip().upper()
    if not s:
        raise ValueError("empty rwbs field")
    flush = False
    i = 0
    if s[0] == "F":
        flush = True
        i = 1
    letter = s[i:i + 1]
    op: str | None
    if letter in ("", "F"):
        return True, None
    if letter == "W":
        op = "write"
    elif letter == "R":
        op = "read"
    elif letter in ("D", "E"):
        op = "discard"
    elif letter == "N":
        op = None
    else:
        raise ValueError(f"unknown operation letter {letter!r} in rwbs {rwbs!r} "
                         "(expected W, R, D, E, N or F)")
    if "E" in s[i + 1:]:
        op = "discard"
    return flush, op


def _emit(time_s: float | None, flush: bool, op: str | None, sector: int, sectors: int,
          line: int, log: TraceLog) -> Iterator[TraceRequest]:
    if flush:
        yield TraceRequest(time_s, "flush", 0, 0, line)
    if op is None:
        if not flush:
            log.skipped["no data (N)"] += 1
        return
    if sectors <= 0:
        if not flush:
            log.skipped["zero-length request"] += 1
        return
    yield TraceRequest(time_s, op, min(sector * SECTOR_BYTES, WHOLE_MAX),
                       min(sectors * SECTOR_BYTES, WHOLE_MAX), line)


def _device_key(device: str | tuple[int, int] | None) -> str | None:
    if device is None:
        return None
    if isinstance(device, tuple):
        major, minor = device
    else:
        m = re.fullmatch(r"\s*(\d+)\s*[,:]\s*(\d+)\s*", str(device))
        if not m:
            raise ValueError(f"device must be 'major,minor' such as '8,0'; got {device!r}")
        major, minor = int(m.group(1)), int(m.group(2))
    return f"{int(major)},{int(minor)}"


# --- tracefs -----------------------------------------------------------------------------------

TRACEFS_LINE = re.compile(
    r"^\s*(?P<task>.*?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(?P<cpu>\d+)\]\s+"
    r"(?:\S+\s+)??(?P<ts>\d+(?:\.\d+)?):\s+(?P<event>[\w:]+):\s?(?P<rest>.*)$")
_TRACEFS_RQ = re.compile(
    r"^(?P<major>\d+),(?P<minor>\d+)\s+(?P<rwbs>[A-Za-z]+)\s+(?:(?P<bytes>\d+)\s+)?"
    r"\((?P<cmd>[^)]*)\)\s+(?P<sector>\d+)\s+\+\s+(?P<nr>\d+)\b(?P<extra>[^\[]*)"
    r"(?:\[(?P<comm>.*)\])?\s*$")


def tracefs_requests(lines: Iterable[str], log: TraceLog | None = None, *,
                     device: str | tuple[int, int] | None = None,
                     event: str = "block_rq_issue", first_line: int = 1
                     ) -> Iterator[TraceRequest]:
    """Requests from tracefs text. device: keep only "major,minor"; event: which block
    event's lines to use (block_rq_issue; block_rq_insert or block_rq_complete work too)."""
    log = log if log is not None else TraceLog()
    want = _device_key(device)
    for n, text in enumerate(lines, first_line):
        s = text.strip()
        if not s:
            continue
        if s.startswith("#"):
            log.skipped["comment"] += 1
            continue
        if s.startswith("CPU:") and "LOST" in s:
            log.problem(n, text, "the kernel dropped events here (trace buffer overrun); "
                        "requests are missing", "events lost by the kernel")
            continue
        m = TRACEFS_LINE.match(s)
        if not m:
            log.problem(n, text, "not a tracefs event line "
                        "('task-pid [cpu] flags time: event: ...')", "not a tracefs line")
            continue
        ev = m.group("event").rsplit(":", 1)[-1]
        if ev != event:
            log.skipped[f"other event ({ev})"] += 1
            continue
        r = _TRACEFS_RQ.match(m.group("rest").strip())
        if not r:
            log.problem(n, text, f"{event} fields not understood (expected 'major,minor "
                        "rwbs bytes (cmd) sector + sectors [comm]')", "fields not understood")
            continue
        kind = _device_op(log, n, text, r.group("major"), r.group("minor"), r.group("rwbs"),
                          want)
        if kind is None:
            continue
        flush, op = kind
        yield from _emit(float(m.group("ts")), flush, op, whole(r.group("sector")),
                         whole(r.group("nr")), n, log)


def _device_op(log, n: int, text: str, major: str, minor: str, rwbs: str,
               want: str | None):
    """Count the request's device; (flush, op) if it is wanted and its rwbs decodes, else
    None (skipped, or recorded as a problem)."""
    key = f"{whole(major)},{whole(minor)}"
    log.devices[key] += 1
    if want is not None and key != want:
        log.skipped["other device"] += 1
        return None
    try:
        return decode_rwbs(rwbs)
    except ValueError as e:
        log.problem(n, text, str(e), "unknown operation")
        return None


# --- blkparse ----------------------------------------------------------------------------------

BLKPARSE_LINE = re.compile(
    r"^\s*(?P<major>\d+),(?P<minor>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+"
    r"(?P<ts>\d+\.\d+)\s+(?P<pid>\d+)\s+(?P<act>[A-Za-z]{1,2})\s+(?P<rwbs>\S+)\s*(?P<rest>.*)$")
_BLKPARSE_RANGE = re.compile(
    r"^(?P<sector>\d+)\s+\+\s+(?P<nr>\d+)(?:\s+\(\s*[^)]*\))?\s*(?:\[(?P<comm>[^\]]*)\])?\s*$")
_BLKPARSE_SUMMARY = re.compile(r"^\s*(CPU\d+|Total)\s+\(")


def blkparse_requests(lines: Iterable[str], log: TraceLog | None = None, *,
                      device: str | tuple[int, int] | None = None, action: str = "D",
                      first_line: int = 1) -> Iterator[TraceRequest]:
    """Requests from blkparse's default output. action: D (issued to the driver, default),
    Q (queued by the file system) or C (completed). The statistics blkparse prints at the
    end are skipped."""
    if action not in ("D", "Q", "C"):
        raise ValueError(f"action must be D, Q or C; got {action!r}")
    log = log if log is not None else TraceLog()
    want = _device_key(device)
    in_summary = False
    for n, text in enumerate(lines, first_line):
        s = text.strip()
        if not s:
            continue
        if in_summary or _BLKPARSE_SUMMARY.match(s):
            in_summary = True
            log.skipped["blkparse summary"] += 1
            continue
        if s.startswith("#"):
            log.skipped["comment"] += 1
            continue
        m = BLKPARSE_LINE.match(s)
        if not m:
            log.problem(n, text, "not a blkparse line ('maj,min cpu seq time pid action "
                        "rwbs sector + sectors [comm]')", "not a blkparse line")
            continue
        act = m.group("act")
        if act != action:
            log.skipped[f"action {act}"] += 1
            continue
        kind = _device_op(log, n, text, m.group("major"), m.group("minor"), m.group("rwbs"),
                          want)
        if kind is None:
            continue
        flush, op = kind
        r = _BLKPARSE_RANGE.match(m.group("rest"))
        if not r:
            if op is None:  # SCSI pass-through or a bare flush: "bytes (cdb) [comm]"
                yield from _emit(float(m.group("ts")), flush, None, 0, 0, n, log)
                continue
            log.problem(n, text, "expected 'sector + sectors' after the rwbs field",
                        "sector range missing")
            continue
        yield from _emit(float(m.group("ts")), flush, op, whole(r.group("sector")),
                         whole(r.group("nr")), n, log)
