"""Ctrl-C anywhere in `ssdlab`: one "interrupted" line, status 130, no traceback, no worker
left running, no output file half written.

Each command runs on a pseudo-terminal, as a user sees it (progress is shown only on a
terminal), in a process group of its own; the test waits for the command's first progress
output and then sends SIGINT to the whole group, as the terminal does on Ctrl-C. Nothing
waits on time: every wait is on output, on exit or on processes ending, with a guard of
minutes that only a hang reaches.
"""

import os
import pty
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.cli.main import main

REPO = Path(__file__).resolve().parents[1]
HANG_GUARD_S = 600


def _default_sigint() -> None:
    # A shell without job control starts background commands with SIGINT ignored, and
    # Python keeps an ignored SIGINT ignored; a test suite run that way (a CI runner, `cmd &`)
    # would then wait for a Ctrl-C that can never arrive. A terminal's foreground command
    # has the default action, which is what these tests are about.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """A command running on a pseudo-terminal; reads what it prints."""

    def __init__(self, *args: str):
        master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "ssdlab.app.cli.main", *args], cwd=REPO,
                                     stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                                     start_new_session=True, preexec_fn=_default_sigint)
        os.close(slave)
        self.master = master
        self.text = ""

    def _read(self) -> bool:
        ready, _, _ = select.select([self.master], [], [], HANG_GUARD_S)
        assert ready, f"no output for {HANG_GUARD_S} s; so far: {self.text!r}"
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the command has exited and closed the terminal
            return False
        self.text += chunk.decode(errors="replace")
        return bool(chunk)

    def wait_for(self, text: str) -> None:
        while text not in self.text:
            assert self._read(), f"ended before printing {text!r}: {self.text!r}"

    def ctrl_c(self) -> int:
        """SIGINT to the foreground group, as a terminal sends it; then the exit status."""
        os.killpg(self.proc.pid, signal.SIGINT)
        while self._read():
            pass
        os.close(self.master)
        return self.proc.wait(timeout=HANG_GUARD_S)


def descendants(pid: int) -> set[int]:
    """Every live process under `pid`."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def assert_clean_interrupt(term: Terminal, workers: set[int], command: str) -> None:
    status = term.ctrl_c()
    assert status == 130, term.text
    assert f"ssdlab {command}: interrupted" in term.text
    assert "Traceback" not in term.text, term.text
    assert [p for p in workers if alive(p)] == []


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")
def test_ctrl_c_during_simulate():
    term = Terminal("simulate", "--user-pages", str(1 << 22), "--warmup-drive-writes", "500",
                    "--measure-drive-writes", "500")
    term.wait_for("%")
    assert_clean_interrupt(term, descendants(term.proc.pid), "simulate")


def test_ctrl_c_during_run_keeps_the_old_output_files(tmp_path):
    scenario = tmp_path / "long.toml"
    scenario.write_text('version = 1\nname = "long"\n[drive]\nprofile = "ocz_vertex_60"\n'
                        'user_gib = 1\n[[steps]]\ndo = "fill"\npercent = 50\n'
                        '[[steps]]\ndo = "random_writes"\nmb = 50\nrequests = 10000000\n')
    csv, series = tmp_path / "steps.csv", tmp_path / "series.csv"
    csv.write_text("old steps\n")
    series.write_text("old series\n")
    term = Terminal("run", str(scenario), "--csv", str(csv), "--series", str(series))
    term.wait_for("step 2/2")
    assert_clean_interrupt(term, descendants(term.proc.pid), "run")
    assert csv.read_text() == "old steps\n"
    assert series.read_text() == "old series\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.toml", "series.csv",
                                                          "steps.csv"]


def test_ctrl_c_during_experiments():
    term = Terminal("experiments")
    term.wait_for("running ")
    assert_clean_interrupt(term, descendants(term.proc.pid), "experiments")


def test_ctrl_c_during_bench_physics_stops_the_worker_pool():
    term = Terminal("bench", "--physics", "--jobs", "2", "--user-pages", str(1 << 16),
                    "--warmup-drive-writes", "20", "--measure-drive-writes", "20")
    term.wait_for("windows")  # the header: the pool starts next
    term.wait_for("\ngreedy")  # a first case came back from a worker
    workers = descendants(term.proc.pid)
    assert workers, "the pool should be running"
    assert_clean_interrupt(term, workers, "bench")


def test_ctrl_c_during_bench_speed_stops_the_case_process():
    term = Terminal("bench", "--sizes", "24", "--repeat", "100")
    term.wait_for("C reference")  # printed once the engine is compiled and gcc has run
    workers = set()
    while not workers and term.proc.poll() is None:  # the first timed case's process
        workers = descendants(term.proc.pid)
        select.select([], [], [], 0.05)  # poll gently; the condition, not the time, decides
    assert_clean_interrupt(term, workers, "bench")


def test_ctrl_c_while_loading_a_scenario_is_one_line(monkeypatch, capsys, tmp_path):
    import ssdlab.model.lab.scenario as scenario

    def interrupted(path):
        raise KeyboardInterrupt

    monkeypatch.setattr(scenario, "load_scenario", interrupted)
    assert main(["run", str(tmp_path / "any.toml")]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "ssdlab run: interrupted"
