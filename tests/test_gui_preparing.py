"""A window opened on a cold engine cache (no setup.sh, or an edited engine) says so at once,
shows each function as it becomes ready, and keeps Run waiting, visibly, until the engine is
compiled; then the drive starts as usual. The compiling is stood in for by a generator the
test steps (the real one, ssdlab/model/flash/warm.prepare, is tested in test_warm.py)."""

import threading

from ssdlab.app.gui.frame.workbench import Workbench
from ssdlab.app.gui.run import preparing
from ssdlab.model.flash import warm


def _cold_engine(monkeypatch, functions: int) -> list[threading.Event]:
    """A cold engine whose compile of function i ends when event i is set."""
    go = [threading.Event() for _ in range(functions)]

    def prepare():
        for i, event in enumerate(go):
            event.wait(timeout=300)
            yield warm.Step(i + 1, functions, f"function {i + 1}", float(i))

    monkeypatch.setattr(preparing, "engine_is_warm", lambda: False)
    monkeypatch.setattr(preparing.warm, "prepare", prepare)
    return go


def test_a_cold_engine_keeps_run_waiting_with_its_progress_shown(qtbot, until, monkeypatch):
    go = _cold_engine(monkeypatch, 3)
    w = Workbench()
    qtbot.addWidget(w)
    w.show()
    waiting = [w.run_button, w.play_button, w.step_button, w.gc_button]
    assert not any(b.isEnabled() for b in waiting)
    assert preparing.MESSAGE in w.progress_label.text()
    assert w.snapshot is None  # the drive waits for the engine, its commands queued
    go[0].set()
    until(lambda: "(1 of 3 ready)" in w.progress_label.text())
    assert not w.run_button.isEnabled()
    go[1].set()
    go[2].set()
    until(lambda: w.run_button.isEnabled())
    assert all(b.isEnabled() for b in waiting)
    assert preparing.MESSAGE not in w.progress_label.text()
    until(lambda: w.snapshot is not None)  # the drive started once the engine was ready
    w.close()


def test_a_warm_engine_starts_the_drive_at_once(qtbot, until):
    w = Workbench()
    qtbot.addWidget(w)
    assert w.preparer is None and w.run_button.isEnabled()
    until(lambda: w.snapshot is not None)
    w.close()


def test_a_lesson_run_waits_for_a_cold_engine_with_its_progress_shown(qtbot, until,
                                                                       monkeypatch):
    from ssdlab.lessons.catalogue import find

    go = _cold_engine(monkeypatch, 2)
    w = Workbench()
    qtbot.addWidget(w)
    w.show()
    panel, lesson = w.lesson_panel, find("1")
    predict_at = next(i for i, s in enumerate(lesson.steps) if s.kind == "predict")
    panel.start(lesson, predict_at)
    panel.predict(1)
    panel.next()
    assert panel.step.kind == "run"
    assert not panel.run_button.isEnabled()
    assert "Preparing the simulator" in panel.run_note.text()
    assert "Run waits" in panel.run_note.text() and panel.bar.value() == 0
    panel.start_job()  # refused, not merely disabled
    assert panel.job is None
    go[0].set()
    until(lambda: "(1 of 2 ready)" in panel.run_note.text())
    assert panel.bar.value() == 500 and not panel.run_button.isEnabled()
    go[1].set()
    until(lambda: panel.run_button.isEnabled())
    assert "Preparing" not in panel.run_note.text() and panel.job is None
    panel.leave()
    w.close()
