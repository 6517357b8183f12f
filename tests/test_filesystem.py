"""The file system on a partition on a drive: nothing lost, and the accounting right.

The stateful test drives random mixes of file operations, time, sync and fstrim through an
ext4-like file system, a partition (aligned or the old DOS start at sector 63) and a small
page- or block-mapped drive that keeps a write stamp per physical page. The block device
keeps a shadow of the stamp each drive page should hold; `ssdlab.model.host.fsverify` then checks
every page of every live block against the drive after each sync, and free space against the
drive's mapping after each fstrim.

The unit tests pin the accounting the documented experiments depend on: the journal's extra
blocks, one journal copy per metadata block per commit, when discard TRIMs, what fstrim
trims, what each atime mode dirties, delayed allocation and running out of space.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host import fsverify
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.filesystem import DAY_S, ROOT_INO, FileSystem, FsOptions
from ssdlab.model.host.partition import Partition

KIB = 1024
MIB = 1024 * 1024


def make_fs(mapping: str = "page", start_sector: int = 2048, pages_per_block: int = 64,
            user_pages: int = 1 << 15, **options) -> FileSystem:
    geometry = Geometry(user_pages=user_pages, pages_per_block=pages_per_block, spare=0.1)
    drive = Drive(geometry, FtlConfig(mapping=mapping, track_versions=True))
    dev = BlockDevice(drive, Partition(start_sector), track_versions=True)
    opts = dict(blocks_per_group=2048, inodes_per_group=256)
    opts.update(options)
    fs = FileSystem(dev, FsOptions(**opts))
    dev.submit()
    return fs


def settle(fs: FileSystem) -> None:
    fs.sync()
    fs.dev.submit()


# --- the shadow of expected versions ------------------------------------------------------


@pytest.mark.parametrize("mapping", ["page", "block"])
def test_shadow_matches_engine_stamps(mapping):
    """Random byte-range writes (partial pages included) and TRIMs through a misaligned
    partition: the shadow predicts every page's stamp, batch boundaries or not."""
    geometry = Geometry(user_pages=2048, pages_per_block=32, spare=0.1)
    drive = Drive(geometry, FtlConfig(mapping=mapping, track_versions=True))
    drive.write(5, 3)  # data written before the device existed is picked up too
    dev = BlockDevice(drive, Partition(63), track_versions=True)
    rng = random.Random(7)
    for i in range(600):
        off = rng.randrange(0, dev.size_bytes - 70_000)
        n = rng.randrange(1, 70_000)
        if rng.random() < 0.2:
            dev.trim(off, n)
        elif rng.random() < 0.1:
            dev.read(off, n)
        else:
            dev.write(off, n)
        if i % 37 == 0:
            dev.submit()
    dev.submit()
    drive.check_invariants()
    for page in range(geometry.user_pages):
        assert drive.version_of(page) == dev.expected_version(page), page


def test_shadow_is_off_by_default():
    drive = Drive(Geometry(user_pages=2048, pages_per_block=16, spare=0.1))
    dev = BlockDevice(drive)
    assert not dev.tracks_versions
    with pytest.raises(ValueError):
        dev.expected_version(0)


def test_verify_notices_a_lost_block():
    """The checks are not vacuous: a live block unmapped behind the file system's back, or
    rewritten, is reported."""
    fs = make_fs()
    ino = fs.create(ROOT_INO, "f", 64 * KIB)
    settle(fs)
    assert fsverify.verify(fs) == []
    s, _ = fs.inodes[ino].extents[0]
    page = (fs.dev.partition.offset_bytes + s * 4096) // fs.dev.page_bytes
    fs.dev.drive.trim(page, 1)
    assert any("unmapped" in p for p in fsverify.verify(fs))
    assert any("unmapped" in p for p in fsverify.verify_after_fstrim(fs))
    fs.dev.drive.write(page + 1, 1)
    assert any("expected" in p for p in fsverify.verify(fs))


# --- nothing lost: random mixes -------------------------------------------------------------

SIZES = st.one_of(st.integers(0, 64 * KIB), st.just(MIB), st.integers(0, 16 * KIB))


class FsMachine(RuleBasedStateMachine):
    """Random file operations; after every sync the drive holds what was last written."""

    @initialize(mapping=st.sampled_from(["page", "block"]),
                start=st.sampled_from([2048, 63]),
                ppb=st.sampled_from([32, 64]),
                journal=st.booleans(), discard=st.booleans(),
                atime=st.sampled_from(["strict", "relatime", "noatime"]),
                bpg=st.sampled_from([1024, 2048]))
    def setup(self, mapping, start, ppb, journal, discard, atime, bpg):
        self.fs = make_fs(mapping, start, ppb, journal=journal, discard=discard, atime=atime,
                          blocks_per_group=bpg)
        self.now = 0.0
        self.files: dict[int, tuple[int, str]] = {}  # ino -> (parent, name)
        self.sizes: dict[int, int] = {}
        self.dirs: dict[int, tuple[int, str]] = {ROOT_INO: (ROOT_INO, "")}
        self.serial = 0

    def _name(self) -> str:
        self.serial += 1
        return f"n{self.serial:04d}"

    def _after(self) -> None:
        self.fs.dev.submit()

    @rule(data=st.data(), size=SIZES)
    def create(self, data, size):
        parent = data.draw(st.sampled_from(sorted(self.dirs)))
        name = self._name()
        ino = self.fs.create(parent, name, size)
        self.files[ino] = (parent, name)
        self.sizes[ino] = size
        self._after()

    @precondition(lambda self: self.files)
    @rule(data=st.data(), length=st.integers(1, 64 * KIB))
    def overwrite(self, data, length):
        ino = data.draw(st.sampled_from(sorted(self.files)))
        offset = data.draw(st.integers(0, self.sizes[ino] + 8 * KIB))
        self.fs.write(ino, offset, length)
        self.sizes[ino] = max(self.sizes[ino], offset + length)
        self._after()

    @precondition(lambda self: self.files)
    @rule(data=st.data(), cached=st.booleans())
    def read(self, data, cached):
        ino = data.draw(st.sampled_from(sorted(self.files)))
        self.fs.read(ino, cached=cached)
        self._after()

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def delete(self, data):
        ino = data.draw(st.sampled_from(sorted(self.files)))
        parent, name = self.files.pop(ino)
        del self.sizes[ino]
        self.fs.unlink(parent, name)
        self._after()

    @rule(data=st.data())
    def mkdir(self, data):
        parent = data.draw(st.sampled_from(sorted(self.dirs)))
        name = self._name()
        self.dirs[self.fs.mkdir(parent, name)] = (parent, name)
        self._after()

    @precondition(lambda self: len(self.dirs) > 1)
    @rule(data=st.data())
    def rmdir(self, data):
        ino = data.draw(st.sampled_from(sorted(d for d in self.dirs if d != ROOT_INO)))
        parent, name = self.dirs[ino]
        if self.fs.inodes[ino].entries:
            with pytest.raises(OSError):
                self.fs.rmdir(parent, name)
            return
        del self.dirs[ino]
        self.fs.rmdir(parent, name)
        self._after()

    @rule(dt=st.sampled_from([0.5, 3.0, 5.5, 12.0, 31.0, 70.0]))
    def advance(self, dt):
        self.now += dt
        self.fs.advance(self.now)
        self._after()

    @rule()
    def sync(self):
        settle(self.fs)
        assert fsverify.verify(self.fs) == []

    @rule()
    def fstrim(self):
        self.fs.fstrim()
        settle(self.fs)
        assert fsverify.verify_after_fstrim(self.fs) == []
        assert fsverify.verify(self.fs) == []

    @invariant()
    def drive_sound(self):
        if hasattr(self, "fs"):
            self.fs.dev.drive.check_invariants()
            for ino, size in self.sizes.items():
                assert self.fs.inodes[ino].size == size

    def teardown(self):
        if hasattr(self, "fs"):
            settle(self.fs)
            assert fsverify.verify(self.fs) == []


TestFsMachine = FsMachine.TestCase
TestFsMachine.settings = settings(max_examples=120, stateful_step_count=40, deadline=None,
                                  suppress_health_check=[HealthCheck.too_slow])


# --- accounting -----------------------------------------------------------------------------


def _small_tree(fs: FileSystem, files: int = 60) -> None:
    d = fs.mkdir(ROOT_INO, "src")
    for i in range(files):
        fs.create(d, f"f{i}.c", 3000 + 97 * i)
    for i in range(0, files, 3):
        fs.write(fs.lookup(d, f"f{i}.c"), 100, 200)
    for i in range(0, files, 4):
        fs.unlink(d, f"f{i}.c")


def test_journal_writes_more_than_no_journal():
    written = {}
    for journal in (True, False):
        fs = make_fs(journal=journal)
        base = fs.count.copy()
        _small_tree(fs)
        settle(fs)
        assert fsverify.verify(fs) == []
        written[journal] = fs.count.written_blocks - base.written_blocks
        if journal:
            assert fs.count.journal_blocks - base.journal_blocks > 0
        else:
            assert fs.count.journal_blocks == 0 and fs.count.commits == 0
        assert fs.count.data_blocks - base.data_blocks > 0
    assert written[True] > written[False]


def test_metadata_block_journaled_once_per_commit():
    fs = make_fs(journal=True)
    ino = fs.create(ROOT_INO, "f", 8 * KIB)
    settle(fs)
    for _ in range(2):
        before = fs.count.copy()
        for i in range(200):  # the same inode block, dirtied 200 times
            fs.write(ino, (i % 2) * 4096, 100)
        assert fs.tx is not None and fs.tx.metadata == {fs.layout.inode_block(ino)}
        fs.commit()
        # one descriptor, the inode block once, one commit block
        assert fs.count.journal_blocks - before.journal_blocks == 3
        assert fs.count.commits - before.commits == 1
        settle(fs)
        assert fsverify.verify(fs) == []


def _trims(fs: FileSystem) -> int:
    return fs.dev.drive.counters()["trims"]


def _file_pages(fs: FileSystem, ino: int) -> list[int]:
    page = fs.dev.page_bytes
    base = fs.dev.partition.offset_bytes
    return [p for s, ln in fs.inodes[ino].extents
            for p in range(-(-(base + s * 4096) // page), (base + (s + ln) * 4096) // page)]


def test_discard_waits_for_the_commit_in_journal_mode():
    fs = make_fs(journal=True, discard=True)
    ino = fs.create(ROOT_INO, "big", MIB)
    settle(fs)
    pages = _file_pages(fs, ino)
    drive = fs.dev.drive
    assert all(drive.version_of(p) is not None for p in pages)
    before_req, before_cmds = fs.count.discard_requests, _trims(fs)
    fs.unlink(ROOT_INO, "big")
    fs.dev.submit()
    assert fs.count.discard_requests == before_req and _trims(fs) == before_cmds
    assert all(drive.version_of(p) is not None for p in pages)
    fs.advance(fs.now + fs.opt.commit_interval_s + 0.1)  # the commit timer fires
    fs.dev.submit()
    assert fs.count.discard_requests > before_req and _trims(fs) > before_cmds
    assert fs.count.discard_blocks >= 256
    assert all(drive.version_of(p) is None for p in pages)
    settle(fs)
    assert fsverify.verify(fs) == []


def test_discard_is_immediate_without_journal():
    fs = make_fs(journal=False, discard=True)
    ino = fs.create(ROOT_INO, "big", MIB)
    settle(fs)
    pages = _file_pages(fs, ino)
    before = _trims(fs)
    fs.unlink(ROOT_INO, "big")
    fs.dev.submit()
    assert fs.count.discard_requests >= 1 and _trims(fs) > before
    assert all(fs.dev.drive.version_of(p) is None for p in pages)


def test_no_discard_never_trims():
    fs = make_fs(journal=True, discard=False)
    fs.create(ROOT_INO, "big", MIB)
    settle(fs)
    fs.unlink(ROOT_INO, "big")
    settle(fs)
    assert fs.count.discard_requests == 0 and _trims(fs) == 0


@pytest.mark.parametrize("start", [2048, 63])
def test_fstrim_trims_free_space_once(start):
    fs = make_fs(start_sector=start)
    _small_tree(fs)
    fs.create(ROOT_INO, "big", MIB)
    settle(fs)
    fs.unlink(ROOT_INO, "big")
    settle(fs)
    trimmed = fs.fstrim()
    settle(fs)
    assert trimmed == fs.alloc.free_blocks
    assert fsverify.verify_after_fstrim(fs) == []
    assert fsverify.verify(fs) == []
    requests, cmds = fs.count.discard_requests, _trims(fs)
    assert fs.fstrim() == 0
    fs.dev.submit()
    assert fs.count.discard_requests == requests and _trims(fs) == cmds
    # Something freed in one group: the next fstrim trims that group again, not the others.
    d = fs.lookup(ROOT_INO, "src")
    fs.unlink(d, "f1.c")
    settle(fs)
    again = fs.fstrim()
    settle(fs)
    assert 0 < again < trimmed
    assert fsverify.verify_after_fstrim(fs) == []


def _reads_dirty(fs: FileSystem, ino: int) -> bool:
    """Read the file in a fresh transaction; did it dirty anything?"""
    fs.commit()
    assert fs.tx is None
    fs.read(ino)
    return fs.tx is not None and fs.layout.inode_block(ino) in fs.tx.metadata


def test_noatime_reads_dirty_nothing():
    fs = make_fs(atime="noatime")
    ino = fs.create(ROOT_INO, "f", 10 * KIB)
    settle(fs)
    for t in (1.0, 2.0, DAY_S * 2):
        fs.advance(t)
        assert not _reads_dirty(fs, ino)
        assert fs.readdir(ROOT_INO) == ["f"] and fs.tx is None


def test_strict_atime_dirties_every_read():
    fs = make_fs(atime="strict")
    ino = fs.create(ROOT_INO, "f", 10 * KIB)
    settle(fs)
    tids = []
    for t in (1.0, 2.0, 3.0):
        fs.advance(t)
        assert _reads_dirty(fs, ino)
        tids.append(fs.tx.tid)
        assert fs.inodes[ino].atime == t
    assert len(set(tids)) == 3
    before = fs.count.journal_blocks
    fs.commit()
    assert fs.count.journal_blocks - before == 3  # descriptor, inode block, commit


def test_relatime_dirties_only_when_atime_not_after_mtime():
    fs = make_fs(atime="relatime")
    ino = fs.create(ROOT_INO, "f", 10 * KIB)
    settle(fs)
    fs.advance(1.0)
    assert _reads_dirty(fs, ino)  # atime == mtime at creation
    fs.advance(2.0)
    assert not _reads_dirty(fs, ino)  # atime (1) > mtime (0)
    fs.advance(3.0)
    fs.write(ino, 0, 10)  # mtime = 3 >= atime
    settle(fs)
    fs.advance(4.0)
    assert _reads_dirty(fs, ino)
    fs.advance(5.0)
    assert not _reads_dirty(fs, ino)
    fs.advance(4.0 + DAY_S)  # once a day regardless
    assert _reads_dirty(fs, ino)


def test_delayed_allocation_create_then_delete_writes_no_data():
    for journal in (True, False):
        fs = make_fs(journal=journal)
        settle(fs)
        before = fs.count.copy()
        free = fs.alloc.free_blocks
        ino = fs.create(ROOT_INO, "tmp", 64 * KIB)
        assert fs.inodes[ino].extents == [] and fs.inodes[ino].pending_blocks == 16
        fs.advance(fs.wb.expire_s / 2)
        fs.unlink(ROOT_INO, "tmp")
        settle(fs)
        assert fs.count.data_blocks == before.data_blocks
        assert fs.dirty_bytes == 0
        assert fs.alloc.free_blocks == free
        assert fsverify.verify(fs) == []


def test_writeback_after_expiry_writes_data():
    fs = make_fs()
    settle(fs)
    before = fs.count.data_blocks
    fs.create(ROOT_INO, "f", 64 * KIB)
    fs.advance(fs.wb.expire_s + 2 * fs.wb.interval_s)
    fs.dev.submit()
    assert fs.count.data_blocks - before == 16 and fs.dirty_bytes == 0


def test_no_journal_no_discard_counts_match_device():
    """What the file system says it wrote is what reached the block device."""
    fs = make_fs(journal=False)
    settle(fs)
    fs.dev.submit()
    before = fs.count.written_blocks
    _small_tree(fs)
    fs.sync()
    stats = fs.dev.submit()
    assert stats.write_bytes == (fs.count.written_blocks - before) * 4096


def test_verify_is_quick_on_many_files():
    fs = make_fs()
    rng = np.random.default_rng(3)
    d = fs.mkdir(ROOT_INO, "d")
    for i, size in enumerate(rng.integers(0, 40 * KIB, 800).tolist()):
        fs.create(d, f"f{i}", int(size))
    settle(fs)
    assert fsverify.verify(fs) == []
    assert fs.fstrim() > 0
    settle(fs)
    assert fsverify.verify_after_fstrim(fs) == []

