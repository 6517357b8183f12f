"""What the `discard` mount option sends after a commit, by kernel era.

2.6.39 (the documented experiments): ext4 sends one TRIM per freed extent, synchronously in
the commit, so a `sync` after `rm -rf` waits for every one of them (seed 001's 40 s).

modern (Linux 5.x and later, measured on 6.18 in tests/recordings): the commit hands the
freed extents of the transaction, merged where adjacent, to a discard worker. For each one
the worker discards every free run that starts inside it, *up to the end of that free run*
(the next used block or the end of the block group), so never-written free space after a
freed extent is discarded too, and again each time a neighbour is freed. The worker runs
after the commit, and `sync` does not wait for it: the discards can finish after sync.

Extents are (first block, blocks) in 4 KiB file-system blocks.
"""

from __future__ import annotations

from collections.abc import Iterable

from .ext4layout import BlockAllocator, Layout
from .fstypes import KERNEL_ERAS

__all__ = ["KERNEL_ERAS", "merge_extents", "modern_runs", "still_free"]


def merge_extents(extents: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted extents with adjacent and overlapping ones joined."""
    out: list[list[int]] = []
    for s, ln in sorted(extents):
        if out and s <= out[-1][0] + out[-1][1]:
            out[-1][1] = max(out[-1][1], s + ln - out[-1][0])
        else:
            out.append([s, ln])
    return [(s, ln) for s, ln in out]


def still_free(extents: Iterable[tuple[int, int]],
               alloc: BlockAllocator) -> list[tuple[int, int]]:
    """The parts of extents that are free now (blocks freed in a transaction may have been
    allocated again before it committed; trimming them would lose a live file's data)."""
    out = []
    for s, ln in extents:
        starts, lengths = alloc.free_runs(s, s + ln)
        out += zip(starts.tolist(), lengths.tolist(), strict=True)
    return out


def modern_runs(freed: Iterable[tuple[int, int]], alloc: BlockAllocator,
                layout: Layout) -> list[tuple[int, int]]:
    """The ranges modern ext4's discard worker sends for a transaction's freed extents:
    per merged extent, each free run starting inside it, extended to the run's end within
    its block group. Runs are listed once per extent that reaches them, so a free run that
    several extents fall into is discarded several times, as the kernel does."""
    out = []
    for s, ln in merge_extents(freed):
        end = s + ln
        while s < end:
            g = layout.group_of_block(s)
            group_end = min(layout.group_start(g) + layout.blocks_per_group,
                            layout.total_blocks)
            starts, lengths = alloc.free_runs(s, group_end)
            for rs, rl in zip(starts.tolist(), lengths.tolist(), strict=True):
                if rs >= end:
                    break
                out.append((rs, rl))
            s = group_end
    return out
