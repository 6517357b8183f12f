"""The documented experiments, as `ssdlab experiments` replays them.

Rows that agree with the documented figures must keep agreeing. Rows that do not are
listed in KNOWN_GAPS with the reason (also printed by the command), so a change that closes
or opens a gap shows up here instead of passing silently.
"""

import math

import pytest

from model.lab import experiments

KNOWN_GAPS = {
    # The hybrid (fast) mapping merges every block a reclaimed log block touches, in full:
    # 32 MB/s against 47; page mapping would give about 80. The Barefoot lies between.
    ("corsair", "write speed", "fw 1.0 without TRIM"),
}


def _known(name: str, row) -> bool:
    return any(name == n and row.quantity == q and key in row.experiment
               for n, q, key in KNOWN_GAPS)


@pytest.mark.parametrize("name", list(experiments.EXPERIMENTS))
def test_experiment_rows(name):
    rows = experiments.EXPERIMENTS[name]()
    assert rows
    for row in rows:
        assert math.isfinite(row.simulated), row
        assert row.basis in ("calibrated", "predicted")
        assert row.why
        if _known(name, row):
            assert not row.agrees, f"a known gap closed, update KNOWN_GAPS: {row}"
        else:
            assert row.agrees, row
