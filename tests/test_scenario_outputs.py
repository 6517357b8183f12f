"""Every shipped scenario gives, step by step, exactly the bytes, TRIMs and seconds it gave
before the host stack was made faster (tests/data/scenario_steps.json, recorded with
`ssdlab run --json` on the code before that work). A speed-up may change how the model
computes, never what it computes: the comparison is exact, floats included."""

import json
from pathlib import Path

import pytest

from ssdlab.model.lab.scenario import load_scenario, run_scenario

ROOT = Path(__file__).resolve().parents[1]
RECORDED = json.loads((ROOT / "tests" / "data" / "scenario_steps.json").read_text())
KEYS = ("name", "fs_written_mb", "data_mb", "metadata_mb", "journal_mb", "device_written_mb",
        "nand_written_mb", "trims", "trimmed_mb", "gc_copies", "erases", "flushes", "seconds")


def test_the_record_covers_every_shipped_scenario():
    shipped = sorted(p.stem for p in (ROOT / "ssdlab" / "assets" / "scenarios").glob("*.toml"))
    assert sorted(RECORDED) == shipped


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_shipped_scenario_gives_exactly_its_recorded_steps(name):
    scenario = load_scenario(str(ROOT / "ssdlab" / "assets" / "scenarios" / f"{name}.toml"))
    got = [[r.as_dict()[k] for k in KEYS] for r in run_scenario(scenario)]
    assert len(got) == len(RECORDED[name])
    for i, (row, want) in enumerate(zip(got, RECORDED[name], strict=True)):
        assert dict(zip(KEYS, row, strict=True)) == dict(zip(KEYS, want, strict=True)), \
            f"{name} step {i + 1}"
