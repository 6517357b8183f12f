"""Play lessons in the window and list every text on screen that states a question's answer
before the student gives it (ssdlab/lessons/giveaway.py says what states an answer).

    .venv/bin/python -m ssdlab.app.devtools.giveawaywalk [--lesson 4]

The walk starts on the lessons' first page, then shows each step in order and reads the
whole window (ssdlab/app/devtools/screentext.py) as the step comes up, and again when its run
or replay has finished. Predictions get the lesson's recorded answers; quizzes are read, not
answered. Once every run is done, each question's answer is known, and every text read
before it is checked against it. Exit status 1 when one is found.
tests/test_gui_lesson_walk.py takes the same walk.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace

from ssdlab.lessons.giveaway import answers, stated
from ssdlab.lessons.glossary import plain

from .screentext import screen_texts

SETTLE_PASSES = 10  # event-loop passes for a new step's widgets to lay out and draw
CHOICES = "QListWidget 'Your prediction'"  # a predict step's own list of its choices
SETTINGS = ("QDoubleSpinBox", "QSpinBox", "QLineEdit 'qt_spinbox_lineedit'")  # controls


@dataclass(frozen=True)
class Screen:
    step: int  # -1: the lessons' first page, before the lesson opens
    when: str  # "shown", or "after its run"
    texts: tuple[tuple[str, str], ...]  # (where, text)


def settle(app) -> None:
    for _ in range(SETTLE_PASSES):
        app.processEvents()


def walk(window, lesson, play_run: Callable[[object, object], None],
         wait: Callable[[Callable[[], bool]], None],
         settled: Callable[[int, object], None] | None = None) -> list[Screen]:
    """Every screen of the lesson, read step by step. play_run(panel, step) plays a run
    step and returns when it is done; wait(condition) processes events until it holds;
    settled(i, step), if given, is called once step i is answered or run and the window
    has settled, before the walk goes on (another check of the same screens, so one walk
    serves both)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    panel = window.lesson_panel
    window.lesson_dock.show()
    panel.leave()
    settle(app)
    screens = [Screen(-1, "shown", tuple(screen_texts(window)))]
    panel.start(lesson, 0)
    for i, step in enumerate(lesson.steps):
        if panel.index != i:
            panel.show_step(i)
        wait(lambda: panel.job is None)  # a compare step replays its experiment at once
        settle(app)
        screens.append(Screen(i, "shown", tuple(screen_texts(window))))
        if step.kind == "predict":
            panel.predict(step.answer)
        elif step.kind == "run":
            play_run(panel, step)
            settle(app)
            screens.append(Screen(i, "after its run", tuple(screen_texts(window))))
        if settled is not None:
            wait(lambda: panel.job is None)
            settled(i, step)
    return screens


def giveaways(lesson, play, screens: list[Screen],
              in_other_words: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """Each text read before a question that states its answer, in words; and each axis
    of a prediction's own figure drawn before it is answered (where such an axis starts
    and ends tells the student where the answer lies). in_other_words: prediction id ->
    phrases that say its answer otherwise than its choice's words."""
    found = []
    for answer in answers(play):
        step = lesson.steps[answer.step]
        more = (in_other_words or {}).get(getattr(step, "id", None), ())
        answer = replace(answer, words=answer.words + tuple(more))
        question = plain(step.question).replace("`", "") if step.kind == "predict" else None
        for screen in screens:
            if screen.step > answer.step or (screen.step == answer.step
                                             and screen.when != "shown"):
                continue
            where = ("the lessons' first page" if screen.step < 0
                     else f"step {screen.step + 1} ({screen.when})")
            for widget, text in screen.texts:
                asked = answer
                if widget.startswith(SETTINGS):
                    continue  # a setting the lesson's run uses, never what it measures
                if widget.startswith(CHOICES):  # a list of options, not a statement
                    if screen.step == answer.step:
                        continue  # the question's own choices, every one listed
                    asked = replace(answer, words=())  # another's, which may share some
                ticks = widget.endswith(" ticks")
                if ticks and question is not None and question in widget:
                    found.append(f"lesson {lesson.order}, {where}: the axis of {answer.what} "
                                 f"(step {answer.step + 1}) is drawn before it is answered: "
                                 f"{text!r}")
                    continue
                said = stated(text, asked, at_least=3 if ticks else 1)
                if said is not None:
                    found.append(f"lesson {lesson.order}, {where}, {widget}: {said!r} states "
                                 f"the answer of {answer.what} (step {answer.step + 1}): "
                                 f"{' '.join(text.split())[:160]!r}")
    return list(dict.fromkeys(found))


def run_in_window(wait: Callable[[Callable[[], bool]], None]):
    """play_run for walk: the panel's own Run, waited on."""
    def play_run(panel, step) -> None:
        panel.start_job()
        wait(lambda: panel.job is None)
        if step.id not in panel.play.runs:
            raise RuntimeError(f"run step {step.id} did not finish: {panel.run_note.text()}")
    return play_run


def main(argv: list[str] | None = None) -> int:
    import os
    import tempfile
    import time

    ap = argparse.ArgumentParser(prog="python -m ssdlab.app.devtools.giveawaywalk",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--lesson", action="append", default=[],
                    help="a lesson id or number (repeatable; default: every lesson)")
    args = ap.parse_args(argv)
    os.environ["SSDLAB_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ssdlab-giveaways-")
    from ssdlab.app.devtools.qtapp import application
    from ssdlab.app.gui.frame import arranger
    from ssdlab.app.gui.frame.workbench import Workbench
    from ssdlab.lessons.catalogue import bundled, find

    app = application()
    # the offscreen screen is 800 px wide: the window would fold its control panel, which a
    # student's 1366 px screen shows (tests/conftest.py does the same for window tests)
    real = arranger.room
    arranger.room = lambda w: replace(real(w), width_px=max(real(w).width_px, 1366))
    window = Workbench()
    window.resize(1366, 768)
    window.lesson_panel.watch.enabled = False  # the GCs at teaching pace: nothing to read
    window.show()

    def wait(condition) -> None:
        while not condition():
            app.processEvents()
            time.sleep(0.01)

    found = []
    try:
        for lesson in [find(x) for x in args.lesson] or bundled():
            screens = walk(window, lesson, run_in_window(wait), wait)
            said = giveaways(lesson, window.lesson_panel.play, screens)
            print(f"lesson {lesson.order}: {len(said)} give-away(s)", flush=True)
            found += said
    finally:
        window.close()
    print("\n".join(found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
