"""The model against the committed recordings of real ext4 (tests/recordings/), step by step.

ssdlab/model/lab/ext4compare.py replays each recorded workload on the model (same tree, same 2 GiB
file system, same mount options, same step order, syncs and make pacing). These tests
assert what the model should get right, and pin, with their measured size and cause, the
differences it does not reproduce, so that a change that closes (or widens) a gap shows up
here instead of hiding. No root needed; only the committed files are read.

Measured (kernel 6.18, scale 0.2) when these tests were written: every step that writes is
within 2 % of the kernel in every configuration except the tiny "rm dd file" (a few blocks).
"""

from __future__ import annotations

import math

import pytest

from ssdlab.model.lab.ext4compare import (
    ATIME_MODES,
    CONFIGS,
    STEPS,
    distinct_bytes,
    journal_overhead_table,
    load_recording,
    real_discard_ranges,
    replay_recording_workload,
)

UNPACK_SYNC, RM_SYNC, CLONE, MAKE, CLEAN, DD, RM_DD, FSTRIM = 1, 3, 4, 5, 6, 7, 8, 9
DISCARD = "journal_relatime_discard"


def rows(config: str):
    return replay_recording_workload(config)


# --- bytes written per step ----------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS)
def test_replay_has_the_recorded_steps(config):
    assert [r.step for r in rows(config)] == list(STEPS)


@pytest.mark.parametrize("config", CONFIGS)
def test_unsynced_steps_write_nothing(config):
    """Delayed allocation and no commit within the fraction of a second they last."""
    for i in (0, 2, FSTRIM):
        r = rows(config)[i]
        assert r.real_kib == 0 and r.model_kib == 0, r.step


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("step", [UNPACK_SYNC, CLONE, MAKE, DD])
def test_data_dominated_steps_within_5_percent(config, step):
    r = rows(config)[step]
    assert abs(r.ratio - 1) <= 0.05, (r.step, r.real_kib, r.model_kib)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("step", [RM_SYNC, CLEAN])
def test_metadata_only_steps_within_5_percent(config, step):
    """The sync after rm -rf and make clean write only bitmaps, descriptors, inode tables
    and directory blocks (and their journal copies): the model counts the same blocks."""
    r = rows(config)[step]
    assert r.model_data_kib == 0
    assert abs(r.ratio - 1) <= 0.05, (r.step, r.real_kib, r.model_kib)


@pytest.mark.parametrize("config", CONFIGS)
def test_rm_dd_file_within_three_blocks(config):
    """Deleting one file changes about six metadata blocks. The kernel also writes the
    superblock (block 0, its free counts; with a journal once home and once in the log),
    which the model never rewrites, so the model is up to 2 blocks short with a journal;
    without one the kernel varies by +-1 block between runs (20 to 28 KiB)."""
    r = rows(config)[RM_DD]
    assert abs(r.model_kib - r.real_kib) <= 12, (r.real_kib, r.model_kib)


@pytest.mark.parametrize("atime", ATIME_MODES)
@pytest.mark.parametrize("step", [UNPACK_SYNC, CLONE])
def test_limitation_nojournal_inode_tables_written_twice(atime, step):
    """Known gap: without a journal the kernel writes the inode-table blocks of new files
    twice in one sync, the model once. The trace of the sync after unpack shows blocks
    316-775 (the inode tables the tree's inodes live in) and the descriptor block going out
    from the flusher at the start of the sync, then once more from sync's final pass over
    the block device, because delayed allocation updated the inodes in between (461
    blocks, 1,844 KiB). With a journal the blocks are pinned until the commit and go home
    once, and the model agrees to 12 KiB. The model is therefore short by about the size of
    those inode tables without a journal (1,848 to 1,976 KiB here, 1.0-1.6 %)."""
    journal = rows(f"journal_{atime}")[step]
    nojournal = rows(f"nojournal_{atime}")[step]
    assert abs(journal.real_kib - journal.model_kib) <= 16
    gap = nojournal.real_kib - nojournal.model_kib
    assert 1500 <= gap <= 2200, gap


# --- journal overhead ----------------------------------------------------------------------


def overheads():
    return {(o.index, o.atime): o for o in journal_overhead_table()}


@pytest.mark.parametrize("atime", ATIME_MODES)
def test_journal_costs_extra_writes_in_every_synced_step(atime):
    table = overheads()
    for i in (UNPACK_SYNC, RM_SYNC, CLONE, MAKE, CLEAN, DD, RM_DD):
        o = table[(i, atime)]
        assert o.real_pct > 0 and o.model_pct > 0, o


@pytest.mark.parametrize("atime", ATIME_MODES)
def test_journal_overhead_is_largest_for_make_clean(atime):
    """Seed 002's ordering among clone, make and make clean, real and model alike."""
    table = overheads()
    for pct in ("real_pct", "model_pct"):
        clean = getattr(table[(CLEAN, atime)], pct)
        assert clean > getattr(table[(CLONE, atime)], pct), pct
        assert clean > getattr(table[(MAKE, atime)], pct), pct


@pytest.mark.parametrize("atime", ATIME_MODES)
def test_journal_overhead_close_where_metadata_dominates(atime):
    """Metadata-only steps double their writes with a journal (each block once in the log,
    once home); make pays a few per cent for its atime and allocation metadata."""
    table = overheads()
    for i in (RM_SYNC, CLEAN):
        o = table[(i, atime)]
        assert abs(o.model_pct - o.real_pct) <= 5, o
        assert 90 <= o.real_pct <= 110, o
    make = table[(MAKE, atime)]
    assert abs(make.model_pct - make.real_pct) <= 1.5, make


@pytest.mark.parametrize("atime", ATIME_MODES)
def test_limitation_journal_overhead_of_bulk_writes_doubled(atime):
    """Known gap, the consequence of the double inode-table write above: the kernel's
    journal-less run writes more, so its journal overhead for the sync after unpack and for
    git clone is about 1-1.6 %, the model's 2-3.2 %, roughly twice. Both are small; the
    ordering against make and make clean holds."""
    table = overheads()
    for i in (UNPACK_SYNC, CLONE):
        o = table[(i, atime)]
        assert 0.5 <= o.real_pct <= 2.0, o
        assert 1.5 <= o.model_pct / o.real_pct <= 2.5, o


# --- atime ---------------------------------------------------------------------------------


@pytest.mark.parametrize("journal", ["journal", "nojournal"])
@pytest.mark.parametrize("step", [MAKE, CLEAN])
def test_atime_modes_order(journal, step):
    noatime, relatime, strict = (rows(f"{journal}_{a}")[step]
                                 for a in ("noatime", "relatime", "strictatime"))
    for kind in ("real_kib", "model_kib"):
        assert getattr(noatime, kind) <= getattr(relatime, kind) <= getattr(strict, kind), kind


@pytest.mark.parametrize("journal", ["journal", "nojournal"])
@pytest.mark.parametrize("atime", ["relatime", "strictatime"])
def test_atime_cost_of_make_within_10_percent(journal, atime):
    """What reading the sources costs in inode writes during make (versus noatime)."""
    base = rows(f"{journal}_noatime")[MAKE]
    r = rows(f"{journal}_{atime}")[MAKE]
    real, model = r.real_kib - base.real_kib, r.model_kib - base.model_kib
    assert real > 0
    assert abs(model / real - 1) <= 0.10, (real, model)


# --- discard and fstrim --------------------------------------------------------------------


@pytest.mark.parametrize("config", [c for c in CONFIGS if c != DISCARD])
def test_without_discard_nothing_is_trimmed_before_fstrim(config):
    for r in rows(config)[:FSTRIM]:
        assert r.real_discard_requests == 0 and r.model_trim_requests == 0, r.step


def test_discard_trims_the_removed_tree():
    """With -o discard both trim after the commit of rm -rf (in the sync), at least the
    whole tree. The replay runs the modern kernel era (whole free runs). Known gap
    (allocation, not discard): the model discards 234 MB against the kernel's 115 MB,
    because its tree spans two block groups whose free tails run to the groups' ends,
    while the kernel's tree was followed by blocks still in use (its runs end at blocks
    56,765 and 61,193); where blocks land is the allocator's business."""
    steps = rows(DISCARD)
    assert steps[2].model_trim_requests == 0 and steps[2].real_discard_requests == 0
    model = steps[RM_SYNC].model_trimmed_bytes
    tree = load_recording(DISCARD)["tree"]["bytes"]
    ranges = real_discard_ranges(DISCARD)
    real = distinct_bytes(ranges[RM_SYNC] + ranges[CLONE])
    assert model >= tree and real >= tree
    assert 1.0 <= model / real <= 2.5, (real, model)


def test_discards_run_on_past_the_sync():
    """The kernel issues the discards from a worker after the commit and sync does not wait
    for them: during the sync after rm -rf it had discarded only 66 MB of what it
    discarded in the end, the rest went out during git clone, and after make clean they
    spilled into dd. The model's worker, one TRIM at a time at the drive's pace, spills
    into the same steps."""
    steps = rows(DISCARD)
    for step in (CLONE, DD):
        assert steps[step].real_discard_requests > 0 and steps[step].model_trim_requests > 0
    assert steps[RM_SYNC].real_discard_bytes < 0.7 * steps[RM_SYNC].model_trimmed_bytes


def test_make_clean_discards_whole_free_runs():
    """After make clean the kernel discarded 199 MB of distinct sectors (make clean plus the
    spill into dd) where the objects occupied 114 MB: each freed extent's free run up to
    its end, here the free tails of block groups 2 and 3. The modern era of the model does
    the same, also spilling into dd, and lands within 15 % (211 MB over both steps); the
    2.6.39 era trimmed only the 120 MB the objects occupied."""
    ranges = real_discard_ranges(DISCARD)
    real = distinct_bytes(ranges[CLEAN] + ranges[DD])
    steps = rows(DISCARD)
    model = distinct_bytes(steps[CLEAN].model_trim_ranges + steps[DD].model_trim_ranges)
    assert model >= load_recording(DISCARD)["build_outputs"]["bytes"]
    assert abs(model / real - 1) <= 0.15, (real, model)


def test_modern_discard_request_counts_within_10_percent():
    """Linux 6.17 on merges a freed extent only with the node its search-tree descent ends
    at (discard.py), and rm -rf frees files in hash order, so many adjacent files stay
    separate discard entries: 1,248 requests after rm -rf (real, sync plus the spill into
    git clone) against the model's 1,139 (-8.7 %: its worker, racing git clone, trims around
    blocks the clone took); after make clean 40 against 41 (+2.5 %).
    The 2.6.39 era would send one per freed extent, thousands."""
    steps = rows(DISCARD)
    real_rm = steps[RM_SYNC].real_discard_requests + steps[CLONE].real_discard_requests
    real_clean = steps[CLEAN].real_discard_requests + steps[DD].real_discard_requests
    model_rm = steps[RM_SYNC].model_trim_requests + steps[CLONE].model_trim_requests
    model_clean = steps[CLEAN].model_trim_requests + steps[DD].model_trim_requests
    assert abs(model_rm / real_rm - 1) <= 0.10, (real_rm, model_rm)
    assert abs(model_clean / real_clean - 1) <= 0.10, (real_clean, model_clean)
    assert real_rm < load_recording(DISCARD)["tree"]["files"] / 4


def test_rm_of_the_dd_file_trims_it():
    """Both discard at least the 64 MiB file. Known gap (allocation): the model's run goes
    on to the end of the file's block group (100.6 MB), the kernel's file was followed by
    blocks in use (67.1 MB, the file alone)."""
    r = rows(DISCARD)[RM_DD]
    dd = load_recording(DISCARD)["dd_bytes"]
    assert r.real_discard_bytes >= dd and r.model_trimmed_bytes >= dd
    assert r.model_trimmed_bytes / r.real_discard_bytes <= 1.6


@pytest.mark.parametrize("config", CONFIGS)
def test_fstrim_trims_the_free_space(config):
    """fstrim sends each free range once: the model and the kernel agree within 1 %. The
    model has 6.7 MB (1,628 blocks) more free space: it lacks the 255 descriptor blocks
    mke2fs reserves for online resize and the backup superblocks and descriptor tables in
    groups 1, 3, 5, 7 and 9 (5 x 257 blocks), 1,540 blocks together; lost+found and other
    small differences make up the rest."""
    r = rows(config)[FSTRIM]
    assert r.real_fstrim_bytes == r.real_discard_bytes > 0
    assert abs(r.model_trimmed_bytes / r.real_fstrim_bytes - 1) <= 0.01
    image = load_recording(config)["image_bytes"]
    assert 0.85 * image <= r.model_trimmed_bytes < image


def test_ratios_are_finite_where_the_kernel_wrote():
    for config in CONFIGS:
        for r in rows(config):
            assert math.isnan(r.ratio) == (r.real_kib == 0), (config, r.step)
