"""Test-wide configuration.

Qt reads ``QT_QPA_PLATFORM`` when the first application object is created; without a
display and without this setting it aborts the whole process, so no pytest summary is
printed. Setting it here, at import time and before any Qt import, keeps every test run
headless without anyone exporting it by hand. A value already in the environment wins.

GUI tests wait on conditions, never on time, and drive runs at full speed ("fast"), so
they pass however busy the machine is. `HANG_GUARD_MS` only stops a test that would
otherwise wait forever: it is minutes, because a cold numba cache compiles the engine
for a minute or more on a busy two-core machine.

Hypothesis, by default, times each example (200 ms) and its data generation, and fails a
run whose example was slow once and quick when replayed ("Unreliable test timings"): on a
busy machine that is the scheduler, not the code. Property tests here check invariants,
never speed, so the profile in force (Hypothesis' own "ci" one on a known CI service) runs
without either limit; a --hypothesis-profile given on the command line still wins.
"""

import os
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, settings

_in_force = settings()
settings.register_profile(
    "ssdlab", parent=_in_force, deadline=None,
    suppress_health_check={*_in_force.suppress_health_check, HealthCheck.too_slow})
settings.load_profile("ssdlab")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Lesson progress goes to a folder of the test run's own, never the user's ~/.config.
os.environ["SSDLAB_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ssdlab-test-config-")

HANG_GUARD_MS = 5 * 60 * 1000


def pytest_configure(config):
    from suiteprogress import register

    register(config)


def pytest_collection_modifyitems(items):
    """The longest tests first: the wheel's (it builds, installs and compiles a fresh copy:
    162 s of a busy run), then those marked `first` (a walk through all eighteen lessons).
    Collected in name order they started among the last tests, and the run waited on them
    alone at the end. The rest keep their order."""
    items.sort(key=lambda item: (item.get_closest_marker("wheel") is None,
                                 item.get_closest_marker("first") is None))


@pytest.fixture(scope="session")
def compiled_engine():
    """The numba engine, compiled (or loaded from its cache) once, before any window test
    starts waiting. After an engine edit the cache is cold: compiling takes a minute or more
    on a busy machine and holds the GIL, so a window test waiting on its first drive writes
    would time out, and one timing the event loop would see a frozen window."""
    import numpy as np

    from ssdlab.model.flash.drive import Drive
    from ssdlab.model.flash.geometry import Geometry

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


@pytest.fixture(autouse=True)
def _window_tests_imitate_a_1024_px_screen(request, monkeypatch):
    """The offscreen screen is 800 x 800; window tests hold their windows at 1024 x 768 and
    more, as on the smallest screen the layout is made for: the layout policy
    (ssdlab/app/gui/frame/layoutpolicy.py) is told a screen at least 1024 px wide there (a test
    of a narrower screen sets its own)."""
    if "qtbot" in request.fixturenames:
        from dataclasses import replace

        from ssdlab.app.gui.frame import arranger

        real = arranger.room
        monkeypatch.setattr(arranger, "room", lambda w: replace(
            real(w), width_px=max(real(w).width_px, 1024)))


@pytest.fixture(autouse=True)
def _window_tests_start_with_no_lesson_progress(request, monkeypatch, tmp_path_factory):
    """A window test's lesson progress and preferences in a folder of its own: in one
    shared by the worker's tests, a lesson started where an earlier test had left it (a
    later step, its results shown rather than its drive) and a test waiting for the first
    step waited for ever, only when the suite put the two tests on one worker. (A test
    that sets its own folder, or a module's window that keeps one, wins.)"""
    if "qtbot" in request.fixturenames and "progress_dir" not in request.fixturenames:
        monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))


@pytest.fixture(autouse=True)
def _window_tests_start_in_the_normal_theme(request):
    """The theme is the process's (ssdlab/app/gui/appearance/theme.py), and a window starts in the
    one in force: a test that left presentation mode on must not start the next in projector type.
    (Only where the theme module is loaded already: model tests never import Qt.)"""
    theme = sys.modules.get("ssdlab.app.gui.appearance.theme")
    if theme is not None and "qtbot" in request.fixturenames:
        theme.set_current("normal")


@pytest.fixture
def until(qtbot):
    """until(condition): process events until condition() is true (a hang guard only)."""

    def wait(condition) -> None:
        qtbot.waitUntil(condition, timeout=HANG_GUARD_MS)

    return wait


@pytest.fixture
def bench(qtbot, until):
    """The workbench window, shown, running workloads at full speed, with its first
    snapshot drawn. (Imported here, not at the top, so model tests never load Qt.)"""
    from ssdlab.app.gui.appearance import theme
    from ssdlab.app.gui.frame.workbench import Workbench

    # the colour profile is the process's: one test that ended in presentation mode would
    # otherwise build the next test's window in the projector's type
    theme.set_current("normal")
    w = Workbench()
    # A modal question offscreen waits forever: a test that does not expect one fails at
    # once instead; a test that does sets its own answer.
    w.confirm = lambda text: pytest.fail(f"the window asked, unexpected here: {text!r}")
    qtbot.addWidget(w)
    # "Explore freely" on the first screen: the workbench tests use the whole window (the
    # lesson panel has tests of its own, tests/test_gui_lessons.py)
    w.lesson_panel.explore.emit()
    w.show()
    w.request(speed="fast")
    until(lambda: w.snapshot is not None)
    yield w
    w.close()
    assert w.worker.isFinished()
