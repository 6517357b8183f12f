"""Lessons other than the first play their first GCs on the map too (issue 35): lesson 2's
drives of 4,383 blocks and lesson 8's block-mapped drive run by a file system. In the
window, each GC's phases (mark, move, erase; merges on the block-mapped drive) show on map A
with the drive's pages drawn, the map zoomed in on the block each phase is about, and the
legend listing the page colours only while pages are drawn. "Skip to end", pressed from the
keyboard, runs the rest at full speed with the figures the headless player gets, and the map
shows the whole drive again. The test is the pacer's clock: a phase never ends by itself."""

from __future__ import annotations

import math

import pytest
import test_gui_lessons
from PySide6.QtCore import QRectF, Qt
from test_gui_lesson_watch import _tab_from  # Tab pressed, the focus chain never read

from ssdlab.app.gui.drive import gcmarks
from ssdlab.app.gui.drive.blockmap import MARGIN
from ssdlab.app.gui.drive.legend import Legend
from ssdlab.app.gui.run import gcpacer
from ssdlab.lessons import LessonPlay
from ssdlab.lessons.catalogue import find

# the lesson tests' window (1024 x 768, its own progress folder, the workbench's drive drawn)
bench, progress_dir = test_gui_lessons.bench, test_gui_lessons.progress_dir


def _figures(results) -> list[dict]:
    return [{k: "nan" if math.isnan(v) else v for k, v in r.figures.items()} for r in results]


def _on_screen(m, block: int) -> bool:
    rect = gcmarks.block_rect(m.view, MARGIN, block, m._block_px())
    return QRectF(m.rect()).contains(rect)


@pytest.mark.parametrize(("order", "name"), [("2", "GC"), ("8", "Merge")])
def test_a_lessons_first_gcs_play_on_the_map_in_pages_and_skip_by_keyboard(
        bench, qtbot, monkeypatch, order, name):
    for phase in ("mark", "move", "erase"):  # only the test moves the pacer on
        monkeypatch.setitem(gcpacer.PHASE_MS, phase, 10**8)
    panel, m = bench.lesson_panel, bench.blockmap
    panel.watch.enabled = True
    lesson = find(order)
    at = next(i for i, s in enumerate(lesson.steps) if s.kind == "run")
    step = lesson.steps[at]
    assert step.pace == "teach"
    panel.start(lesson, at)
    for s in lesson.steps[:at]:
        if s.kind == "predict":
            panel.play.predict(s, s.answer)
    panel.show_step(at)
    assert not m.view.zoomed
    panel.start_job()
    watch = panel.watch
    qtbot.waitUntil(lambda: watch.playing, timeout=test_gui_lessons.HANG)
    phases = []
    for _ in range(3):
        snap = m.snapshot
        phases.append(snap.gc_phase)
        assert snap.gc_kind == ("merge" if name == "Merge" else "gc")
        assert watch.note.text().startswith(f"{name} 1: block {snap.gc_victim}")
        # the drive's pages are drawn, zoomed in on what this phase is about, and the
        # legend names their colours
        assert m.page_level and m.view.zoomed
        about = snap.gc_destinations[0] if snap.gc_phase == "move" else snap.gc_victim
        assert _on_screen(m, about), (snap.gc_phase, about)
        assert {"valid page", "invalid page", "copied by GC"} <= set(bench.legend.labels)
        watch.pacer.advance()
    assert phases == ["mark", "move", "erase"]
    assert panel.job.isRunning()  # held while its GCs play
    # Tab from Cancel reaches Skip; Space presses it
    assert _tab_from(qtbot, panel.cancel_button) is watch.button
    watch.button.setFocus()
    qtbot.keyClick(watch.button, Qt.Key.Key_Space)
    assert panel.job is None or panel.job.skipped
    qtbot.waitUntil(lambda: panel.job is None, timeout=test_gui_lessons.HANG)
    # the whole drive again, each square a block, and the legend says so
    assert not m.view.zoomed and not m.page_level
    assert Legend.BLOCKS_ONLY in bench.legend.labels
    assert "valid page" not in bench.legend.labels
    headless = LessonPlay(lesson)
    for s in lesson.steps[:at]:
        if s.kind == "predict":
            headless.predict(s, s.answer)
    assert _figures(panel.play.runs[step.id]) == _figures(headless.run(step))


def test_after_the_first_three_merges_the_map_shows_the_whole_drive_and_the_rest_runs_on(
        bench, qtbot, monkeypatch):
    """Lesson 8's block-mapped drive merges at once: its first three merges play (each
    rewriting the block the last one filled), then the map shows the whole drive again and
    the other three configurations run at full speed, unwatched, Skip no longer offered."""
    for phase in ("mark", "move", "erase"):
        monkeypatch.setitem(gcpacer.PHASE_MS, phase, 10**8)
    panel, m = bench.lesson_panel, bench.blockmap
    panel.watch.enabled = True
    lesson = find("8")
    at = next(i for i, s in enumerate(lesson.steps) if s.kind == "run")
    panel.start(lesson, at)
    for s in lesson.steps[:at]:
        if s.kind == "predict":
            panel.play.predict(s, s.answer)
    panel.show_step(at)
    panel.start_job()
    watch = panel.watch
    victims = []
    for n in (1, 2, 3):
        qtbot.waitUntil(lambda: watch.playing, timeout=test_gui_lessons.HANG)
        assert watch.note.text().startswith(f"Merge {n}: block")
        assert m.view.zoomed
        victims.append(m.snapshot.gc_victim)
        for _ in range(3):
            watch.pacer.advance()
    qtbot.waitUntil(lambda: panel.job is None, timeout=test_gui_lessons.HANG)
    assert victims == sorted(victims) and len(set(victims)) == 3
    assert not m.view.zoomed
    assert not watch.button.isVisible()
    assert len(panel.play.runs[lesson.steps[at].id]) == 4
