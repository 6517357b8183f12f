"""The recordings of real ext4 as the replays read them (ssdlab/model/lab/ext4compare.py,
ext4phases.py, ext4rounds.py): where they are, the block-layer traces' writes and discards
per recorded step, the TRIMs the model sends, and distinct bytes of overlapping ranges.
Shared by the three replays so that none of them imports another.

Nothing here imports Qt.
"""

from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path

from ssdlab.model.host.traces import tracefs_requests

RECORDINGS = Path(__file__).resolve().parents[3] / "tests" / "recordings"
DRIVE_PROFILE = "nvme_modern_1tb"  # any drive will do: only the file system's bytes count


def record_trims(m) -> list[tuple[int, int]]:
    """From now on, every TRIM the machine's file system sends (byte ranges of the file
    system) is also appended to the returned list, to count distinct bytes as for a real
    trace."""
    trims: list[tuple[int, int]] = []
    send = m.dev.trim

    def trim(offset: int, length: int) -> None:
        trims.append((offset, offset + length))
        send(offset, length)

    m.dev.trim = trim
    return trims


def distinct_bytes(ranges) -> int:
    """Bytes covered by (first byte, end byte) ranges, overlaps counted once."""
    total, end = 0, -1
    for first, last in sorted(ranges):
        if last > end:
            total += last - max(first, end)
            end = last
    return total


@cache
def _trace_requests(config: str, op: str) -> tuple[tuple[str, tuple[tuple[float, int, int],
                                                                     ...]], ...]:
    """Per recorded step in order: its name and the (time s, first byte, end byte) of each
    request of operation op ("discard", "write"...) the kernel issued, from the step's
    block_rq_issue lines (parsed by ssdlab/model/host/kerneltraces.py, which skips the other
    events)."""
    chunks: list[tuple[str, list[str]]] = []
    with gzip.open(RECORDINGS / f"ext4_{config}.trace.gz", "rt") as f:
        for line in f:
            if line.startswith("# step: "):
                chunks.append((line[len("# step: "):].strip(), []))
            elif chunks:
                chunks[-1][1].append(line)
    return tuple((name, tuple((r.time_s, r.offset_bytes, r.offset_bytes + r.length_bytes)
                              for r in tracefs_requests(lines) if r.op == op))
                 for name, lines in chunks)


def _trace_discards(config: str):
    return _trace_requests(config, "discard")


def real_discard_ranges(config: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per recorded step, the byte ranges (first, end) the kernel discarded."""
    return tuple(tuple((a, b) for _, a, b in found) for _, found in _trace_discards(config))


def trace_writes(config: str, step: str) -> list[tuple[float, int]]:
    """(time s, first byte) of the writes of the recorded step named `step`."""
    for name, found in _trace_requests(config, "write"):
        if name == step:
            return [(t, a) for t, a, _ in found]
    raise ValueError(f"{config}: no recorded step {step!r}")


def trace_discards(config: str, step: str) -> list[tuple[float, int, int]]:
    """(time s, first byte, end byte) of the discards of the recorded step named `step`
    (the first of that name)."""
    for name, found in _trace_discards(config):
        if name == step:
            return list(found)
    raise ValueError(f"{config}: no recorded step {step!r}")


def mb_text(b: int | None) -> str:
    """Bytes as MB with one decimal; "-" for none."""
    return f"{b / 1e6:.1f}" if b else "-"
