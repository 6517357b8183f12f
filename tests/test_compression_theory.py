"""A compressing drive against the greedy mean-field model at its effective spare
(ssdlab/model/flash/theory/compressed.py: WA = c * greedy_wa(1 - U / (N b'), b'), b' =
floor(B / c) stored pages per block).

Tolerance 2 %, the one tests/test_physics.py gives the uncompressed drive at this size
(2^18 pages, 4,400 blocks of 64 pages): measured, the compressed points lie within 0.7 % of
the model (the table is in the docstring of compressed.py's test below); the worst is the
uncompressed 7 % drive (0.8 %). The old model, compression applied to the counters after
an uncompressed run (WA = c x the uncompressed WA), is 35 % to 85 % above these points, so
the test tells the two apart by a wide margin.
"""

import pytest

from ssdlab.model.flash import theory
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.runner import RunSpec, run
from ssdlab.model.flash.workloads import Workload

USER_PAGES = 1 << 18
PPB = 64


def simulate(stored: float, spare: float):
    return run(RunSpec(Geometry(user_pages=USER_PAGES, pages_per_block=PPB, spare=spare),
                       FtlConfig(stored_fraction=stored), Workload("random"),
                       warmup_drive_writes=3.0, measure_drive_writes=1.0, seed=7))


@pytest.mark.parametrize("spare", [0.07, 0.15, 0.28])
@pytest.mark.parametrize("stored", [0.3, 0.5, 0.7])
def test_greedy_on_compressed_data_matches_the_model_at_the_effective_spare(stored, spare):
    """Measured (2^18 pages, 64-page blocks, seed 7; WA simulated / model):
    spare 0.07: c 0.7 1.1473 / 1.1483, c 0.5 0.5965 / 0.5963, c 0.3 0.3103 / 0.3088;
    spare 0.15: 1.0193 / 1.0194, 0.5715 / 0.5707, 0.3079 / 0.3059;
    spare 0.28: 0.8783 / 0.8781, 0.5383 / 0.5391, 0.3012 / 0.3024."""
    r = simulate(stored, spare)
    model = theory.compressed_greedy_wa(r.effective_spare, PPB, stored)
    assert r.theory_wa == model
    assert r.wa == pytest.approx(model, rel=0.02)


def test_wa_falls_faster_than_the_stored_fraction():
    """The old arithmetic (c x the uncompressed WA) would make WA / c the same at every c;
    in the engine the freed flash is spare, so WA / c falls as c does."""
    plain = simulate(1.0, 0.07).wa
    half = simulate(0.5, 0.07).wa
    assert half / 0.5 < 0.25 * plain
    assert half < 1.0  # flash bytes below host bytes: compressed data, and says so


def test_the_derivation_in_the_limits():
    """c = 1 is the plain greedy model; b' = floor(B / c) and s_eff ~= 1 - c (1 - s)."""
    assert theory.compressed_greedy_wa(0.1, 64, 1.0) == pytest.approx(
        theory.greedy_wa(0.1, 64), rel=1e-12)
    assert theory.compressed_blocks(64, 0.3) == 213
    assert theory.compressed_effective_spare(0.07, 64, 0.5) == pytest.approx(
        1 - 0.5 * 0.93, rel=1e-12)
    assert theory.compressed_effective_spare(0.07, 64, 0.3) == pytest.approx(
        1 - 0.93 * 64 / 213, rel=1e-12)
