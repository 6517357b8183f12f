"""The journal's rules, one test each, exact values: what a commit writes (descriptor blocks,
metadata blocks, revoke block, commit block), where in the circular area, when it wraps, and
when a checkpoint is forced; and how the file system uses them."""

from __future__ import annotations

import pytest

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.filesystem import ROOT_INO, FileSystem, FsOptions
from ssdlab.model.host.journal import TAGS_PER_BLOCK, Journal, Transaction
from ssdlab.model.host.partition import Partition


def _tx(metadata=(), freed=(), revoked=0) -> Transaction:
    return Transaction(1, 0.0, set(metadata), list(freed), revoked)


def test_tags_per_block_is_jbd2_v2_with_64_bit_tags():
    assert TAGS_PER_BLOCK == (4096 - 12) // 16 == 255


@pytest.mark.parametrize("n, descriptors", [(1, 1), (255, 1), (256, 2), (510, 2), (511, 3)])
def test_one_descriptor_per_tags_per_block_metadata_blocks(n, descriptors):
    j = Journal(start=1000, blocks=2000)
    w = j.commit(_tx(metadata=range(n)))
    assert w.journal_blocks == descriptors + n + 1
    assert w.runs == [(1001, descriptors + n)]  # block 0 of the area is the superblock
    assert w.commit_block == 1001 + descriptors + n


def test_revoke_block_only_when_metadata_was_freed():
    j = Journal(start=0, blocks=100)
    assert j.commit(_tx(metadata=[5, 6], freed=[(40, 3)])).journal_blocks == 1 + 2 + 1
    w = j.commit(_tx(metadata=[5, 6], freed=[(40, 3)], revoked=3))
    assert w.journal_blocks == 1 + 2 + 1 + 1  # one revoke block, however many revoked
    assert w.runs == [(5, 4)] and w.commit_block == 9


def test_a_transaction_that_only_freed_metadata_writes_revoke_and_commit():
    j = Journal(start=0, blocks=100)
    w = j.commit(_tx(freed=[(40, 1)], revoked=1))
    assert (w.runs, w.commit_block, w.journal_blocks) == ([(1, 1)], 2, 2)


def test_commits_follow_each_other_and_wrap_past_the_superblock():
    j = Journal(start=500, blocks=10)
    first = j.commit(_tx(metadata=[1, 2, 3]))  # journal blocks 1..4, commit at 5
    assert (first.runs, first.commit_block) == ([(501, 4)], 505)
    second = j.commit(_tx(metadata=[7, 8]))  # blocks 6..8, commit at 9
    assert (second.runs, second.commit_block) == ([(506, 3)], 509)
    third = j.commit(_tx(metadata=[9, 10, 11]))  # wraps to 1, never onto block 0
    assert (third.runs, third.commit_block) == ([(501, 4)], 505)
    fourth = j.commit(_tx(metadata=range(5)))  # 6 body blocks: 6..9, then 1..2
    assert (fourth.runs, fourth.commit_block) == ([(506, 4), (501, 2)], 503)
    assert j.head == 4


def test_checkpoint_threshold_is_three_quarters_of_the_area():
    j = Journal(start=0, blocks=40)  # threshold 30 blocks
    j.commit(_tx(metadata=range(26)))  # 1 + 26 + 1 = 28
    assert j.used_since_checkpoint == 28 and not j.needs_checkpoint
    j.commit(_tx(freed=[(0, 1)], revoked=1))  # + 2 = 30
    assert j.used_since_checkpoint == 30 and j.needs_checkpoint
    j.checkpointed()
    assert j.used_since_checkpoint == 0 and not j.needs_checkpoint


def test_journal_too_small_is_refused():
    with pytest.raises(ValueError, match="at least 8 blocks; got 7"):
        Journal(0, 7)
    Journal(0, 8)


# --- how the file system drives the journal ---------------------------------------------------


def _fs(journal_blocks: int = 64, **options) -> FileSystem:
    drive = Drive(Geometry(user_pages=4096, pages_per_block=32, spare=0.1), FtlConfig())
    dev = BlockDevice(drive, Partition(2048))
    fs = FileSystem(dev, FsOptions(blocks_per_group=1024, inodes_per_group=128,
                                   journal_blocks=journal_blocks, **options))
    dev.submit()
    return fs


def test_commit_writes_body_flush_commit_block_flush():
    fs = _fs()
    ino = fs.create(ROOT_INO, "f")
    fs.sync()
    fs.dev.submit()
    fs.write(ino, 0, 10)  # dirties the inode block only
    (meta,) = fs.tx.metadata
    head = fs.journal.head
    before = fs.count.copy()
    writes = []
    real_write = fs.dev.write
    fs.dev.write = lambda offset, length: (writes.append((offset, length)),
                                           real_write(offset, length))
    fs.commit()
    stats = fs.dev.submit()
    start = fs.journal.start
    assert writes == [((start + head) * 4096, 2 * 4096), ((start + head + 2) * 4096, 4096)]
    # descriptor + inode block in one request, then the commit block alone, each flushed
    assert (stats.write_requests, stats.write_bytes, stats.flush_requests) == (2, 3 * 4096, 2)
    assert fs.count.journal_blocks - before.journal_blocks == 3
    assert fs.count.commits - before.commits == 1
    assert fs.count.flushes - before.flushes == 2
    assert fs.journal.head == head + 3
    assert fs.home_dirty == {meta}  # the home write waits for a checkpoint


def test_freeing_a_directory_journals_a_revoke_block():
    fs = _fs()
    fs.mkdir(ROOT_INO, "d")
    fs.sync()
    fs.rmdir(ROOT_INO, "d")
    assert fs.tx.revoked == 1
    n = len(fs.tx.metadata)
    before = fs.count.journal_blocks
    fs.commit()
    assert fs.count.journal_blocks - before == 1 + n + 1 + 1


def test_deleting_a_file_journals_no_revoke_block():
    fs = _fs()
    fs.create(ROOT_INO, "f", 64 * 1024)
    fs.sync()
    fs.unlink(ROOT_INO, "f")
    assert fs.tx.revoked == 0 and fs.tx.freed
    n = len(fs.tx.metadata)
    before = fs.count.journal_blocks
    fs.commit()
    assert fs.count.journal_blocks - before == 1 + n + 1


def test_commit_forces_a_checkpoint_when_the_journal_is_three_quarters_used():
    fs = _fs(journal_blocks=16)  # threshold 12 blocks
    inos = [fs.create(ROOT_INO, f"f{i}") for i in range(3)]
    fs.sync()
    fs.dev.submit()
    used = fs.journal.used_since_checkpoint
    assert used == 0  # sync checkpoints
    commits = 0
    while True:
        fs.write(inos[commits % 3], 0, 10)
        fs.commit()
        commits += 1
        if fs.journal.used_since_checkpoint == 0:
            break
        assert fs.home_dirty, "home writes wait until the checkpoint"
    # each commit writes 3 blocks (descriptor, inode block, commit): 4 commits reach 12
    assert commits == 4
    assert not fs.home_dirty
    assert fs.dev.submit().write_requests >= 1


def test_commit_timer_fires_commit_interval_after_the_transaction_starts():
    fs = _fs(commit_interval_s=5.0)
    fs.advance(1.0)
    fs.create(ROOT_INO, "f")  # the transaction starts at 1.0
    fs.advance(5.9)
    assert fs.tx is not None and fs.count.commits == 0
    fs.advance(6.0)
    assert fs.tx is None and fs.count.commits == 1


def test_revoked_counts_every_metadata_block_freed_in_the_transaction():
    fs = _fs()
    for name in ("d1", "d2", "d3"):
        fs.mkdir(ROOT_INO, name)
    fs.sync()
    fs.rmdir(ROOT_INO, "d1")
    fs.rmdir(ROOT_INO, "d2")
    assert fs.tx.revoked == 2
    fs.rmdir(ROOT_INO, "d3")
    assert fs.tx.revoked == 3


def test_a_freed_metadata_block_is_neither_journaled_nor_written_home():
    """A directory block freed before its home write (or in the transaction that dirtied
    it) must leave both queues: written later, it would land on whatever file gets the
    block next."""
    fs = _fs()
    d = fs.mkdir(ROOT_INO, "d")
    fs.create(d, "f")
    fs.commit()  # the directory block now waits for its home write
    (dblock, _), = fs.inodes[d].extents
    assert dblock in fs.home_dirty
    other = fs.mkdir(ROOT_INO, "e")
    fs.create(other, "g")  # dirtied again in the running transaction, next to d's
    fs.unlink(d, "f")
    assert dblock in fs.tx.metadata
    home = set(fs.home_dirty)
    fs.rmdir(ROOT_INO, "d")
    assert dblock not in fs.home_dirty and dblock not in fs.tx.metadata
    assert home - {dblock} <= fs.home_dirty  # blocks below it stay queued
    (rootblock, _), = fs.inodes[ROOT_INO].extents
    assert rootblock < dblock and rootblock in fs.tx.metadata
    (eblock, _), = fs.inodes[other].extents
    assert eblock in fs.tx.metadata  # only the freed block leaves
    assert fs.layout.inode_block(d) in fs.tx.metadata  # (a block below it stays too)
    n = len(fs.tx.metadata)
    before = fs.count.journal_blocks
    fs.commit()
    assert fs.count.journal_blocks - before == 1 + n + 1 + 1
    assert dblock not in fs.home_dirty and eblock in fs.home_dirty


def test_freeing_file_data_leaves_metadata_queues_alone():
    fs = _fs()
    f = fs.create(ROOT_INO, "f", 64 * 1024)
    fs.sync()
    fs.write(f, 0, 10)
    fs.commit()
    home = set(fs.home_dirty)
    fs.unlink(ROOT_INO, "f")
    assert home <= fs.home_dirty
