"""Test-wide configuration.

Qt reads ``QT_QPA_PLATFORM`` when the first application object is created; without a
display and without this setting it aborts the whole process, so no pytest summary is
printed. Setting it here, at import time and before any Qt import, keeps every test run
headless without anyone exporting it by hand. A value already in the environment wins.
"""

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def bench(qtbot):
    """The workbench window, shown, with its first snapshot drawn. (Imported here, not at
    the top, so model tests never load Qt.)"""
    from app.gui.workbench import Workbench

    w = Workbench()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.snapshot is not None, timeout=10000)
    yield w
    w.close()
