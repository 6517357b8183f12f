"""Many files of log-uniform sizes in a few directories: the fill / delete / refill rounds.

A FillPlan is a seeded stream of file names and sizes, and the list of files it has made
that are still alive. The recorder of real ext4 (tests/recordings/record_ext4_rounds.py) and
the model draw from the same plan, so with the same seed they create the same files in the
same order and delete the same ones.

Files go into `dirs` top-level directories fill0, fill1, ... (a few directories, as a
download or log area has), round robin, named f000000, f000001, ...; sizes are log-uniform
between min_bytes and max_bytes (as many files of each order of magnitude).

The fill level is df's: used / (used + available), where used counts every block not free
and available leaves out the blocks reserved for root (mke2fs's 5 %), so "90 %" is what df
would print, not 90 % of the device.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .fstypes import ROOT_INO

RESERVED_FRACTION = 0.05  # mke2fs -m 5: blocks only root may use


@dataclass(frozen=True)
class FillSpec:
    """What a fill draws. seed: the random stream; dirs: how many top-level directories;
    min_bytes / max_bytes: the range of the log-uniform file sizes, in bytes."""

    seed: int = 1
    dirs: int = 4
    min_bytes: int = 1024
    max_bytes: int = 8 << 20

    def __post_init__(self) -> None:
        if not 1 <= self.dirs <= 1000:
            raise ValueError(f"fill directories must be from 1 to 1000; got {self.dirs}")
        if not 1 <= self.min_bytes <= self.max_bytes:
            raise ValueError(f"fill file sizes need 1 <= min_bytes <= max_bytes; got "
                             f"{self.min_bytes}, {self.max_bytes}")


@dataclass
class FillPlan:
    """The seeded stream of files of one fill area, and its live files (oldest first)."""

    spec: FillSpec = field(default_factory=FillSpec)
    live: list[tuple[str, int]] = field(default_factory=list)
    serial: int = 0

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.spec.seed)

    def dir_names(self) -> list[str]:
        return [f"fill{k}" for k in range(self.spec.dirs)]

    def next_file(self) -> tuple[str, int]:
        """The next file to create: (path dir/name, size in bytes); it counts as live."""
        lo, hi = math.log(self.spec.min_bytes), math.log(self.spec.max_bytes)
        size = int(round(math.exp(self.rng.uniform(lo, hi))))
        path = f"fill{self.serial % self.spec.dirs}/f{self.serial:06d}"
        self.serial += 1
        self.live.append((path, size))
        return path, size

    def pick_deletions(self, fraction: float) -> list[str]:
        """A random `fraction` of the live files (rounded), in the order to delete them;
        they stop being live."""
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"delete fraction must be from 0 to 1; got {fraction}")
        k = int(round(fraction * len(self.live)))
        picks = self.rng.choice(len(self.live), size=k, replace=False) if k else []
        gone = [self.live[int(i)][0] for i in picks]
        drop = set(gone)
        self.live = [f for f in self.live if f[0] not in drop]
        return gone


def df_use(total_blocks: int, overhead_blocks: int, free_blocks: int) -> float:
    """df's Use% as a fraction: used / (used + available) with statfs's figures (f_blocks =
    total - overhead, available = free - the 5 % reserve)."""
    reserved = int(total_blocks * RESERVED_FRACTION)
    used = total_blocks - overhead_blocks - free_blocks
    avail = max(0, free_blocks - reserved)
    return used / (used + avail) if used + avail > 0 else 1.0


# --- the workloads on a Machine ------------------------------------------------------------

def overhead_blocks(fs) -> int:
    """Blocks statfs leaves out of the file system's size: the fixed metadata of every
    group and the journal (ext4's s_overhead_clusters)."""
    layout = fs.layout
    fixed = sum(max(0, min(layout.metadata_end(g), layout.total_blocks) - layout.group_start(g))
                for g in range(layout.groups))
    return fixed + (fs.journal.blocks if fs.journal is not None else 0)


def fs_use(fs) -> float:
    """df's Use% of the model's file system, as a fraction. Delayed-allocation data counts
    as used, as ext4's statfs subtracts its reservation from the free blocks."""
    return df_use(fs.layout.total_blocks, overhead_blocks(fs),
                  fs.alloc.free_blocks - fs.reserved_blocks)


def _fill_dir(m, name: str) -> int:
    entries = m.fs.inodes[ROOT_INO].entries
    if name in entries:
        return entries[name][0]
    m.cpu(m.host.per_dir_us * 1e-6)
    return m.fs.mkdir(ROOT_INO, name)


def fill_steps(m, plan: FillPlan, percent: float, count: int | None = None):
    """Create the plan's next files until df's use reaches `percent` (or exactly `count`
    files, to follow a recording), in the page cache; yields files created. The plan's
    directories are made when missing. Returns (as StopIteration's value) the number of
    files after which the use first reached the level."""
    if not 0.0 < percent < 100.0:
        raise ValueError(f"fill percent must be between 0 and 100; got {percent}")
    dirs = {name: _fill_dir(m, name) for name in plan.dir_names()}
    made, reached = 0, None
    while True:
        if reached is None and fs_use(m.fs) >= percent / 100:
            reached = made
        if (count is None and reached is not None) or (count is not None and made >= count):
            break
        path, size = plan.next_file()
        d, _, name = path.partition("/")
        m.fs.create(dirs[d], name, size)
        m.cpu(m.host.per_file_create_us * 1e-6 + size / (m.host.copy_mb_s * 1e6))
        made += 1
        yield made
    return made if reached is None else reached


def delete_steps(m, plan: FillPlan, fraction: float):
    """rm of a random `fraction` of the plan's live files; yields files deleted."""
    fs = m.fs
    for i, path in enumerate(plan.pick_deletions(fraction), 1):
        d, _, name = path.partition("/")
        fs.unlink(fs.lookup(ROOT_INO, d), name)
        m.cpu(m.host.per_file_delete_us * 1e-6)
        yield i


def expected_files(fs, spec: FillSpec, percent: float) -> int:
    """About how many of the spec's files take the file system to `percent` (df) from
    where it is: the bytes still wanted over the mean log-uniform size (a progress total)."""
    lo, hi = spec.min_bytes, spec.max_bytes
    mean = (hi - lo) / math.log(hi / lo) if hi > lo else lo
    mean = 4096 * math.ceil(mean / 4096)
    size = (fs.layout.total_blocks * (1 - RESERVED_FRACTION) - overhead_blocks(fs)) * 4096
    want = (percent / 100 - fs_use(fs)) * size
    return max(1, int(want / mean))
