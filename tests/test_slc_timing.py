"""An SLC cache on the drive's clock: cached pages program at SLC speed, the rest at the
dense flash's, idle time folds the cache, and the example TLC and QLC profiles carry it.
Every speed here follows from the profile's assumed figures, worked out by hand below."""

from dataclasses import replace
from pathlib import Path

import pytest

from ssdlab.model.host.profiles import PROFILES_DIR, ProfileError, load_profile, profile_from_file
from ssdlab.model.host.timing import flash_seconds
from ssdlab.model.lab.scenario import build_machine, parse_scenario, run_scenario
from ssdlab.model.lab.series import Series

QLC = "qlc_slc_cache_1tb"
# 8 dies x 4096 B / 12.5 us (SLC) and / 156 us (QLC), in MB/s
QLC_CACHED_MB_S = 8 * 4096 / 12.5
QLC_DENSE_MB_S = 8 * 4096 / 156.0


def test_cached_pages_program_at_slc_speed_and_the_rest_at_the_dense_flashs():
    p = load_profile(QLC)
    dense = flash_seconds(p, 0, 800, 0)
    assert dense == pytest.approx(800 * 156e-6 / 8)
    mixed = flash_seconds(p, 0, 800, 0, slc_writes=600)
    assert mixed == pytest.approx((200 * 156e-6 + 600 * 12.5e-6) / 8)
    plain = replace(p, slc_cache="none", slc_program_us=0.0)
    assert flash_seconds(plain, 0, 800, 0) == dense  # the same without a cache


def test_the_cache_follows_the_drive_when_it_is_scaled_down():
    p = load_profile(QLC)
    full, small = p.geometry(), p.geometry(4 * 2**30 // 4096)
    assert p.ftl_config(full).slc_blocks == round(0.02 * full.blocks)
    assert p.ftl_config(small).slc_blocks == max(1, round(0.02 * small.blocks))
    assert p.ftl_config(small).slc_cache == "dynamic" and p.ftl_config(small).cell_bits == 4
    assert load_profile("nvme_modern_1tb").ftl_config().slc_cache == "none"


@pytest.mark.parametrize("edit, words", [
    (("slc_program_us = 12.5", "slc_program_us = 0.0"), "'slc_program_us' must be from 1"),
    (('gc_policy = "greedy"', 'gc_policy = "fifo"'), "'gc_policy' must be 'greedy'"),
    (("slc_dynamic_share = 0.4", "slc_dynamic_share = 0.0"),
     "'slc_dynamic_share' must be above 0"),
    (("cell_bits = 4", "cell_bits = 5"), "'cell_bits' .* from 2 to 4"),
    (('slc_cache = "dynamic"', 'slc_cache = "huge"'), "'slc_cache' .* one of"),
])
def test_a_cache_that_cannot_work_is_refused_naming_the_field(tmp_path, edit, words):
    text = (PROFILES_DIR / f"{QLC}.toml").read_text().replace(*edit)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ProfileError, match=rf"bad\.toml: field {words}"):
        profile_from_file(path)


CLIFF = f"""version = 1
[drive]
profile = "{QLC}"
user_gib = 4
[filesystem]
atime = "noatime"
[[steps]]
do = "write"
name = "a"
mb = 1200
[[steps]]
do = "idle"
seconds = 60
[[steps]]
do = "write"
name = "b"
mb = 1200
"""


def test_a_qlc_drive_writes_fast_until_its_cache_is_full_and_recovers_after_idle_time():
    s = parse_scenario(CLIFF, Path("cliff.toml"))
    m = build_machine(s)
    series = Series(m, every_s=0.05)
    first, idle, second = run_scenario(s, machine=m, series=series)
    rows = series.as_dicts()
    rates = [r["write_mb_s"] for r in rows if r["step"] == 0 and r["write_mb_s"] > 0]
    # whole intervals while the cache takes the writes, then the cliff to QLC speed
    assert max(rates) == pytest.approx(QLC_CACHED_MB_S, rel=0.01)
    assert rates[-2] == pytest.approx(QLC_DENSE_MB_S, rel=0.01)
    # the fold: flash writes with no host writes, shown on the drive's clock
    assert idle.nand_written_mb > 100 and idle.device_written_mb == 0
    folding = [r for r in rows if r["write_mb_s"] == 0 and r["nand_mb_s"] > 0]
    assert len(folding) >= 5 and {r["step"] for r in folding} == {1}
    assert m.drive.slc_counters()["folded_pages"] * 4096 / 1e6 == pytest.approx(
        first.nand_written_mb + idle.nand_written_mb - first.device_written_mb, rel=0.01)
    # after the idle time the cache takes writes again: the page cache's first batch to
    # the drive (spread evenly over its time) is part cached, part not, so it comes out
    # between the two speeds, and the step as a whole is faster than QLC alone
    again = [r["write_mb_s"] for r in rows if r["step"] == 2 and r["write_mb_s"] > 0]
    assert 3 * QLC_DENSE_MB_S < max(again) < QLC_CACHED_MB_S
    assert second.mb_s > 1.1 * QLC_DENSE_MB_S
    assert first.mb_s > second.mb_s  # the fuller drive has the smaller cache


@pytest.mark.parametrize("every", [0, 4096, 1024])
def test_simulate_folds_the_cache_only_in_the_pauses_it_is_given(every):
    """Full drive, uniform random writes: without pauses the cache stays full after the
    fill and takes no writes; with them, each pause folds it and the host's next pages land
    in it, more often the shorter the stretch between pauses."""
    from ssdlab.model.flash.geometry import FtlConfig, Geometry
    from ssdlab.model.flash.runner import RunSpec, run

    config = FtlConfig(slc_cache="dynamic", cell_bits=4, slc_blocks=20,
                       slc_dynamic_share=0.3)
    r = run(RunSpec(Geometry(user_pages=1 << 15, pages_per_block=64, spare=0.1), config,
                    warmup_drive_writes=0.5, measure_drive_writes=0.5,
                    fold_every_pages=every))
    assert r.slc_cache == "dynamic" and r.fold_every_pages == every
    assert r.theory_wa is None  # no published model of a cache
    if every == 0:
        assert r.slc_writes == 0 and r.folded_pages == 0
    else:
        # each pause empties the 20 static blocks (16 pages each in SLC mode)
        pauses = r.host_writes // every
        assert pauses * 16 * 20 * 0.9 <= r.slc_writes <= (pauses + 1) * 16 * 20
        assert 0 < r.folded_pages <= r.slc_writes + 16 * 20
        assert r.gc_copies >= r.folded_pages
