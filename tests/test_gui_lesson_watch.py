"""Lesson 1's run to watch in the lesson panel: its first GC plays phase by phase on the map
(the test advances the pacer itself, never waiting on its clock), a line says which GC and
which phase, and "Skip to end" (reached by the keyboard, pressed by Space or Enter) lets the
run finish at full speed with the figures the headless player gets."""

from __future__ import annotations

import pytest
from _lesson_panel import at_lesson_one_run
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from ssdlab.app.session.progress import Progress
from ssdlab.lessons import LessonPlay
from ssdlab.lessons.catalogue import bundled


@pytest.fixture(params=[(False, Qt.Key.Key_Space), (True, Qt.Key.Key_Return)],
                ids=["one-map-space", "side-by-side-return"])
def panel(qtbot, tmp_path, compiled_engine, request):
    from ssdlab.app.gui.lessons.lessonpanel import LessonPanel
    from ssdlab.app.gui.lessons.lessonresults import LessonResults

    results = LessonResults()
    p = LessonPanel(bundled(), Progress(path=tmp_path / "progress.json"), results)
    # two drives: the workbench's A and B, the second waiting in lockstep while A's GC plays
    p.two_drives, p.skip_key = request.param
    qtbot.addWidget(p)
    qtbot.addWidget(results)
    shown = []
    p.drive_snapshot.connect(shown.append)
    p.shown = shown
    p.show()
    at_lesson_one_run(p)
    yield p
    if p.job is not None:
        p.cancel_job()
        p.job.wait()


def _tab_from(qtbot, widget):
    """Where Tab from widget goes: pressed, as a student does (Qt's focus chain is never
    read from Python: PySide ties the wrappers it returns into loops that Python's collector
    frees under Qt, tests/test_gui_qt_cycles.py)."""
    widget.window().activateWindow()
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(widget.hasFocus)
    qtbot.keyClick(widget, Qt.Key.Key_Tab)
    return QApplication.focusWidget()


def _headless(lesson, step):
    play = LessonPlay(lesson)
    for s in lesson.steps:
        if s.kind == "predict":
            play.predict(s, s.answer)
    return [r.figures for r in play.run(step)]


def test_a_gc_plays_phase_by_phase_then_skip_finishes_the_run(panel, qtbot, until):
    step = panel.step
    assert step.pace == "teach"
    panel.start_job()
    watch = panel.watch
    until(lambda: watch.playing)
    assert watch.button.isVisible() and watch.button.accessibleName() == "Skip to end"
    assert _tab_from(qtbot, panel.cancel_button) is watch.button  # Tab from Cancel reaches it
    phases = []
    for _ in range(3):  # mark, move, erase, each on the map with its sentence
        snap = panel.shown[-1]
        phases.append(snap.gc_phase)
        assert f"block {snap.gc_victim}" in watch.note.text()
        assert "GC 1:" in watch.note.text() and "play slowly" in watch.note.text()
        watch.pacer.timer.stop()  # the test is the clock
        watch.pacer.advance()
    assert phases == ["mark", "move", "erase"]
    # the same host write needed more GCs: the next plays, and the thread still waits
    assert watch.playing and panel.shown[-1].gc_phase == "mark"
    assert watch.note.text().startswith("GC 2: block")
    assert panel.job.isRunning()
    watch.button.setFocus()
    qtbot.keyClick(watch.button, panel.skip_key)
    assert panel.job is None or panel.job.skipped
    until(lambda: panel.job is None)
    assert not watch.button.isVisible()
    assert [r.figures for r in panel.play.runs[step.id]] == _headless(panel.lesson, step)
    assert panel.maps[(step.id, 0)] is not None
