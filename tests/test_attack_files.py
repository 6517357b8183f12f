"""Files given as input or output: nothing is lost, nothing hangs (issue 20).

One mechanism per cause, each pinned here: every input goes through ssdlab/model/inputfile.py
(never blocks on a FIFO, never reads a device, caps the size); every output of a command,
sidecars included, is checked against every input before any work (ssdlab/app/cli/outputs.py);
a results file that is not recognisably a sweep's is never cut; a sweep whose worker is
killed stops with a message instead of waiting for ever.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app.cli import sweep as sweep_cli
from ssdlab.app.cli.main import build_parser, main
from ssdlab.model.inputfile import InputFileError, read_input
from ssdlab.model.lab.sweeprun import RECORD_START, ResultsError, read_results, run_task

ROOT = Path(__file__).resolve().parents[1]
TINY_SWEEP = """format = 1
[drive]
user_pages = 4096
pages_per_block = 32
warmup_drive_writes = 0.2
measure_drive_writes = 0.2
[axes]
gc = ["greedy"]
spare = [0.1, 0.2, 0.3]
"""
RECORD = {"error": None, "key": "k", "point": {"gc": "greedy", "spare": 0.1},
          "result": {"spare": 0.1, "wa": 2.0, "theory_wa": 2.1}, "status": "ok",
          "wall_s": 0.1}


def _line(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True) + "\n"


# ---- data loss: outputs against inputs ------------------------------------------------------


@pytest.mark.parametrize("kind", ["same", "symlink", "hardlink"])
def test_a_charts_json_sidecar_never_replaces_the_results_it_charts(tmp_path, capsys, kind):
    # -o r.csv also writes r.json: here r.json is the results file, by name or by a link
    results = tmp_path / ("r.json" if kind == "same" else "results.jsonl")
    results.write_text(_line(RECORD))
    if kind != "same":
        (os.symlink if kind == "symlink" else os.link)(results, tmp_path / "r.json")
    before = results.read_bytes()
    out = tmp_path / "r.csv"
    assert main(["chart", str(results), "--chart", "wa-vs-spare", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "-o's JSON sidecar" in err and "is the sweep results being read" in err
    assert err.count("\n") == 1 and results.read_bytes() == before and not out.exists()


def test_a_sessions_sidecar_and_its_replayed_trace_are_inputs_too(tmp_path, capsys):
    session = tmp_path / "s.json"
    session.write_text(json.dumps({"format": "ssdlab-session", "version": 1,
                                   "settings": {}, "log": [], "series": {}}))
    assert main(["chart", str(session), "--chart", "wa", "-o", str(tmp_path / "s.csv")]) == 2
    assert "sidecar" in capsys.readouterr().err
    assert json.loads(session.read_text())["format"] == "ssdlab-session"


@pytest.mark.parametrize("argv", [["run", "{scenario}", "--csv", ""],
                                  ["run", "{scenario}", "--series", " "],
                                  ["lesson", "run", "1", "--report", ""]])
def test_an_empty_output_name_is_refused_not_silently_skipped(capsys, argv):
    scenario = str(ROOT / "ssdlab" / "assets" / "scenarios" / "alignment_firstgen.toml")
    assert main([a.replace("{scenario}", scenario) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("names no file" in err or "names no folder" in err)


# ---- data loss: sweep resume never cuts a file that is not a sweep's --------------------------


@pytest.mark.parametrize("text", [b'{"a": 1}', b'{"key": "x"}', b"[1, 2, 3]", b'{"x": [1, 2',
                                  b"{}", b"hello", b'{"status": "ok"}'])
def test_resume_refuses_a_file_that_is_not_a_sweeps_and_leaves_it_whole(tmp_path, capsys,
                                                                         text):
    spec, out = tmp_path / "s.toml", tmp_path / "r.jsonl"
    spec.write_text(TINY_SWEEP)
    out.write_bytes(text)  # one line, no final newline: not a torn sweep line
    assert main(["sweep", str(spec), "-o", str(out), "--resume", "--jobs", "1"]) == 2
    assert "is not a sweep result line" in capsys.readouterr().err
    assert out.read_bytes() == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40) | st.just(b"").map(lambda _: _line(RECORD).encode()),
                max_size=4), st.binary(max_size=60))
def test_only_a_recognisable_sweep_file_is_ever_cut(tmp_path_factory, lines, tail):
    path = tmp_path_factory.mktemp("r") / "r.jsonl"
    data = b"".join(x if x.endswith(b"\n") else x + b"\n" for x in lines) + tail
    path.write_bytes(data)
    try:
        results = read_results(str(path))
    except ResultsError as e:
        assert "\n" not in str(e)
        return
    if results.torn:
        cut = data[results.good_bytes:].lstrip()
        # whole records before it, or the torn line is the start of a record as line() writes
        assert results.records or cut.startswith(RECORD_START) or RECORD_START.startswith(cut)


def test_the_last_record_without_a_newline_is_cut_and_run_again(tmp_path):
    path = tmp_path / "r.jsonl"
    first, last = _line(RECORD), _line({**RECORD, "key": "k2"})
    path.write_text(first + last.rstrip("\n"))
    results = read_results(str(path))
    assert results.torn and results.good_bytes == len(first) and set(results.records) == {"k"}
    path.write_text(first + last)  # the same with its newline: both whole, nothing cut
    results = read_results(str(path))
    assert not results.torn and results.good_bytes == len(first + last)
    assert list(results.records) == ["k", "k2"]


def test_a_first_line_torn_by_a_kill_is_cut(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(_line(RECORD)[:25])
    results = read_results(str(path))
    assert results.torn and results.good_bytes == 0 and not results.records


# ---- hangs: a FIFO, a device or a folder given as any input -----------------------------------


def _loaders():
    from ssdlab.app.session.sessionfile import read_session
    from ssdlab.lessons.catalogue import check_file
    from ssdlab.lessons.loader import load_lesson
    from ssdlab.model.host.profiles import profile_from_file
    from ssdlab.model.host.traces import parse
    from ssdlab.model.lab.scenario import load_scenario
    from ssdlab.model.lab.sweep import load_sweep

    return {"scenario": load_scenario, "lesson": load_lesson, "lesson check": check_file,
            "session": read_session, "sweep": load_sweep, "results": read_results,
            "profile": lambda p: profile_from_file(Path(p)), "trace": lambda p: parse(p)}


@pytest.fixture(params=["fifo", "/dev/zero", "folder"])
def not_a_file(request, tmp_path) -> str:
    if request.param == "fifo":
        path = tmp_path / "pipe.toml"
        os.mkfifo(path)  # no writer ever comes: an open() without O_NONBLOCK waits for ever
        return str(path)
    if request.param == "folder":
        return str(tmp_path)
    return request.param


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["scenario", "lesson", "lesson check", "session", "sweep",
                                  "results", "profile", "trace"])
def test_every_input_refuses_a_fifo_a_device_or_a_folder_at_once(not_a_file, kind):
    loaders = _loaders()
    with pytest.raises(ValueError) as e:
        loaders[kind](not_a_file)
    assert "not a regular file" in str(e.value) and "\n" not in str(e.value)


def test_an_input_over_its_cap_is_refused_naming_the_cap(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(InputFileError, match="at most 1,000 bytes"):
        read_input(path, 1000)
    assert read_input(path, 1001) == b"x" * 1001  # the last byte allowed


# ---- hangs: a sweep whose worker is killed -----------------------------------------------------


def killed_on_the_second_spare(task):
    if task.point["spare"] == 0.2:
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would
    return run_task(task)


@pytest.mark.timeout(300)
def test_a_killed_worker_stops_the_sweep_with_a_message_and_keeps_what_finished(tmp_path,
                                                                                 capsys):
    spec, out = tmp_path / "s.toml", tmp_path / "r.jsonl"
    spec.write_text(TINY_SWEEP)
    args = build_parser().parse_args(["sweep", str(spec), "-o", str(out), "--jobs", "1"])
    assert sweep_cli.run_sweep(args, fn=killed_on_the_second_spare) == 1
    err = capsys.readouterr().err
    assert "a worker process died" in err and "--resume" in err
    kept = [json.loads(x) for x in out.read_text().splitlines()]
    assert all(r["status"] == "ok" for r in kept)
    assert 0.2 not in {r["point"]["spare"] for r in kept}


def test_a_bad_dask_address_is_exit_2_with_no_traceback_at_exit(tmp_path):
    pytest.importorskip("distributed")
    spec = tmp_path / "s.toml"
    spec.write_text(TINY_SWEEP)
    for address in ("not an address", "tcp://host:99999", "ftp://host:1"):
        r = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "sweep", str(spec), "-o",
                            str(tmp_path / "r.jsonl"), "--dask", address], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "--dask" in r.stderr and "Traceback" not in r.stderr
