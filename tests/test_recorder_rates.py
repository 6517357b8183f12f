"""Without a device profile the Throughput and GC-copies charts show how the flash's page
programs are shared out (per 1,000 programs), smoothed over the last WA_WINDOW of host
writes: bounded, complementary and smooth, whatever size the frames are."""

import numpy as np
import pytest

from ssdlab.app.session.recorder import Recorder
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import Geometry


@pytest.mark.parametrize("frame_pages", [7, 64, 1000])
def test_untimed_rates_are_shares_of_flash_programs_and_smooth(frame_pages):
    g = Geometry(user_pages=4096, pages_per_block=32, spare=0.1)
    drive = Drive(g)
    rec = Recorder(g)
    drive.write_pages(np.arange(g.user_pages, dtype=np.int64))
    rec.record(drive, 0.0)
    rng = np.random.default_rng(1)
    for _ in range(3 * g.user_pages // frame_pages):  # three drive writes of random pages
        drive.write_pages(rng.integers(0, g.user_pages, frame_pages))
        rec.record(drive, 0.0)
    s = rec.series()
    late = s["drive_writes"] > 2.0  # past the first window of random writes
    host, nand, gc = s["host_rate"][late], s["nand_rate"][late], s["gc_rate"][late]
    assert late.sum() > 5
    assert np.all(nand == 1000.0)
    assert np.all((host > 0) & (host <= 1000.0)) and np.all(gc >= 0)
    np.testing.assert_allclose(host + gc, 1000.0, atol=1e-6)  # every program is one or other
    # the host's share is 1,000 / WA of the same stretch, and no comb: neighbours agree
    wa = s["wa_window"][late]
    assert np.nanmedian(np.abs(host - 1000.0 / wa)) < 60
    assert np.max(np.abs(np.diff(host))) < 100


def test_a_timed_recorder_keeps_mb_per_second():
    from ssdlab.model.host.profiles import load_profile

    profile = load_profile("intel_320_120")
    g = Geometry(user_pages=4096, pages_per_block=32, spare=0.1)
    drive, rec = Drive(g), Recorder(g, profile)
    rec.record(drive, 0.0)
    drive.write_pages(np.arange(1024, dtype=np.int64))
    rec.record(drive, 0.5)
    host = rec.series()["host_rate"][-1]
    assert host == pytest.approx(1024 * 4096 / 1e6 / 0.5)
