"""On-disk layout of the ext4-like file system and its block allocator.

Block groups of `blocks_per_group` 4 KiB blocks. Group 0 starts with the superblock and the
group descriptor table (64 descriptors of 64 bytes per block). As with ext4's flex_bg, the
block bitmaps, inode bitmaps and inode tables (`inodes_per_group` inodes of 256 bytes) of
16 consecutive groups sit together at the start of the first of them, so the data areas of
a flex group run on without gaps (a 128 MiB journal fits in one piece).

The allocator works on a numpy bitmap of used blocks and hands out extents: a run of
contiguous blocks, at most 32,768 long as in ext4.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

MAX_EXTENT_BLOCKS = 32768
DESCRIPTORS_PER_BLOCK = 64
FLEX_GROUPS = 16


def default_journal_blocks(total_blocks: int, modern: bool = False) -> int:
    """Journal size mke2fs picks for a file system of total_blocks 4 KiB blocks: e2fsprogs
    1.41 (2011) stops at 32,768 blocks (128 MiB) from 4 GiB; modern e2fsprogs (1.43 on,
    ext2fs_default_journal_size; 1.47 made the recordings) keeps 16,384 up to 16 GiB and
    doubles per doubling of the file system up to 262,144 blocks (1 GiB). The model stops
    at 32,768 in both eras: its journal is one extent, and the allocator does not hand out
    one longer than a block group."""
    if total_blocks < 2048:
        return 0
    if total_blocks < 32768:
        return 1024
    if total_blocks < 262144:
        return 4096
    if total_blocks < 524288:
        return 8192
    if not modern:
        return 16384 if total_blocks < 1048576 else 32768
    return 16384 if total_blocks < 4 * 1048576 else 32768


@dataclass(frozen=True)
class Layout:
    """Where the metadata of a file system of total_blocks blocks lives (block numbers)."""

    total_blocks: int
    block_bytes: int = 4096
    blocks_per_group: int = 32768
    inodes_per_group: int = 8192
    inode_bytes: int = 256

    def __post_init__(self) -> None:
        if self.total_blocks < 64:
            raise ValueError(f"file system must have at least 64 blocks; got "
                             f"{self.total_blocks}")
        # Every metadata block of every group, worked out once: the file system asks for
        # them hundreds of thousands of times a run (an inode's table block at each change).
        flex = [self._flex(g) for g in range(self.groups)]
        object.__setattr__(self, "_block_bitmaps", [base + i for base, _, i in flex])
        object.__setattr__(self, "_inode_bitmaps", [base + n + i for base, n, i in flex])
        object.__setattr__(self, "_itable_starts",
                           [base + 2 * n + i * self.itable_blocks for base, n, i in flex])

    @cached_property
    def groups(self) -> int:
        return -(-self.total_blocks // self.blocks_per_group)

    @cached_property
    def gdt_blocks(self) -> int:
        return -(-self.groups // DESCRIPTORS_PER_BLOCK)

    @cached_property
    def itable_blocks(self) -> int:
        """Inode-table blocks per group."""
        return -(-self.inodes_per_group * self.inode_bytes // self.block_bytes)

    @cached_property
    def inodes_per_block(self) -> int:
        return self.block_bytes // self.inode_bytes

    def group_start(self, g: int) -> int:
        return g * self.blocks_per_group

    def _flex(self, g: int) -> tuple[int, int, int]:
        """(first block of g's flex metadata area, groups in that flex group, g's index)."""
        first = g - g % FLEX_GROUPS
        base = self.group_start(first) + (1 + self.gdt_blocks if first == 0 else 0)
        return base, min(FLEX_GROUPS, self.groups - first), g % FLEX_GROUPS

    def block_bitmap(self, g: int) -> int:
        return self._block_bitmaps[g]

    def inode_bitmap(self, g: int) -> int:
        return self._inode_bitmaps[g]

    def itable_start(self, g: int) -> int:
        return self._itable_starts[g]

    def metadata_end(self, g: int) -> int:
        """First block after the fixed metadata stored in group g (the superblock, the
        descriptors and a flex group's bitmaps and inode tables live in its first group;
        the other groups hold none)."""
        if g % FLEX_GROUPS:
            return self.group_start(g)
        base, n, _ = self._flex(g)
        return base + 2 * n + n * self.itable_blocks

    def group_of_block(self, block: int) -> int:
        return block // self.blocks_per_group

    def descriptor_block(self, g: int) -> int:
        return 1 + g // DESCRIPTORS_PER_BLOCK

    def group_of_inode(self, ino: int) -> int:
        return (ino - 1) // self.inodes_per_group

    def inode_block(self, ino: int) -> int:
        g, idx = divmod(ino - 1, self.inodes_per_group)
        return self._itable_starts[g] + idx // self.inodes_per_block


class BlockAllocator:
    """Free-space bitmap with extent allocation near a goal block.

    Searches go group by group from the goal's group, skipping groups whose free count
    cannot help, so an allocation costs about one group's worth of bitmap work however large
    the file system is.
    """

    def __init__(self, layout: Layout):
        self.layout = layout
        bpg, total = layout.blocks_per_group, layout.total_blocks
        self.used = np.zeros(total, dtype=bool)
        # Counted only in the groups the metadata reaches: the rest of a large file system's
        # bitmap is never read, so its zeroed pages are not even mapped yet.
        marked: set[int] = set()
        for g in range(layout.groups):
            start, end = layout.group_start(g), min(layout.metadata_end(g), total)
            if end > start:
                self.used[start:end] = True
                marked.update(range(start // bpg, (end - 1) // bpg + 1))
        free = [min(total, (g + 1) * bpg) - g * bpg for g in range(layout.groups)]
        for g in marked:
            free[g] -= int(np.count_nonzero(self.used[g * bpg:(g + 1) * bpg]))
        self.group_free = np.array(free, dtype=np.int64)
        self.free_blocks = int(self.group_free.sum())

    def mark(self, start: int, length: int, used: bool) -> None:
        seg = self.used[start:start + length]
        taken = np.count_nonzero(seg)  # one quick count instead of a ufunc reduction
        if used and taken:
            raise AssertionError(f"blocks {start}+{length} allocated twice")
        if not used and taken != seg.size:
            raise AssertionError(f"blocks {start}+{length} freed twice")
        seg[:] = used
        sign = -1 if used else 1
        bpg = self.layout.blocks_per_group
        pos, end = start, start + length
        if (end - 1) // bpg == pos // bpg:  # the common case: within one group
            self.group_free[pos // bpg] += sign * length
            pos = end
        while pos < end:
            g = pos // bpg
            stop = min(end, (g + 1) * bpg)
            self.group_free[g] += sign * (stop - pos)
            pos = stop
        self.free_blocks += sign * length

    def free_runs(self, lo: int = 0, hi: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Starts and lengths of free runs in [lo, hi)."""
        hi = self.layout.total_blocks if hi is None else hi
        used = self.used[lo:hi]
        if used.all():
            return np.empty(0, np.int64), np.empty(0, np.int64)
        # Run boundaries: where a block differs from the one before; runs alternate between
        # used and free, the first free one starting at 0 or at the first boundary.
        bounds = np.flatnonzero(used[1:] != used[:-1]) + 1
        if used[0]:
            starts, ends = bounds[0::2], bounds[1::2]
        else:
            starts, ends = np.concatenate(([0], bounds[1::2])), bounds[0::2]
        if ends.size < starts.size:  # the last run is free: it ends at hi
            ends = np.append(ends, used.size)
        return starts + lo, ends - starts

    def _first_fit(self, lo: int, stop: int, hi: int, n: int) -> int | None:
        """The first free run of free_runs(lo, hi) that starts before stop and holds n
        blocks: its start, None if there is none, -1 if a few runs were too short (then
        free_runs over the window answers). Run by run, each a search that stops at the
        first block it looks for, instead of finding every run of a two-group window."""
        used = self.used
        pos = lo
        for _ in range(8):
            seg = used[pos:stop]
            if seg.size == 0:
                return None
            i = int(seg.argmin())  # the first free block, if any
            if seg[i]:
                return None
            s = pos + i
            run = used[s:min(hi, s + n)]
            j = int(run.argmax())  # the first used block after s, if any
            if not run[j]:
                return s if run.size == n else None  # else the last run, cut at hi
            pos = s + j
        return -1

    def _groups_from(self, goal: int):
        """Group numbers from goal's group onwards, wrapping once."""
        g0 = goal // self.layout.blocks_per_group
        groups = self.layout.groups
        return itertools.chain(range(g0, groups), range(g0))

    def allocate(self, n: int, goal: int, align: int = 0) -> list[tuple[int, int]]:
        """Allocate n blocks as few extents as possible, searching forward from goal (and
        wrapping): the first run long enough for all n (or for one maximal extent) is
        preferred, else runs are taken in address order. align > 1 starts a long file on a
        multiple of align blocks (stripe width). Raises OSError(ENOSPC) when space runs
        out."""
        if n > self.free_blocks:
            raise OSError(28, f"file system full: {n} blocks wanted, {self.free_blocks} free")
        layout = self.layout
        total, bpg = layout.total_blocks, layout.blocks_per_group
        goal = goal % total
        if n <= MAX_EXTENT_BLOCKS:
            for g in self._groups_from(goal):
                # A run may continue into the next group (flex_bg keeps data contiguous).
                nxt = (g + 1) % layout.groups
                if self.group_free[g] + (self.group_free[nxt] if nxt > g else 0) < n:
                    continue
                lo = goal if g == goal // bpg else g * bpg
                hi = min(total, (g + 2) * bpg)
                if not (align > 1 and n >= align):
                    s = self._first_fit(lo, min(hi, (g + 1) * bpg), hi, n)
                    if s is None:
                        continue
                    if s >= 0:
                        return self._take([(s, n)])
                starts, lengths = self.free_runs(lo, hi)
                starts, lengths = starts[starts < (g + 1) * bpg], lengths[starts < (g + 1) * bpg]
                if align > 1 and n >= align:
                    shift = (-starts) % align
                    ok = lengths - shift >= n
                    if ok.any():
                        i = int(np.flatnonzero(ok)[0])
                        return self._take([(int(starts[i] + shift[i]), n)])
                ok = lengths >= n
                if ok.any():
                    return self._take([(int(starts[np.flatnonzero(ok)[0]]), n)])
        # Fragmented (or longer than one extent): take runs in order from the goal.
        out: list[tuple[int, int]] = []
        need = n
        for g in self._groups_from(goal):
            if self.group_free[g] == 0:
                continue
            lo = goal if g == goal // bpg and not out else g * bpg
            starts, lengths = self.free_runs(lo, min(total, (g + 1) * bpg))
            for s, ln in zip(starts.tolist(), lengths.tolist(), strict=True):
                while ln > 0 and need > 0:
                    take = min(ln, need, MAX_EXTENT_BLOCKS)
                    if out and out[-1][0] + out[-1][1] == s \
                            and out[-1][1] + take <= MAX_EXTENT_BLOCKS:
                        out[-1] = (out[-1][0], out[-1][1] + take)
                    else:
                        out.append((s, take))
                    s += take
                    ln -= take
                    need -= take
                if need == 0:
                    return self._take(out)
        if need:
            # Blocks before the goal in its own group are the last place left.
            g = goal // bpg
            starts, lengths = self.free_runs(g * bpg, goal)
            for s, ln in zip(starts.tolist(), lengths.tolist(), strict=True):
                take = min(ln, need)
                out.append((s, take))
                need -= take
                if need == 0:
                    break
        if need:
            raise OSError(28, "file system full")
        return self._take(out)

    def _take(self, extents: list[tuple[int, int]]) -> list[tuple[int, int]]:
        for s, ln in extents:
            self.mark(s, ln, True)
        return extents
