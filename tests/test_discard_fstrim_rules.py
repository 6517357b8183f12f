"""Which extents `discard` sends and when, and fstrim's per-group bookkeeping: exact TRIM
lists, read off a spy on the block device."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.filesystem import ROOT_INO, FileSystem, FsOptions
from ssdlab.model.host.partition import Partition

BLOCK = 4096
BPG = 512  # blocks per group: a 16 MiB file system has 8 groups


def _fs(start_sector: int = 2048, **options) -> tuple[FileSystem, list[tuple[int, int]]]:
    """A file system and the list its TRIMs go to, as (first block, blocks)."""
    drive = Drive(Geometry(user_pages=4096, pages_per_block=32, spare=0.1), FtlConfig())
    dev = BlockDevice(drive, Partition(start_sector))
    opts = dict(blocks_per_group=BPG, inodes_per_group=64, journal_blocks=64)
    opts.update(options)
    fs = FileSystem(dev, FsOptions(**opts))
    dev.submit()
    sent: list[tuple[int, int]] = []
    real_trim = dev.trim

    def trim(offset, length):
        assert offset % BLOCK == 0 and length % BLOCK == 0, (offset, length)
        sent.append((offset // BLOCK, length // BLOCK))
        real_trim(offset, length)

    dev.trim = trim
    return fs, sent


def _extents(fs, ino) -> list[tuple[int, int]]:
    return [tuple(e) for e in fs.inodes[ino].extents]


def _files(fs, sizes_blocks) -> list[int]:
    inos = [fs.create(ROOT_INO, f"f{i}", n * BLOCK) for i, n in enumerate(sizes_blocks)]
    fs.sync()
    fs.dev.submit()
    return inos


# --- discard ----------------------------------------------------------------------------------


def test_discard_sends_one_trim_per_freed_extent_at_the_commit():
    fs, sent = _fs(discard=True)
    a, b, c = _files(fs, [20, 40, 30])
    freed = _extents(fs, a) + _extents(fs, c)
    fs.unlink(ROOT_INO, "f0")
    fs.unlink(ROOT_INO, "f2")
    assert sent == []  # nothing before the commit
    fs.commit()
    assert sent == freed
    assert fs.count.discard_requests == 2 and fs.count.discard_blocks == 50


def test_discard_splits_at_max_discard_bytes():
    fs, sent = _fs(discard=True, max_discard_bytes=16 * BLOCK)
    (a,) = _files(fs, [40])
    ((s, n),) = _extents(fs, a)
    assert n == 40
    fs.unlink(ROOT_INO, "f0")
    fs.commit()
    assert sent == [(s, 16), (s + 16, 16), (s + 32, 8)]


def test_discard_limit_rounds_down_to_whole_blocks():
    fs, sent = _fs(discard=True, max_discard_bytes=16 * BLOCK + 2048)
    (a,) = _files(fs, [40])
    ((s, _),) = _extents(fs, a)
    fs.unlink(ROOT_INO, "f0")
    fs.commit()
    assert sent == [(s, 16), (s + 16, 16), (s + 32, 8)]
    assert all(type(n) is int for _, n in sent)


def test_discard_skips_blocks_reallocated_before_the_commit():
    fs, sent = _fs(discard=True)
    (a,) = _files(fs, [20])
    ((s, _),) = _extents(fs, a)
    fs.unlink(ROOT_INO, "f0")
    fs.alloc.mark(s + 5, 3, True)  # given to someone else inside the same transaction
    fs.alloc.mark(s + 19, 1, True)
    fs.commit()
    assert sent == [(s, 5), (s + 8, 11)]


def test_discard_is_sent_at_once_without_a_journal():
    fs, sent = _fs(discard=True, journal=False)
    (a,) = _files(fs, [20])
    ext = _extents(fs, a)
    fs.unlink(ROOT_INO, "f0")
    assert sent == ext


def test_no_discard_sends_nothing_at_the_commit():
    fs, sent = _fs(discard=False)
    _files(fs, [20])
    fs.unlink(ROOT_INO, "f0")
    fs.commit()
    fs.sync()
    assert sent == [] and fs.count.discard_requests == 0


def test_discard_trims_a_removed_directory_block():
    fs, sent = _fs(discard=True)
    d = fs.mkdir(ROOT_INO, "d")
    fs.sync()
    ext = _extents(fs, d)
    fs.rmdir(ROOT_INO, "d")
    fs.commit()
    assert sent == ext


# --- fstrim -----------------------------------------------------------------------------------


def _free_runs_per_group(fs) -> list[tuple[int, int]]:
    """Free runs, cut at group boundaries (written independently of the allocator's)."""
    runs = []
    used = fs.alloc.used
    for g in range(fs.layout.groups):
        b, end = g * BPG, min((g + 1) * BPG, len(used))
        while b < end:
            if used[b]:
                b += 1
                continue
            s = b
            while b < end and not used[b]:
                b += 1
            runs.append((s, b - s))
    return runs


def test_first_fstrim_trims_every_free_run_group_by_group():
    fs, sent = _fs()
    _files(fs, [700, 30, 300])  # the first file runs across a group boundary
    fs.unlink(ROOT_INO, "f1")
    fs.sync()
    sent.clear()
    expected = _free_runs_per_group(fs)
    assert fs.fstrim() == int((~fs.alloc.used).sum())
    assert sent == expected
    # a free run that continues into the next group is sent as two TRIMs, cut at the boundary
    assert any(s + n == t and t % BPG == 0 for (s, n), (t, _) in
               zip(sent[:-1], sent[1:], strict=True))
    assert all((s % BPG) + n <= BPG for s, n in sent)


def test_fstrim_skips_groups_untouched_since_their_last_trim():
    fs, sent = _fs()
    _files(fs, [700, 30, 300])
    fs.fstrim()
    sent.clear()
    assert fs.fstrim() == 0 and sent == []


def test_a_free_sends_fstrim_back_to_that_group_only():
    fs, sent = _fs()
    inos = _files(fs, [700, 30, 300])
    fs.fstrim()
    sent.clear()
    ((s, n),) = _extents(fs, inos[1])
    assert s // BPG == (s + n - 1) // BPG
    g = s // BPG
    fs.unlink(ROOT_INO, "f1")
    fs.sync()
    group = [r for r in _free_runs_per_group(fs) if r[0] // BPG == g]
    assert fs.fstrim() == sum(n for _, n in group)
    assert sent == group


def test_an_allocation_alone_does_not_send_fstrim_back_to_its_group():
    """ext4 clears a group's trimmed mark when blocks in it are freed, not when they are
    allocated (mballoc.c: EXT4_MB_GRP_CLEAR_TRIMMED on free only)."""
    fs, sent = _fs()
    _files(fs, [30])
    fs.fstrim()
    sent.clear()
    ino = fs.create(ROOT_INO, "new", 20 * BLOCK)  # not a small file: no stream chunk
    fs.sync()
    assert _extents(fs, ino)
    assert fs.fstrim() == 0
    assert sent == []


def test_fstrim_minimum_skips_short_runs():
    fs, sent = _fs()
    inos = _files(fs, [3, 10, 3, 10, 200])
    fs.unlink(ROOT_INO, "f0")
    fs.unlink(ROOT_INO, "f2")
    fs.sync()
    sent.clear()
    fs.fstrim(minimum_blocks=4)
    assert sent and all(n >= 4 for _, n in sent)
    short = [r for r in _free_runs_per_group(fs) if r[1] < 4]
    assert short and not set(short) & set(sent)
    del inos


def test_fstrim_with_a_smaller_minimum_walks_trimmed_groups_again():
    """ext4 (ext4_trim_all_free) skips a trimmed group only when the new minimum is no
    smaller than the last one; otherwise the short runs it skipped would never be trimmed."""
    fs, sent = _fs()
    _files(fs, [3, 10, 3, 10, 200])
    fs.unlink(ROOT_INO, "f0")
    fs.unlink(ROOT_INO, "f2")
    fs.sync()
    fs.fstrim(minimum_blocks=4)
    sent.clear()
    assert fs.fstrim(minimum_blocks=8) == 0 and sent == []
    short = sorted(r for r in _free_runs_per_group(fs) if r[1] < 4)
    fs.fstrim(minimum_blocks=1)
    assert set(short) <= set(sent)


def test_fstrim_never_trims_used_blocks():
    fs, sent = _fs()
    _files(fs, [7, 13, 1, 60, 2, 900])
    for i in (0, 2, 4):
        fs.unlink(ROOT_INO, f"f{i}")
    fs.sync()
    sent.clear()
    fs.fstrim()
    trimmed = np.zeros(len(fs.alloc.used), bool)
    for s, n in sent:
        assert not trimmed[s:s + n].any()
        trimmed[s:s + n] = True
    assert not (trimmed & fs.alloc.used).any()
    assert (trimmed == ~fs.alloc.used).all()


@pytest.mark.parametrize("start", [2048, 63])
def test_fstrim_unmaps_exactly_the_whole_free_pages(start):
    fs, _ = _fs(start)
    _files(fs, [50, 50, 50])
    fs.unlink(ROOT_INO, "f1")
    fs.sync()
    fs.dev.submit()
    fs.fstrim()
    fs.dev.submit()
    l2p = fs.dev.drive.arrays.l2p
    base = fs.dev.partition.offset_bytes
    inside = np.zeros(len(l2p), bool)  # drive pages wholly inside one group's free run
    for s, n in _free_runs_per_group(fs):
        inside[-(-(base + s * BLOCK) // BLOCK):(base + (s + n) * BLOCK) // BLOCK] = True
    written = np.zeros(len(l2p), bool)
    for f in fs.inodes.values():
        for s, n in f.extents:
            written[(base + s * BLOCK) // BLOCK:-(-(base + (s + n) * BLOCK) // BLOCK)] = True
    assert (l2p[inside] < 0).all()
    assert (l2p[written] >= 0).all()
