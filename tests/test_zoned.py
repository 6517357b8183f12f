"""Zoned drives (NVMe ZNS): zones written only at their write pointer and reset whole, the
host's log-structured store doing the garbage collection on them. The drive's own GC must
never copy a page (each zone fills blocks of its own), nothing the application wrote may be
lost, and the host's greedy over zones must agree with the greedy model whose blocks are
zones."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app.cli.main import main
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.runner import RunSpec, run
from ssdlab.model.flash.workloads import Workload
from ssdlab.model.flash.zoned import ZonedDrive, ZoneLayout
from ssdlab.model.flash.zonestore import ZonedStore, amplification
from ssdlab.model.lab.sweep import SweepError, sweep_from_data

SMALL = ZoneLayout(zones=8, zone_blocks=2, pages_per_block=8, max_open_zones=2)


def _blocks_hold_one_zone_each(zd: ZonedDrive) -> bool:
    """Every erase block's valid pages belong to one zone."""
    ppb = zd.drive.pages_per_block
    for row in zd.drive.arrays.p2l.reshape(-1, ppb):
        lbas = row[row >= 0]
        if lbas.size and len(set((lbas // zd.zone_pages).tolist())) > 1:
            return False
    return True


def test_a_write_must_land_at_its_zones_write_pointer():
    zd = ZonedDrive(SMALL)
    zd.write(0, 5)
    with pytest.raises(ValueError, match=r"zone 0: a write must start at its write pointer, "
                       r"LBA 5 \(page 5 of the zone\); got LBA 3"):
        zd.write(3)
    with pytest.raises(ValueError, match=r"zone 0: count must be from 1 to 11 \(the pages "
                       r"left from its write pointer 5\); got 12"):
        zd.write(5, 12)
    with pytest.raises(ValueError, match="zone 1: a write must start at its write pointer, "
                       "LBA 16"):
        zd.write(17)
    zd.write(5, 11)
    assert zd.state(0) == "full"
    with pytest.raises(ValueError, match="zone 0 is full .* reset it before writing"):
        zd.write(0)
    with pytest.raises(ValueError, match="lba must be a whole number from 0 to 127"):
        zd.write(128)


def test_at_most_max_open_zones_are_open_and_a_reset_empties_a_zone():
    zd = ZonedDrive(SMALL)
    zd.write(16, 3)  # zone 1 opens
    zd.write(32, 1)  # zone 2 opens
    assert zd.open_zones == 2
    with pytest.raises(ValueError, match=r"zone 3 cannot be opened: 2 zones are open "
                       r"already \(max_open_zones\)"):
        zd.write(48)
    zd.reset(1)  # an open zone: its handle is free again
    assert zd.state(1) == "empty" and zd.open_zones == 1 and zd.write_pointer[1] == 0
    zd.write(48)
    with pytest.raises(ValueError, match="zone must be a whole number from 0 to 7; got 8"):
        zd.reset(8)
    assert zd.drive.mapped_pages == 2  # zone 1's three pages unmapped by the reset


def test_a_reset_open_zone_leaves_no_block_shared_with_the_next_zone():
    zd = ZonedDrive(ZoneLayout(zones=8, zone_blocks=2, pages_per_block=8, max_open_zones=1))
    rng = np.random.default_rng(3)
    for _ in range(400):
        z = int(rng.integers(8))
        wp = int(zd.write_pointer[z])
        if zd.state(z) == "full" or (wp and rng.random() < 0.3):
            zd.reset(z)
        elif zd.open_zones == 0 or zd.state(z) == "open":
            zd.write(z * 16 + wp, int(rng.integers(1, 16 - wp + 1)))
        assert _blocks_hold_one_zone_each(zd)
    zd.drive.check_invariants()
    assert zd.drive.counters()["gc_copies"] == 0 and zd.drive.counters()["erases"] > 0


def test_a_log_is_checked_row_by_row_as_single_commands_are():
    zd = ZonedDrive(SMALL)
    zd.apply(np.array([[0, 0, 16], [0, 1, 4], [1, 0, 0], [0, 0, 2]]))
    assert zd.write_pointer[:2].tolist() == [2, 4] and zd.resets == 1
    with pytest.raises(ValueError, match="zone 1: count must be from 1 to 12"):
        zd.apply(np.array([[0, 1, 13]]))
    with pytest.raises(ValueError, match="op must be 0 .write. or 1 .reset.; got 2"):
        zd.apply(np.array([[2, 1, 0]]))


def _one_by_one(zd: ZonedDrive, log) -> None:
    for op, z, n in log:
        zd.write(z * zd.zone_pages + int(zd.write_pointer[z]), n) if op == 0 else zd.reset(z)


def test_a_log_in_one_batch_programs_what_its_rows_one_by_one_do():
    # zone 1 is written full under handle 1, reset, and opened again under handle 0 in the
    # same log: its first pages must be programmed before its tag changes (a batch that set
    # every tag first put them in zone 0's open block, and the drive's GC then copied)
    log = [[0, 0, 3], [0, 1, 16], [0, 0, 13], [1, 1, 0], [0, 1, 4], [0, 2, 16]]
    batched, single = ZonedDrive(SMALL), ZonedDrive(SMALL)
    batched.apply(np.array(log))
    _one_by_one(single, log)
    assert np.array_equal(batched.drive.arrays.p2l, single.drive.arrays.p2l)
    assert np.array_equal(batched.write_pointer, single.write_pointer)
    assert _blocks_hold_one_zone_each(batched)


def test_the_drive_never_copies_a_page_in_a_long_random_run():
    for zone_blocks, separate in ((1, True), (2, False)):
        zd = ZonedDrive(ZoneLayout(zones=80, zone_blocks=zone_blocks, pages_per_block=32,
                                   max_open_zones=3))
        store = ZonedStore(zd, int(0.85 * zd.layout.user_pages), separate_copies=separate)
        store.write(np.arange(store.app_pages))
        store.write(np.random.default_rng(1).integers(0, store.app_pages, 10 * store.app_pages))
        c = store.counters()
        assert c["host_copies"] > c["app_writes"]  # the host collected a great deal ...
        assert c["gc_copies"] == 0 and c["erases"] > 10 * zd.layout.zones  # ... the drive none
        assert amplification(dict.fromkeys(c, 0), c)[1] == 1.0
        zd.drive.check_invariants()
        assert _blocks_hold_one_zone_each(zd)
        assert store.valid_per_zone().sum() == store.app_pages


@settings(max_examples=30, deadline=None)
@given(writes=st.lists(st.integers(0, 99), min_size=1, max_size=400),
       separate=st.booleans(), zone_blocks=st.sampled_from((1, 2)), apart=st.booleans())
def test_every_application_page_reads_back_its_latest_version(writes, separate, zone_blocks,
                                                              apart):
    zd = ZonedDrive(ZoneLayout(zones=24, zone_blocks=zone_blocks, pages_per_block=8,
                               max_open_zones=4), track_versions=True)
    classes = (np.arange(100) % 5 == 0).astype(np.int64) if apart else None  # 1 in 5 hot
    store = ZonedStore(zd, 100, separate_copies=separate, trace=True, classes=classes)
    for start in range(0, len(writes), 37):  # in several calls, as a run's chunks are
        store.write(np.array(writes[start:start + 37]))
    last = {lpn: version for version, lpn in enumerate(writes)}  # the app's write numbers
    for lpn in range(100):
        got = store.read_back(lpn)
        assert got == ((lpn, last[lpn]) if lpn in last else None), lpn
    zd.drive.check_invariants()
    assert zd.drive.counters()["gc_copies"] == 0


@pytest.mark.parametrize("spare, frontier", [(0.2, "shared"), (0.1, "shared"),
                                             (0.2, "separate")])
def test_the_hosts_greedy_over_zones_agrees_with_the_greedy_model(spare, frontier):
    # simulated at this size: 1.0 %, 1.9 % and 1.7 % above greedy_wa(spare, 64), the host's
    # reserve and open zones holding no data the model counts as spare
    r = run(RunSpec(Geometry(1 << 15, 64, spare), FtlConfig(gc_frontier=frontier),
                    Workload(), 2, 2, zoned=True))
    assert r.gc_copies == 0 and r.drive_wa == 1.0
    assert r.host_wa == pytest.approx(r.theory_wa, rel=0.03)
    assert r.host_wa == pytest.approx(r.wa) and r.host_wa >= r.theory_wa
    assert r.host_writes + r.host_copies == r.drive_writes


def test_keeping_hot_and_cold_in_zones_apart_saves_host_copies():
    hot = Workload(kind="hotcold", hot_lba_fraction=0.1, hot_write_fraction=0.9)
    g = Geometry(1 << 15, 64, 0.1)

    def zoned(placement, frontier):
        return run(RunSpec(g, FtlConfig(gc_frontier=frontier), hot, 2, 2, zoned=True,
                           open_zones=4, placement=placement))

    for frontier in ("shared", "separate"):
        mixed, apart = zoned("none", frontier), zoned("hotcold", frontier)
        assert apart.host_wa < 0.92 * mixed.host_wa  # simulated: 23 % lower shared, 9 % separate
        assert mixed.gc_copies == apart.gc_copies == 0 and apart.placement == "hotcold"
    with pytest.raises(ValueError, match="open_zones must be from 4 to 8 when the host "
                       "writes to 4 zones at once"):
        RunSpec(g, FtlConfig(), hot, zoned=True, open_zones=3, placement="hotcold")


ARGS = ["simulate", "--user-pages", "16384", "--pages-per-block", "32", "--spare", "0.15",
        "--warmup-drive-writes", "1", "--measure-drive-writes", "1"]


def test_simulate_zoned_prints_both_copy_counts_and_the_three_was(capsys):
    assert main([*ARGS, "--zoned", "--zone-blocks", "2", "--open-zones", "3"]) == 0
    out = capsys.readouterr().out
    assert "zoned: " in out and "64 pages, at most 3 open" in out
    for row in ("host copies", "drive GC copies     0 pages", "host WA", "drive WA            "
                "1.0000", "total WA"):
        assert row in out


@pytest.mark.parametrize("bad, words", [
    (["--zone-blocks", "2"], "--zone-blocks needs --zoned"),
    (["--zoned", "--open-zones", "9"], "--open-zones must be a whole number from 1 to 8"),
    (["--zoned", "--zone-blocks", "0"], "--zone-blocks must be a whole number from 1 to 4096"),
    (["--zoned", "--open-zones", "1"], "--open-zones must be from 2 to 8 when the host "
     "writes to 2 zones at once (gc_frontier 'separate'"),
    (["--zoned", "--mapping", "block"], "--mapping must be 'page'"),
    (["--zoned", "--gc", "fifo"], "--gc must be 'greedy'"),
    (["--zoned", "--victim-order", "newest"], "--victim-order must be 'oldest'"),
    (["--zoned", "--spare", "0.005"], "--spare must leave at least 5 zones"),
    (["--zoned", "--slc-cache", "static", "--slc-blocks", "2"],
     "--slc-cache must be none with --zoned"),
    (["--zoned", "--placement", "hotcold", "--workload", "hotcold"],
     "--open-zones must be from 4 to 8 when the host writes to 4 zones at once"),
])
def test_simulate_refuses_what_a_zoned_drive_cannot_do_in_one_line(capsys, bad, words):
    assert main([*ARGS, *bad]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_sweep_names_the_zoned_fields_only_when_given():
    base = {"user_pages": 16384, "pages_per_block": 32, "spare": 0.15, "zoned": True}
    sweep = sweep_from_data({"format": 1, "drive": base, "axes": {"zone_blocks": [1, 2]}},
                            Path("z.toml"))
    assert [t.point["zone_blocks"] for t in sweep.tasks] == [1, 2]
    assert sweep.tasks[0].point["zoned"] is True
    with pytest.raises(SweepError, match=r"point \(zone_blocks=64\): spare must leave"):
        sweep_from_data({"format": 1, "drive": base, "axes": {"zone_blocks": [64]}},
                        Path("z.toml"))
    plain = sweep_from_data({"format": 1, "drive": {"user_pages": 65536},
                             "axes": {"spare": [0.1]}}, Path("p.toml"))
    assert not {"zoned", "zone_blocks", "open_zones", "gc_frontier"} & set(plain.tasks[0].point)
