"""A lesson panel on its own (no workbench: a second instead of several), shown, active, with
lesson 1 started; for the keyboard tests of the panel."""

from __future__ import annotations

from ssdlab.app.gui.lessons.lessonpanel import LessonPanel
from ssdlab.app.gui.lessons.lessonresults import LessonResults
from ssdlab.app.session.progress import load_progress
from ssdlab.lessons.catalogue import bundled, find


def lesson_panel(qtbot) -> LessonPanel:
    """Call with SSDLAB_CONFIG_DIR set to a test folder (progress is kept there)."""
    results = LessonResults()
    p = LessonPanel(bundled(), load_progress(), results)
    qtbot.addWidget(p)
    qtbot.addWidget(results)
    p.resize(320, 700)
    p.show()
    p.activateWindow()
    qtbot.waitUntil(p.isActiveWindow)
    p.start(find("1"), 0)
    return p


def kept_panel(qtbot):
    """lesson_panel with the window's focus keeping (ssdlab/app/gui/lessons/keepfocus.py)."""
    from ssdlab.app.gui.lessons import keepfocus

    p = lesson_panel(qtbot)
    keepfocus.install(p)
    return p


def at_lesson_one_run(p: LessonPanel) -> None:
    """Panel p on lesson 1's first run step, its predictions made (the lesson's own
    answers), not yet run."""
    lesson = next(x for x in bundled() if x.id == "write-amplification")
    run = next(i for i, s in enumerate(lesson.steps) if s.kind == "run")
    p.start(lesson, run)
    for s in lesson.steps[:run]:
        if s.kind == "predict":
            p.play.predict(s, s.answer)
    p.show_step(run)
