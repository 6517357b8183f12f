"""Every bad argument of every subcommand: status 2, one line on stderr naming the flag, and
no work started. The argument types are fuzzed: a value parses or is refused cleanly."""

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.app.cli.args import names, positive_real, whole, whole_list
from ssdlab.app.cli.main import main

REPO = Path(__file__).resolve().parents[1]
SCENARIO = str(REPO / "ssdlab" / "assets" / "scenarios" / "trace_replay.toml")

BAD = [
    (["simulate", "--seed", "-1"], "--seed"),
    (["simulate", "--seed", str(2**63)], "--seed"),
    (["simulate", "--seed", "x"], "--seed"),
    (["simulate", "--warmup-drive-writes", "inf"], "--warmup-drive-writes"),
    (["simulate", "--measure-drive-writes", "nan"], "--measure-drive-writes"),
    (["simulate", "--spare", "nan"], "--spare"),
    (["simulate", "--active-fraction", "0"], "--active-fraction"),
    (["simulate", "--gc-low-blocks", "0"], "--gc-low-blocks"),
    (["simulate", "--user-pages", str(2**28), "--spare", "0.5", "--pages-per-block", "1"],
     "--pages-per-block"),
    (["bench", "--repeat", "0"], "--repeat"),
    (["bench", "--repeat", "101"], "--repeat"),
    (["bench", "--repeat", "2.5"], "--repeat"),
    (["bench", "--sizes", ""], "--sizes"),
    (["bench", "--sizes", ",,"], "--sizes"),
    (["bench", "--sizes", "20,x"], "--sizes"),
    (["bench", "--sizes", "14"], "--sizes"),
    (["bench", "--sizes", "31"], "--sizes"),
    (["bench", "--sizes", "20;24"], "--sizes"),
    (["bench", "--jobs", "-1"], "--jobs"),
    (["bench", "--jobs", "257"], "--jobs"),
    (["bench", "--reference", "/no/such/ref_ftl.c"], "--reference"),
    (["bench", "--reference", "/"], "--reference"),
    (["bench", "--physics", "--user-pages", "5"], "--user-pages"),
    (["bench", "--physics", "--user-pages", "1000"], "--user-pages"),
    (["bench", "--physics", "--user-pages", str(2**31)], "--user-pages"),
    (["bench", "--physics", "--warmup-drive-writes", "-1"], "--warmup-drive-writes"),
    (["bench", "--physics", "--measure-drive-writes", "inf"], "--measure-drive-writes"),
    (["bench", "--physics", "--measure-drive-writes", "0"], "--measure-drive-writes"),
    (["run", SCENARIO, "--series-every", "inf"], "--series-every"),
    (["run", SCENARIO, "--series-every", "nan"], "--series-every"),
    (["run", SCENARIO, "--series-every", "0"], "--series-every"),
    (["run", SCENARIO, "--series-every", "-2"], "--series-every"),
    (["run", SCENARIO, "--csv", SCENARIO], "--csv"),
    (["run", SCENARIO, "--csv", "/no/such/folder/x.csv"], "--csv"),
    (["run", SCENARIO, "--series", "/"], "--series"),
    (["experiments", "--only", ",,,"], "--only"),
    (["experiments", "--only", ""], "--only"),
    (["experiments", "--only", "discard,,fstrim"], "--only"),
    (["experiments", "--only", "discrad"], "--only"),
    (["simulate", "--nonsense"], "--nonsense"),
]


@pytest.mark.parametrize(("argv", "flag"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_argument_is_one_line_naming_the_flag(argv, flag, capsys):
    try:
        status = main(argv)
    except SystemExit as e:  # argparse's own exit, after printing its one line
        status = e.code
    out, err = capsys.readouterr()
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert flag in lines[0]
    assert out == ""


def test_a_refused_experiment_name_lists_the_valid_ones(capsys):
    with pytest.raises(SystemExit):
        main(["experiments", "--only", ",,,"])
    err = capsys.readouterr().err
    for name in ("discard", "fstrim", "journal", "vertex60"):
        assert name in err


@pytest.mark.parametrize("argv", [
    ["simulate", "--seed", "-1"],
    ["bench", "--sizes", "20,x"],
    ["bench", "--jobs", "-1", "--physics"],
    ["experiments", "--only", ",,,"],
    ["run", SCENARIO, "--series-every", "inf"],
])
def test_bad_arguments_give_no_traceback_as_a_command(argv):
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_no_display_says_how_to_run_headless():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    line, = done.stderr.strip().splitlines()
    for word in ("display", "simulate", "run", "experiments", "bench",
                 "QT_QPA_PLATFORM=offscreen"):
        assert word in line


def test_the_argument_types_accept_what_they_promise():
    assert whole(1, 100)(" 7 ") == 7
    assert whole_list(15, 30)("20, 24") == [20, 24]
    assert positive_real("1e-3") == 0.001
    assert names(lambda: ["a", "b"])("b,a,b") == ["b", "a"]


@given(st.text(max_size=40))
def test_fuzzed_values_parse_or_are_refused_cleanly(text):
    for parse in (whole(0, 2**63 - 1), whole_list(15, 30), positive_real,
                  names(lambda: ["discard", "fstrim"])):
        try:
            value = parse(text)
        except argparse.ArgumentTypeError as e:
            assert str(e).startswith("must ")
            assert "\n" not in str(e)
            continue
        if parse is positive_real:
            assert value > 0 and value < float("inf")
        elif isinstance(value, list):
            assert value
