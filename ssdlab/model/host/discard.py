"""What the `discard` mount option sends after a commit, by kernel era.

2.6.39 (the documented experiments): ext4 sends one TRIM per freed extent, synchronously in
the commit, so a `sync` after `rm -rf` waits for every one of them (seed 001's 40 s).

modern (the discard worker exists since Linux 5.16; what it sends was measured on 6.18 in
tests/recordings): the commit hands the freed extents of the transaction to a discard
worker, one entry per extent that was not
merged into a neighbour when it was freed. For each entry the worker discards every free
run that starts inside it, *up to the end of that free run* (ext4_try_to_trim_range: the
next used block or the end of the block group), so never-written free space after a freed
extent is discarded too, and again for each entry in the run. The worker runs after the
commit, and `sync` does not wait for it: the discards can finish after sync. It sends one
request at a time and waits for each (ext4_trim_extent: sb_issue_discard), so it advances at
the device's pace, while the freed blocks are already free for the host's next writes: a
block allocated before the worker reaches its entry is not discarded (entry_runs). Measured
on 6.18 (rounds_discard, loop device): the worker starts 0.07-0.09 s after the commit and
sends about 320 requests/s; the refill's writes start 0.3-0.5 s in, and the kernel
discards 0.22-0.68 of what it would with nothing allocated meanwhile.

Which freed extents merge (freed_entries): ext4 keeps them per group in a search tree, and
since Linux 6.17 (ext4_mb_free_metadata, "merge freed extent with existing extents before
insertion") merges a newly freed extent only with the node its tree descent ends at, then
that node with its neighbour. A neighbour that is an ancestor rather than the last node
stays a separate entry. Freeing in block order merges everything; rm -rf frees in readdir
order, which for an indexed (multi-block) directory is hash order, so many adjacent files
stay separate entries: 6,758 discards after one rm -rf of 36,706 files, each to the end of
its free run (401 GB summed over 676 MB of distinct space).

Extents are (first block, blocks) in 4 KiB file-system blocks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .ext4layout import BlockAllocator, Layout
from .fstypes import KERNEL_ERAS

__all__ = ["KERNEL_ERAS", "entry_runs", "freed_entries", "merge_extents", "modern_runs",
           "still_free"]


def merge_extents(extents: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted extents with adjacent and overlapping ones joined."""
    out: list[list[int]] = []
    for s, ln in sorted(extents):
        if out and s <= out[-1][0] + out[-1][1]:
            out[-1][1] = max(out[-1][1], s + ln - out[-1][0])
        else:
            out.append([s, ln])
    return [(s, ln) for s, ln in out]


class _Node:
    __slots__ = ("start", "count", "left", "right", "parent", "order")

    def __init__(self, start: int, count: int, parent: _Node | None, order: int):
        self.start, self.count, self.order = start, count, order
        self.left = self.right = None
        self.parent = parent


class _FreedTree:
    """One group's tree of freed extents. The kernel's is a red-black tree; this is a plain
    binary search tree, rebuilt balanced where it grows lopsided (a scapegoat tree), so
    extents freed in block order cannot make it a list. The shape only decides which
    in-order neighbour a new extent's descent ends at; with extents freed in hash order
    its shape is as random as the kernel's. (A treap, balanced by priorities drawn from
    the keys, matched the recordings worse: 7,271 discards after the big rm -rf and 126
    after make clean, against the kernel's 6,758 and 40.)"""

    LOPSIDED = 0.9  # a child subtree may hold at most this share of its parent's nodes

    def __init__(self) -> None:
        self.root: _Node | None = None
        self.size = 0
        self.max_size = 0

    @staticmethod
    def _adjacent(a: _Node, b: _Node) -> bool:
        return a.start + a.count == b.start

    def _neighbour(self, node: _Node, left: bool) -> _Node | None:
        """In-order predecessor (left=True) or successor."""
        near, far = ("left", "right") if left else ("right", "left")
        child = getattr(node, near)
        if child is not None:
            while getattr(child, far) is not None:
                child = getattr(child, far)
            return child
        while node.parent is not None and getattr(node.parent, near) is node:
            node = node.parent
        return node.parent

    def _replace(self, node: _Node, child: _Node | None) -> None:
        if child is not None:
            child.parent = node.parent
        if node.parent is None:
            self.root = child
        elif node.parent.left is node:
            node.parent.left = child
        else:
            node.parent.right = child

    def _erase(self, node: _Node) -> None:
        self._unlink(node)
        self.size -= 1
        if self.size < self.LOPSIDED * self.max_size:
            self.root = self._rebuild(self.root, None)
            self.max_size = self.size

    def _unlink(self, node: _Node) -> None:
        if node.left is not None and node.right is not None:
            nxt = self._neighbour(node, left=False)  # has no left child
            self._unlink(nxt)
            nxt.left, nxt.right = node.left, node.right
            for c in (nxt.left, nxt.right):
                if c is not None:
                    c.parent = nxt
            self._replace(node, nxt)
        else:
            self._replace(node, node.left if node.left is not None else node.right)

    def insert(self, start: int, count: int, order: int) -> None:
        parent, node, went_left = None, self.root, False
        while node is not None:
            parent = node
            went_left = start < node.start
            node = node.left if went_left else node.right
        if parent is not None:
            new = _Node(start, count, None, order)
            if self._adjacent(new, parent):  # new just before the last node
                parent.start, parent.count = start, parent.count + count
                prev = self._neighbour(parent, left=True)
                if prev is not None and self._adjacent(prev, parent):
                    prev.count += parent.count
                    self._erase(parent)
                return
            if self._adjacent(parent, new):  # new just after the last node
                parent.count += count
                nxt = self._neighbour(parent, left=False)
                if nxt is not None and self._adjacent(parent, nxt):
                    parent.count += nxt.count
                    self._erase(nxt)
                return
        node = _Node(start, count, parent, order)
        if parent is None:
            self.root = node
        elif went_left:
            parent.left = node
        else:
            parent.right = node
        self.size += 1
        self.max_size = max(self.max_size, self.size)
        depth = 0
        up = node
        while up.parent is not None:
            up, depth = up.parent, depth + 1
        if depth > math.log(self.size, 1 / self.LOPSIDED) + 1:
            self._rebalance_above(node)

    @staticmethod
    def _count(node: _Node | None) -> int:
        n, stack = 0, [node]
        while stack:
            x = stack.pop()
            if x is not None:
                n += 1
                stack += [x.left, x.right]
        return n

    def _rebalance_above(self, node: _Node) -> None:
        """Rebuild the subtree of the lowest ancestor with a lopsided child."""
        child, size = node, 1
        while child.parent is not None:
            parent = child.parent
            sibling = parent.right if parent.left is child else parent.left
            total = size + 1 + self._count(sibling)
            if size > self.LOPSIDED * total:
                up = parent.parent
                rebuilt = self._rebuild(parent, up)
                if up is None:
                    self.root = rebuilt
                elif up.left is parent:
                    up.left = rebuilt
                else:
                    up.right = rebuilt
                return
            child, size = parent, total

    def _rebuild(self, top: _Node | None, parent: _Node | None) -> _Node | None:
        """The subtree under top, rebuilt perfectly balanced under parent."""
        nodes = _in_order(top)

        def build(lo: int, hi: int, up: _Node | None) -> _Node | None:
            if lo >= hi:
                return None
            mid = (lo + hi) // 2
            n = nodes[mid]
            n.parent = up
            n.left = build(lo, mid, n)
            n.right = build(mid + 1, hi, n)
            return n

        return build(0, len(nodes), parent)

    def entries(self) -> list[_Node]:
        return _in_order(self.root)


def _in_order(top: _Node | None) -> list[_Node]:
    """The nodes under top in block order (iterative: a lopsided tree can be deep)."""
    out, stack, node = [], [], top
    while stack or node is not None:
        while node is not None:
            stack.append(node)
            node = node.left
        node = stack.pop()
        out.append(node)
        node = node.right
    return out


def freed_entries(freed: Iterable[tuple[int, int]], layout: Layout) -> list[tuple[int, int]]:
    """The discard worker's entries for extents freed in this order in one transaction
    (6.17+ merging, see the module docstring), in the order the worker takes them: the
    order each surviving entry was first freed."""
    trees: dict[int, _FreedTree] = {}
    for order, (s, ln) in enumerate(freed):
        end = s + ln
        while s < end:  # an extent never spans groups in ext4; split it as ext4 would
            g = layout.group_of_block(s)
            stop = min(end, layout.group_start(g) + layout.blocks_per_group)
            trees.setdefault(g, _FreedTree()).insert(s, stop - s, order)
            s = stop
    nodes = [n for t in trees.values() for n in t.entries()]
    return [(n.start, n.count) for n in sorted(nodes, key=lambda n: n.order)]


def still_free(extents: Iterable[tuple[int, int]],
               alloc: BlockAllocator) -> list[tuple[int, int]]:
    """The parts of extents that are free now (blocks freed in a transaction may have been
    allocated again before it committed; trimming them would lose a live file's data)."""
    extents = [(int(s), int(ln)) for s, ln in extents if ln > 0]
    out = []
    for (s, ln), busy in zip(extents, _any_used(extents, alloc.used), strict=True):
        # Most extents are still wholly free: no run-finding needed.
        if not busy:
            out.append((s, ln))
        else:
            starts, lengths = alloc.free_runs(s, s + ln)
            out += zip(starts.tolist(), lengths.tolist(), strict=True)
    return out


_BATCH_BLOCKS = 256  # extents up to this long (small files') are looked up together
_BATCH_EXTENTS = 4096  # at most a million blocks gathered at a time


def _any_used(extents: list[tuple[int, int]], used: np.ndarray) -> list[bool]:
    """Per extent (all of positive length), whether any of its blocks is in use: short
    extents with one gather of their blocks per few thousand (a commit frees tens of
    thousands of small files' extents), long ones one at a time."""
    if not extents:
        return []
    starts, lengths = np.array(extents, dtype=np.int64).T
    busy = np.zeros(len(extents), dtype=bool)
    for i in np.flatnonzero(lengths > _BATCH_BLOCKS).tolist():
        busy[i] = used[starts[i]:starts[i] + lengths[i]].any()
    short = np.flatnonzero(lengths <= _BATCH_BLOCKS)
    for lo in range(0, short.size, _BATCH_EXTENTS):
        part = short[lo:lo + _BATCH_EXTENTS]
        s, ln = starts[part], lengths[part]
        offsets = np.cumsum(ln) - ln
        blocks = np.repeat(s - offsets, ln) + np.arange(int(ln.sum()))
        busy[part] = np.logical_or.reduceat(used[blocks], offsets)
    return busy.tolist()


def entry_runs(entry: tuple[int, int], alloc: BlockAllocator,
               layout: Layout) -> list[tuple[int, int]]:
    """What the worker sends for one entry, judged by the bitmap at the moment it reaches
    the entry (ext4_try_to_trim_range under the group lock): each free run starting inside
    it, extended to the run's end within its block group. Blocks allocated again since the
    commit are not free, so the worker trims around them (the kernel returns freed blocks
    to the buddy allocator before queueing them for discard, ext4_process_freed_data)."""
    s, ln = entry
    end = s + ln
    out = []
    while s < end:
        g = layout.group_of_block(s)
        group_end = min(layout.group_start(g) + layout.blocks_per_group, layout.total_blocks)
        starts, lengths = alloc.free_runs(s, group_end)
        for rs, rl in zip(starts.tolist(), lengths.tolist(), strict=True):
            if rs >= end:
                break
            out.append((rs, rl))
        s = group_end
    return out


def modern_runs(freed: Iterable[tuple[int, int]], alloc: BlockAllocator,
                layout: Layout) -> list[tuple[int, int]]:
    """The ranges modern ext4's discard worker sends for a transaction's freed extents (in
    the order they were freed) if nothing is allocated while it works: entry_runs of each
    of freed_entries. Runs are listed once per entry that reaches them, so a free run that
    several entries fall into is discarded several times, as the kernel does."""
    return [r for e in freed_entries(freed, layout) for r in entry_runs(e, alloc, layout)]
