""""Done in N s" after a lesson run is the simulation's own time: the seconds its GCs were
held playing at teaching pace are said apart, in plain words (they were counted in)."""

from __future__ import annotations

from _lesson_panel import at_lesson_one_run

from ssdlab.app.gui.lessons.lessonruns import done_words
from ssdlab.app.session.progress import Progress
from ssdlab.lessons.catalogue import bundled


def test_done_words_say_the_watching_apart():
    assert done_words(None) == "Done. "
    assert done_words((42.5, 0.0)) == "Done in 42.5 s. "
    words = done_words((0.4, 24.2))
    assert "simulation took 0.4 s" in words and "24 s of watching" in words


def test_a_watched_run_is_timed_without_its_watching(qtbot, tmp_path, compiled_engine, until):
    from ssdlab.app.gui.lessons.lessonpanel import LessonPanel
    from ssdlab.app.gui.lessons.lessonresults import LessonResults

    results = LessonResults()
    p = LessonPanel(bundled(), Progress(path=tmp_path / "progress.json"), results)
    qtbot.addWidget(p)
    qtbot.addWidget(results)
    now = [100.0]
    p.clock = lambda: now[0]
    p.show()
    at_lesson_one_run(p)
    assert p.step.pace == "teach"
    p.start_job()
    until(lambda: p.watch.playing)  # held at 100 s
    now[0] = 130.0  # half a minute of watching the first GC
    p.watch.skip()
    until(lambda: p.job is None)
    own, watched = p.run_seconds[p.step.id]
    assert watched == 30.0 and own == 0.0
    assert p.run_note.text().startswith("Done: the simulation took 0.0 s, plus 30 s of "
                                        "watching"), p.run_note.text()
