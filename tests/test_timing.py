"""The timing model: monotone, link-limited, and calibrated TRIM costs."""

import math

import pytest

from ssdlab.model.flash.drive import Drive
from ssdlab.model.host.blockdev import BatchStats
from ssdlab.model.host.profiles import load_profile
from ssdlab.model.host.timing import TimingResult, batch_seconds, idle, sequential_write_mb_s

GIB = 2**30
KERNEL_FILES = 36_706
KERNEL_BYTES = 493_000_000


@pytest.fixture(scope="module")
def le():
    return load_profile("ocz_vertex_le_100")


def _writes(pages: int, request_bytes: int = 512 * 1024, ppb: int = 128) -> BatchStats:
    total = pages * 4096
    return BatchStats(write_requests=-(-total // request_bytes), write_bytes=total,
                      host_pages_written=pages, nand_writes=pages, erases=pages // ppb)


def _trims(count: int, total_bytes: int) -> BatchStats:
    return BatchStats(trim_requests=count, trim_bytes=total_bytes)


def test_result_fields(le):
    r = batch_seconds(le, _writes(1000))
    assert isinstance(r, TimingResult)
    assert r.seconds > 0 and r.flash_s > 0 and r.link_s > 0 and r.overhead_s > 0
    assert r.trim_s == 0
    assert r.write_mb_s == pytest.approx(1000 * 4096 / 1e6 / r.seconds)
    assert math.isnan(batch_seconds(le, BatchStats()).write_mb_s)


@pytest.mark.parametrize("name", ["ocz_vertex_le_100", "corsair_x64_fw10", "firstgen_block_64",
                                  "nvme_modern_1tb"])
@pytest.mark.parametrize("qd", [1, 32])
def test_more_nand_writes_take_more_time(name, qd):
    p = load_profile(name)
    base = BatchStats(write_requests=100, write_bytes=100 * 4096, host_pages_written=100,
                      nand_writes=100)
    times = []
    for extra in (0, 100, 1000, 10_000, 100_000):  # GC copies on top of the host's pages
        s = BatchStats(**{**base.__dict__, "nand_writes": 100 + extra, "gc_copies": extra,
                          "nand_reads": extra})
        times.append(batch_seconds(p, s, queue_depth=qd).seconds)
    assert all(b >= a for a, b in zip(times, times[1:], strict=False))
    assert times[-1] > times[0]


def test_queue_depth_one_is_slower(le):
    s = _writes(100_000)
    assert batch_seconds(le, s, 1).seconds > batch_seconds(le, s, 32).seconds
    with pytest.raises(ValueError, match="queue_depth"):
        batch_seconds(le, s, 0)


@pytest.mark.parametrize("name", ["nvme_modern_1tb", "ocz_agility3_120", "crucial_m4_128"])
def test_large_sequential_writes_approach_the_link_or_flash_limit(name):
    p = load_profile(name)
    mb_s = sequential_write_mb_s(p, request_bytes=1 << 20, total_bytes=10 * GIB)
    assert mb_s <= p.host_link_mb_s * 1.0001
    if name == "nvme_modern_1tb":  # flash is faster than PCIe 3.0 x4 here
        assert mb_s == pytest.approx(p.host_link_mb_s, rel=0.01)


def test_link_limited_writes_on_a_sata_drive(le):
    # incompressible flash would be 142 MB/s; a drive with flash to spare is link-limited
    fast = load_profile("nvme_modern_1tb")
    from dataclasses import replace
    sata = replace(fast, host_link_mb_s=300.0)
    assert sequential_write_mb_s(sata) == pytest.approx(300.0, rel=0.01)


def test_calibrated_sequential_rates():
    # calibration targets, checked so an edit to a profile cannot drift silently
    assert sequential_write_mb_s(load_profile("ocz_vertex_60")) == pytest.approx(190.5, rel=0.01)
    assert sequential_write_mb_s(load_profile("corsair_x64_fw20")) == pytest.approx(175, rel=0.01)
    assert sequential_write_mb_s(load_profile("ocz_vertex_le_100")) == pytest.approx(235, rel=0.02)


def test_discard_of_kernel_tree_on_vertex_le_takes_about_40_s(le):
    r = batch_seconds(le, _trims(KERNEL_FILES, KERNEL_BYTES))
    # documented: 40.41 s with discard minus 0.17 s without = 40.24 s of TRIM
    assert r.seconds == pytest.approx(40.24, rel=0.15)
    assert r.trim_s == r.seconds  # nothing else in the batch


def test_non_queued_trim_stalls_everything_behind_it(le):
    writes = _writes(10_000)
    both = BatchStats(**{**writes.__dict__, "trim_requests": 1000, "trim_bytes": 1000 * 4096})
    r, w = batch_seconds(le, both), batch_seconds(le, writes)
    assert r.seconds == pytest.approx(w.seconds + r.trim_s)


def test_queued_trim_overlaps_other_work():
    p = load_profile("nvme_modern_1tb")
    writes = _writes(1_000_000)
    both = BatchStats(**{**writes.__dict__, "trim_requests": 39_006, "trim_bytes": KERNEL_BYTES})
    r, w = batch_seconds(p, both), batch_seconds(p, writes)
    assert r.trim_s > 0.1
    assert r.seconds == pytest.approx(max(w.seconds, r.trim_s))


def test_discard_of_kernel_tree_on_intel_is_well_under_a_second():
    r = batch_seconds(load_profile("intel_320_120"), _trims(KERNEL_FILES, KERNEL_BYTES))
    assert r.seconds < 0.5


def test_crucial_m4_final_sync_calibration():
    # 40,400 TRIMs (3.2.34 tree) + the 0.17 s journal commit = documented 1.541 s
    r = batch_seconds(load_profile("crucial_m4_128"), _trims(40_400, int(0.557 * GIB)))
    assert r.seconds + 0.17 == pytest.approx(1.541, rel=0.05)


def test_fstrim_of_38_gb_free_on_vertex_le_takes_about_6_minutes(le):
    free = 38_000_000_000  # 40 % of a 95 GB file system
    extent = 128 * 2**20
    r = batch_seconds(le, _trims(-(-free // extent), free))
    assert r.seconds == pytest.approx(360, rel=0.1)


def test_intel_fstrim_of_120_gb_takes_seconds():
    free = 120_000_000_000
    r = batch_seconds(load_profile("intel_320_120"), _trims(-(-free // 2**27), free))
    assert 0.5 < r.seconds < 10


@pytest.mark.parametrize("name", ["corsair_x64_fw10", "intel_x25m_g1_80", "firstgen_block_64"])
def test_ignored_trim_costs_almost_nothing(name):
    p = load_profile(name)
    r = batch_seconds(p, _trims(KERNEL_FILES, KERNEL_BYTES))
    assert r.trim_s == 0
    assert r.seconds == pytest.approx(KERNEL_FILES * p.command_overhead_us * 1e-6)
    assert r.seconds < 10  # versus 40 s on a drive that honours it slowly


def _dirty_drive(profile):
    g = profile.geometry(user_pages=profile.pages_per_block * 200)
    d = Drive(g, profile.ftl_config())
    for lpn in range(g.user_pages):
        d.write(lpn)
    for lpn in range(0, g.user_pages, 3):  # overwrite a third: blocks become 1/3 invalid ...
        d.write(lpn)
    for lpn in range(0, g.user_pages, 3):  # ... then two thirds
        d.write(lpn)
    return d


def test_idle_runs_background_gc_only_where_the_profile_has_it():
    le = load_profile("ocz_vertex_le_100")
    d = _dirty_drive(le)
    assert idle(le, d, le.idle_gc_threshold_s * 0.5) == 0  # not idle long enough
    before = d.free_blocks
    n = idle(le, d, 60.0)
    assert n > 0 and d.free_blocks > before
    d.check_invariants()

    corsair = load_profile("corsair_x64_fw20")  # no background GC
    d2 = _dirty_drive(corsair)
    assert idle(corsair, d2, 3600.0) == 0
    with pytest.raises(ValueError):
        idle(le, d, -1.0)
