"""Issue 38's crash: a keyboard-only student set speed fast and Drive writes 0, ran the drive,
paused with Space and pressed F11 (or chose the projector colours in Preferences), and the
window died of a segmentation fault in the restyle.

The cause: a walk of Qt's focus chain from Python (QWidget.nextInFocusChain, on every Tab)
made PySide record each widget it returned as a child of the widget it was called on. The
chain runs sideways and back up the tree, so the walks tied wrappers of widgets Qt owns into
loops (the Steps table's header view and its viewport each the other's child). Python's
cyclic collector, run here by the simulation thread that allocated the most, freed such a
loop; Shiboken gave the freed loop's C++ objects to Python, which deleted them (a widget's
deletion PySide hands to the GUI thread, whichever thread collected), and the restyle then
laid out the table with its deleted header (QTableView::updateGeometries). The focus chain is
no longer read from Python (ssdlab/app/gui/appearance/focuschain.py).

The sequence is driven by keys, as the student did, and the run by a hook: the simulation
thread runs the cyclic collector itself a few times (as a busy run does on its own, sooner
or later), and the test waits for that, never for a time."""

from __future__ import annotations

import gc
import re
import threading
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QHeaderView, QWidget

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.run.worker import Worker
from ssdlab.model.lab.collector import collector_paused

ROOT = Path(__file__).resolve().parent.parent
TAB_LIMIT = 200  # more Tab stops than the window has
COLLECTIONS = 3  # full collections the simulation thread runs during the run


def key(w: QWidget, k, mods=Qt.KeyboardModifier.NoModifier) -> None:
    """A key press where a user's lands: on the widget with focus."""
    QTest.keyClick(QApplication.focusWidget() or w, k, mods)
    QApplication.processEvents()


def _owned_by(o: QObject, window: QWidget) -> bool:
    """o is window or a Qt object under it (parent() records no ownership in PySide)."""
    while o is not None:
        if o is window:
            return True
        o = o.parent()
    return False


def qt_wrappers_in_cycles(window: QWidget) -> list[str]:
    """The wrappers of live Qt objects of window (its widgets and other objects, its drives'
    threads) that the cyclic collector would free now, found without freeing anything
    (wrappers whose object is gone already are harmless)."""
    workers = [v.worker for v in window.views]
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = [f"{type(o).__name__} {o.objectName()!r}" for o in gc.garbage
                 if isinstance(o, QObject) and shiboken6.isValid(o)
                 and (_owned_by(o, window) or any(o is x for x in workers))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return found


@pytest.fixture
def collections_in_worker(monkeypatch):
    """The simulation thread runs the cyclic collector at its first COLLECTIONS batches of
    a run (the hook the run is driven by); the list counts them."""
    done: list[int] = []
    real = Worker._publish

    def publish(self, *args, **kwargs):
        if self._running and threading.current_thread() is not threading.main_thread() \
                and len(done) < COLLECTIONS:
            done.append(gc.collect())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Worker, "_publish", publish)
    return done


@pytest.fixture
def window(qtbot, until, tmp_path, monkeypatch):
    """A fresh window, as at launch, with a preferences folder of its own."""
    w = _open(qtbot, until, tmp_path, monkeypatch)
    yield w
    w.close()


@pytest.fixture
def window_on_a_frozen_heap(qtbot, until, tmp_path, monkeypatch):
    """As `window`, with every object made before it moved out of the collector's sight
    (gc.freeze): a test that looks for loops after every key collects only what the
    window and the keys made. Each full collection of a suite worker's heap (every module
    and cache the tests before it left) cost a large part of a second, fifty times over;
    a loop of the window's wrappers is made of objects made after the freeze, so it is
    found as before."""
    gc.collect()
    gc.freeze()
    try:
        w = _open(qtbot, until, tmp_path, monkeypatch)
        yield w
        w.close()
    finally:
        gc.unfreeze()


def _open(qtbot, until, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    from ssdlab.app.gui.frame.workbench import Workbench

    theme.set_current("normal")
    w = Workbench()
    w.confirm = lambda text: pytest.fail(f"the window asked, unexpected here: {text!r}")
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    w.activateWindow()
    until(w.isActiveWindow)
    until(lambda: w.snapshot is not None)
    return w


def _fast_endless_run_paused(w: QWidget, until, collections: list[int]) -> None:
    """The student's keys: Tab to Drive writes, 0, Return; 3 (fast); Ctrl+Return runs; once
    the simulation thread has collected, Space pauses."""
    amount = w.controls.widgets["amount"]
    for _ in range(TAB_LIMIT):
        if QApplication.focusWidget() is amount:
            break
        key(w, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is amount, "Tab never reached Drive writes"
    key(w, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    key(w, Qt.Key.Key_0)
    key(w, Qt.Key.Key_Return)
    until(lambda: not amount.hasFocus())
    assert w.session.settings.amount == 0  # endless
    key(w, Qt.Key.Key_3)
    assert w.speed.currentData() == "fast"
    key(w, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    until(lambda: len(collections) >= COLLECTIONS and w.snapshot.counters["host_writes"] > 0)
    assert w.is_running()
    key(w, Qt.Key.Key_Space)
    until(lambda: not w.is_running())


def _still_whole(w: QWidget) -> None:
    """The widgets Qt lays out in a restyle are all there: the Steps table with its headers
    (the header view was what the collector deleted)."""
    table = w.charts.steps.table
    for header in (table.horizontalHeader(), table.verticalHeader()):
        assert shiboken6.isValid(header) and isinstance(header, QHeaderView)
    assert table.horizontalHeader().count() == table.columnCount()
    assert qt_wrappers_in_cycles(w) == []


def test_f11_after_a_fast_run_paused_with_space(window, until, collections_in_worker):
    w = window
    _fast_endless_run_paused(w, until, collections_in_worker)
    key(w, Qt.Key.Key_F11)
    until(lambda: w.presentation.on)
    assert theme.current().name == "projector" and theme.current().large
    QApplication.processEvents()
    _still_whole(w)
    key(w, Qt.Key.Key_F11)  # and back to the desk
    until(lambda: not w.presentation.on)
    _still_whole(w)


def test_projector_colours_from_preferences_after_a_fast_run(window, until,
                                                             collections_in_worker):
    w = window
    _fast_endless_run_paused(w, until, collections_in_worker)
    key(w, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)  # Preferences
    until(lambda: w.presentation.prefs_dialog is not None
          and w.presentation.prefs_dialog.isVisible())
    dialog = w.presentation.prefs_dialog
    dialog.colours.setCurrentIndex(dialog.colours.findData("projector"))
    dialog.accept()
    until(lambda: theme.current().name == "projector")
    QApplication.processEvents()
    _still_whole(w)


def test_keyboard_use_leaves_no_wrapper_of_a_qt_object_in_a_cycle(window_on_a_frozen_heap,
                                                                   until):
    """Tab laps, Shift+Tab and F6 on the first screen and in free exploration: no wrapper is
    left where the cyclic collector, in whatever thread it runs, would free it (before the
    fix, every Tab left the Steps table's header views, their viewports, scroll bars and its
    corner button so). The collector is paused meanwhile, so that no loop is freed before
    it is looked for."""
    w = window_on_a_frozen_heap
    keys = [(Qt.Key.Key_Tab, "Tab")] * 16 + [(Qt.Key.Key_Backtab, "Shift+Tab")] * 6 \
        + [(Qt.Key.Key_F6, "F6")] * 3
    with collector_paused():
        assert qt_wrappers_in_cycles(w) == []
        for state in ("the first screen", "free exploration"):
            if state == "free exploration":
                w.lesson_panel.explore.emit()
            for i, (k, name) in enumerate(keys):
                key(w, k)
                # looked for after every key: a later walk can tie a loop back to the
                # window, and a loop it left earlier is freed by the next collection
                assert qt_wrappers_in_cycles(w) == [], f"{state}, key {i + 1}: {name}"


def test_nothing_reads_the_focus_chain_from_python():
    """PySide makes the widget QWidget.nextInFocusChain or previousInFocusChain returns a
    child of the widget it was called on: the chain runs sideways and back up the tree, so
    such walks tie wrappers of Qt's widgets into loops (see the module docstring). The tests
    press Tab instead."""
    calls = re.compile(r"\.(next|previous)InFocusChain\(")
    found = [f"{p.relative_to(ROOT)}:{n}" for folder in ("ssdlab", "tests")
             for p in sorted((ROOT / folder).rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if calls.search(line)]
    assert found == []
