"""The four block-trace text formats, each read into `TraceRequest` records.

- "tracefs": the text of /sys/kernel/tracing/trace (or trace_pipe) with the
  block:block_rq_issue event, as printed by recent kernels
  (``7,0 WS 4096 () 123456 + 8 none,0,0 [jbd2/loop0-8]``) and by older ones without the
  byte count or the I/O-priority field.
- "blkparse": blkparse's default text output; only one action (D, issued, by default) is
  used, since every request appears once per stage it passes (Q, G, I, D, C ...).
- "fio-v2" / "fio-v3": fio iolog files (``read_iolog=``/``write_iolog=``); version 3 starts
  each line with a timestamp, which fio writes in microseconds.
- "msr": the MSR-Cambridge CSV traces (Timestamp,Hostname,DiskNumber,Type,Offset,Size,
  ResponseTime), timestamps in Windows FILETIME ticks of 100 ns.

Each parser takes lines (numbered from first_line) and a TraceLog; a line that cannot be
read is recorded there as a problem and parsing goes on; lines left out on purpose (other
events, other devices, comments, file open/close ...) are counted in its `skipped`. Numbers
too large for 64 bits are kept as WHOLE_MAX, which lies past the end of any device, so the
replay counts such a request as dropped instead of failing. Nothing here imports Qt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .tracefile import TraceLog

SECTOR_BYTES = 512
OPS = ("write", "read", "discard", "flush")
FILETIME_TICK_S = 1e-7  # MSR-Cambridge timestamps count 100 ns ticks
FIO_V3_TIME_UNIT_S = 1e-6  # fio writes v3 timestamps with utime_since_now(): microseconds
WHOLE_MAX = 2**63 - 1  # offsets, lengths and timestamps are kept in 64-bit integers


@dataclass(frozen=True)
class TraceRequest:
    """One host request. time_s: seconds in the trace's own time base (None if the format
    has none). op: write, read, discard or flush. A flush has offset and length 0.
    offset_bytes, length_bytes: at most WHOLE_MAX. line: the 1-based line of the trace file
    it came from."""

    time_s: float | None
    op: str
    offset_bytes: int
    length_bytes: int
    line: int


def whole(digits: str) -> int:
    """A whole number written in decimal digits, capped at WHOLE_MAX (Python refuses to
    convert strings of thousands of digits; a trace line may hold one)."""
    if len(digits) <= 18:  # always below 2^63: the common case, quickly
        return int(digits) if digits else 0
    digits = digits.lstrip("0")
    return WHOLE_MAX if len(digits) > 19 else min(int(digits or "0"), WHOLE_MAX)


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

_TRACEFS_LINE = re.compile(
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
        m = _TRACEFS_LINE.match(s)
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

_BLKPARSE_LINE = re.compile(
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
        m = _BLKPARSE_LINE.match(s)
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


# --- fio iolog ---------------------------------------------------------------------------------

_FIO_HEADER = re.compile(r"^fio version (\d+) iolog\s*$")
_FIO_FILE_ACTIONS = ("add", "open", "close", "unlink")
_FIO_DATA = {"read": "read", "write": "write", "trim": "discard"}


def fio_requests(lines: Iterable[str], log: TraceLog | None = None, *, version: int | None = None,
                 file: str | None = None, time_unit_s: float = FIO_V3_TIME_UNIT_S,
                 first_line: int = 1) -> Iterator[TraceRequest]:
    """Requests from a fio iolog (version 2 or 3, read from its header line unless given).
    file: keep only this file's requests (all files map onto the one device otherwise).
    sync and datasync become flushes; add/open/close and wait lines are skipped."""
    log = log if log is not None else TraceLog()
    header_seen = False
    for n, text in enumerate(lines, first_line):
        s = text.strip()
        if not s:
            continue
        h = _FIO_HEADER.match(s)
        if h and not header_seen:
            header_seen = True
            v = whole(h.group(1))
            if v not in (2, 3):
                log.problem(n, text, f"fio iolog version {v} is not supported (2 or 3)",
                        "unsupported fio version")
                return
            if version is not None and version != v:
                log.problem(n, text, f"header says version {v}, reading as version {v} "
                            f"instead of {version}", "fio version differs")
            version = v
            log.skipped["header"] += 1
            continue
        if s.startswith("#"):
            log.skipped["comment"] += 1
            continue
        if version is None:
            log.problem(n, text, "a fio iolog must start with 'fio version 2 iolog' or "
                        "'fio version 3 iolog'", "fio header missing")
            return
        parts = s.split()
        time_s: float | None = None
        if version == 3:
            if not parts or not parts[0].isdecimal():
                log.problem(n, text, "a version 3 line starts with a whole-number timestamp",
                            "timestamp missing")
                continue
            time_s = whole(parts[0]) * time_unit_s
            parts = parts[1:]
        if len(parts) < 2:
            log.problem(n, text, "expected 'filename action [offset length]'",
                        "too few fields")
            continue
        fname, act = parts[0], parts[1]
        if act in _FIO_FILE_ACTIONS and len(parts) == 2:
            log.skipped[f"file {act}"] += 1
            continue
        if act == "wait":
            log.skipped["wait"] += 1
            continue
        if act in ("sync", "datasync", "sync_file_range"):
            if len(parts) not in (2, 4):
                log.problem(n, text, f"'{act}' takes no arguments or an offset and length",
                        "bad sync arguments")
                continue
            log.devices[fname] += 1
            if file is not None and fname != file:
                log.skipped["other file"] += 1
                continue
            if act == "sync_file_range":  # writes back, but sends no cache flush
                log.skipped["sync_file_range"] += 1
                continue
            yield TraceRequest(time_s, "flush", 0, 0, n)
            continue
        if act not in _FIO_DATA:
            log.problem(n, text, f"unknown action {act!r} (expected read, write, trim, sync, "
                        "datasync, wait, add, open or close)", "unknown action")
            continue
        if len(parts) != 4 or not (parts[2].isdecimal() and parts[3].isdecimal()):
            log.problem(n, text, f"'{act}' needs a byte offset and a length "
                        "(whole numbers)", "offset and length missing")
            continue
        log.devices[fname] += 1
        if file is not None and fname != file:
            log.skipped["other file"] += 1
            continue
        length = whole(parts[3])
        if length == 0:
            log.skipped["zero-length request"] += 1
            continue
        yield TraceRequest(time_s, _FIO_DATA[act], whole(parts[2]), length, n)


# --- MSR-Cambridge -----------------------------------------------------------------------------

_MSR_TYPES = {"read": "read", "write": "write"}


def msr_requests(lines: Iterable[str], log: TraceLog | None = None, *, disk: int | None = None,
                 first_line: int = 1) -> Iterator[TraceRequest]:
    """Requests from an MSR-Cambridge CSV. Times are seconds since the file's first record
    (FILETIME ticks are too large for a float to keep 100 ns). disk: keep only this
    DiskNumber."""
    log = log if log is not None else TraceLog()
    t0: int | None = None
    for n, text in enumerate(lines, first_line):
        s = text.strip()
        if not s:
            continue
        if s.startswith("#"):
            log.skipped["comment"] += 1
            continue
        parts = [p.strip() for p in s.split(",")]
        if parts[0].lower() == "timestamp":
            log.skipped["header"] += 1
            continue
        if len(parts) < 6:
            log.problem(n, text, "expected Timestamp,Hostname,DiskNumber,Type,Offset,Size"
                        "[,ResponseTime]", "too few fields")
            continue
        ts, _host, dnum, kind, off, size = parts[:6]
        if not all(v.isdecimal() for v in (ts, dnum, off, size)):
            bad = next(name for name, v in (("Timestamp", ts), ("DiskNumber", dnum),
                                            ("Offset", off), ("Size", size))
                       if not v.isdecimal())
            log.problem(n, text, f"{bad} must be a whole number", "not a whole number")
            continue
        op = _MSR_TYPES.get(kind.lower())
        if op is None:
            log.problem(n, text, f"Type must be Read or Write; got {kind!r}", "unknown Type")
            continue
        log.devices[dnum] += 1
        if disk is not None and whole(dnum) != disk:
            log.skipped["other disk"] += 1
            continue
        if whole(size) == 0:
            log.skipped["zero-length request"] += 1
            continue
        if t0 is None:
            t0 = whole(ts)
        yield TraceRequest((whole(ts) - t0) * FILETIME_TICK_S, op, whole(off), whole(size), n)




# --- detection ---------------------------------------------------------------------------------

FORMATS = ("tracefs", "blkparse", "fio-v2", "fio-v3", "msr")
_MSR_LINE = re.compile(r"^\d+,[^,]*,\d+,(read|write),\d+,\d+(,\d+)?\s*$", re.IGNORECASE)


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
        h = _FIO_HEADER.match(s)
        if h:
            return f"fio-v{h.group(1)}" if h.group(1) in ("2", "3") else "fio-v2"
        if s.startswith("# tracer:") or _TRACEFS_LINE.match(s):
            return "tracefs"
        if _BLKPARSE_LINE.match(s):
            return "blkparse"
        if s.lower().startswith("timestamp,hostname") or _MSR_LINE.match(s):
            return "msr"
    if first_text is None:
        raise ValueError("the trace is empty")
    n, s = first_text
    raise ValueError(f"cannot tell the trace format (line {n}: {s[:80]!r}); expected "
                     "tracefs, blkparse, fio iolog v2/v3 or MSR-Cambridge CSV text")
