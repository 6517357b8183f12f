"""Every lesson run on the file-system model gives, step by step, exactly the figures it gave
before the host stack was made faster (tests/data/hoststack_golden.json, recorded on the code
before that work). tests/test_scenario_outputs.py does the same for the shipped scenarios as
files; this adds the variants the lessons run (discard off, the modern kernel, the rounds on
a SandForce drive, scaled steps). Exact comparison, floats included.

Every lesson's runs are played once, in full, by tests/test_lessons_play.py, and each of
their file-system runs is compared with this record there (same_as_recorded), rather than
played a second time here; here the record is checked to cover every lesson run, and a few
quick runs go through run_scenario alone (each well under 2 s).
Re-record (only on purpose, on code whose results are known right):
    .venv/bin/python tests/test_hoststack_identical.py --record
"""

import functools
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "hoststack_golden.json"
KEYS = ("name", "seconds", "fs_written_mb", "data_mb", "metadata_mb", "journal_mb",
        "device_written_mb", "nand_written_mb", "wa", "trims", "trimmed_mb", "gc_copies",
        "erases", "flushes")
# Under about a second each here; together they touch journal, discard, fstrim, the modern
# kernel's discard worker, many-file fills and deletes.
QUICK = ("04_trim/rounds/nvme", "06_how_full/fill/f63", "04_trim/rounds/sandforce")


@functools.cache
def lesson_runs() -> dict:
    """Every scenario configuration of every lesson, by 'lesson/step/config'."""
    from ssdlab.lessons.loader import load_lesson

    runs = {}
    for path in sorted((ROOT / "ssdlab" / "lessons").glob("[0-9]*.toml")):
        for step in load_lesson(path).steps:
            for config in getattr(step, "configs", ()):
                if config.scenario is not None:
                    runs[f"{path.stem}/{step.id}/{config.id}"] = config.scenario
    return runs


def figures(scenario) -> list[list]:
    """A scenario's step figures as the record keeps them (_rows)."""
    from ssdlab.model.lab.scenario import run_scenario

    return _rows(run_scenario(scenario))


def _recorded() -> dict:
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


RECORDED = _recorded()


def test_the_record_covers_every_lesson_scenario_run():
    assert sorted(RECORDED) == sorted(lesson_runs())
    assert set(QUICK) <= set(RECORDED)


def _rows(results) -> list[list]:
    """Each step's figures as JSON keeps them (an instant step's WA is nan, which JSON
    writes as NaN and reads back; compared as text so nan equals nan, exact otherwise)."""
    return json.loads(json.dumps([[r.as_dict()[k] for k in KEYS] for r in results]))


def same_as_recorded(key: str, results) -> None:
    """The step results of lesson run `key` ('lesson/step/config') are exactly its record."""
    got = _rows(results)
    assert len(got) == len(RECORDED[key]), key
    for i, (row, want) in enumerate(zip(got, RECORDED[key], strict=True)):
        assert {k: repr(v) for k, v in zip(KEYS, row, strict=True)} == \
            {k: repr(v) for k, v in zip(KEYS, want, strict=True)}, f"{key} step {i + 1}"


@pytest.mark.parametrize("key", QUICK)
def test_a_quick_lesson_run_gives_exactly_its_recorded_steps(key):
    from ssdlab.model.lab.scenario import run_scenario

    same_as_recorded(key, run_scenario(lesson_runs()[key]))


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    import time

    sys.path.insert(0, str(ROOT))  # this checkout's code, not an installed copy
    out = {}
    for key, scenario in lesson_runs().items():
        t = time.perf_counter()
        out[key] = figures(scenario)
        print(f"{key}: {time.perf_counter() - t:.2f} s", flush=True)
    GOLDEN.write_text(json.dumps(out, indent=0) + "\n")
