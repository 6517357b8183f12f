"""The layout policy applied to a real window at 1.5x scaling (QT_SCALE_FACTOR=1.5): a
1366 x 768 screen is 911 x 512 logical px, 36 lines of the normal type and 18 of the
presentation type. The policy's table is tested without a window (tests/test_layout_policy.py);
here the window itself, in a process of its own (the scale factor is read once, when the
application starts), on an offscreen screen told to be 1366 x 768 (Qt's offscreen platform
reads its screens from a JSON file), with one drive and with two, in both types."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, time
from PySide6.QtWidgets import QApplication
from ssdlab.app.gui.frame import arranger
from ssdlab.app.gui.frame.workbench import Workbench

app = QApplication([sys.argv[0]])
HANG_GUARD_S = 240  # a guard against waiting for ever, never a measure of speed


def until(condition, looks: int = 1) -> bool:
    # True once condition() held `looks` times in a row (a layout settles over passes)
    end, streak = time.monotonic() + HANG_GUARD_S, 0
    while time.monotonic() < end:
        app.processEvents()
        streak = streak + 1 if condition() else 0
        if streak >= looks:
            return True
        time.sleep(0.01)
    return False


w = Workbench()
w.confirm = lambda text: True
w.lesson_panel.explore.emit()
w.show()
out = {"screen": list(w.screen().geometry().getRect()), "ratio": w.screen().devicePixelRatio()}
until(lambda: w.snapshot is not None)
room = w.screen().geometry().size()


def fits() -> bool:
    w.presentation._grown = False
    w.setGeometry(0, 0, room.width(), room.height())
    app.processEvents()
    hint = w.minimumSizeHint()
    return (w.width(), w.height()) == (room.width(), room.height()) \
        and max(hint.height(), w.minimumHeight()) <= room.height() \
        and hint.width() <= room.width()


for present in (False, True):
    w.toggle_presentation(present)
    for two in (False, True):
        assert w.set_compare(two) == two
        until(lambda: len(w.views) == (2 if two else 1)
              and all(v.snapshot is not None for v in w.views))
        key = f"{'presentation' if present else 'normal'}-{'two' if two else 'one'}"
        out[key] = {"arrangement": w.arranger.arrangement.name,
                    "lines": arranger.room(w).lines,
                    "fits": until(fits, looks=10),
                    "status bar": w.statusBar().isVisible()}
w.toggle_presentation(False)
w.close()
print("RESULT " + json.dumps(out))
"""


def test_the_window_fits_1366_by_768_at_1_5x_scaling(tmp_path, compiled_engine):
    screens = tmp_path / "screens.json"
    screens.write_text(json.dumps({"screens": [
        {"name": "projector", "x": 0, "y": 0, "width": 1366, "height": 768,
         "logicalDpiX": 96, "logicalDpiY": 96}]}))
    env = dict(os.environ, QT_SCALE_FACTOR="1.5", SSDLAB_CONFIG_DIR=str(tmp_path),
               QT_QPA_PLATFORM=f"offscreen:configfile={screens}",
               PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                           os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=600)
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    out = json.loads(lines[-1].removeprefix("RESULT "))
    assert out["screen"] == [0, 0, 911, 512] and out["ratio"] == 1.5
    # the policy's rows for 911 x 512 (tests/test_layout_policy.py has the same table)
    assert out["normal-one"]["arrangement"] == "regular-narrow"
    assert out["normal-two"]["arrangement"] == "regular-narrow"
    assert out["presentation-one"]["arrangement"] == "compact-narrow"
    assert out["presentation-two"]["arrangement"] == "compact-narrow"
    for key in ("normal-one", "normal-two", "presentation-one", "presentation-two"):
        assert out[key]["fits"] and out[key]["status bar"], (key, out[key])
