"""`ssdlab bench --physics --only "greedy stored"`: the command docs/developer.md's table of a
compressing drive against the compressed greedy model comes from. Each case is greedy under
uniform random writes with every page stored in c of a flash page, put beside
theory.compressed_greedy_wa at the physical spare (the model finds the effective spare
itself), and the row's "eff." column is that effective spare."""

from __future__ import annotations

import argparse
import json

import pytest

from ssdlab.app.cli.main import main
from ssdlab.app.cli.physics import COMPRESSED_FRACTIONS, COMPRESSED_SPARES, physics_specs
from ssdlab.model.flash import theory
from ssdlab.model.flash.geometry import Geometry


def test_the_compressed_cases_cover_each_fraction_at_each_spare():
    args = argparse.Namespace(user_pages=1 << 22, warmup_drive_writes=2.0,
                              measure_drive_writes=2.0, only="greedy stored")
    cases = physics_specs(args)
    got = sorted((spec.config.stored_fraction, spec.geometry.spare) for _, spec, _ in cases)
    assert got == sorted((c, s) for c in COMPRESSED_FRACTIONS for s in COMPRESSED_SPARES)
    assert {0.3, 0.5, 0.7, 1.0} <= set(COMPRESSED_FRACTIONS)
    assert all(spec.config.gc == "greedy" and spec.workload.kind == "random"
               for _, spec, _ in cases)


def test_a_compressed_row_is_the_simulation_beside_the_compressed_model(capsys):
    assert main(["bench", "--physics", "--only", "greedy stored 0.5", "--user-pages",
                 str(1 << 16), "--warmup-drive-writes", "1", "--measure-drive-writes", "1",
                 "--jobs", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["spare"] for r in rows] == list(COMPRESSED_SPARES)
    for r in rows:
        assert r["stored_fraction"] == 0.5 and r["policy"] == "greedy stored 0.5"
        # the spare the drive has, in whole blocks
        spare = Geometry(user_pages=1 << 16, pages_per_block=256,
                         spare=r["spare"]).spare_of_physical
        model = theory.compressed_greedy_wa(spare, 256, 0.5)
        assert r["theory_wa"] == pytest.approx(model, rel=1e-9)
        assert r["effective_spare"] == pytest.approx(
            theory.compressed_effective_spare(spare, 256, 0.5), rel=1e-12)
        assert r["error"] == pytest.approx(r["wa"] / model - 1, rel=1e-9)
        assert r["wa"] < 0.5 * theory.greedy_wa(r["spare"], 256)  # the freed flash is spare
