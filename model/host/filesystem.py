"""An ext4-like file system that turns file operations into block requests.

It models what decides how many bytes reach the drive, not file contents: block groups with
bitmaps and inode tables, extents (or ext2/3 indirect blocks), directories, delayed
allocation with writeback at expiry, memory pressure and sync (thresholds from the host's
RAM: writeback.py), a JBD2-like journal in ordered mode (journal.py) with a commit every few
seconds or when a transaction fills a quarter of the journal, atime modes, `discard` (TRIM
after the commit that frees the blocks, as the kernel era of the options does it:
discard.py) and `fstrim`.

Time is simulated: the caller moves the clock with `advance(now_s)`, and the commit timer
and the flusher run at their due times. Requests go to a BlockDevice queue; the caller
submits them and charges their time (see machine.py).
"""

from __future__ import annotations

import hashlib
import heapq
from collections import deque
from collections.abc import Callable

import numpy as np

from . import discard as dc
from . import orlov
from .blockdev import BlockDevice
from .ext4layout import MAX_EXTENT_BLOCKS, BlockAllocator, Layout, default_journal_blocks
from .fstypes import (
    DAY_S,
    DIRECT_BLOCKS,
    EXTENTS_IN_INODE,
    EXTENTS_PER_BLOCK,
    FIRST_INO,
    POINTERS_PER_BLOCK,
    ROOT_INO,
    SMALL_FILE_BLOCKS,
    STREAM_CHUNK_BLOCKS,
    FsCounters,
    FsOptions,
    Inode,
    _dirty_pages,
    _entry_bytes,
)
from .journal import (
    CONVERSION_CREDITS,
    CREATE_CREDITS,
    WRITEPAGES_CREDITS,
    Journal,
    Transaction,
)
from .writeback import WritebackLimits, timer_fire_s

WRITEBACK_CHUNK_BYTES = 4 * 2**20  # what one background writeback pass writes at least


def _name_hash(name: str) -> bytes:
    """A directory index's hash of a name (ext4 keys its half-MD4 with a random seed per
    file system; any well-mixed keyed hash orders names as arbitrarily)."""
    return hashlib.blake2b(name.encode(), digest_size=8, key=b"ssdlab-dx-seed").digest()


class FileSystem:
    """An ext4-like file system on a BlockDevice, freshly made (mkfs) at time now_s;
    writeback: the page cache's thresholds (default: a 4 GiB host's)."""

    def __init__(self, device: BlockDevice, options: FsOptions | None = None,
                 now_s: float = 0.0, writeback: WritebackLimits | None = None):
        self.dev = device
        self.opt = options or FsOptions()
        self.wb = writeback or WritebackLimits()
        # modern ext4's discard worker: freed entries (first block, blocks) queued by the
        # commits, worked through in time (run_discard_worker), not waited on by sync
        self.discard_queue: deque[tuple[int, int]] = deque()
        self.discard_worker_s = 0.0  # when the worker can send its next request
        # seconds one discard request of n bytes keeps the worker waiting (the device's
        # completion time; the Machine sets it from the drive profile). None: no device
        # time, the worker finishes the moment its queue is filled
        self.discard_request_s: Callable[[int], float] | None = None
        total = device.size_bytes // 4096
        self.layout = Layout(total, blocks_per_group=self.opt.blocks_per_group,
                             inodes_per_group=self.opt.inodes_per_group)
        self.alloc = BlockAllocator(self.layout)
        self.now = now_s
        self.count = FsCounters()
        self.inodes: dict[int, Inode] = {}
        self._next_ino = [FIRST_INO if g == 0 else g * self.opt.inodes_per_group + 1
                          for g in range(self.layout.groups)]
        self._free_inos: list[list[int]] = [[] for _ in range(self.layout.groups)]
        self._stream: list[int] = [0, 0]  # small-file allocation stream: next, end
        self._big_stream = 0  # where the last file of SMALL_FILE_BLOCKS or more ended
        # per group, for Orlov: directories, and inodes not in use
        self.dirs_in_group = np.zeros(self.layout.groups, dtype=np.int64)
        self.free_inodes = np.array(
            [(g + 1) * self.opt.inodes_per_group + 1 - n for g, n in enumerate(self._next_ino)],
            dtype=np.int64)
        self._trimmed_groups: set[int] = set()
        self._last_trim_minimum = 1  # minimum_blocks of the last fstrim
        self.tx: Transaction | None = None
        self._tid = 0
        self.home_dirty: set[int] = set()  # metadata blocks waiting for their home write
        self.home_dirty_since: float | None = None
        self.dirty_bytes = 0
        self.reserved_blocks = 0  # promised to delayed-allocation data not yet placed
        self._dirty_inodes: dict[int, float] = {}  # ino -> when its data became dirty
        self._next_flusher = self._flusher_due(now_s)
        self.journal: Journal | None = None
        if self.opt.journal:
            jblocks = self.opt.journal_blocks or default_journal_blocks(
                total, modern=self.opt.kernel != "2.6.39")
            if jblocks < 8:
                raise ValueError(f"file system of {total} blocks is too small for a journal")
            (start, _), = self.alloc.allocate(jblocks, goal=total // 2)
            modern = self.opt.kernel != "2.6.39"
            self.journal = Journal(start, jblocks, max_transaction_share=1 / 3 if modern
                                   else 0.25, credits=modern)
        self._mkfs()

    # --- format ---------------------------------------------------------------------------

    def _mkfs(self) -> None:
        root = Inode(ROOT_INO, True, ROOT_INO, atime=self.now, mtime=self.now)
        self.inodes[ROOT_INO] = root
        self._add_dir_block(root)
        # mke2fs writes the superblock, descriptors, bitmaps and the root directory; inode
        # tables and the journal are initialised lazily.
        blocks = [0] + list(range(1, 1 + self.layout.gdt_blocks))
        for g in range(self.layout.groups):
            blocks += [self.layout.block_bitmap(g), self.layout.inode_bitmap(g)]
        blocks += [self.layout.inode_block(ROOT_INO)] + [e[0] for e in root.extents]
        self._write_runs(sorted(set(blocks)), "metadata_blocks")
        self.home_dirty.clear()
        self.home_dirty_since = None
        self.tx = None

    # --- metadata dirtying ----------------------------------------------------------------

    def _meta(self, block: int) -> None:
        """Block of metadata changed now: journal it, or queue its home write."""
        if self.journal is not None:
            if self.tx is None:
                self._tid += 1
                self.tx = Transaction(self._tid, self.now)
            self.tx.metadata.add(block)
        else:
            self._home(block)

    def _home(self, block: int) -> None:
        if not self.home_dirty:
            self.home_dirty_since = self.now
        self.home_dirty.add(block)

    def _inode_changed(self, ino: int) -> None:
        self._meta(self.layout.inode_block(ino))

    # --- inodes ---------------------------------------------------------------------------

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
            self._meta(layout.inode_bitmap(g))
            self._meta(layout.descriptor_block(g))
            self._inode_changed(ino)
            return ino
        raise OSError(28, "no free inodes")

    def _free_ino(self, ino: int) -> None:
        g = self.layout.group_of_inode(ino)
        heapq.heappush(self._free_inos[g], ino)
        self.free_inodes[g] += 1
        self._meta(self.layout.inode_bitmap(g))
        self._meta(self.layout.descriptor_block(g))
        self._inode_changed(ino)
        del self.inodes[ino]

    # --- blocks ---------------------------------------------------------------------------

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
        layout = self.layout
        for s, ln in extents:
            for g in range(layout.group_of_block(s), layout.group_of_block(s + ln - 1) + 1):
                self._meta(layout.block_bitmap(g))
                self._meta(layout.descriptor_block(g))

    def _release(self, extents, metadata: bool) -> None:
        """Free extents; they are trimmed after the freeing transaction commits."""
        for s, ln in extents:
            self.alloc.mark(s, ln, False)
            # ext4 clears a group's "trimmed" mark when blocks in it are freed (not when
            # they are allocated): fstrim skips the group until then
            for g in range(self.layout.group_of_block(s),
                           self.layout.group_of_block(s + ln - 1) + 1):
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
            goal = orlov.first_goal(self, inode.ino, inode.is_dir)
        total = inode.allocated_blocks + n
        small = (not inode.is_dir) and total < SMALL_FILE_BLOCKS
        stream = not inode.is_dir and not small
        if stream and self.alloc.used[goal % self.layout.total_blocks]:
            goal = self._big_stream or goal  # mballoc's stream allocation
        new = self._take_blocks(n, goal, small)
        if stream:
            self._big_stream = new[-1][0] + new[-1][1]
        for s, ln in new:
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

    # --- directories ----------------------------------------------------------------------

    def _add_dir_block(self, d: Inode) -> None:
        if self.alloc.free_blocks - self.reserved_blocks < 1:
            raise OSError(28, "file system full: no block for a directory")
        (s, _), = self._place(d, 1)
        d.fill.append(0)
        d.size += 4096
        self._meta(s)

    @staticmethod
    def _block_of(f: Inode, idx: int) -> int:
        """Physical block holding the idx-th block of file or directory f."""
        for s, ln in f.extents:
            if idx < ln:
                return s + idx
            idx -= ln
        raise AssertionError(f"block {idx} of inode {f.ino} is not allocated")

    def _link(self, d: Inode, name: str, ino: int) -> None:
        if name in d.entries:
            raise FileExistsError(17, f"{name} exists already")
        need = _entry_bytes(name)
        idx = len(d.fill) - 1
        if d.fill[idx] + need > 4096:
            self._add_dir_block(d)
            idx += 1
        d.fill[idx] += need
        d.entries[name] = (ino, idx)
        self._meta(self._block_of(d, idx))
        d.mtime = self.now
        self._inode_changed(d.ino)

    def _unlink_entry(self, d: Inode, name: str) -> int:
        ino, idx = d.entries.pop(name)
        d.fill[idx] -= _entry_bytes(name)
        self._meta(self._block_of(d, idx))
        d.mtime = self.now
        self._inode_changed(d.ino)
        return ino

    # --- namespace operations -------------------------------------------------------------

    def lookup(self, parent: int, name: str) -> int:
        return self.inodes[parent].entries[name][0]

    def mkdir(self, parent: int, name: str) -> int:
        p = self.inodes[parent]
        if name in p.entries:  # before an inode is taken, so a refusal changes nothing
            raise FileExistsError(17, f"{name} exists already")
        self._handle_start()
        if parent == ROOT_INO:
            group = orlov.top_dir_group(self, name)
        else:
            group = orlov.sub_dir_group(self, self.layout.group_of_inode(parent))
        ino = self._new_ino(group)
        self.dirs_in_group[self.layout.group_of_inode(ino)] += 1
        d = Inode(ino, True, parent, atime=self.now, mtime=self.now)
        self.inodes[ino] = d
        self._add_dir_block(d)
        self._link(p, name, ino)
        return ino

    def create(self, parent: int, name: str, size_bytes: int = 0) -> int:
        """Create a file and write size_bytes into it (page cache; written back later)."""
        p = self.inodes[parent]
        if name in p.entries:  # before an inode is taken, so a refusal changes nothing
            raise FileExistsError(17, f"{name} exists already")
        self._handle_start()
        ino = self._new_ino(orlov.file_group(self, self.layout.group_of_inode(parent)))
        self.inodes[ino] = Inode(ino, False, parent, atime=self.now, mtime=self.now)
        self._link(p, name, ino)
        if size_bytes:
            self.write(ino, 0, size_bytes)
        return ino

    def write(self, ino: int, offset: int, length: int) -> None:
        """Write length bytes at offset into a file (page cache)."""
        f = self.inodes[ino]
        first, last = offset // 4096, (offset + length - 1) // 4096
        before = _dirty_pages(f)
        have = f.allocated_blocks + f.pending_blocks
        grow = max(0, last + 1 - have)
        # Like ext4's delalloc reservation: a write that could not be placed later fails
        # now, so writeback never runs out of space halfway through other files' data.
        if grow > self.alloc.free_blocks - self.reserved_blocks:
            raise OSError(28, f"file system full: {grow} blocks wanted, "
                          f"{self.alloc.free_blocks - self.reserved_blocks} free")
        self.reserved_blocks += grow
        f.dirty_blocks.update(range(first, min(last + 1, f.allocated_blocks)))
        f.pending_blocks += grow
        if not self._dirty_inodes:
            # the kernel arms the flusher's timer when the first inode turns dirty
            self._next_flusher = self._flusher_due(self.now)
        if ino not in self._dirty_inodes:
            self._dirty_inodes[ino] = self.now
        self.dirty_bytes += (_dirty_pages(f) - before) * 4096
        f.size = max(f.size, offset + length)
        f.mtime = self.now
        self._inode_changed(ino)
        # ext4_nonda_switch: once delayed-allocation data holds half the free space, ext4
        # starts writeback of the whole file system (measured: a fill of a 1 GiB file
        # system to 90 % writes most of its data before any sync).
        if 2 * self.reserved_blocks > self.alloc.free_blocks:
            self._writeback_inodes(list(self._dirty_inodes))

    def read(self, ino: int, cached: bool = True) -> None:
        """Read a whole file: updates atime as the mount option says; reads the drive only
        when the data is not in the page cache."""
        f = self.inodes[ino]
        self._touch_atime(f)
        if cached:
            return
        for s, ln in f.extents:
            self.dev.read(s * 4096, ln * 4096)
            self.count.read_blocks += ln

    def readdir(self, ino: int) -> list[str]:
        """Entry names in the order ext4 returns them: hash order (dir_index, the default
        since ext3, reads a one-block directory through the index code too: is_dx_dir).
        rm -rf frees files in this order, which decides how modern ext4 merges their freed
        extents (discard.py)."""
        d = self.inodes[ino]
        self._touch_atime(d)
        return sorted(d.entries, key=_name_hash)

    def _touch_atime(self, f: Inode) -> None:
        mode = self.opt.atime
        if mode == "noatime":
            return
        if mode == "relatime" and not (f.atime <= f.mtime or self.now - f.atime >= DAY_S):
            return
        f.atime = self.now
        self._inode_changed(f.ino)

    def unlink(self, parent: int, name: str) -> None:
        p = self.inodes[parent]
        # refused before the entry goes, so a refusal changes nothing
        if name not in p.entries:
            raise FileNotFoundError(2, f"no such file: {name}")
        if self.inodes[p.entries[name][0]].is_dir:
            raise IsADirectoryError(21, f"{name} is a directory")
        self._drop_file(self.inodes[self._unlink_entry(p, name)])

    def rmdir(self, parent: int, name: str) -> None:
        p = self.inodes[parent]
        ino, _ = p.entries[name]
        d = self.inodes[ino]
        if d.entries:
            raise OSError(39, f"directory {name} not empty")
        self._unlink_entry(p, name)
        self.dirs_in_group[self.layout.group_of_inode(ino)] -= 1
        self._drop_file(d)

    def _drop_file(self, f: Inode) -> None:
        self.reserved_blocks -= f.pending_blocks
        if f.ino in self._dirty_inodes:
            del self._dirty_inodes[f.ino]
            self.dirty_bytes -= _dirty_pages(f) * 4096
        if f.extents:
            self._release([tuple(e) for e in f.extents], metadata=f.is_dir)
        if f.map_blocks:
            self._release([(b, 1) for b in f.map_blocks], metadata=True)
        self._free_ino(f.ino)

    def truncate(self, ino: int) -> None:
        """Cut a file to zero length, freeing its blocks."""
        f = self.inodes[ino]
        self.reserved_blocks -= f.pending_blocks
        if ino in self._dirty_inodes:
            del self._dirty_inodes[ino]
            self.dirty_bytes -= _dirty_pages(f) * 4096
        if f.extents:
            self._release([tuple(e) for e in f.extents], metadata=False)
        if f.map_blocks:
            self._release([(b, 1) for b in f.map_blocks], metadata=True)
        f.extents, f.map_blocks, f.size = [], [], 0
        f.pending_blocks = 0
        f.dirty_blocks.clear()
        self._inode_changed(ino)

    # --- writeback ------------------------------------------------------------------------

    def _write_runs(self, blocks, counter: str) -> None:
        """Write sorted block numbers as merged requests no longer than max_request."""
        limit = self.opt.max_request_bytes // 4096
        start = prev = None
        n = 0
        for b in blocks:
            if start is not None and b == prev + 1 and n < limit:
                prev, n = b, n + 1
                continue
            if start is not None:
                self.dev.write(start * 4096, n * 4096)
            start = prev = b
            n = 1
        if start is not None:
            self.dev.write(start * 4096, n * 4096)
        setattr(self.count, counter, getattr(self.count, counter) + len(blocks))

    def _write_extents(self, extents, counter: str) -> None:
        limit = self.opt.max_request_bytes // 4096
        merged: list[list[int]] = []
        for s, ln in sorted(extents):
            if merged and merged[-1][0] + merged[-1][1] == s:
                merged[-1][1] += ln
            else:
                merged.append([s, ln])
        total = 0
        for s, ln in merged:
            total += ln
            while ln > 0:
                n = min(ln, limit)
                self.dev.write(s * 4096, n * 4096)
                s += n
                ln -= n
        setattr(self.count, counter, getattr(self.count, counter) + total)

    def _writeback_inodes(self, inos) -> None:
        """One writeback pass. Each file's writepages handle may commit the running
        transaction first (journal.py); the conversion credits it reserves stay held until
        the pass's I/O is done, across commits."""
        out: list[tuple[int, int]] = []
        reserved = 0
        for ino in inos:
            f = self.inodes.get(ino)
            self._dirty_inodes.pop(ino, None)
            if f is None:
                continue
            self.dirty_bytes -= _dirty_pages(f) * 4096
            if self._handle_start(WRITEPAGES_CREDITS + CONVERSION_CREDITS, reserved, out):
                out = []
            if f.pending_blocks:
                self.reserved_blocks -= f.pending_blocks
                out += self._place(f, f.pending_blocks)
                f.pending_blocks = 0
            if f.dirty_blocks:
                out += [(self._block_of(f, b), 1) for b in sorted(f.dirty_blocks)]
                f.dirty_blocks.clear()
            reserved += CONVERSION_CREDITS
            if not self.journal_credits and self._tx_full():
                # 2.6.39 era: commit once the metadata reached the maximum
                self._write_extents(out, "data_blocks")
                out = []
                self.commit()
        if out:
            self._write_extents(out, "data_blocks")

    def _write_home(self) -> None:
        """Write every dirty metadata block to its home location (checkpoint)."""
        if self.home_dirty:
            self._write_runs(sorted(self.home_dirty), "metadata_blocks")
        self.home_dirty.clear()
        self.home_dirty_since = None
        if self.journal is not None:
            self.journal.checkpointed()

    def _tx_full(self, handle_credits: int = CREATE_CREDITS, reserved: int = 0) -> bool:
        return (self.tx is not None and self.journal is not None
                and self.journal.must_commit_before(len(self.tx.metadata), handle_credits,
                                                    reserved))

    @property
    def journal_credits(self) -> bool:
        """Whether the journal commits early by jbd2's credit rule (modern kernels)."""
        return self.journal is not None and self.journal.credits

    def _handle_start(self, credits: int = CREATE_CREDITS, reserved: int = 0,
                      data: list | None = None) -> bool:
        """A modern jbd2 handle starts: it commits the running transaction first if it
        would overflow it (journal.py); in ordered mode the data allocated so far goes out
        before. True when it committed. (The 2.6.39-era rule runs after the blocks are
        added and with the timers: _commit_if_full.)"""
        if not self.journal_credits or not self._tx_full(credits, reserved):
            return False
        if data:
            self._write_extents(data, "data_blocks")
        self.commit()
        return True

    def _commit_if_full(self) -> None:
        """jbd2 commits a transaction early when the next handle would overflow it
        (journal.py), so a large sync commits several times and metadata that allocation
        dirties again after a commit is journaled again in the next one."""
        if self._tx_full():
            self.commit()

    def commit(self) -> None:
        """Commit the running transaction: journal its metadata, then trim what it freed."""
        tx, self.tx = self.tx, None
        if tx is None or tx.empty:
            return
        if self.journal is not None:
            writes = self.journal.commit(tx)
            for s, n in writes.runs:
                self.dev.write(s * 4096, n * 4096)
            self.dev.flush()
            self.dev.write(writes.commit_block * 4096, 4096)
            self.dev.flush()
            self.count.journal_blocks += writes.journal_blocks
            self.count.commits += 1
            self.count.flushes += 2
            for b in tx.metadata:
                self._home(b)
            if self.journal.needs_checkpoint:
                self._write_home()
        if self.opt.discard and tx.freed:
            if self.opt.kernel == "modern":
                if not self.discard_queue:
                    self.discard_worker_s = max(self.discard_worker_s, self.now)
                self.discard_queue += dc.freed_entries(tx.freed, self.layout)
                if self.discard_request_s is None:
                    self.issue_queued_discards()
            else:
                self._discard(dc.still_free(tx.freed, self.alloc))

    def run_discard_worker(self, until_s: float) -> None:
        """Modern ext4's discard worker up to until_s (s): it takes its entries in order,
        each against the bitmap of the moment it reaches it (discard.entry_runs), and waits
        for each request it sends before the next."""
        limit = self.opt.max_discard_bytes // 4096
        while self.discard_queue and self.discard_worker_s <= until_s:
            for s, ln in dc.entry_runs(self.discard_queue.popleft(), self.alloc, self.layout):
                self._trim_run(s, ln)
                if self.discard_request_s is not None:
                    full, last = divmod(ln, limit)
                    self.discard_worker_s += (full * self.discard_request_s(limit * 4096)
                                              + (self.discard_request_s(last * 4096)
                                                 if last else 0.0))

    def issue_queued_discards(self) -> None:
        """Let the discard worker finish its queue now (umount waits for it: the kernel's
        ext4_mb_release flushes the work)."""
        self.run_discard_worker(float("inf"))

    def _discard(self, extents) -> None:
        """One TRIM per freed extent, as ext4 of the 2.6.39 era sent them. Merging adjacent
        extents first would turn the 36,706 per-file TRIMs of seed 001's rm -rf into a few,
        and no single TRIM cost could then explain both its 40 s and fstrim's 6 minutes."""
        for s, ln in extents:
            self._trim_run(s, ln)

    def _trim_run(self, s: int, ln: int) -> None:
        limit = self.opt.max_discard_bytes // 4096
        while ln > 0:
            n = min(ln, limit)
            self.dev.trim(s * 4096, n * 4096)
            self.count.discard_requests += 1
            self.count.discard_blocks += n
            s += n
            ln -= n

    def advance(self, now_s: float) -> None:
        """Move the clock to now_s, running the commit timer and the flusher when due."""
        while True:
            due_commit = (self.tx.started_s + self.opt.commit_interval_s
                          if self.tx is not None else float("inf"))
            due = min(due_commit, self._next_flusher)
            if due > now_s:
                break
            self.now = max(self.now, due)
            if due == due_commit:
                self.commit()
            else:
                self._flusher()
                self._next_flusher = self._flusher_due(self._next_flusher)
        self.now = max(self.now, now_s)
        if self.dirty_bytes > self.wb.background_bytes:
            self._writeback_oldest()
        self._commit_if_full()

    def _flusher_due(self, armed_s: float) -> float:
        """When the flusher armed at armed_s wakes: the interval later in 2.6.39, on the
        timer wheel's next step after it in modern kernels (writeback.py)."""
        if self.opt.kernel == "2.6.39":
            return armed_s + self.wb.interval_s
        return timer_fire_s(armed_s, self.wb.interval_s)

    def _flusher(self) -> None:
        expire = self.now - self.wb.expire_s
        old = [i for i, t in self._dirty_inodes.items() if t <= expire]
        if old:
            self._writeback_inodes(old)
        if self.home_dirty and self.home_dirty_since is not None \
                and self.home_dirty_since <= expire:
            self._write_home()

    def _writeback_oldest(self) -> None:
        """Background writeback: the oldest dirty files until under the threshold, at least
        one 4 MiB chunk (the kernel's MAX_WRITEBACK_PAGES) per pass."""
        target = self.wb.background_bytes
        batch = []
        freed = 0
        # _dirty_inodes is in the order files first became dirty: oldest first
        for ino in self._dirty_inodes:
            batch.append(ino)
            freed += _dirty_pages(self.inodes[ino]) * 4096
            if self.dirty_bytes - freed <= target and freed >= WRITEBACK_CHUNK_BYTES:
                break
        self._writeback_inodes(batch)

    def remount(self, options: FsOptions) -> None:
        """Change mount options (atime, discard, commit interval...) on the mounted file
        system; the on-disk format options (journal, extents, group sizes) must stay."""
        for name in ("journal", "extents", "blocks_per_group", "inodes_per_group",
                     "journal_blocks", "kernel"):
            if getattr(options, name) != getattr(self.opt, name):
                raise ValueError(f"{name} is a format option; it cannot change on remount")
        self.commit()
        self.opt = options

    def fsync(self, ino: int) -> None:
        """Write back one file's data and commit the journal (its metadata is then safe in
        the journal; home locations are written later)."""
        if ino in self._dirty_inodes:
            self._writeback_inodes([ino])
        self.commit()
        if self.journal is None:
            self._write_home()
        self.dev.flush()
        self.count.flushes += 1

    def sync_steps(self, inodes_per_step: int = 2048):
        """sync as a generator: write back dirty files a few thousand at a time (yielding
        after each group, so a caller can pause), then commit and checkpoint."""
        pending = list(self._dirty_inodes)
        for i in range(0, len(pending), inodes_per_step):
            self._writeback_inodes(pending[i:i + inodes_per_step])
            yield
        self.commit()
        self._write_home()
        self.dev.flush()
        self.count.flushes += 1

    def sync(self) -> None:
        """Write back all dirty data, commit, and checkpoint: everything reaches the drive."""
        for _ in self.sync_steps():
            pass

    def forget_trimmed(self) -> None:
        """Forget which groups fstrim trimmed (the kernel keeps that in memory only, so
        after a remount fstrim walks every group again)."""
        self._trimmed_groups.clear()

    def fstrim(self, minimum_blocks: int = 1) -> int:
        """TRIM every free range of at least minimum_blocks in groups not trimmed since their
        last free; returns blocks trimmed. Like ext4, a group trimmed once is skipped until
        something in it is freed (allocating in it does not bring it back)."""
        trimmed = 0
        layout = self.layout
        # ext4 skips a trimmed group only if this minimum is no smaller than the last one:
        # otherwise runs the last fstrim thought too short would never be trimmed.
        if minimum_blocks < self._last_trim_minimum:
            self._trimmed_groups.clear()
        self._last_trim_minimum = minimum_blocks
        for g in range(layout.groups):
            if g in self._trimmed_groups:
                continue
            lo = layout.group_start(g)
            hi = min(lo + layout.blocks_per_group, layout.total_blocks)
            starts, lengths = self.alloc.free_runs(lo, hi)
            for s, ln in zip(starts.tolist(), lengths.tolist(), strict=True):
                if ln >= minimum_blocks:
                    self._trim_run(s, ln)
                    trimmed += ln
            self._trimmed_groups.add(g)
        return trimmed
