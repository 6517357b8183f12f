"""`ssdlab simulate` and `ssdlab bench` as a user runs them."""

import argparse
import json
import shutil
import subprocess
import sys

import pytest

from ssdlab.app.cli.main import main


def ssdlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", *args], capture_output=True,
                          text=True, timeout=300)


def test_simulate_json_has_the_documented_fields():
    done = ssdlab("simulate", "--user-pages", "16384", "--pages-per-block", "32", "--spare",
                  "0.1", "--gc", "fifo", "--warmup-drive-writes", "1",
                  "--measure-drive-writes", "1", "--seed", "3", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for key in ("wa", "host_writes", "nand_writes", "gc_copies", "erases", "trims",
                "seconds", "user_pages", "physical_pages", "pages_per_block", "spare", "gc",
                "mapping"):
        assert key in out
    assert out["host_writes"] == 16384
    assert out["nand_writes"] == out["host_writes"] + out["gc_copies"]
    assert out["gc"] == "fifo" and out["mapping"] == "page"
    assert out["wa"] == pytest.approx(out["theory_wa"], rel=0.05)


def test_simulate_is_reproducible_with_a_seed(capsys):
    args = ["simulate", "--user-pages", "4096", "--pages-per-block", "16", "--spare", "0.2",
            "--gc", "random-d", "--d", "3", "--measure-drive-writes", "1", "--json"]
    assert main(args + ["--seed", "5"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args + ["--seed", "5"]) == 0
    second = json.loads(capsys.readouterr().out)
    wall_clock = ("seconds", "host_writes_per_second")
    assert {k: v for k, v in first.items() if k not in wall_clock} == \
        {k: v for k, v in second.items() if k not in wall_clock}
    # and the seed is used: another seed draws other writes and other random-d victims
    assert main(args + ["--seed", "6"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["nand_writes"] != first["nand_writes"]


def test_simulate_block_mapped_random_writes_rewrite_whole_blocks(capsys):
    assert main(["simulate", "--user-pages", "4096", "--pages-per-block", "32", "--spare",
                 "0.1", "--mapping", "block", "--warmup-drive-writes", "0",
                 "--measure-drive-writes", "0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["wa"] == pytest.approx(32, rel=0.01)


@pytest.mark.parametrize("args, names", [
    (["--spare", "1.2"], "--spare"),
    (["--spare", "abc"], "--spare"),
    (["--user-pages", "3"], "--user-pages"),
    (["--pages-per-block", "1"], "--pages-per-block"),
    (["--gc", "lru"], "--gc"),
    (["--d", "0", "--gc", "random-d"], "--d"),
    (["--hot-lbas", "1.5", "--workload", "hotcold"], "--hot-lbas"),
    (["--measure-drive-writes", "-1"], "--measure-drive-writes"),
    (["--user-pages", "1000", "--pages-per-block", "256"], "--spare"),
    (["--user-pages", str(2**31 - 1), "--spare", "0.5"], "--user-pages"),
])
def test_bad_arguments_exit_2_with_one_line_naming_the_argument(args, names):
    done = ssdlab("simulate", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert names in lines[0]
    assert done.stdout == ""


def test_bench_rejects_a_bad_repeat():
    done = ssdlab("bench", "--repeat", "0")
    assert done.returncode == 2
    assert "--repeat" in done.stderr


def test_bench_says_why_the_c_reference_was_not_run(tmp_path, monkeypatch):
    from ssdlab.app.cli import bench

    missing = tmp_path / "ref_ftl.c"
    exe, note = bench._build_reference(missing, str(tmp_path))
    assert exe is None and note == f"C reference not run: {missing} not found"

    broken = tmp_path / "broken.c"
    broken.write_text("this is not C\n")
    if shutil.which("gcc"):
        exe, note = bench._build_reference(broken, str(tmp_path))
        assert exe is None and note.startswith(f"C reference not run: gcc -O2 {broken} failed")

    monkeypatch.setenv("PATH", str(tmp_path))  # no gcc on it
    exe, note = bench._build_reference(broken, str(tmp_path))
    assert exe is None and note == "C reference not run: gcc not found on PATH"


def test_bench_json_and_text_carry_the_c_reference_note(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "ref_ftl.c"
    code = ("import argparse, json; from ssdlab.app.cli import bench; "
            f"print(json.dumps(bench.speed(argparse.Namespace(sizes=[15], repeat=1, "
            f"reference={str(missing)!r}, victim_order='newest', json=True))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    from ssdlab.app.cli import bench

    assert len(rows) == len(bench.SPEED_CASES)
    # compression on beside off: each compressed case against uncompressed greedy
    compressed = [r for r in rows if r["case"].startswith("greedy stored")]
    assert len(compressed) == 2 and all(r["compressed_ratio"] > 0 for r in compressed)
    assert {r["c_reference"] for r in rows} == {f"C reference not run: {missing} not found"}
    assert all("ratio" not in r for r in rows)
    # The text form prints the same note first; the cases themselves were run just above,
    # so here each one is a row of figures rather than a second simulation.
    row = {**rows[0], "host_writes_per_second": 1e6, "peak_rss_bytes": 1, "wa": 2.0}
    monkeypatch.setattr(bench, "_subprocess_case", lambda *a, **k: dict(row))
    bench.speed(argparse.Namespace(sizes=[15], repeat=1, reference=str(missing),
                                   victim_order="newest", json=False))
    assert capsys.readouterr().out.splitlines()[0] == f"C reference not run: {missing} not found"


def test_bench_speed_cases_report_progress_and_wa():
    """Each speed case (the 1 TiB one is the greedy case at 2^28) tells its progress phase
    by phase and measures one drive write of the engine."""
    from ssdlab.app.cli import bench

    seen = []
    for name, spare, _, _, stored in bench.SPEED_CASES:
        row = bench.run_speed_case(name, 15, spare, lambda phase, f: seen.append((phase, f)))
        assert row["host_writes_per_second"] > 0
        if spare is not None:
            # flash bytes per host byte: a compressing drive's can fall below 1
            assert row["wa"] >= stored and row["fill_seconds"] > 0
    assert {p for p, _ in seen} == {"fill", "warmup", "measure"}
    assert all(0 < f <= 1 for _, f in seen)
