"""The WA the workbench charts on a compressing (SandForce) drive: NAND bytes actually
programmed (pages x the stored fraction) per byte the host wrote. No Qt: the Recorder that
feeds the charts, the step results and the run series are read directly, and all three must
give the same number, below 1 for compressible data."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.app.session.recorder import Recorder
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import Geometry
from ssdlab.model.host import fsworkloads as W
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.profiles import load_host_profile, load_profile
from ssdlab.model.lab.series import Series

SANDFORCE = "ocz_vertex_le_100"
INTEL = "intel_320_120"
USER_PAGES = 1 << 14  # 64 MiB


def _run(profile_name: str, data_compression: float | None, series: bool = False,
         user_pages: int = USER_PAGES):
    """The same deterministic run, read by the workbench's Recorder or (series=True) by
    ssdlab run's Series: each consumes the Machine's timeline, so one reader per run."""
    m = Machine(load_profile(profile_name), load_host_profile("phenom2_x4_965"),
                user_pages=user_pages, data_compression=data_compression)
    if series:
        reader = Series(m, every_s=0.25)
    else:
        reader = Recorder(m.drive.geometry, m.profile)
        reader.follow(m)
    m.begin("write")
    W.write_file(m, "a", 12 * 2**20)
    W.write_file(m, "b", 12 * 2**20)
    W.delete_file(m, "a")
    W.write_file(m, "c", 12 * 2**20)  # into the blocks "a" left
    step = m.end()
    if series:
        return m, reader.as_dicts()[-1], step
    reader.record(m.drive, m.clock, force=True)
    return m, reader.series(), step


@pytest.mark.parametrize("ratio", [0.5, 0.3, 1.0])
def test_charted_wa_is_stored_fraction_times_nand_per_host(ratio):
    m, charted, step = _run(SANDFORCE, ratio)
    _, row, _ = _run(SANDFORCE, ratio, series=True)
    s = m.io_stats
    assert m.profile.compression_ratio == ratio
    expected = ratio * s.nand_writes / s.host_pages_written
    assert charted["wa"][-1] == pytest.approx(expected, rel=1e-9)
    assert row["wa"] == pytest.approx(expected, rel=1e-9)  # what ssdlab run's CSV says
    assert step.wa == pytest.approx(expected, rel=1e-12)
    assert charted["host"][-1] == pytest.approx(s.host_pages_written, rel=1e-9)
    assert charted["nand"][-1] == pytest.approx(s.nand_writes, rel=1e-9)
    if ratio < 1:
        assert charted["wa"][-1] < 1.0  # and the chart shows it below 1


def test_compression_leaves_the_page_counts_alone_without_gc():
    """On a drive with room to spare (no GC) the engine programs one stored page per page
    either way; only what each page costs in flash shrinks."""
    half = _run(SANDFORCE, 0.5)[0]
    full = _run(SANDFORCE, 1.0)[0]
    assert half.io_stats.gc_copies == full.io_stats.gc_copies == 0
    assert (half.io_stats.nand_writes, half.io_stats.host_pages_written) == (
        full.io_stats.nand_writes, full.io_stats.host_pages_written)


def _churn(ratio: float):
    """4 KiB random rewrites in place (sysbench rndwr) over files filling most of a small
    drive: garbage collection runs."""
    m = Machine(load_profile(SANDFORCE), load_host_profile("phenom2_x4_965"),
                user_pages=1 << 13, data_compression=ratio)
    inos = W.sysbench_prepare(m, 24 * 2**20, files=4)
    m.begin("rndwr")
    W.random_writes(m, inos, 3 * (1 << 13), fsync_every=1000)
    return m, m.end()


def test_compressed_data_leaves_garbage_collection_room():
    """In the engine a page stored at 0.5 takes half a flash page, so the same data leaves
    more flash free and GC copies less: WA falls further than the stored fraction (the old
    arithmetic, 0.5 x the uncompressed run's counts, would make it exactly half)."""
    (full, step_full), (half, step_half) = _churn(1.0), _churn(0.5)
    assert full.io_stats.gc_copies > 0
    assert half.io_stats.gc_copies < full.io_stats.gc_copies
    assert step_half.wa < 0.5 * step_full.wa * 0.9


def test_a_drive_that_does_not_compress_ignores_data_compression():
    m, charted, step = _run(INTEL, 0.5, user_pages=1 << 15)  # 2 MiB erase blocks
    s = m.io_stats
    assert m.profile.compression_ratio == 1.0
    assert charted["wa"][-1] == pytest.approx(s.nand_writes / s.host_pages_written,
                                              rel=1e-9)
    assert step.wa >= 1.0


def test_block_workload_rows_use_the_stored_fraction():
    """Without a file system the recorder reads the drive's counters directly."""
    from dataclasses import replace

    profile = replace(load_profile(SANDFORCE), compression_ratio=0.4)
    geometry = Geometry(user_pages=4096, pages_per_block=32, spare=0.1)
    drive = Drive(geometry, profile.ftl_config())
    rec = Recorder(drive.geometry, profile)
    rng = np.random.default_rng(5)
    for t in range(1, 6):
        drive.write_pages(rng.integers(0, 4096, 3000))
        rec.record(drive, float(t))
    c = drive.counters()
    assert c["gc_copies"] > 0
    assert rec.series()["wa"][-1] == 0.4 * c["nand_writes"] / c["host_writes"]
