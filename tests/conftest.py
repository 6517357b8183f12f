"""Test-wide configuration.

Qt reads ``QT_QPA_PLATFORM`` when the first application object is created; without a
display and without this setting it aborts the whole process, so no pytest summary is
printed. Setting it here, at import time and before any Qt import, keeps every test run
headless without anyone exporting it by hand. A value already in the environment wins.
"""

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def compiled_engine():
    """The numba engine, compiled (or loaded from its cache) once, before any window test
    starts waiting. After an engine edit the cache is cold: compiling takes a minute or more
    on a busy machine and holds the GIL, so a window test waiting on its first drive writes
    would time out, and one timing the event loop would see a frozen window."""
    import numpy as np

    from model.flash.drive import Drive
    from model.flash.geometry import Geometry

    drive = Drive(Geometry(user_pages=256, pages_per_block=16, spare=0.25))
    drive.write_pages(np.arange(256, dtype=np.int64))
    drive.write(0, 8)
    drive.trim(0, 4)
    drive.read(8, 2)
    drive.collect_one()
    drive.idle_gc(target_free_blocks=8, max_victims=1)
    return True


@pytest.fixture(autouse=True)
def _engine_compiled_for_window_tests(request):
    if "qtbot" in request.fixturenames:
        request.getfixturevalue("compiled_engine")


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
