"""Writeback thresholds from the host's RAM, early journal commits, and modern discard, on
small file systems (ssdlab/model/host/writeback.py, journal.py, discard.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.host.discard import freed_entries, merge_extents, modern_runs
from ssdlab.model.host.ext4layout import BlockAllocator, Layout
from ssdlab.model.host.fstypes import FsOptions
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_host_profile, load_profile
from ssdlab.model.host.writeback import GIB, WritebackLimits

MIB = 2**20


def machine(ram_gib: float = 4.0, kernel: str = "2.6.39", discard: bool = False,
            user_mib: int = 512) -> Machine:
    profile = load_profile("intel_x25m_g1_80")  # 512 KiB erase blocks: small drives build
    host = replace(load_host_profile("phenom2_x4_965"), ram_gib=ram_gib)
    return Machine(profile, host, FsOptions(discard=discard, kernel=kernel),
                   partition=Partition(0), user_pages=user_mib * MIB // profile.page_bytes)


def test_thresholds_follow_ram():
    small = WritebackLimits.for_host(replace(load_host_profile("phenom2_x4_965"), ram_gib=1))
    big = WritebackLimits.for_host(load_host_profile("recorder_vm"))
    assert small.background_bytes == int(0.10 * 0.9 * GIB)
    assert small.throttle_bytes == int(0.20 * 0.9 * GIB)
    assert big.background_bytes > 2 * GIB  # the recording machine: 24 GiB
    assert WritebackLimits.for_memory(GIB, 30, 20).background_bytes == GIB // 10


def test_limits_refuse_nonsense():
    with pytest.raises(ValueError, match="background_bytes"):
        WritebackLimits(background_bytes=2 * MIB, throttle_bytes=MIB)
    with pytest.raises(ValueError, match="expire_s"):
        WritebackLimits(expire_s=0)


def _data_written_during_writes(ram_gib: float, mb: int) -> int:
    m = machine(ram_gib)
    c0 = m.fs.count.data_blocks
    for i in range(mb):
        ino = m.fs.create(2, f"f{i}", MIB)
        m.cpu(0.001)
        assert ino
    return (m.fs.count.data_blocks - c0) * 4096


def test_small_ram_writes_back_during_the_command_large_ram_does_not():
    assert _data_written_during_writes(64.0, 200) == 0
    small = _data_written_during_writes(1.0, 200)  # background threshold 92 MiB
    assert small >= 200 * MIB - int(0.1 * 0.9 * GIB) - MIB


def test_writer_waits_above_the_throttle():
    """With 0.25 GiB of RAM (throttle 46 MiB) writing 100 MiB in 1 ms of CPU is paced by
    the drive; with 64 GiB it is not."""
    clocks = {}
    for ram in (0.25, 64.0):
        m = machine(ram)
        m.fs.create(2, "big", 100 * MIB)
        m.cpu(0.001)
        clocks[ram] = m.clock
    assert clocks[64.0] == pytest.approx(0.001)
    assert clocks[0.25] > 0.01


def test_large_sync_commits_early_and_journals_again():
    """A transaction commits early: at a quarter of the journal's blocks (2.6.39), or when
    the next handle's credits, plus those reserved for writeback I/O in flight, would pass a
    third (modern; journal.py). So 30,000 small files commit several times in one sync, and
    the inode-table blocks that allocation dirties again after a commit are journaled
    again."""
    got = {}
    for kernel in ("2.6.39", "modern"):
        m = machine(kernel=kernel)  # 512 MiB: a 16 MiB journal of 4,096 blocks
        assert m.fs.journal.blocks == 4096
        limit = m.fs.journal.max_transaction_blocks
        assert limit == (1024 if kernel == "2.6.39" else 1365)
        for i in range(30000):
            m.fs.create(2, f"f{i}", 100)
            m.cpu(1e-5)
        journaled: list[set[int]] = []
        commit = m.fs.journal.commit

        def record(tx, commit=commit, journaled=journaled):
            journaled.append(set(tx.metadata))
            return commit(tx)

        m.fs.journal.commit = record
        m.sync()
        got[kernel] = journaled
    for kernel, txs in got.items():
        assert len(txs) >= 2, kernel
        assert max(map(len, txs)) <= (1024 if kernel == "2.6.39" else 1365), kernel
        # some blocks went through the journal twice
        assert sum(map(len, txs)) > len(set().union(*txs)), kernel
    # modern: while the sync writes back, the credits reserved for the I/O in flight (up to
    # half the maximum) make each transaction commit at about half the size
    assert max(map(len, got["modern"][1:-1])) < 0.55 * 1365


def test_modern_discard_goes_to_the_end_of_the_free_run_after_sync():
    """rm of a file followed by free space: 2.6.39 trims the file, modern the file and the
    free space after it up to the group's end, from a worker the sync does not wait for."""
    out = {}
    for kernel in ("2.6.39", "modern"):
        m = machine(kernel=kernel, discard=True)
        ino = m.fs.create(2, "f", 8 * MIB)
        m.sync()
        (start, _), = m.fs.inodes[ino].extents
        m.fs.unlink(2, "f")
        t0 = m.fs.count.discard_blocks
        m.sync()
        done = m.clock
        out[kernel] = (m.fs.count.discard_blocks - t0, start, m.busy_until > done)
    blocks, start, _ = out["2.6.39"]
    assert blocks == 2048
    blocks, start, later = out["modern"]
    layout = machine().fs.layout
    group_end = layout.group_start(layout.group_of_block(start) + 1)
    assert blocks == group_end - start
    assert later  # still trimming when sync returned


@given(st.lists(st.tuples(st.integers(0, 4000), st.integers(1, 64)), max_size=30))
@settings(max_examples=60, deadline=None)
def test_modern_runs_cover_every_freed_block(frees):
    """Whatever is freed, the modern discards cover every freed block that is free, stay
    inside free space and never cross a block group."""
    layout = Layout(4096, blocks_per_group=1024, inodes_per_group=256)
    alloc = BlockAllocator(layout)
    starts, lengths = alloc.free_runs()
    for s, n in zip(starts.tolist(), lengths.tolist(), strict=True):
        alloc.mark(s, n, True)  # a full file system, then the frees
    extents = []
    for s, n in frees:
        n = min(n, 4096 - s)
        for fs_, fn in zip(*(a.tolist() for a in _used_runs(alloc, s, s + n)), strict=True):
            alloc.mark(fs_, fn, False)
            extents.append((fs_, fn))
    runs = modern_runs(extents, alloc, layout)
    covered = np.zeros(4096, bool)
    for s, n in runs:
        assert not alloc.used[s:s + n].any()
        assert layout.group_of_block(s) == layout.group_of_block(s + n - 1)
        covered[s:s + n] = True
    for s, n in merge_extents(extents):
        assert covered[s:s + n].all()


def _used_runs(alloc: BlockAllocator, lo: int, hi: int):
    """Runs of used blocks in [lo, hi): a block freed already is not freed twice."""
    used = alloc.used[lo:hi].astype(np.int8)
    edges = np.diff(used, prepend=0, append=0)
    starts = np.flatnonzero(edges == 1)
    return starts + lo, np.flatnonzero(edges == -1) - starts


def test_kernel_era_is_checked_and_fixed_at_mkfs():
    with pytest.raises(ValueError, match="kernel must be one of 2.6.39, modern"):
        FsOptions(kernel="3.0")
    m = machine()
    with pytest.raises(ValueError, match="kernel"):
        m.fs.remount(FsOptions(kernel="modern"))


SCENARIO = """version = 1
[drive]
profile = "intel_x25m_g1_80"
user_gib = 0.5
[filesystem]
discard = true
kernel = {kernel}
[[steps]]
do = "write"
mb = 8
[[steps]]
do = "delete"
[[steps]]
do = "sync"
"""


def test_scenario_files_choose_the_kernel_era():
    from ssdlab.model.lab.scenario import (  # noqa: PLC0415 (lab sits above host)
        ScenarioError,
        parse_scenario,
        run_scenario,
        scenario_text,
    )

    old = parse_scenario(SCENARIO.format(kernel='"2.6.39"'))
    new = parse_scenario(SCENARIO.format(kernel='"modern"'))
    assert new.fs.kernel == "modern" and 'kernel = "modern"' in scenario_text(new)
    assert "kernel" not in scenario_text(old)  # the default is not written out
    trimmed = {k: run_scenario(s)[2].trimmed_mb for k, s in (("old", old), ("new", new))}
    assert trimmed["old"] == pytest.approx(8.0, rel=0.01)  # the 8 MB file
    assert trimmed["new"] > trimmed["old"]  # the free run after the file, too
    with pytest.raises(ScenarioError, match=r"7: filesystem.kernel must be one of 2.6.39, modern"):
        parse_scenario(SCENARIO.format(kernel='"4.4"'))


def test_freed_extents_merge_only_with_the_descents_last_node():
    """Linux 6.17+ (discard.py): freed in block order, adjacent extents all merge; freed
    in a scattered order, an extent whose adjacent neighbour is not the last node of its
    tree descent stays a separate entry. Extents of every other block never merge."""
    layout = Layout(262144)
    blocks = list(range(1000, 21000))
    assert freed_entries([(b, 1) for b in blocks], layout) == [(1000, 20000)]
    scattered = sorted(blocks, key=lambda b: (b * 2654435761) % 2**32)
    entries = freed_entries([(b, 1) for b in scattered], layout)
    assert 1 < len(entries) < len(blocks) / 2
    assert sorted(b for s, n in entries for b in range(s, s + n)) == blocks
    gaps = [(b, 1) for b in range(1000, 33000, 2)]
    assert len(freed_entries(gaps, layout)) == len(gaps)


def _slow_trim_machine(user_mib: int = 64) -> Machine:
    """A modern-kernel discard mount on a drive that takes 10 ms per TRIM."""
    profile = replace(load_profile("ocz_vertex_60"), trim_command_us=10_000.0,
                      trim_s_per_gib=0.0)
    return Machine(profile, load_host_profile("phenom2_x4_965"),
                   FsOptions(discard=True, kernel="modern"), partition=Partition(0),
                   user_pages=user_mib * MIB // profile.page_bytes)


def _interleaved_then_delete(m: Machine) -> list[tuple[int, int]]:
    """Files a and b alternating over most of the file system, synced; all a deleted and
    synced: each a leaves a hole between two b's, one discard each. Returns the holes."""
    names = [(f"a{i}", f"b{i}") for i in range(80)]
    for a, b in names:
        for name in (a, b):
            m.fs.create(2, name, 300 * 1024)
    m.sync()
    holes = [e for a, _ in names for e in m.fs.inodes[m.fs.lookup(2, a)].extents]
    for a, _ in names:
        m.fs.unlink(2, a)
    m.sync()
    return holes


@pytest.mark.parametrize("wait_s", [0.0, 5.0])
def test_modern_discard_worker_races_reallocation(wait_s):
    """The worker sends one TRIM at a time at the drive's pace after the commit, while the
    freed blocks are already free: a file written at once takes holes before the worker
    reaches them, and the worker trims around it; given time first, it trims every hole."""
    m = _slow_trim_machine()
    trims = []
    send = m.dev.trim
    m.dev.trim = lambda off, ln: (trims.append((off // 4096, ln // 4096)), send(off, ln))
    holes = _interleaved_then_delete(m)
    hole_blocks = sum(n for _, n in holes)
    if wait_s:
        m.idle(wait_s)
    sent_before = len(trims)
    # all the space outside the holes and half the holes' space: the new file must use holes
    ino = m.fs.create(2, "new", (m.fs.alloc.free_blocks - hole_blocks // 2) * 4096)
    m.fsync(ino)
    new = np.zeros(m.fs.layout.total_blocks, bool)
    for s, n in m.fs.inodes[ino].extents:
        new[s:s + n] = True
    m.idle(10.0)  # the worker finishes its queue
    assert not m.fs.discard_queue
    trimmed = np.zeros_like(new)
    for s, n in trims:
        trimmed[s:s + n] = True
    for s, n in trims[sent_before:]:  # nothing sent after the write touches the new file
        assert not new[s:s + n].any()
    in_holes = np.zeros_like(new)
    for s, n in holes:
        in_holes[s:s + n] = True
    if wait_s:
        assert trimmed[in_holes].all()
        assert sent_before >= len(holes)
    else:
        # the write came before the worker got far: the holes it took were never trimmed
        assert sent_before < len(holes) / 4
        taken = in_holes & new
        assert taken.sum() >= hole_blocks // 3
        assert (taken & ~trimmed).sum() > 0.5 * taken.sum()


@pytest.mark.parametrize("settle", [False, True])
def test_a_step_that_ends_a_run_lets_the_discard_worker_finish(settle):
    """A run's last step (settle) counts the discards still queued at its sync, sent in the
    background: its seconds stay those of the host's work. Otherwise they are left for the
    next step, which counts them and races them with its allocations."""
    m = _slow_trim_machine()
    m.begin("delete")
    holes = _interleaved_then_delete(m)
    assert m.fs.discard_queue  # 10 ms a TRIM: the worker is far behind the sync
    clock = m.clock
    r = m.end(settle=settle)
    assert m.clock == clock
    assert bool(m.fs.discard_queue) is not settle
    if settle:
        assert r.trims >= len(holes)
        assert m.busy_until > m.clock  # the drive is still working through them
    else:
        assert r.trims < len(holes)
        m.begin("later")
        m.idle(10.0)
        assert r.trims + m.end().trims >= len(holes)
