"""Tracing block requests through tracefs and reading what was traced (for record_ext4.py
and record_ext4_rounds.py; run as root, not a test).

A private tracefs instance records block_rq_issue, the flusher's writeback passes and jbd2's
commit stats for one device, stamped with CLOCK_MONOTONIC; the parsers turn its text lines
into requests and per-phase counts (operations, bytes, journal writes, distinct discards).
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Ranges covered with overlaps counted once: the model's count, in sectors here (the
# recorder puts the repository on sys.path before it imports this module).
from ssdlab.model.lab.ext4recordings import distinct_bytes as distinct_sectors

TRACEFS = Path("/sys/kernel/tracing")

# The events traced, each filtered to the loop device: requests, the flusher's writeback
# passes (with their reason: periodic, background, sync...) and each jbd2 commit's stats.
EVENTS = {
    "block/block_rq_issue": "dev == {dev}",
    "writeback/writeback_start": 'name == "{major}:{minor}"',
    "jbd2/jbd2_run_stats": "dev == {dev}",
}
COMMIT_RE = re.compile(r"\s(\d+\.\d+):\s+jbd2_run_stats:.*?\sblocks_logged (\d+)")
WRITEBACK_RE = re.compile(r"\s(\d+\.\d+):\s+writeback_start:.*?reason=(\w+)")
LINE_RE = re.compile(
    r"\s(\d+\.\d+):\s+block_rq_issue:\s+(\d+),(\d+)\s+(\S+)\s+(\d+)\s+\(.*?\)\s+(\d+)\s+\+\s+"
    r"(\d+)")
ENTRIES_RE = re.compile(r"entries-in-buffer/entries-written:\s+(\d+)/(\d+)")
EXTENT_RE = re.compile(r"\(\d+-\d+\):(\d+)-(\d+)|\(\d+\):(\d+)")


def run(*cmd: str) -> str:
    """Run a command, fail loudly, return its standard output."""
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return done.stdout


def classify(rwbs: str) -> str:
    """The operation of a request from its rwbs flags: write, read, discard, flush or other.

    A leading F before another operation letter is a pre-flush flag, not the operation.
    """
    op = rwbs[1] if len(rwbs) > 1 and rwbs[0] == "F" and rwbs[1] in "WRDFN" else rwbs[0]
    return {"W": "write", "R": "read", "D": "discard", "F": "flush"}.get(op, "other")


@dataclass(frozen=True)
class Request:
    time_s: float  # CLOCK_MONOTONIC seconds
    op: str
    sector: int  # 512-byte sectors from the start of the device
    sectors: int


def parse(lines: list[str]) -> list[Request]:
    out = []
    for line in lines:
        m = LINE_RE.search(line)
        if m:
            out.append(Request(float(m.group(1)), classify(m.group(4)), int(m.group(6)),
                               int(m.group(7))))
    return out


def kernel_events(lines: list[str], start: float, end: float) -> dict:
    """jbd2 commits (and the blocks they logged) and writeback passes by reason, between
    start and end (CLOCK_MONOTONIC seconds)."""
    out: dict = {"commits": 0, "commit_blocks_logged": 0, "writeback": {}}
    for line in lines:
        m = COMMIT_RE.search(line)
        if m and start <= float(m.group(1)) < end:
            out["commits"] += 1
            out["commit_blocks_logged"] += int(m.group(2))
        m = WRITEBACK_RE.search(line)
        if m and start <= float(m.group(1)) < end:
            out["writeback"][m.group(2)] = out["writeback"].get(m.group(2), 0) + 1
    return out


def summarise(requests: list[Request], journal: tuple[int, int] | None,
              t0: float) -> dict:
    """Counts and bytes per operation, journal writes, discards and request times."""
    out: dict = {k: 0 for k in ("write", "write_bytes", "read", "read_bytes", "discard",
                                "discard_bytes", "flush", "other")}
    out.update(journal_writes=0, journal_bytes=0, discard_distinct_bytes=0,
               first_request_s=None, last_request_s=None,
               first_write_s=None, last_write_s=None)
    discards = []
    for r in requests:
        out[r.op] += 1
        if r.op in ("write", "read", "discard"):
            out[r.op + "_bytes"] += r.sectors * 512
        if r.op == "write":
            rel = round(r.time_s - t0, 4)
            out["first_write_s"] = rel if out["first_write_s"] is None else out["first_write_s"]
            out["last_write_s"] = rel
            if journal and journal[0] <= r.sector < journal[1]:
                out["journal_writes"] += 1
                out["journal_bytes"] += r.sectors * 512
        if r.op == "discard":
            discards.append((r.sector, r.sector + r.sectors))
    if requests:
        out["first_request_s"] = round(requests[0].time_s - t0, 4)
        out["last_request_s"] = round(requests[-1].time_s - t0, 4)
    out["discard_distinct_bytes"] = distinct_sectors(discards) * 512
    return out


def count_requests(lines: list[str]) -> dict[str, int]:
    """Request counts and bytes per operation in block_rq_issue lines (format 1 keys)."""
    s = summarise(parse(lines), None, 0.0)
    return {k: s[k] for k in ("write", "write_bytes", "read", "read_bytes", "discard",
                              "discard_bytes", "flush", "other")}


class Tracer:
    """A private tracefs instance recording block_rq_issue for one device."""

    def __init__(self, major: int, minor: int) -> None:
        if not (TRACEFS / "events").is_dir():
            run("mount", "-t", "tracefs", "nodev", str(TRACEFS))
        self.dir = TRACEFS / "instances" / f"ssdlab_rec_{os.getpid()}"
        self.dir.mkdir()
        try:
            (self.dir / "buffer_size_kb").write_text("65536\n")
            # CLOCK_MONOTONIC, the clock of time.monotonic(): request times line up with
            # the steps' start times.
            (self.dir / "trace_clock").write_text("mono\n")
            # The kernel's dev_t keeps the minor number in the low 20 bits.
            dev = (major << 20) | minor
            for event, condition in EVENTS.items():
                path = self.dir / "events" / event
                (path / "filter").write_text(condition.format(dev=dev, major=major,
                                                              minor=minor) + "\n")
                (path / "enable").write_text("1\n")
            (self.dir / "tracing_on").write_text("1\n")
        except BaseException:
            self.close()
            raise
        self.clear()

    def clear(self) -> None:
        with open(self.dir / "trace", "w"):
            pass

    def take(self) -> tuple[list[str], int]:
        """The event lines since the last take, and how many events were lost."""
        text = (self.dir / "trace").read_text()
        self.clear()
        lost = 0
        m = ENTRIES_RE.search(text)
        if m:
            lost = int(m.group(2)) - int(m.group(1))
        return [ln for ln in text.splitlines() if ln and not ln.startswith("#")], lost

    def close(self) -> None:
        try:
            (self.dir / "tracing_on").write_text("0\n")
            for event in EVENTS:
                (self.dir / "events" / event / "enable").write_text("0\n")
                (self.dir / "events" / event / "filter").write_text("0\n")
        finally:
            self.dir.rmdir()
