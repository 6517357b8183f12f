"""Nothing lost on a nearly full file system: where blocks are reused, GC runs and the
journal wraps.

The state machine here drives a SMALL ext4-like file system (a dozen 1 MiB block groups, a
24-block journal) on a SMALL drive (page-, block- or hybrid-mapped, aligned or at the old
DOS sector 63, 4 or 8 KiB pages) and keeps it more than 90 % full. That is where the host
layer's dangerous rules live: a block freed in a transaction is given to a new file before
the transaction commits, so `discard` at commit must skip it; the drive runs out of clean
erase blocks, so GC moves live pages; the journal wraps and forces checkpoints; fstrim walks
groups in which scattered files were freed.

Checked all the time (a spy on the block device): no TRIM ever covers a block the file
system has marked used. Checked after every sync: every live file's blocks read back, through
partition and FTL, the version last written there (ssdlab.model.host.fsverify). Checked at every
fstrim: exactly the free blocks of the groups ext4 would walk are trimmed, and afterwards
every wholly free drive page is unmapped.

The run counts what it reached (GC victims, blocks reallocated inside one transaction, forced
checkpoints, journal wraps, fstrims after frees in several groups, peak fill), prints the
counts and asserts minimums, so a later change cannot quietly narrow what the property
reaches. A planted bug (discard without the still-free check) must make the property fail.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host import fsverify
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.filesystem import ROOT_INO, FileSystem, FsOptions
from ssdlab.model.host.partition import Partition

BLOCK = 4096
FS_BYTES = 12 * 2**20  # the drive's user capacity: about 3,000 file-system blocks
JOURNAL_BLOCKS = 24  # small, so it wraps and forces checkpoints every few commits
ENOSPC = 28

# What the runs reached, summed over every example of one run_state_machine_as_test call.
COVERAGE: Counter = Counter()


def _blocks_of(inode) -> list[tuple[int, int]]:
    return [tuple(e) for e in inode.extents] + [(b, 1) for b in inode.map_blocks]


class NearlyFullFs(RuleBasedStateMachine):
    """File operations on a small file system kept past 90 % full."""

    @initialize(mapping=st.sampled_from(["page", "block", "fast"]),
                start=st.sampled_from([2048, 63]),
                page_bytes=st.sampled_from([4096, 8192]),
                ppb=st.sampled_from([16, 32]),
                discard=st.booleans(),
                kernel=st.sampled_from(["2.6.39", "modern"]))
    def setup(self, mapping, start, page_bytes, ppb, discard, kernel):
        geometry = Geometry(user_pages=FS_BYTES // page_bytes, pages_per_block=ppb,
                            spare=0.1, page_bytes=page_bytes)
        drive = Drive(geometry, FtlConfig(mapping=mapping, track_versions=True))
        dev = BlockDevice(drive, Partition(start), track_versions=True)
        opts = FsOptions(blocks_per_group=256, inodes_per_group=64, discard=discard,
                         kernel=kernel, journal_blocks=JOURNAL_BLOCKS)
        self.fs = fs = FileSystem(dev, opts)
        # a drive that takes time per TRIM: the modern worker's queue outlives the commit
        fs.discard_request_s = lambda n: 1e-3
        dev.submit()
        self.now = 0.0
        self.files: dict[int, tuple[int, str]] = {}  # ino -> (parent, name)
        self.sizes: dict[int, int] = {}
        self.dirs: dict[int, tuple[int, str]] = {ROOT_INO: (ROOT_INO, "")}
        self.serial = 0
        self.peak_fill = 0.0  # largest fraction of blocks marked used
        # groups in which the test freed blocks since the last fstrim; None: never trimmed
        self.freed_groups: set[int] | None = None
        self._spy_trims(fs)
        self._count_commits(fs)
        COVERAGE["examples"] += 1

    # --- spies: what the file system sends, checked and counted as it happens --------------

    def _spy_trims(self, fs: FileSystem) -> None:
        """Every TRIM must cover only blocks the file system has marked free."""
        dev, real_trim = fs.dev, fs.dev.trim
        self.trimmed: list[tuple[int, int]] = []  # (first block, blocks) since last fstrim

        def trim(offset: int, length: int) -> None:
            first, end = offset // BLOCK, -(-(offset + length) // BLOCK)
            used = np.flatnonzero(fs.alloc.used[first:end])
            assert used.size == 0, (f"TRIM of blocks {first}..{end - 1} covers block "
                                    f"{first + int(used[0])}, which is in use")
            self.trimmed.append((first, end - first))
            real_trim(offset, length)

        dev.trim = trim

    def _count_commits(self, fs: FileSystem) -> None:
        real_commit, journal = fs.commit, fs.journal

        def commit() -> None:
            tx = fs.tx
            if tx is not None and tx.freed:
                again = sum(int(fs.alloc.used[s:s + ln].sum()) for s, ln in tx.freed)
                COVERAGE["blocks reallocated inside a transaction"] += again
                if again and fs.opt.discard:
                    COVERAGE["discard commits with reallocated blocks"] += 1
            head, used = journal.head, journal.used_since_checkpoint
            real_commit()
            if journal.head <= head and journal.used_since_checkpoint != used:
                COVERAGE["journal wraps"] += 1
            if used and journal.used_since_checkpoint == 0 and fs.tx is None:
                COVERAGE["forced checkpoints"] += 1

        fs.commit = commit

    # --- helpers ----------------------------------------------------------------------------

    def _name(self) -> str:
        self.serial += 1
        return f"n{self.serial:04d}"

    def _room_blocks(self) -> int:
        return self.fs.alloc.free_blocks - self.fs.reserved_blocks

    def _after(self) -> None:
        fs = self.fs
        if fs.discard_queue:  # modern discard: the worker runs after the commit
            COVERAGE["modern discard batches"] += 1
            fs.issue_queued_discards()
        fs.dev.submit()
        self.peak_fill = max(self.peak_fill, float(fs.alloc.used.mean()))

    def _note_freed(self, extents) -> None:
        if self.freed_groups is not None:
            bpg = self.fs.layout.blocks_per_group
            for s, ln in extents:
                self.freed_groups.update(range(s // bpg, (s + ln - 1) // bpg + 1))

    def _write(self, ino: int, offset: int, length: int) -> None:
        """Write, or get ENOSPC with nothing changed."""
        f = self.fs.inodes[ino]
        before = (f.size, f.pending_blocks, self.fs.reserved_blocks)
        try:
            self.fs.write(ino, offset, length)
        except OSError as e:
            assert e.errno == ENOSPC
            assert (f.size, f.pending_blocks, self.fs.reserved_blocks) == before
            COVERAGE["ENOSPC refused"] += 1
            return
        self.sizes[ino] = max(self.sizes[ino], offset + length)

    def _create(self, parent: int, size: int) -> None:
        name = self._name()
        try:
            ino = self.fs.create(parent, name)
        except OSError as e:  # no inode or no directory block left
            assert e.errno == ENOSPC
            return
        self.files[ino] = (parent, name)
        self.sizes[ino] = 0
        if size:
            self._write(ino, 0, size)

    def _delete(self, ino: int) -> None:
        parent, name = self.files.pop(ino)
        del self.sizes[ino]
        self._note_freed(_blocks_of(self.fs.inodes[ino]))
        self.fs.unlink(parent, name)

    # --- rules ------------------------------------------------------------------------------

    @rule(data=st.data(), size=st.one_of(st.integers(1, 16 * 1024), st.integers(1, 256 * 1024)))
    def create(self, data, size):
        self._create(data.draw(st.sampled_from(sorted(self.dirs))), size)
        self._after()

    @rule(share=st.floats(0.5, 1.0))
    def fill(self, share):
        """One file taking `share` of the room left: the fill goes past 90 %."""
        room = self._room_blocks() - 4  # a few blocks for its inode's group and extents
        if room > 0:
            self._create(ROOT_INO, max(1, int(room * share)) * BLOCK)
        self._after()

    @precondition(lambda self: self.files)
    @rule(data=st.data(), length=st.integers(1, 96 * 1024))
    def overwrite(self, data, length):
        ino = data.draw(st.sampled_from(sorted(self.files)))
        offset = data.draw(st.integers(0, self.sizes[ino]))
        self._write(ino, offset, length)
        self._after()

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def delete(self, data):
        self._delete(data.draw(st.sampled_from(sorted(self.files))))
        self._after()

    @precondition(lambda self: len(self.files) >= 3)
    @rule(step=st.integers(2, 4), first=st.integers(0, 3))
    def delete_scattered(self, step, first):
        """Every step-th file: frees land in many groups."""
        for ino in sorted(self.files)[first::step]:
            self._delete(ino)
        self._after()

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def truncate(self, data):
        ino = data.draw(st.sampled_from(sorted(self.files)))
        self._note_freed(_blocks_of(self.fs.inodes[ino]))
        self.fs.truncate(ino)
        self.sizes[ino] = 0
        self._after()

    @rule(data=st.data())
    def mkdir(self, data):
        parent = data.draw(st.sampled_from(sorted(self.dirs)))
        name = self._name()
        try:
            self.dirs[self.fs.mkdir(parent, name)] = (parent, name)
        except OSError as e:
            assert e.errno == ENOSPC
        self._after()

    @precondition(lambda self: any(not self.fs.inodes[d].entries
                                   for d in self.dirs if d != ROOT_INO))
    @rule(data=st.data())
    def rmdir(self, data):
        empty = sorted(d for d in self.dirs if d != ROOT_INO and not self.fs.inodes[d].entries)
        ino = data.draw(st.sampled_from(empty))
        parent, name = self.dirs.pop(ino)
        self._note_freed(_blocks_of(self.fs.inodes[ino]))
        self.fs.rmdir(parent, name)
        self._after()

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def fsync(self, data):
        """Write one file back and commit: blocks freed earlier in the transaction are
        reallocated to it before the commit that frees them."""
        self.fs.fsync(data.draw(st.sampled_from(sorted(self.files))))
        self._after()

    @rule(dt=st.sampled_from([0.5, 3.0, 5.5, 31.0]))
    def advance(self, dt):
        self.now += dt
        self.fs.advance(self.now)
        self._after()

    @rule()
    def sync(self):
        self.fs.sync()
        self._after()
        assert fsverify.verify(self.fs) == []

    @rule()
    def fstrim(self):
        fs = self.fs
        layout = fs.layout
        must = set(range(layout.groups)) if self.freed_groups is None else self.freed_groups
        if len(must) >= 3 and self.freed_groups is not None:
            COVERAGE["fstrims after frees in 3+ groups"] += 1
        free_now = ~fs.alloc.used.copy()
        self.trimmed.clear()
        returned = fs.fstrim()
        trimmed = np.zeros(layout.total_blocks, dtype=bool)
        for s, ln in self.trimmed:
            assert not trimmed[s:s + ln].any(), f"blocks {s}+{ln} trimmed twice by one fstrim"
            trimmed[s:s + ln] = True
        assert returned == int(trimmed.sum())
        bpg = layout.blocks_per_group
        for g in range(layout.groups):
            lo, hi = g * bpg, min((g + 1) * bpg, layout.total_blocks)
            got = trimmed[lo:hi]
            if g in must:  # freed since its last trim: every free block is trimmed
                assert (got == free_now[lo:hi]).all(), f"group {g}: fstrim missed free blocks"
            else:  # otherwise ext4 skips it, or (after an allocation) trims its free space
                assert not got.any() or (got == free_now[lo:hi]).all(), f"group {g}"
        self.freed_groups = set()
        fs.sync()
        self._after()
        assert fsverify.verify_after_fstrim(fs) == []
        assert fsverify.verify(fs) == []

    @invariant()
    def sound(self):
        if hasattr(self, "fs"):
            self.fs.dev.drive.check_invariants()
            for ino, size in self.sizes.items():
                assert self.fs.inodes[ino].size == size

    def teardown(self):
        if hasattr(self, "fs"):
            fs = self.fs
            fs.sync()
            fs.dev.submit()
            assert fsverify.verify(fs) == []
            counters = fs.dev.drive.counters()
            COVERAGE["GC victims (erases)"] += counters["erases"]
            COVERAGE["examples with GC copies"] += counters["gc_copies"] > 0
            COVERAGE["examples past 90 % full"] += self.peak_fill > 0.9


# The minimums the default run must reach: about half of what it reaches today. The run is
# derandomized and, with the source constants held out (the fixture below), the same in any
# test order: examples 120, past 90 % full 42, GC erases 13,173, examples with GC copies 41,
# reallocations 20,325, discard commits with reallocated blocks 13, modern discard batches
# 48, forced checkpoints 417, journal wraps 629, fstrims after frees in 3+ groups 90 (modern
# writeback now commits an over-full transaction before allocating, as jbd2 does at handle
# start, so fewer blocks are reused inside one). Lowering one means the property has
# stopped testing something.
MINIMUMS = {
    "examples": 100,
    "examples past 90 % full": 20,
    "GC victims (erases)": 6000,
    "examples with GC copies": 20,
    "blocks reallocated inside a transaction": 10000,
    "discard commits with reallocated blocks": 6,
    "modern discard batches": 24,
    "forced checkpoints": 200,
    "journal wraps": 300,
    "fstrims after frees in 3+ groups": 45,
}

RUN_SETTINGS = settings(max_examples=100, stateful_step_count=80, deadline=None,
                        derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.too_slow,
                                               HealthCheck.filter_too_much])


@pytest.fixture
def without_source_constants(monkeypatch):
    """Hypothesis (6.170 here) now and then draws a constant it found in the source of
    every project module loaded so far, so what this derandomized run generates, and the
    coverage it reaches, moved with what other tests had imported (reallocations 66,722 run
    alone, 14,546 with ssdlab.model.flash.theory imported first, 6,040 once in a full suite).
    Without those constants the run is the same in any order; a future Hypothesis that drops
    this hook fails here by name rather than drifting quietly."""
    monkeypatch.setattr(providers, "_get_local_constants", lambda: Constants())
    providers.CONSTANTS_CACHE.cache.clear()  # choices already computed from the constants
    yield
    providers.CONSTANTS_CACHE.cache.clear()


def test_nothing_lost_on_a_nearly_full_fs(capsys, without_source_constants):
    COVERAGE.clear()
    run_state_machine_as_test(NearlyFullFs, settings=RUN_SETTINGS)
    with capsys.disabled():
        print("\nnearly-full fs property reached: "
              + ", ".join(f"{k} {v}" for k, v in sorted(COVERAGE.items())))
    short = {k: (COVERAGE[k], m) for k, m in MINIMUMS.items() if COVERAGE[k] < m}
    assert not short, f"coverage below the minimum (reached, minimum): {short}"


def _small_fs(discard: bool = True) -> FileSystem:
    drive = Drive(Geometry(user_pages=FS_BYTES // BLOCK, pages_per_block=16, spare=0.1),
                  FtlConfig(track_versions=True))
    dev = BlockDevice(drive, Partition(2048), track_versions=True)
    fs = FileSystem(dev, FsOptions(blocks_per_group=256, inodes_per_group=64,
                                   discard=discard, journal_blocks=JOURNAL_BLOCKS))
    dev.submit()
    return fs


def test_small_file_stream_leaves_reserved_space_alone():
    """Found by the property: a 1-byte file's writeback took a 512-block stream chunk out of
    space already promised to a big file's delayed allocation, and the big file's writeback
    then failed with ENOSPC (679 blocks wanted, 172 free)."""
    fs = _small_fs()
    fs.create(ROOT_INO, "a", (fs.alloc.free_blocks // 2) * BLOCK)
    fs.create(ROOT_INO, "b", ((fs.alloc.free_blocks - fs.reserved_blocks) // 2) * BLOCK)
    fs.create(ROOT_INO, "small", 1)
    fs.create(ROOT_INO, "c", (fs.alloc.free_blocks - fs.reserved_blocks - 4) * BLOCK)
    fs.sync()
    fs.dev.submit()
    assert fsverify.verify(fs) == []
    assert fs.alloc.free_blocks <= 4


def _plant_discard_without_still_free_check(monkeypatch) -> None:
    """The data-loss bug of issue 14: commit trims every extent the transaction freed, even
    blocks a new file was given before the commit. Planted by making the commit's
    still-free check see the whole freed extent as free."""
    real_commit = FileSystem.commit

    def commit(self):
        def all_free(lo, hi=None):
            return np.array([lo], np.int64), np.array([hi - lo], np.int64)

        self.alloc.free_runs = all_free
        try:
            real_commit(self)
        finally:
            del self.alloc.free_runs

    monkeypatch.setattr(FileSystem, "commit", commit)


def test_reused_block_discard_is_caught_directly():
    """The shrunk failing case of the planted bug, step by step: a freed extent partly
    reused by a small file before the commit must not be trimmed."""
    fs = _small_fs()
    fs.create(ROOT_INO, "big", (fs.alloc.free_blocks - 8) * BLOCK)
    fs.sync()
    fs.create(ROOT_INO, "small", 1)
    fs.unlink(ROOT_INO, "big")
    fs.sync()  # writeback gives "small" a block "big" freed; then the commit discards
    fs.dev.submit()
    assert fsverify.verify(fs) == []
    small = fs.inodes[fs.lookup(ROOT_INO, "small")]
    assert small.extents, "the small file was written back"


def test_reused_block_discard_fails_the_unit_case(monkeypatch):
    _plant_discard_without_still_free_check(monkeypatch)
    fs = _small_fs()
    fs.create(ROOT_INO, "big", (fs.alloc.free_blocks - 8) * BLOCK)
    fs.sync()
    fs.create(ROOT_INO, "small", 1)
    fs.unlink(ROOT_INO, "big")
    fs.sync()
    fs.dev.submit()
    assert any("unmapped" in p for p in fsverify.verify(fs))


def test_planted_discard_bug_fails_the_property(monkeypatch, without_source_constants):
    """The property is not vacuous: with the still-free check planted away it fails (no
    shrinking here, only the first failure is needed). Without the source constants held
    out, what it generated moved with the modules other tests had loaded, and once in a
    full suite it generated no failing case."""
    _plant_discard_without_still_free_check(monkeypatch)
    with pytest.raises(AssertionError, match="which is in use|unmapped"):
        run_state_machine_as_test(NearlyFullFs, settings=settings(
            RUN_SETTINGS, phases=[Phase.generate], report_multiple_bugs=False))
