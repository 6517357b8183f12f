"""The application object the developer tools share: off screen without a display, and
without the offscreen plugin's noise.

Qt's offscreen platform warns "This plugin does not support propagateSizeHints()" each time
a window's size constraints change: several times per tool run, about nothing a developer
can act on, and it buried the tools' own output. Only that message is dropped; every other
Qt message still reaches stderr as Qt would print it.
"""

from __future__ import annotations

import os
import sys

UNSUPPORTED_BY_OFFSCREEN = ("This plugin does not support propagateSizeHints()",)


def _forward_all_but_offscreen_noise(mode, context, message: str) -> None:
    if message in UNSUPPORTED_BY_OFFSCREEN:
        return
    print(message, file=sys.stderr)


def application():
    """The QApplication, made once; off screen when no display is set."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    qInstallMessageHandler(_forward_all_but_offscreen_noise)
    return QApplication.instance() or QApplication([sys.argv[0]])
