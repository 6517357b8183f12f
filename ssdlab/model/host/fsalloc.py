"""The file system's allocation of inodes and blocks: inode numbers per group, data blocks
through the small-file stream or near a goal (mballoc-like), freeing with the trim and
revoke bookkeeping, and the extent-tree or indirect blocks a file's map needs.

`FsAllocation` is mixed into `FileSystem` (filesystem.py), whose state it uses.
"""

from __future__ import annotations

import heapq

from .ext4layout import MAX_EXTENT_BLOCKS
from .fstypes import (
    DIRECT_BLOCKS,
    EXTENTS_IN_INODE,
    EXTENTS_PER_BLOCK,
    POINTERS_PER_BLOCK,
    SMALL_FILE_BLOCKS,
    STREAM_CHUNK_BLOCKS,
    Inode,
)


class FsAllocation:
    """Inode and block allocation for FileSystem."""

    def _new_ino(self, group: int) -> int:
        layout = self.layout
        for k in range(layout.groups):
            g = (group + k) % layout.groups
            if self._free_inos[g]:
                ino = heapq.heappop(self._free_inos[g])
            elif self._next_ino[g] <= (g + 1) * layout.inodes_per_group:
                ino = self._next_ino[g]
                self._next_ino[g] += 1
            else:
                continue
            self.free_inodes[g] -= 1
            self._meta_all(self._ibitmap_meta[g])
            self._inode_changed(ino)
            return ino
        raise OSError(28, "no free inodes")

    def _free_ino(self, ino: int) -> None:
        g = (ino - 1) // self._inodes_per_group
        heapq.heappush(self._free_inos[g], ino)
        self.free_inodes[g] += 1
        self._meta_all(self._ibitmap_meta[g])
        self._inode_changed(ino)
        del self.inodes[ino]

    def _take_blocks(self, n: int, goal: int, small: bool) -> list[tuple[int, int]]:
        """Allocate n blocks for file data, dirtying the bitmaps and descriptors touched.

        Small files share one stream of blocks (ext4's locality-group preallocation), so a
        tree of small files lands contiguously; the stream's unused reserve stays marked in
        the bitmap until the stream moves on.
        """
        if self.discard_queue:
            # the worker sends what it reached by now; it skips blocks given out from here
            # on (the kernel's freed blocks are allocatable while their discard is queued)
            self.run_discard_worker(self.now)
        extents = None
        if small:
            nxt, end = self._stream
            if end - nxt < n:
                if end > nxt:
                    self.alloc.mark(nxt, end - nxt, False)
                self._stream = [0, 0]  # released: nothing reserved if allocate fails
                chunk = max(STREAM_CHUNK_BLOCKS, n)
                # The stream's reserve may not take space promised to other files' delayed
                # allocation, or their writeback would fail with ENOSPC (ext4 likewise
                # takes group preallocations only from unreserved free space).
                if chunk <= self.alloc.free_blocks - self.reserved_blocks:
                    got = self.alloc.allocate(chunk, goal=nxt or goal)
                    for rs, rl in got[1:]:
                        self.alloc.mark(rs, rl, False)
                    nxt, end = got[0][0], got[0][0] + got[0][1]
                    if end - nxt < n:
                        self.alloc.mark(nxt, end - nxt, False)
                        nxt = end = 0
                else:
                    # Nearly full: no room for a stream chunk, but maybe for the file alone.
                    nxt = end = 0
            if end - nxt >= n:
                self._stream = [nxt + n, end]
                extents = [(nxt, n)]
            else:
                self._stream = [0, 0]
        if extents is None:
            extents = self.alloc.allocate(n, goal=goal, align=self.opt.stripe_width_blocks)
        self._dirty_bitmaps(extents)
        return extents

    def _dirty_bitmaps(self, extents) -> None:
        bpg = self.layout.blocks_per_group
        meta = self._bbitmap_meta
        for s, ln in extents:
            g, last = s // bpg, (s + ln - 1) // bpg
            self._meta_all(meta[g])
            while g < last:
                g += 1
                self._meta_all(meta[g])

    def _release(self, extents, metadata: bool) -> None:
        """Free extents; they are trimmed after the freeing transaction commits."""
        bpg = self.layout.blocks_per_group
        for s, ln in extents:
            self.alloc.mark(s, ln, False)
            # ext4 clears a group's "trimmed" mark when blocks in it are freed (not when
            # they are allocated): fstrim skips the group until then
            if self._trimmed_groups:
                for g in range(s // bpg, (s + ln - 1) // bpg + 1):
                    self._trimmed_groups.discard(g)
        self._dirty_bitmaps(extents)
        if self.tx is not None:
            self.tx.freed.extend(extents)
            if metadata:
                self.tx.revoked += sum(ln for _, ln in extents)
        elif self.opt.discard:
            self._discard(extents)
        for s, ln in extents if metadata else ():
            for b in range(s, s + ln):
                self.home_dirty.discard(b)
                if self.tx is not None:
                    self.tx.metadata.discard(b)

    def _map_blocks_needed(self, inode: Inode) -> int:
        """Extent-tree or indirect blocks the inode's block map needs now."""
        if self.opt.extents:
            n = len(inode.extents)
            return 0 if n <= EXTENTS_IN_INODE else -(-n // EXTENTS_PER_BLOCK)
        blocks = inode.allocated_blocks
        if blocks <= DIRECT_BLOCKS:
            return 0
        rest = blocks - DIRECT_BLOCKS
        single = -(-rest // POINTERS_PER_BLOCK)
        return single + (1 if single > 1 else 0)

    def _place(self, inode: Inode, n: int) -> list[tuple[int, int]]:
        """Allocate n more blocks at the end of inode (delayed allocation happens here)."""
        if inode.extents:
            last_s, last_n = inode.extents[-1]
            goal = last_s + last_n
        else:
            goal = self._first_goals[inode.is_dir][(inode.ino - 1) // self._inodes_per_group]
        total = inode.allocated_blocks + n
        small = (not inode.is_dir) and total < SMALL_FILE_BLOCKS
        stream = not inode.is_dir and not small
        if stream and self.alloc.used[goal % self.layout.total_blocks]:
            goal = self._big_stream or goal  # mballoc's stream allocation
        new = self._take_blocks(n, goal, small)
        if stream:
            self._big_stream = new[-1][0] + new[-1][1]
        for s, ln in new:
            inode.allocated_blocks += ln
            if inode.extents and inode.extents[-1][0] + inode.extents[-1][1] == s \
                    and inode.extents[-1][1] + ln <= MAX_EXTENT_BLOCKS:
                inode.extents[-1][1] += ln
            else:
                inode.extents.append([s, ln])
        need = self._map_blocks_needed(inode)
        while len(inode.map_blocks) < need:
            (b, _), = self._take_blocks(1, goal, False)
            inode.map_blocks.append(b)
        for b in inode.map_blocks[-max(1, len(new)):]:
            self._meta(b)
        self._inode_changed(inode.ino)
        return new
