"""The developer tools run off screen and say only what matters.

The README screenshot is taken for real in a subprocess with no display: it must write the
picture at its size and print nothing on stderr, in particular none of the offscreen
plugin's "does not support propagateSizeHints()" lines that once came 4 to 15 times a run.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_the_readme_screenshot_is_taken_off_screen_without_noise(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["SSDLAB_CONFIG_DIR"] = str(tmp_path / "config")
    out = tmp_path / "workbench.png"
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.devtools.screenshot", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert _png_size(out) == (1024, 640)  # a 1280 x 800 window, scaled to the page width


def test_only_the_offscreen_noise_is_dropped(capsys):
    from ssdlab.app.devtools.qtapp import _forward_all_but_offscreen_noise

    _forward_all_but_offscreen_noise(None, None, "This plugin does not support "
                                                 "propagateSizeHints()")
    _forward_all_but_offscreen_noise(None, None, "QPainter::begin: Paint device returned "
                                                 "engine == 0")
    assert capsys.readouterr().err == "QPainter::begin: Paint device returned engine == 0\n"
