"""`ssdlab sweep`: sweep files are checked whole before anything runs; every finished run is
one JSON line kept through Ctrl-C; --resume runs only what is missing, never a point twice."""

import json
import os
import signal
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app.cli import sweep as sweep_cli
from ssdlab.app.cli.main import build_parser, main
from ssdlab.model.flash import theory
from ssdlab.model.lab.sweep import SweepError, load_sweep, sweep_from_data
from ssdlab.model.lab.sweeprun import ResultsError, read_results, run_task

ROOT = Path(__file__).resolve().parents[1]
# Tiny drives: 4096 user pages in 32-page blocks, half a drive write each way.
TINY = """format = 1
[drive]
user_pages = 4096
pages_per_block = 32
warmup_drive_writes = 0.5
measure_drive_writes = 0.5
[axes]
gc = ["greedy", "fifo"]
spare = [0.1, 0.2, 0.3]
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def lines(path) -> list[dict]:
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def figures(records: list[dict]) -> dict:
    """Each key's record without its wall time: what two runs of a point must agree on."""
    return {r["key"]: {k: v for k, v in r.items() if k != "wall_s"} for r in records}


VALIDATION = [
    ("format = 2\n", "format must be 1; got 2"),
    ("", "format must be 1; it is missing"),
    ("format = 1\nname = 3\n[drive]\n[axes]\nspare = [0.1]\n", "name must be a string"),
    ("format = 1\ncolour = 1\n[drive]\n[axes]\nspare = [0.1]\n", "colour is not a known field"),
    ("format = 1\n[axes]\nspare = [0.1]\n", "exactly one of [drive]"),
    ("format = 1\n[drive]\n", "axes is missing"),
    ("format = 1\n[drive]\nspare = 0.95\n[axes]\ngc = ['fifo']\n",
     "drive.spare must be a number from 0 to 0.9"),
    ("format = 1\n[drive]\nuser_pages = 8.0\n[axes]\ngc = ['fifo']\n",
     "drive.user_pages must be a whole number from 16 to"),
    ("format = 1\n[drive]\nsize = 1\n[axes]\ngc = ['fifo']\n", "drive.size is not a known"),
    ("format = 1\n[drive]\n[axes]\ncolour = [1]\n", "axes.colour is not a field a sweep"),
    ("format = 1\n[drive]\n[axes]\nspare = []\n", "axes.spare must be a list of one or more"),
    ("format = 1\n[drive]\n[axes]\nspare = 0.1\n", "axes.spare must be a list of one or more"),
    ("format = 1\n[drive]\n[axes]\nspare = [0.1, 'x']\n", "axes.spare[1] must be a number"),
    ("format = 1\n[drive]\n[axes]\ngc = ['lru']\n", "axes.gc[0] must be one of greedy, fifo"),
    ("format = 1\n[drive]\n[axes]\nspare = [0.1]\n", None),  # control: this one is fine
    ("format = 1\nrepeats = 0\n[drive]\n[axes]\nspare = [0.1]\n",
     "repeats must be a whole number from 1 to 1,000"),
    ("format = 1\nmeasure = ['speed']\n[drive]\n[axes]\nspare = [0.1]\n",
     "measure[0] must be a list of one or more of wa,"),
    ("format = 1\n[drive]\nuser_pages = 64\n[axes]\nspare = [0.1]\n",
     "point (spare=0.1): spare must leave at least"),
    ("format = 1\n[drive]\n[axes]\nspare = [0.1]\n[scenario]\nfile = 'x.toml'\n",
     "exactly one of [drive]"),
    ("format = 1\n[scenario]\nfile = 'nowhere.toml'\nfield = 'filesystem.discard'\n"
     "values = [true]\n", "scenario.file is not a runnable scenario"),
    ("format = 1\n[drive]\n[axes]\nspare = [0.1\n", "not valid TOML"),
]


@pytest.mark.parametrize("text, message", VALIDATION)
def test_a_bad_sweep_file_is_one_line_naming_the_field_and_exit_2(tmp_path, capsys, text,
                                                                   message):
    spec = write(tmp_path, text)
    out = tmp_path / "r.jsonl"
    if message is None:
        assert len(load_sweep(spec).tasks) == 1
        return
    assert main(["sweep", spec, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ssdlab sweep: error: ") and message in err
    assert not out.exists()  # nothing started


def test_bad_arguments_exit_2_and_leave_an_existing_results_file_alone(tmp_path, capsys):
    spec = write(tmp_path, TINY)
    out = tmp_path / "r.jsonl"
    out.write_text("precious\n")
    assert main(["sweep", spec, "-o", str(out)]) == 2
    assert "already exists; pass --resume" in capsys.readouterr().err
    assert out.read_text() == "precious\n"
    assert main(["sweep", spec, "-o", str(out), "--resume"]) == 2  # not a results file
    assert "r.jsonl:1: is not a sweep result line" in capsys.readouterr().err
    assert out.read_text() == "precious\n"
    assert main(["sweep", spec, "-o", str(tmp_path / "no" / "r.jsonl")]) == 2
    assert "folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["sweep", spec, "-o", str(out), "--jobs", "-1"])
    assert e.value.code == 2


def test_drive_lines_carry_the_measured_and_the_analytic_wa(tmp_path):
    out = tmp_path / "r.jsonl"
    assert main(["sweep", write(tmp_path, TINY), "-o", str(out), "--jobs", "2"]) == 0
    records = lines(out)
    assert len(records) == 6 and len({r["key"] for r in records}) == 6
    for r in records:
        assert r["status"] == "ok" and r["error"] is None
        assert json.loads(r["key"]) == r["point"]
        p, res = r["point"], r["result"]
        assert res["wa"] >= 1.0
        expect = theory.wa_for(p["gc"], res["effective_spare"], p["pages_per_block"], d=p["d"])
        assert res["theory_wa"] == pytest.approx(expect, rel=1e-12)
    # more spare, less write amplification, for each policy
    for gc in ("greedy", "fifo"):
        was = [r["result"]["wa"] for r in sorted(records, key=lambda r: r["point"]["spare"])
               if r["point"]["gc"] == gc]
        assert was == sorted(was, reverse=True)


def test_a_failed_point_is_recorded_with_its_message_and_the_rest_run(tmp_path, capsys):
    """A run that raises (here every FIFO point's) is a failed line with its message on one
    line, not a crash; the other points still run, and the exit status is 1."""
    spec = write(tmp_path, TINY)
    out = tmp_path / "r.jsonl"
    args = build_parser().parse_args(["sweep", spec, "-o", str(out), "--jobs", "1"])
    assert sweep_cli.run_sweep(args, fn=fails_for_fifo) == 1
    records = lines(out)
    assert len(records) == 6
    bad = [r for r in records if r["status"] == "failed"]
    assert {r["point"]["gc"] for r in bad} == {"fifo"} and len(bad) == 3
    assert all(r["error"] == "fifo refused here: no room" and r["result"] is None for r in bad)
    assert "3 failed" in capsys.readouterr().err
    # a failed point is tried again on --resume, and the new line supersedes it
    assert main(["sweep", spec, "-o", str(out), "--resume", "--jobs", "1"]) == 0
    assert len(read_results(str(out)).done()) == 6


def fails_for_fifo(task):
    if task.point["gc"] == "fifo":
        raise RuntimeError("fifo refused here:\n no room")  # a worker crash, not a record
    return run_task(task)


# ---- resume and Ctrl-C: a counting, gated worker ------------------------------------------
# Module globals are set before the pool forks, so its worker sees them. Each run appends a
# line to COUNTER; a point outside LET_THROUGH waits for RELEASE, which never appears, so
# the test knows exactly which runs can finish before it presses Ctrl-C.
COUNTER = ""
RELEASE = ""
LET_THROUGH: set = set()


def counted(task):
    with open(COUNTER, "a") as f:
        f.write(task.key + "\n")
    if LET_THROUGH and task.key not in LET_THROUGH:
        while not os.path.exists(RELEASE):
            threading.Event().wait(0.02)
    return run_task(task)


@pytest.fixture
def gate(tmp_path):
    globals()["COUNTER"] = str(tmp_path / "runs.txt")
    globals()["RELEASE"] = str(tmp_path / "release")
    LET_THROUGH.clear()
    yield
    LET_THROUGH.clear()


def runs(tmp_path) -> list[str]:
    path = tmp_path / "runs.txt"
    return path.read_text().splitlines() if path.exists() else []


def sweep_args(spec, out, *more):
    return build_parser().parse_args(["sweep", spec, "-o", str(out), *more])


def test_resume_after_a_kill_runs_only_the_missing_points(tmp_path, gate, capsys):
    spec = write(tmp_path, TINY)
    out = tmp_path / "r.jsonl"
    assert sweep_cli.run_sweep(sweep_args(spec, out, "--jobs", "2"), fn=counted) == 0
    full = figures(lines(out))
    assert len(runs(tmp_path)) == 6
    # What a kill after k = 2 lines leaves: two whole lines and a torn third.
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:2]) + text[2][: len(text[2]) // 2])
    (tmp_path / "runs.txt").unlink()
    assert sweep_cli.run_sweep(sweep_args(spec, out, "--resume", "--jobs", "2"),
                               fn=counted) == 0
    assert "dropped an unfinished last line" in capsys.readouterr().err
    assert len(runs(tmp_path)) == 4  # the 2 finished points were not run again
    assert sorted(runs(tmp_path)) == sorted(set(full) - {json.loads(x)["key"]
                                                          for x in text[:2]})
    assert figures(lines(out)) == full  # same results, each point once
    # resuming a finished sweep runs nothing
    (tmp_path / "runs.txt").unlink()
    assert sweep_cli.run_sweep(sweep_args(spec, out, "--resume"), fn=counted) == 0
    assert runs(tmp_path) == []


def test_a_point_listed_twice_runs_once(tmp_path):
    spec = write(tmp_path, TINY.replace("[0.1, 0.2, 0.3]", "[0.1, 0.2, 0.1]"))
    assert len(load_sweep(spec).tasks) == 4


def test_ctrl_c_keeps_every_finished_line_and_exits_130(tmp_path, gate, capsys, monkeypatch):
    # The whole command, as `ssdlab sweep` runs it, with the gated worker.
    monkeypatch.setattr(sweep_cli, "main", lambda args: sweep_cli.run_sweep(args, fn=counted))
    spec = write(tmp_path, TINY)
    out = tmp_path / "r.jsonl"
    tasks = load_sweep(spec).tasks
    k = 2
    LET_THROUGH.update(t.key for t in tasks[:k])

    def press_ctrl_c_after_k_lines():
        while not (out.exists() and out.read_text().count("\n") >= k):
            threading.Event().wait(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    # Python's own Ctrl-C handler, even if this suite was started with SIGINT ignored (a
    # background command of a shell without job control), or the signal would never land.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        presser = threading.Thread(target=press_ctrl_c_after_k_lines, daemon=True)
        presser.start()
        assert main(["sweep", spec, "-o", str(out), "--jobs", "1"]) == 130
        presser.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert "ssdlab sweep: interrupted" in capsys.readouterr().err
    kept = lines(out)
    assert {r["key"] for r in kept} == {t.key for t in tasks[:k]}
    assert all(r["status"] == "ok" for r in kept)
    # the rest runs on --resume, and only the rest
    LET_THROUGH.clear()
    (tmp_path / "runs.txt").unlink()
    assert sweep_cli.run_sweep(sweep_args(spec, out, "--resume", "--jobs", "1"),
                               fn=counted) == 0
    assert sorted(runs(tmp_path)) == sorted(t.key for t in tasks[k:])
    assert len(lines(out)) == 6


def test_seed_repeats_make_distinct_points(tmp_path):
    sweep = load_sweep(write(tmp_path, "repeats = 3\n" + TINY))
    assert len(sweep.tasks) == 18
    assert sorted({t.point["seed"] for t in sweep.tasks}) == [1, 2, 3]


# ---- a scenario with one field varied -----------------------------------------------------
SCENARIO = """version = 1
[drive]
profile = "firstgen_block_64"
user_gib = 0.25
[filesystem]
discard = false
[[steps]]
do = "write"
mb = 4.0
[[steps]]
do = "delete"
[[steps]]
do = "sync"
"""


def test_a_scenario_sweep_varies_one_field(tmp_path):
    write(tmp_path, SCENARIO, "scn.toml")
    spec = write(tmp_path, 'format = 1\nmeasure = ["trims", "device_written_mb"]\n'
                 '[scenario]\nfile = "scn.toml"\nfield = "steps[0].mb"\nvalues = [1.0, 8.0]\n')
    out = tmp_path / "r.jsonl"
    assert main(["sweep", spec, "-o", str(out), "--jobs", "1"]) == 0
    by_mb = {r["point"]["value"]: r for r in lines(out)}
    assert set(by_mb) == {1.0, 8.0}
    small, big = (by_mb[v]["result"]["steps"][0] for v in (1.0, 8.0))
    assert small["name"] == "write dd.bin" and set(small) == {"name", "trims", "device_written_mb"}
    assert big["device_written_mb"] > 4 * small["device_written_mb"]


@pytest.mark.parametrize("field, values, message", [
    ("filesystem.colour", "[true]", "names no field a sweep can vary; allowed there: journal"),
    ("steps[7].mb", "[1.0]", "must name one of the scenario's 3 steps"),
    ("steps[0].mb", "[-1.0]", "scenario.values[0] must be a number from 0.001"),
    ("steps[0].mb", "[1e6]", "scenario.values (steps[0].mb = 1000000.0): steps[0].mb"),
    ("filesystem.discard", "[1]", "scenario.values[0] must be true or false"),
    ("no such", "[1]", "scenario.field must be a scenario field"),
])
def test_a_bad_scenario_sweep_names_the_field(tmp_path, field, values, message):
    write(tmp_path, SCENARIO, "scn.toml")
    spec = write(tmp_path, f'format = 1\n[scenario]\nfile = "scn.toml"\nfield = "{field}"\n'
                 f"values = {values}\n")
    with pytest.raises(SweepError) as e:
        load_sweep(spec)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_shipped_sweeps_load():
    for path in sorted((ROOT / "ssdlab" / "assets" / "sweeps").glob("*.toml")):
        sweep = load_sweep(path)
        assert sweep.tasks, path
    spare = load_sweep(ROOT / "ssdlab" / "assets" / "sweeps" / "wa_vs_spare.toml")
    assert {t.point["gc"] for t in spare.tasks} == {"greedy", "fifo", "random-d"}
    assert {t.point["user_pages"] for t in spare.tasks} == {2**22}


# ---- fuzz: the parsers never fail any other way ---------------------------------------------
_scalars = st.one_of(st.booleans(), st.integers(-2**70, 2**70), st.floats(),
                     st.text(max_size=8))
_values = st.one_of(_scalars, st.lists(_scalars, max_size=3))
_keys = st.sampled_from(["spare", "gc", "user_pages", "d", "seed", "repeats", "x", "format",
                         "pages_per_block", "workload", "mapping"])


@settings(max_examples=150, deadline=None)
@given(top=st.dictionaries(_keys, _values, max_size=3),
       drive=st.dictionaries(_keys, _scalars, max_size=3),
       axes=st.dictionaries(_keys, _values, max_size=2), fmt=st.sampled_from([1, 1, 2, "1"]))
def test_fuzzed_sweep_data_is_refused_with_a_sweep_error_or_expands(top, drive, axes, fmt):
    data = {**top, "format": fmt, "drive": drive, "axes": axes}
    try:
        sweep = sweep_from_data(data, Path("f.toml"))
    except SweepError as e:
        assert "\n" not in str(e) and str(e).startswith("f.toml: ")
        return
    assert sweep.tasks and all(json.loads(t.key) == t.point for t in sweep.tasks)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
def test_fuzzed_results_files_read_or_name_the_line(tmp_path_factory, tail):
    path = tmp_path_factory.mktemp("r") / "r.jsonl"
    good = json.dumps({"key": "a", "status": "ok"}) + "\n"
    path.write_bytes(good.encode() + tail)
    try:
        results = read_results(str(path))
    except (ResultsError, UnicodeDecodeError) as e:
        assert "\n" not in str(e)
        return
    assert results.good_bytes <= len(good) + len(tail)
    if not results.torn:
        assert results.good_bytes == len(good) + len(tail)
