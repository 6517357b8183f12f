"""What a screen reader reads over AT-SPI, the desktop's accessibility bus (issue 38): lesson
1's teaching line, the tally's figures and the note under the chart, found by their words.

Qt's AT-SPI bridge gives a label no Text interface: a screen reader has its name and its
description, nothing else, so a label with a fixed name hid its words. Qt starts the bridge
only on the xcb platform (offscreen has none), so this runs the window in a child process
on an X display of its own (Xvfb) inside a D-Bus session of its own (dbus-run-session: the
accessibility bus launcher and registry start in it), and reads the tree from a third
process as a screen reader would (tests/_atspi_app.py, tests/_atspi_reader.py). Without
those programs it is skipped, saying which is missing; tests/test_gui_heard.py checks the
same words in-process through QAccessible on every run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NEEDED = ("Xvfb", "dbus-run-session")
LAUNCHER = ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")
HANG_S = 600


def missing() -> str:
    gone = [p for p in NEEDED if shutil.which(p) is None]
    if not any(Path(p).exists() for p in LAUNCHER):
        gone.append("at-spi-bus-launcher (at-spi2-core)")
    return ", ".join(gone)


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    """What the reader read, and what the window showed, in the child's JSON."""
    if missing():
        pytest.skip(f"AT-SPI needs {missing()}: not installed here (the in-process check "
                    "in tests/test_gui_heard.py still runs)")
    tmp = tmp_path_factory.mktemp("atspi")
    runtime = tmp / "run"
    runtime.mkdir(mode=0o700)
    # an X display of our own: Xvfb picks a free number and writes it to a pipe
    r, w = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1366x768x24",
                             "-nolisten", "tcp"], pass_fds=(w,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        with os.fdopen(r) as f:
            display = f.readline().strip()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DBUS_", "AT_SPI", "QT_QPA"))}
        # the accessibility bus's socket in a folder of ours, not in the user's
        env |= {"DISPLAY": f":{display}", "XDG_RUNTIME_DIR": str(runtime),
                "PYTHONPATH": os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])}
        out = tmp / "read.json"
        done = subprocess.run(["dbus-run-session", "--", sys.executable,
                               str(HERE / "_atspi_app.py"), str(out)], env=env,
                              capture_output=True, text=True, timeout=HANG_S)
        assert done.returncode == 0 and out.exists(), done.stderr[-3000:]
        return json.loads(out.read_text(encoding="utf-8"))
    finally:
        xvfb.terminate()
        xvfb.wait(30)


def said(node: dict) -> str:
    return f"{node['name']} {node['description']}"


def test_lesson_one_s_teaching_line_is_read_by_its_words(read):
    t = read["teaching"]
    line = t["note"].split("\n")[0]  # "GC 1: block 107 chosen to be cleaned; 53 of ..."
    assert line.startswith(("GC ", "Merge ")) and "block" in line
    found = [n for n in t["tree"] if line in said(n)]
    assert found, f"nothing on the bus says {line!r}"
    assert any(n["role"] == "label" and line in n["name"] for n in found)


def test_the_tally_s_figures_are_read_by_their_words(read):
    t = read["teaching"]
    for key, figure in t["tally"].items():
        name = t["names"][key]
        rows = [n for n in t["tree"] if n["name"] == name and n["role"] == "label"]
        assert any(n["description"].startswith(figure) for n in rows), (
            f"{name}: {figure} not on the bus: {[said(n) for n in rows]}")


def test_the_note_under_the_chart_is_read_by_its_words(read):
    e = read["explore"]
    assert "in the last drive write" in e["wa_note"]
    assert any(e["wa_note"] in said(n) for n in e["tree"])


def test_the_block_map_and_charts_say_what_they_are_and_what_they_show(read):
    tree = read["teaching"]["tree"]
    maps = [n for n in tree if n["name"].startswith("Block map of drive")]
    # Qt's bridge names the role of a picture "graphic"; it was "filler", which says nothing
    assert maps and all(n["role"] == "graphic" and n["description"] for n in maps)
    charts = {n["name"]: n["description"] for n in tree if n["role"] == "chart"}
    assert "Chart: Free blocks" in charts
    assert all("write amplification" not in d.lower() for name, d in charts.items()
               if name != "Chart: Write amplification")


def test_the_teaching_phase_is_heard(read):
    heard = " ".join(words for _at, words in read["heard"] if not words.startswith("focus:"))
    assert "play slowly on the block map" in heard
    number = read["teaching"]["note"].split(":")[0]  # "GC 1"
    assert f"{number}: block" in heard and "then erased" in heard
