"""Nothing on screen gives a question away (issue 35): each bundled lesson is played in the
window, from the lessons' first page on, and at every step everything the window shows is
read (ssdlab/app/devtools/screentext.py: every shown widget's words, accessible names and
descriptions, tooltips, the window's title, chart titles, axes and ticks, the glossary
definitions a shown text links). Once the lesson's runs are done, each prediction's and
quiz's answer is known, and no text read before it was answered may state it
(ssdlab/lessons/giveaway.py): the figure the step measures as a student would see it
rounded (38.9, 39, 0.389 for 38.89 %), a number the quiz would accept, the right choice's
words, or an axis of the prediction's own figure (where it starts and ends says where the
answer lies).

One window serves every lesson. The lessons whose runs are long (LONG_RUNS, as in
tests/test_gui_keyboard_lesson.py) show the runs of the headless player (tests/
test_lessons_play.py plays each lesson once per test session) instead of running them again
in the window; the others run in the window. Runs are waited on, never timed.
"""

from __future__ import annotations

import pytest
from test_lessons_play import _played

from ssdlab.lessons.catalogue import bundled

HANG = 5 * 60 * 1000  # only stops a test that would otherwise wait forever
# runs of 8 to 20 s each: the headless player's results are shown instead
LONG_RUNS = {3, 4, 5, 7, 10}
# A prediction's answer said otherwise than in its choice's words, found by reading each
# lesson as a student: lesson 14's title ("work moved, not removed"), its summary and the
# glossary's "background garbage collection" said the outcome of both its questions; the
# glossary's cost-benefit and discard, linked before lesson 3's and lesson 4's questions,
# and lesson 3's step on write frontiers (its text and its picture's words) said theirs.
IN_OTHER_WORDS = {
    "idle-time": {"total": ("moved, not removed", "same flash writes, made earlier",
                            "neither makes the work go away"),
                  "faster": ("make the next moment faster",)},
    "gc-policies": {"best": ("does well when some data is rewritten far more often",),
                    "frontier-cb": ("blocks of copies stay full and are rarely chosen",
                                    "the block of copies is still full and left alone")},
    "trim": {"modern-sync": ("a background worker sends them after the commit",
                             "sync does not wait")},
}


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """The module's window, made by its first test, closed after its last; lesson progress
    in a folder of its own."""
    box = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SSDLAB_CONFIG_DIR", str(tmp_path_factory.mktemp("giveaways")))
        yield box
        w = box.get("window")
        if w is not None:
            panel = w.lesson_panel
            if panel.job is not None:
                panel.job.cancel()
                panel.job.wait()
            w.close()
            w.deleteLater()


@pytest.fixture
def window(kept, qtbot, compiled_engine):
    from ssdlab.app.gui.frame.workbench import Workbench

    if "window" not in kept:
        w = Workbench()
        w.confirm = lambda text: pytest.fail(f"unexpected question: {text}")
        w.resize(1366, 768)  # the tester's screen
        w.lesson_panel.watch.enabled = False  # lesson 1's GCs at teaching pace: nothing to read
        w.show()
        qtbot.waitUntil(lambda: w.snapshot is not None, timeout=HANG)
        kept["window"] = w
    return kept["window"]


def _headless_runs(lesson):
    """play_run for walk: the headless player's results of the run step, shown as the
    panel shows a finished run."""
    runs = _played(lesson.id)[2].runs

    def play_run(panel, step) -> None:
        panel.play.runs[step.id] = runs[step.id]
        panel.show_step(panel.index)
    return play_run


@pytest.mark.parametrize("lesson", bundled(), ids=lambda x: f"{x.order:02d}-{x.id}")
def test_nothing_on_screen_states_an_answer_before_it_is_given(window, qtbot, lesson):
    from ssdlab.app.devtools.giveawaywalk import giveaways, run_in_window, walk

    def wait(condition) -> None:
        qtbot.waitUntil(condition, timeout=HANG)

    play_run = _headless_runs(lesson) if lesson.order in LONG_RUNS else run_in_window(wait)
    screens = walk(window, lesson, play_run, wait)
    panel = window.lesson_panel
    assert all(s.id in panel.play.runs for s in lesson.steps if s.kind == "run")
    read = [t for s in screens for t in s.texts]
    assert any(w.startswith("LinkBrowser") for w, _ in read)  # the lesson's text was read
    found = giveaways(lesson, panel.play, screens, IN_OTHER_WORDS.get(lesson.id))
    assert not found, "\n".join(found)
