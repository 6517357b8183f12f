"""A reader that goes away (`ssdlab ... | head -1`) never gets a traceback.

Into a pipe, stdout is block-buffered unless PYTHONUNBUFFERED is set (as it is on some
machines, where it hid this): a short output is still buffered when the command returns, and
the write that meets the closed pipe is the final flush. Each case runs twice, buffered (the
variable removed) and unbuffered (`-u`), with its stdout a pipe whose read end is closed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.cli.main import build_parser
from ssdlab.model.lab.entrypoint import READER_GONE

ROOT = Path(__file__).resolve().parents[1]

SMALL_SIMULATE = ["simulate", "--user-pages", "16384", "--pages-per-block", "32",
                  "--measure-drive-writes", "1"]
CASES = {
    "--help": ["--help"],
    **{f"{name} --help": [name, "--help"] for name in build_parser().subcommands},
    "lesson list --help": ["lesson", "list", "--help"],
    "simulate": SMALL_SIMULATE,
    "simulate --json": [*SMALL_SIMULATE, "--json"],
    "run": ["run", "ssdlab/assets/scenarios/trace_replay.toml"],
    "lesson list": ["lesson", "list"],
    "lesson list --json": ["lesson", "list", "--json"],
    "lesson validate": ["lesson", "validate", "ssdlab/lessons/01_write_amplification.toml"],
    "an argument error": ["simulate", "--user-pages", "-1"],
}


def _scrubbed_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if not k.startswith("PYTHON") and not k.startswith("LC_") and k != "LANG"}


def _run_into_closed_pipe(argv: list[str]) -> subprocess.CompletedProcess:
    read_end, write_end = os.pipe()
    os.close(read_end)  # as `ssdlab ... | head -1` once head has exited
    try:
        return subprocess.run(argv, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              cwd=ROOT, env=_scrubbed_env(), timeout=600)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("buffering", ["buffered", "unbuffered"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_reader_that_goes_away_gets_no_traceback(case, buffering):
    flags = ["-u"] if buffering == "unbuffered" else []
    done = _run_into_closed_pipe([sys.executable, *flags, "-m", "ssdlab.app.cli.main",
                                  *CASES[case]])
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, \
        done.stderr
    if case == "an argument error":
        # nothing reached stdout: the one-line message on stderr stands, with status 2
        assert done.returncode == 2 and "--user-pages" in done.stderr
    elif case.endswith("help"):
        # argparse's own print swallows the closed pipe when unbuffered (status 0); buffered,
        # the final flush meets it (status READER_GONE); either way nothing is said
        assert done.returncode in (0, READER_GONE) and done.stderr == ""
    else:
        assert done.returncode == READER_GONE, done.stderr
        assert done.stderr == ""


@pytest.mark.parametrize("module", ["ssdlab.model.lab.ext4compare", "ssdlab.model.lab.ext4rounds",
                                    "ssdlab.app.devtools.screenshot",
                                    "ssdlab.app.devtools.guibench",
                                    "ssdlab.app.devtools.lessontour"])
def test_every_module_entry_point_flushes_where_it_can_catch_a_closed_pipe(module):
    """The long Markdown reports and the developer tools end through the same wrapper."""
    source = (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    tail = source[source.index('if __name__ == "__main__":'):]
    assert "run_to_reader(main)" in tail


def test_the_wrapper_catches_the_final_flush_of_a_short_output():
    """The case PYTHONUNBUFFERED hid: one short line, still buffered at return."""
    code = ("import sys; from ssdlab.model.lab.entrypoint import run_to_reader; "
            "sys.exit(run_to_reader(lambda: print('one short line')))")
    done = _run_into_closed_pipe([sys.executable, "-c", code])
    assert (done.returncode, done.stderr) == (READER_GONE, "")
