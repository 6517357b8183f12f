"""Workload segments: what the workbench asks the drive to do, as reproducible command streams.

A `Segment` names a block-level workload and how much of it to run. Its `Stream` generates
commands in fixed chunks from its own seeded generator, so the commands do not depend on how
the worker slices them into batches: replaying a saved log of segments (with the amount each
actually ran) rebuilds exactly the same drive. The generators are the model's
(ssdlab/model/flash/workloads.py); this module only cuts their output into batches.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.state import OP_TRIM
from ssdlab.model.flash.workloads import hot_cold_pages, hot_pages

CHUNK = 1 << 16  # pages (or TRIM commands) generated at a time

KINDS = {
    "steady": "Fill, then random writes",
    "fill": "Fill to %",
    "random": "Random 4 KiB writes",
    "sequential": "Sequential writes",
    "hotcold": "Hot/cold writes",
    "trim": "Random TRIMs",
}


@dataclass(frozen=True)
class Segment:
    """One workload run. total: pages to write (TRIM commands for "trim"), or 0 for "until
    paused"; for "steady" the first user capacity of them fills the drive in order. index
    numbers segments within a session; with seed it seeds the generator."""

    kind: str
    total: int
    seed: int = 1
    index: int = 0
    hot_lba_fraction: float = 0.2
    hot_write_fraction: float = 0.8
    trim_max_pages: int = 64
    start_page: int = 0
    tag_errors: float = 0.0  # placement: the share of the pages the host tags wrongly

    @property
    def name(self) -> str:
        """What the progress line calls it: the kind, in words where the key is terse."""
        return "fill, then random" if self.kind == "steady" else self.kind

    def as_dict(self) -> dict:
        return asdict(self)


class Stream:
    """Hands out a segment's commands in batches of any size; the sequence is fixed."""

    @staticmethod
    def tag(segment: Segment, drive) -> None:
        """The host's placement tags for the segment, on a drive with placement handles:
        the hot/cold workload's hot pages (the first hot_lba_fraction of them) with handle
        1, the rest 0, whatever the segment's kind (a host that believes those pages hot);
        a tag_errors share of the pages, drawn from the segment's seed apart from its
        writes, the other way round. A drive without handles: nothing."""
        if drive.config.placement_handles < 2:
            return
        user = drive.geometry.user_pages
        tags = np.zeros(user, dtype=np.int8)
        tags[:hot_pages(user, segment.hot_lba_fraction)] = 1
        if segment.tag_errors > 0:
            rng = np.random.default_rng([segment.seed, segment.index, 1])
            wrong = rng.random(user) < segment.tag_errors
            tags[wrong] = 1 - tags[wrong]
        drive.set_tags(tags)

    def __init__(self, segment: Segment, user_pages: int):
        self.segment = segment
        self.user_pages = user_pages
        self.done = 0
        self._rng = np.random.default_rng([segment.seed, segment.index])
        self._buffer = np.empty(0, dtype=np.int64)
        self._counts = np.empty(0, dtype=np.int64)
        self._made = 0

    @property
    def is_trim(self) -> bool:
        return self.segment.kind == "trim"

    @property
    def finished(self) -> bool:
        return self.segment.total > 0 and self.done >= self.segment.total

    def remaining(self, n: int) -> int:
        if self.segment.total <= 0:
            return n
        return max(0, min(n, self.segment.total - self.done))

    def _chunk(self) -> tuple[np.ndarray, np.ndarray | None]:
        s, user = self.segment, self.user_pages
        start = self._made
        self._made += CHUNK
        if s.kind in ("fill", "sequential"):
            return (s.start_page + start + np.arange(CHUNK, dtype=np.int64)) % user, None
        if s.kind == "random":
            return self._rng.integers(0, user, size=CHUNK, dtype=np.int64), None
        if s.kind == "steady":  # every page once in order, then uniformly random overwrites
            pages = start + np.arange(CHUNK, dtype=np.int64)
            rewrites = pages >= user
            pages[rewrites] = self._rng.integers(0, user, size=int(rewrites.sum()),
                                                 dtype=np.int64)
            return pages, None
        if s.kind == "hotcold":
            return hot_cold_pages(user, CHUNK, s.hot_lba_fraction, s.hot_write_fraction,
                                  self._rng), None
        max_pages = max(1, min(s.trim_max_pages, user))
        counts = self._rng.integers(1, max_pages + 1, size=CHUNK, dtype=np.int64)
        lpns = (self._rng.random(CHUNK) * (user - counts + 1)).astype(np.int64)
        return lpns, counts

    def take(self, n: int) -> np.ndarray | Commands:
        """The next n pages (an int64 array of logical pages), or n TRIM commands."""
        n = self.remaining(n)
        if self._buffer.size < n:
            lpn_parts, count_parts = [self._buffer], [self._counts]
            have = self._buffer.size
            while have < n:
                lpns, counts = self._chunk()
                lpn_parts.append(lpns)
                if counts is not None:
                    count_parts.append(counts)
                have += lpns.size
            self._buffer = np.concatenate(lpn_parts)
            self._counts = np.concatenate(count_parts)
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        self.done += n
        if self.is_trim:
            counts, self._counts = self._counts[:n], self._counts[n:]
            return Commands(np.full(n, OP_TRIM, dtype=np.int8), out, counts)
        return out
