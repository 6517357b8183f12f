"""The person's own files the window reads at start (issue 34): preferences.json and
lessons.json as a pipe (FIFO), a link to /dev/zero, a folder or JSON nested too deeply. The
window opens with defaults and says why, and the bad file is set aside beside it (never
deleted), so the next save does not write over it or into the pipe."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ssdlab.app.gui.appearance import preferences
from ssdlab.app.gui.appearance.preferences import Preferences
from ssdlab.app.session import configfile
from ssdlab.app.session.progress import load_progress

KINDS = ["fifo", "/dev/zero", "folder", "nested"]


def _bad(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text("[" * 100_000 + "]" * 100_000)


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    yield tmp_path
    preferences.set_in_force(Preferences())


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_preferences_file_opens_the_window_with_defaults(request, config, kind):
    _bad(config / "preferences.json", kind)
    bench = request.getfixturevalue("bench")
    assert bench.presentation.prefs == Preferences()
    said = bench.status_message.toolTip()
    assert "preferences.json: not used" in said and "kept as preferences.json.bad" in said
    assert not os.path.lexists(config / "preferences.json")
    assert os.path.lexists(config / "preferences.json.bad")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_lessons_file_opens_the_window_afresh(request, config, kind):
    _bad(config / "lessons.json", kind)
    bench = request.getfixturevalue("bench")
    assert bench.lesson_progress.finished == set()
    assert "kept as lessons.json.bad" in bench.lesson_progress.problem
    assert os.path.lexists(config / "lessons.json.bad")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_file_is_set_aside_and_never_lost(tmp_path, kind):
    path = tmp_path / "lessons.json"
    (tmp_path / "lessons.json.bad").write_text("an earlier bad file")
    _bad(path, kind)
    p = load_progress(path)
    assert p.problem.startswith(f"{path}: not used (") and "kept as lessons.json.bad2" in p.problem
    assert (tmp_path / "lessons.json.bad").read_text() == "an earlier bad file"
    p.visit("trim", 1)  # the next save makes a new file in its place
    assert load_progress(path).at == {"trim": 1}


def test_a_settings_file_larger_than_the_cap_is_not_read(tmp_path):
    path = tmp_path / "preferences.json"
    path.write_text(" " * (configfile.MAX_BYTES + 1) + "{}")
    prefs, problem = preferences.load(path)
    assert prefs == Preferences() and "bytes" in problem and "default preferences" in problem
