"""I/O logs: fio iologs and MSR-Cambridge CSV traces, read into `TraceRequest` records.

- "fio-v2" / "fio-v3": fio iolog files (``read_iolog=``/``write_iolog=``); version 3 starts
  each line with a timestamp, which fio writes in microseconds.
- "msr": the MSR-Cambridge CSV traces (Timestamp,Hostname,DiskNumber,Type,Offset,Size,
  ResponseTime), timestamps in Windows FILETIME ticks of 100 ns.

Both give byte offsets and lengths. Each parser takes lines (numbered from first_line) and
a TraceLog; a line that cannot be read is recorded there as a problem and parsing goes on;
lines left out on purpose (file open/close, other disks ...) are counted in its `skipped`.
Nothing here imports Qt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .tracefile import TraceLog, TraceRequest, whole

FILETIME_TICK_S = 1e-7  # MSR-Cambridge timestamps count 100 ns ticks
FIO_V3_TIME_UNIT_S = 1e-6  # fio writes v3 timestamps with utime_since_now(): microseconds


# --- fio iolog ---------------------------------------------------------------------------------

FIO_HEADER = re.compile(r"^fio version (\d+) iolog\s*$")
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
        h = FIO_HEADER.match(s)
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
MSR_LINE = re.compile(r"^\d+,[^,]*,\d+,(read|write),\d+,\d+(,\d+)?\s*$",
                      re.IGNORECASE)


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
