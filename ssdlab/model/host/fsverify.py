"""Checks that a file system's blocks really are where the drive says they are.

These checks read the whole stack from the top down: a file's block, the bytes it covers on
the partition, the drive pages holding those bytes, and the FTL's mapping of each page. They
need a drive built with FtlConfig(track_versions=True) (the drive keeps, per physical page,
the number of the host write that produced it) and a BlockDevice built with
track_versions=True (it remembers, per drive page, the number of the last write it sent
there). Call them after `FileSystem.sync()` and after the device's queue was submitted, so
nothing is pending.
"""

from __future__ import annotations

import numpy as np

from .filesystem import FileSystem

BLOCK_BYTES = 4096
_MAX_REPORTED = 50


def _pages_of_block(fs: FileSystem, block: int) -> range:
    """Drive pages holding any byte of file-system block `block`."""
    page = fs.dev.page_bytes
    start = fs.dev.partition.offset_bytes + block * BLOCK_BYTES
    return range(start // page, (start + BLOCK_BYTES - 1) // page + 1)


def _owned_blocks(fs: FileSystem) -> dict[int, int]:
    """Block -> inode for every block a live file or directory owns (data and map blocks)."""
    owned: dict[int, int] = {}
    for f in fs.inodes.values():
        for s, ln in f.extents:
            for b in range(s, s + ln):
                owned[b] = f.ino
        for b in f.map_blocks:
            owned[b] = f.ino
    return owned


def _pending(fs: FileSystem) -> list[str]:
    out = []
    if fs.dev.pending:
        out.append("the block device still has requests queued: submit() before verifying")
    if fs._dirty_inodes or fs.dirty_bytes:
        out.append(f"{len(fs._dirty_inodes)} files ({fs.dirty_bytes} bytes) still dirty: "
                   "sync() before verifying")
    if fs.home_dirty or (fs.tx is not None and not fs.tx.empty):
        out.append("metadata still waiting for the journal or its home location: sync() "
                   "before verifying")
    return out


def _need_versions(fs: FileSystem) -> None:
    if not fs.dev.tracks_versions:
        raise ValueError("verify needs BlockDevice(..., track_versions=True)")
    if not fs.dev.drive.config.track_versions:
        raise ValueError("verify needs a drive with FtlConfig(track_versions=True)")


def _cap(out: list[str]) -> list[str]:
    if len(out) > _MAX_REPORTED:
        return out[:_MAX_REPORTED] + [f"... and {len(out) - _MAX_REPORTED} more"]
    return out


def verify(fs: FileSystem) -> list[str]:
    """Problems (empty when sound): every drive page holding any byte of a block owned by a
    live file or directory is mapped in the drive and reads back the version the block
    device last wrote there; plus the file system's own bookkeeping check."""
    _need_versions(fs)
    out = _pending(fs) + bookkeeping(fs)
    drive, dev = fs.dev.drive, fs.dev
    seen: set[int] = set()
    for block, ino in sorted(_owned_blocks(fs).items()):
        for page in _pages_of_block(fs, block):
            if page in seen:
                continue
            seen.add(page)
            want = dev.expected_version(page)
            got = drive.version_of(page)
            if got is None:
                out.append(f"block {block} of inode {ino}: drive page {page} is unmapped "
                           f"(last written as version {want})")
            elif got != want:
                out.append(f"block {block} of inode {ino}: drive page {page} reads version "
                           f"{got}, expected {want}")
    return _cap(out)


def verify_after_fstrim(fs: FileSystem) -> list[str]:
    """Problems (empty when sound) right after fstrim (and a sync): every drive page lying
    wholly inside a run of free file-system blocks of one block group is unmapped, and
    every page holding any byte of a block a live file or directory owns is mapped. A page
    shared by a free block and an allocated one counts as allocated. Blocks marked used that
    no file owns (bitmaps, inode tables, the journal, preallocated reserve) may be mapped or
    not: mkfs and the journal write them lazily. Free runs are taken group by group because
    fstrim, like ext4's, trims each group's free space separately: on a misaligned partition
    the page straddling two groups is never wholly inside one TRIM and stays mapped."""
    _need_versions(fs)
    out = _pending(fs)
    drive = fs.dev.drive
    page = fs.dev.page_bytes
    base = fs.dev.partition.offset_bytes
    l2p = drive.arrays.l2p
    layout = fs.layout
    runs: list[tuple[int, int]] = []
    for g in range(layout.groups):
        lo = layout.group_start(g)
        starts, lengths = fs.alloc.free_runs(lo, min(lo + layout.blocks_per_group,
                                                     layout.total_blocks))
        runs += zip(starts.tolist(), lengths.tolist(), strict=True)
    for s, ln in runs:
        first = -(-(base + s * BLOCK_BYTES) // page)
        end = (base + (s + ln) * BLOCK_BYTES) // page
        if end <= first:
            continue
        mapped = np.flatnonzero(l2p[first:end] >= 0)
        if mapped.size:
            out.append(f"free blocks {s}..{s + ln - 1}: {mapped.size} of their "
                       f"{end - first} whole drive pages still mapped (first: page "
                       f"{first + int(mapped[0])})")
    for block, ino in sorted(_owned_blocks(fs).items()):
        for p in _pages_of_block(fs, block):
            if l2p[p] < 0:
                out.append(f"block {block} of inode {ino}: drive page {p} is unmapped")
    return _cap(out)


def bookkeeping(fs) -> list[str]:
    """Bookkeeping problems (empty when sound): every block a file owns is marked used
    exactly once; no two files share a block; directory entries point at inodes."""
    out = []
    seen: dict[int, int] = {}
    for f in fs.inodes.values():
        blocks = [b for s, ln in f.extents for b in range(s, s + ln)] + list(f.map_blocks)
        for b in blocks:
            if b in seen:
                out.append(f"block {b} owned by inodes {seen[b]} and {f.ino}")
            seen[b] = f.ino
            if not fs.alloc.used[b]:
                out.append(f"block {b} of inode {f.ino} is marked free")
        if f.is_dir:
            for name, (ino, _) in f.entries.items():
                if ino not in fs.inodes:
                    out.append(f"entry {name} in {f.ino} points at missing inode {ino}")
    fixed = sum(min(fs.layout.metadata_end(g), fs.layout.total_blocks)
                - fs.layout.group_start(g) for g in range(fs.layout.groups))
    journal = fs.journal.blocks if fs.journal else 0
    stream = fs._stream[1] - fs._stream[0]
    expected_used = fixed + journal + len(seen) + stream
    actual_used = int(fs.alloc.used.sum())
    if actual_used != expected_used:
        out.append(f"bitmap marks {actual_used} blocks used; metadata, journal, files and "
                   f"the allocation stream account for {expected_used}")
    return out
