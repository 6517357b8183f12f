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

This module holds the format, metadata dirtying, directories and the namespace operations;
the rest is mixed in by job: inode and block allocation (fsalloc.py), writeback, sync and
the clock (fswriteback.py), journal commits, discard and fstrim (fscommit.py).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable

import numpy as np

from . import orlov
from .blockdev import BlockDevice
from .ext4layout import BlockAllocator, Layout, default_journal_blocks
from .fsalloc import FsAllocation
from .fscommit import FsCommit
from .fstypes import (
    DAY_S,
    FIRST_INO,
    ROOT_INO,
    FsCounters,
    FsOptions,
    Inode,
    _dirty_pages,
    _entry_bytes,
)
from .fswriteback import FsWriteback
from .journal import (
    CREATE_CREDITS,
    Journal,
    Transaction,
)
from .writeback import WritebackLimits


def _name_hash(name: str) -> bytes:
    """A directory index's hash of a name (ext4 keys its half-MD4 with a random seed per
    file system; any well-mixed keyed hash orders names as arbitrarily)."""
    return hashlib.blake2b(name.encode(), digest_size=8, key=b"ssdlab-dx-seed").digest()


class FileSystem(FsAllocation, FsWriteback, FsCommit):
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
        # the layout's figures _inode_changed needs, held here (it runs for every change)
        self._inodes_per_group = self.layout.inodes_per_group
        self._inodes_per_block = self.layout.inodes_per_block
        self._itable_starts = [self.layout.itable_start(g) for g in range(self.layout.groups)]
        # per group, the metadata a change of its inodes or blocks dirties: (inode bitmap,
        # descriptor) and (block bitmap, descriptor), tuples ready for _meta_all
        self._ibitmap_meta = [(self.layout.inode_bitmap(g), self.layout.descriptor_block(g))
                              for g in range(self.layout.groups)]
        self._bbitmap_meta = [(self.layout.block_bitmap(g), self.layout.descriptor_block(g))
                              for g in range(self.layout.groups)]
        # orlov.first_goal of a file (index False) and a directory (True), per inode group:
        # asked for every file placed
        self._first_goals = tuple([orlov.first_goal(self.layout, g, is_dir)
                                   for g in range(self.layout.groups)]
                                  for is_dir in (False, True))
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
        # advance's test whether the next create's handle commits the running transaction
        self._create_commit_blocks = (self.journal.commit_at(CREATE_CREDITS)
                                      if self.journal is not None else float("inf"))
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
        tx = self.tx  # the common case first: hundreds of thousands of calls per run
        if tx is not None:
            tx.metadata.add(block)
        elif self.journal is not None:
            self._tid += 1
            self.tx = Transaction(self._tid, self.now)
            self.tx.metadata.add(block)
        else:
            self._home(block)

    def _meta_all(self, blocks: tuple[int, ...]) -> None:
        """Several blocks of metadata changed now (as _meta each; the sets keep no order)."""
        if self.tx is not None:
            self.tx.metadata.update(blocks)
        else:
            for block in blocks:
                self._meta(block)

    def _home(self, block: int) -> None:
        if not self.home_dirty:
            self.home_dirty_since = self.now
        self.home_dirty.add(block)

    def _inode_changed(self, ino: int) -> None:
        # _meta(_inode_block(ino)) inline: it runs for every change of every inode
        g, idx = divmod(ino - 1, self._inodes_per_group)
        block = self._itable_starts[g] + idx // self._inodes_per_block
        if self.tx is not None:
            self.tx.metadata.add(block)
        else:
            self._meta(block)

    def _inode_block(self, ino: int) -> int:
        # layout.inode_block, with the layout's figures at hand: several calls a file
        g, idx = divmod(ino - 1, self._inodes_per_group)
        return self._itable_starts[g] + idx // self._inodes_per_block

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
        tx = self.tx  # _handle_start() commits first only from this many blocks on
        if tx is not None and len(tx.metadata) >= self._create_commit_blocks:
            self._handle_start()
        ino = self._new_ino(orlov.file_group(self, (parent - 1) // self._inodes_per_group))
        f = self.inodes[ino] = Inode(ino, False, parent, atime=self.now, mtime=self.now)
        self._link(p, name, ino)
        if size_bytes:
            self._write_new(f, size_bytes)
        return ino

    def _write_new(self, f: Inode, length: int) -> None:
        """write(f.ino, 0, length) into a file just created, with what write works out
        known: nothing of it is placed, pending or dirty yet, and its inode block is in
        the running transaction already (_new_ino put it there)."""
        grow = (length + 4095) // 4096
        if grow > self.alloc.free_blocks - self.reserved_blocks:
            raise OSError(28, f"file system full: {grow} blocks wanted, "
                          f"{self.alloc.free_blocks - self.reserved_blocks} free")
        self.reserved_blocks += grow
        f.pending_blocks = grow
        if not self._dirty_inodes:
            self._next_flusher = self._flusher_due(self.now)
        self._dirty_inodes[f.ino] = self.now
        self.dirty_bytes += grow * 4096
        f.size = length
        f.mtime = self.now
        if 2 * self.reserved_blocks > self.alloc.free_blocks:  # as in write
            self._writeback_inodes(list(self._dirty_inodes))

    def write(self, ino: int, offset: int, length: int) -> None:
        """Write length bytes at offset into a file (page cache)."""
        f = self.inodes[ino]
        first, last = offset // 4096, (offset + length - 1) // 4096
        before = f.pending_blocks + len(f.dirty_blocks)  # _dirty_pages(f), inline
        have = f.allocated_blocks + f.pending_blocks
        grow = max(0, last + 1 - have)
        # Like ext4's delalloc reservation: a write that could not be placed later fails
        # now, so writeback never runs out of space halfway through other files' data.
        if grow > self.alloc.free_blocks - self.reserved_blocks:
            raise OSError(28, f"file system full: {grow} blocks wanted, "
                          f"{self.alloc.free_blocks - self.reserved_blocks} free")
        self.reserved_blocks += grow
        if first < f.allocated_blocks:  # a new file has none placed yet
            f.dirty_blocks.update(range(first, min(last + 1, f.allocated_blocks)))
        f.pending_blocks += grow
        if not self._dirty_inodes:
            # the kernel arms the flusher's timer when the first inode turns dirty
            self._next_flusher = self._flusher_due(self.now)
        if ino not in self._dirty_inodes:
            self._dirty_inodes[ino] = self.now
        self.dirty_bytes += (f.pending_blocks + len(f.dirty_blocks) - before) * 4096
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
        f.allocated_blocks = 0
        f.pending_blocks = 0
        f.dirty_blocks.clear()
        self._inode_changed(ino)

    def remount(self, options: FsOptions) -> None:
        """Change mount options (atime, discard, commit interval...) on the mounted file
        system; the on-disk format options (journal, extents, group sizes) must stay."""
        for name in ("journal", "extents", "blocks_per_group", "inodes_per_group",
                     "journal_blocks", "kernel"):
            if getattr(options, name) != getattr(self.opt, name):
                raise ValueError(f"{name} is a format option; it cannot change on remount")
        self.commit()
        self.opt = options

