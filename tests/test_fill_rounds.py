"""Fill / delete / refill of many files, Orlov placement, symlinks, umount, partial builds,
and their scenario steps (ssdlab/model/host/fillfiles.py, orlov.py, fsworkloads.py; steps.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.model.host import fsworkloads as w
from ssdlab.model.host.ext4layout import FLEX_GROUPS
from ssdlab.model.host.filetree import clone_outputs, kernel_tree, make_schedule, makefiles
from ssdlab.model.host.fillfiles import (
    FillPlan,
    FillSpec,
    delete_steps,
    df_use,
    fill_steps,
    fs_use,
)
from ssdlab.model.host.fstypes import ROOT_INO, FsOptions
from ssdlab.model.host.fsverify import bookkeeping
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_host_profile, load_profile
from ssdlab.model.lab.scenario import Step, parse_scenario
from ssdlab.model.lab.steps import Context, StepError, StepRun

MIB = 1 << 20


def machine(mib: int, drive: str = "intel_x25m_g1_80", **options) -> Machine:
    profile = load_profile(drive)
    return Machine(profile, load_host_profile("host_phenom2_x4_965"), FsOptions(**options),
                   partition=Partition(start_sector=0),
                   user_pages=mib * MIB // profile.page_bytes)


def drain(gen):
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


# --- the plan ------------------------------------------------------------------------------


def test_plan_is_seeded_and_log_uniform():
    a, b = FillPlan(FillSpec(seed=5)), FillPlan(FillSpec(seed=5))
    files = [a.next_file() for _ in range(4000)]
    assert files == [b.next_file() for _ in range(4000)]
    sizes = [s for _, s in files]
    assert min(sizes) >= 1024 and max(sizes) <= 8 << 20
    # log-uniform: each factor-of-two band holds about the same number of files
    bands = [sum(1 for s in sizes if 2**k <= s < 2**(k + 1)) for k in range(10, 23)]
    assert max(bands) < 1.4 * min(bands)
    assert {p.split("/")[0] for p, _ in files} == {"fill0", "fill1", "fill2", "fill3"}


def test_pick_deletions_takes_the_fraction_and_forgets_them():
    plan = FillPlan(FillSpec(seed=1))
    for _ in range(101):
        plan.next_file()
    gone = plan.pick_deletions(0.5)
    assert len(gone) == 50 and len(set(gone)) == 50
    assert not set(gone) & {p for p, _ in plan.live}
    assert len(plan.live) == 51
    with pytest.raises(ValueError, match="fraction"):
        plan.pick_deletions(1.5)


def test_df_use_leaves_out_the_root_reserve():
    # 1000 blocks, 100 of metadata, 5 % (50) reserved: 850 free leaves 800 available
    assert df_use(1000, 100, 850) == pytest.approx(50 / 850)
    assert df_use(1000, 100, 40) == 1.0  # into the reserve: df shows 100 %


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), percent=st.floats(20, 95),
       fraction=st.floats(0, 1), dirs=st.integers(1, 6), journal=st.booleans())
def test_rounds_keep_the_books_and_reach_the_level(seed, percent, fraction, dirs, journal):
    m = machine(64, "intel_x25m_g1_80", journal=journal)  # 128-page erase blocks
    plan = FillPlan(FillSpec(seed=seed, dirs=dirs, min_bytes=512, max_bytes=2 << 20))
    for _ in range(2):
        before = plan.serial
        reached = drain(fill_steps(m, plan, percent))
        assert fs_use(m.fs) >= percent / 100
        assert reached == plan.serial - before  # it stopped as soon as the level was met
        m.sync()
        live = len(plan.live)
        drain(delete_steps(m, plan, fraction))
        assert len(plan.live) == live - round(fraction * live)
        m.sync()
        assert bookkeeping(m.fs) == []


# --- Orlov --------------------------------------------------------------------------------


def test_small_file_system_keeps_group_0_for_directories():
    """Up to 16 groups (one flex group) file data starts in group 1, directories' blocks
    stay in group 0 (measured: a 1 GiB fill left group 0 untouched)."""
    m = machine(1024, "nvme_modern_1tb")
    plan = FillPlan(FillSpec(seed=13))
    drain(fill_steps(m, plan, 50))
    m.sync()
    fs = m.fs
    for d in plan.dir_names():
        ino = fs.lookup(ROOT_INO, d)
        assert fs.layout.group_of_inode(ino) == 0
        assert fs.layout.group_of_block(fs.inodes[ino].extents[0][0]) == 0
    data_groups = {fs.layout.group_of_block(e[0]) for ino, f in fs.inodes.items()
                   if not f.is_dir for e in f.extents}
    assert 0 not in data_groups and 1 in data_groups


def test_top_level_directories_spread_over_flex_groups():
    m = machine(16 * 1024, "nvme_modern_1tb", journal=False)  # 128 groups: 8 flex groups
    fs = m.fs
    flexes = [fs.layout.group_of_inode(fs.mkdir(ROOT_INO, f"top{i}")) // FLEX_GROUPS
              for i in range(8)]
    # the flex group with the fewest directories among those with at least average free
    # space each time (flex group 0, holding the superblocks and root, is under average)
    assert len(set(flexes)) == 7 and 0 not in flexes
    sub = fs.mkdir(fs.lookup(ROOT_INO, "top3"), "sub")
    assert fs.layout.group_of_inode(sub) // FLEX_GROUPS == flexes[3]
    f = fs.create(sub, "file", 64 * 4096)
    m.sync()
    first = fs.layout.group_of_block(fs.inodes[f].extents[0][0])
    assert first == flexes[3] * FLEX_GROUPS + 1  # a flex group's second group


# --- symlinks, umount -------------------------------------------------------------------


def test_fast_symlinks_need_no_block():
    m = machine(256)
    fast = w.symlink(m, ROOT_INO, "a", "linux")
    slow = w.symlink(m, ROOT_INO, "b", "x" * 80)
    m.sync()
    assert m.fs.inodes[fast].extents == [] and m.fs.inodes[slow].allocated_blocks == 1
    with pytest.raises(ValueError, match="symlink target"):
        w.symlink(m, ROOT_INO, "c", "")


def test_umount_writes_the_superblocks_and_forgets_fstrim():
    m = machine(256)
    m.sync()
    m.fstrim()
    assert m.fstrim() == 0  # nothing freed since: every group skipped
    before = m.fs.count.copy()
    w.umount(m)
    assert m.fs.count.journal_blocks - before.journal_blocks == w.UMOUNT_JOURNAL_SB_WRITES
    assert m.fs.count.metadata_blocks - before.metadata_blocks == 1
    assert m.fstrim() > 0  # after a remount fstrim walks every group again


# --- clone and build ------------------------------------------------------------------------


def test_pack_ratio_sets_the_pack():
    tree = kernel_tree(0.01)
    total = sum(f.size_bytes for f in tree)
    for ratio in (0.2, 0.75):
        pack = next(f for f in clone_outputs(tree, ratio) if f.path.endswith(".pack"))
        assert pack.size_bytes == int(total * ratio)
    with pytest.raises(ValueError, match="pack ratio"):
        clone_outputs(tree, 5.0)


def test_partial_build_compiles_only_its_targets_and_links_nothing():
    tree = kernel_tree(0.05)
    units = make_schedule(tree, targets=["fs", "net"])
    writes = [s.path for u in units for s in u.writes]
    assert writes and all(p.startswith(("fs/", "net/")) and p.endswith(".o") for p in writes)
    full = make_schedule(tree)
    assert any(s.path == "vmlinux" for u in full for s in u.writes)
    assert makefiles(tree) and all(p.endswith("Makefile") or p.endswith("Kbuild")
                                   for p in makefiles(tree))


def test_make_clean_reads_makefiles_under_strict_atime():
    def clean_writes(atime: str, read: bool) -> int:
        m = machine(512, atime=atime)
        tree = kernel_tree(0.02)
        t = w.git_clone(m, tree, top="linux", seconds=10)
        w.make(m, t, tree, seconds=10)
        m.sync()
        c0 = m.fs.count.written_blocks
        w.make_clean(m, t, tree, seconds=8, read_makefiles=read)
        m.sync()
        return m.fs.count.written_blocks - c0

    assert clean_writes("strict", True) > clean_writes("strict", False)
    assert clean_writes("noatime", True) == clean_writes("noatime", False)


# --- scenario steps -------------------------------------------------------------------------


def _run(text: str):
    sc = parse_scenario("version = 1\n[drive]\nprofile = \"intel_x25m_g1_80\"\nuser_gib = 0.25\n"
                        + text)
    from ssdlab.model.lab.scenario import build_machine
    m, ctx = build_machine(sc), Context()
    for step in sc.steps:
        StepRun(m, step, ctx).run()
    return m, ctx


def test_fill_delete_refill_steps():
    m, ctx = _run('[[steps]]\ndo = "fill_files"\npercent = 80\n[[steps]]\ndo = "sync"\n'
                  '[[steps]]\ndo = "delete_files"\n[[steps]]\ndo = "fill_files"\npercent = 80\n'
                  '[[steps]]\ndo = "symlink"\n[[steps]]\ndo = "umount"\n')
    assert fs_use(m.fs) >= 0.8 and ctx.fill is not None
    assert "link" in m.fs.inodes[ROOT_INO].entries


@pytest.mark.parametrize("text, field", [
    ('do = "delete_files"', "percent"),
    ('do = "fill_files"\nmin_bytes = 9000\nmax_bytes = 8000', "min_bytes"),
])
def test_step_refusals_name_their_field(text, field):
    sc = parse_scenario("version = 1\n[drive]\nprofile = \"intel_x25m_g1_80\"\nuser_gib = 0.25\n"
                        f"[[steps]]\n{text}\n")
    from ssdlab.model.lab.scenario import build_machine
    with pytest.raises(StepError) as e:
        StepRun(build_machine(sc), sc.steps[0], Context())
    assert f".{field} = " in str(e.value)


def test_a_refill_must_keep_the_first_fill_files_spec():
    from ssdlab.model.lab.scenario import build_machine
    sc = parse_scenario('version = 1\n[drive]\nprofile = "intel_x25m_g1_80"\nuser_gib = 0.25\n'
                        '[[steps]]\ndo = "sync"\n')
    m, ctx = build_machine(sc), Context()
    StepRun(m, Step("fill_files", {"percent": 30.0, "dirs": 4, "min_bytes": 1024,
                                   "max_bytes": 1 << 20, "seed": 1}), ctx).run()
    with pytest.raises(StepError, match="continues the first"):
        StepRun(m, Step("fill_files", {"percent": 60.0, "dirs": 4, "min_bytes": 1024,
                                       "max_bytes": 1 << 20, "seed": 2}), ctx)
    assert math.isfinite(fs_use(m.fs))


def test_every_window_workload_is_a_scenario_step():
    from ssdlab.app.session.fsjobs import FS_KINDS, FsStep
    from ssdlab.app.session.settings import FS_WORKLOADS, Settings
    from ssdlab.model.lab.scenario import make_step

    assert set(FS_WORKLOADS) == set(FS_KINDS)
    settings = Settings(fill_pct=90.0)
    for kind in FS_KINDS:
        if kind == "trace":
            continue  # needs a chosen file
        step = FsStep.from_control(kind, settings, 3)
        assert step.label
        for s in step.scenario_steps():
            assert make_step(s.do, **s.args).args == s.args
