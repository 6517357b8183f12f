"""In the window, the files that crashed or hung the command line (issue 20): a bad lesson
file shows its message and changes nothing; a FIFO or a device given as a lesson, session or
scenario is refused at once on the window's own thread, never read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_attack_inputs import SCENARIO_RUN


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))


def _bad_lesson(tmp_path: Path, kind: str) -> str:
    folder = tmp_path / "lesson"
    folder.mkdir()
    path = folder / "l.toml"
    if kind == "nested":
        path.write_text("format = 1\nx = " + "[" * 100_000 + "]" * 100_000 + "\n")
    elif kind == "odd scenario":
        (folder / "odd.toml").write_text("version = 1\nsteps = 3\n")
        path.write_text(SCENARIO_RUN.replace("SCENARIO", "odd.toml"))
    elif kind == "outside":
        path.write_text(SCENARIO_RUN.replace("SCENARIO", "/etc/passwd"))
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        return "/dev/zero"
    return str(path)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["nested", "odd scenario", "outside", "fifo", "/dev/zero"])
def test_a_bad_lesson_file_in_the_window_is_said_and_changes_nothing(bench, isolated,
                                                                      tmp_path, kind):
    before = bench.snapshot.counters["host_writes"]
    assert not bench.open_lesson(_bad_lesson(tmp_path, kind))
    note = bench.lesson_panel.home_note.text()
    assert note.startswith("Open lesson: ") and "\n" not in note
    assert bench.lesson_panel.lesson is None
    assert bench.snapshot.counters["host_writes"] == before


@pytest.mark.timeout(120)
@pytest.mark.parametrize("what", ["session", "scenario"])
def test_a_fifo_or_a_device_as_a_session_or_scenario_is_refused_at_once(bench, tmp_path,
                                                                         what):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    settings = bench.session.settings
    for path in (str(fifo), "/dev/zero"):
        opened = bench.open(path) if what == "session" else bench.open_scenario(path)
        assert not opened
        assert "not a regular file" in bench.controls.error.text()
        assert bench.session.settings == settings


@pytest.mark.timeout(300)
def test_an_export_never_replaces_the_session_it_shows(bench, until, tmp_path):
    from ssdlab.app.gui.frame.exportdialog import export_chart

    bench.request(workload="fill", fill_pct=50.0, speed="fast")
    bench.run_workload()
    until(lambda: bench.snapshot.counters["host_writes"] > 0 and not bench.snapshot.running
          and not bench.snapshot.segment)
    session = tmp_path / "run.json"
    assert bench.save(str(session))
    before = session.read_bytes()
    bench.confirm = lambda text: True
    assert bench.open(str(session))
    replay = bench.views[0].worker._sent
    until(lambda: bench.snapshot.handled >= replay and not bench.snapshot.running)
    # run.csv's JSON sidecar is run.json: the session itself
    assert not export_chart(bench, "wa", str(tmp_path / "run.csv"), "csv")
    assert "is the session being read" in bench.controls.error.text()
    assert session.read_bytes() == before and not (tmp_path / "run.csv").exists()
    assert export_chart(bench, "wa", str(tmp_path / "other.csv"), "csv")  # elsewhere: fine
