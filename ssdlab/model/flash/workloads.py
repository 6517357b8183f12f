"""Block-level workloads: seeded, reproducible streams of host commands.

A workload hands out its writes in chunks (arrays of logical pages, or Commands) so a runner
can report progress and stop between chunks. All randomness comes from the numpy Generator
passed in, so the same seed gives the same commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .commands import Commands
from .geometry import is_real
from .state import OP_TRIM, OP_WRITE

WORKLOAD_KINDS = ("random", "sequential", "hotcold")
CHUNK_PAGES = 1 << 20


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


@dataclass(frozen=True)
class Workload:
    """What the host writes after the drive is filled.

    kind: "random" (uniform single-page writes over the active logical pages), "sequential"
        (the active pages rewritten in order, wrapping), or "hotcold" (a fraction
        hot_lba_fraction of the active pages receives hot_write_fraction of the writes; the hot
        pages are the first ones, which a page-mapped drive cannot tell from any others).
    active_fraction: share of logical pages the workload touches; the rest are TRIMmed after
        the fill (a drive whose free space is trimmed, seen as extra spare).
    """

    kind: str = "random"
    hot_lba_fraction: float = 0.2
    hot_write_fraction: float = 0.8
    active_fraction: float = 1.0

    def __post_init__(self) -> None:
        _require(self.kind in WORKLOAD_KINDS,
                 f"workload must be one of {', '.join(WORKLOAD_KINDS)}; got {self.kind!r}")
        _require(is_real(self.hot_lba_fraction) and 0.0 < self.hot_lba_fraction < 1.0,
                 f"hot_lbas must be between 0 and 1 (exclusive); got {self.hot_lba_fraction}")
        _require(is_real(self.hot_write_fraction) and 0.0 < self.hot_write_fraction < 1.0,
                 f"hot_writes must be between 0 and 1 (exclusive); got "
                 f"{self.hot_write_fraction}")
        _require(is_real(self.active_fraction) and 0.0 < self.active_fraction <= 1.0,
                 f"active_fraction must be in (0, 1]; got {self.active_fraction}")

    def active_pages(self, user_pages: int) -> int:
        return max(1, int(round(user_pages * self.active_fraction)))

    def page_chunks(self, user_pages: int, total_pages: int, rng: np.random.Generator,
                    chunk_pages: int = CHUNK_PAGES, start_page: int = 0) -> Iterator[np.ndarray]:
        """Yield int64 arrays of logical pages to write, total_pages in all.

        start_page: where a sequential workload resumes (so phases continue one pass).
        """
        active = self.active_pages(user_pages)
        done = 0
        while done < total_pages:
            n = min(chunk_pages, total_pages - done)
            if self.kind == "random":
                yield rng.integers(0, active, size=n, dtype=np.int64)
            elif self.kind == "sequential":
                yield (start_page + done + np.arange(n, dtype=np.int64)) % active
            else:
                yield hot_cold_pages(active, n, self.hot_lba_fraction,
                                     self.hot_write_fraction, rng)
            done += n


def hot_pages(active: int, hot_lba_fraction: float) -> int:
    """How many of the active logical pages, the first ones, are hot (at least one, and
    at least one cold)."""
    return min(active - 1, max(1, int(round(active * hot_lba_fraction))))


def hot_cold_pages(active: int, n: int, hot_lba_fraction: float, hot_write_fraction: float,
                   rng: np.random.Generator) -> np.ndarray:
    """n logical pages, each hot with probability hot_write_fraction; hot pages are uniform
    over the first hot_lba_fraction of the active range, cold ones over the rest."""
    hot_n = hot_pages(active, hot_lba_fraction)
    hot = rng.random(n) < hot_write_fraction
    pages = rng.integers(0, active - hot_n, size=n, dtype=np.int64) + hot_n
    pages[hot] = rng.integers(0, hot_n, size=int(hot.sum()), dtype=np.int64)
    return pages


def sequential_fill(user_pages: int, fraction: float = 1.0,
                    chunk_pages: int = CHUNK_PAGES) -> Commands:
    """Write the first fraction of the logical pages in order, in commands of chunk_pages."""
    _require(0.0 <= fraction <= 1.0, f"fill fraction must be between 0 and 1; got {fraction}")
    end = int(round(user_pages * fraction))
    starts = np.arange(0, end, chunk_pages, dtype=np.int64)
    counts = np.minimum(chunk_pages, end - starts)
    return Commands(np.full(starts.size, OP_WRITE, dtype=np.int8), starts, counts)


def trim_range(first: int, pages: int, chunk_pages: int = CHUNK_PAGES) -> Commands:
    """TRIM pages [first, first + pages) in commands of at most chunk_pages."""
    starts = np.arange(first, first + pages, chunk_pages, dtype=np.int64)
    counts = np.minimum(chunk_pages, first + pages - starts)
    return Commands(np.full(starts.size, OP_TRIM, dtype=np.int8), starts, counts)


def random_trims(user_pages: int, n: int, max_pages: int,
                 rng: np.random.Generator) -> Commands:
    """n TRIM commands of 1..max_pages pages at uniform random places."""
    counts = rng.integers(1, max_pages + 1, size=n, dtype=np.int64)
    counts = np.minimum(counts, user_pages)
    lpns = (rng.random(n) * (user_pages - counts + 1)).astype(np.int64)
    return Commands(np.full(n, OP_TRIM, dtype=np.int8), lpns, counts)
