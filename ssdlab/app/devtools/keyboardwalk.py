"""Take a lesson by keyboard alone in a real window and print what a screen reader gets at
each key press (ssdlab/app/devtools/keywalker.py does the walk; tests/test_gui_keyboard_lesson.py
takes the same walk headless):

    .venv/bin/python -m ssdlab.app.devtools.keyboardwalk --lesson 1 [--laps] [-o transcript.txt]

One line per key press: the key, then "focus: <role> '<name>' (<description>)" with the
focused object's states and the current item of a list, then a "said: ..." line for each
announcement made since. "(wait: ...)" lines are the walk waiting for a run to end. Lesson
progress goes to a throw-away folder, never the user's; the window is sized to the screen
(at most 1366 x 768), so QT_SCALE_FACTOR=1.5 under Xvfb shows a 1.5x desktop.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from ssdlab.model.lab.entrypoint import run_to_reader

WAIT_LIMIT_S = 600.0  # a run that has not ended in ten minutes is stuck
MAX_SIZE = (1366, 768)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ssdlab.app.devtools.keyboardwalk",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--lesson", default="1", help="a lesson id or number (default 1)")
    ap.add_argument("-o", "--output", metavar="FILE", help="write the transcript here")
    ap.add_argument("--right-answers", action="store_true",
                    help="answer every quiz right (default: the first one wrong, so the "
                         "walk takes Show answer too)")
    ap.add_argument("--laps", action="store_true",
                    help="Tab once round the whole window on the first screen and on each "
                         "step; a '(lap: ...)' line names the parts visited in order")
    args = ap.parse_args(argv)
    os.environ["SSDLAB_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ssdlab-keywalk-")
    from ssdlab.lessons.catalogue import find
    from ssdlab.lessons.lesson import LessonError

    try:
        lesson = find(args.lesson)
    except LessonError as e:
        print(f"keyboardwalk: --lesson: {e}", file=sys.stderr)
        return 2
    from ssdlab.app.atomicfile import OutputFileError, check_writable, write_atomic

    try:  # before the walk: a FIFO or a missing folder is refused at once
        if args.output:
            check_writable(args.output)
    except OutputFileError as e:
        print(f"keyboardwalk: error: -o {e}", file=sys.stderr)
        return 2
    from ssdlab.app.devtools.keywalker import KeyWalker, Unreachable
    from ssdlab.app.devtools.qtapp import application
    from ssdlab.app.gui.frame.workbench import Workbench

    app = application()

    def wait(condition) -> None:
        end = time.monotonic() + WAIT_LIMIT_S
        while not condition():
            if time.monotonic() > end:
                raise Unreachable(f"waited {WAIT_LIMIT_S:.0f} s in vain")
            app.processEvents()
            time.sleep(0.01)

    w = Workbench()
    screen = app.primaryScreen().availableGeometry()
    w.resize(min(screen.width(), MAX_SIZE[0]), min(screen.height(), MAX_SIZE[1]))
    w.show()
    w.activateWindow()
    wait(lambda: w.snapshot is not None and w.isActiveWindow())
    walker = KeyWalker(w, wait)
    code = 0
    try:
        walker.take_lesson(lesson, wrong_first_quiz=not args.right_answers, laps=args.laps)
    except Unreachable as e:
        walker.lines.append(f"STOPPED: {e}")
        code = 1
    finally:
        walker.stop()
        w.confirm = lambda text: True  # closing mid-run: no question nobody answers
        w.close()
    text = "\n".join(walker.lines) + "\n"
    if args.output:
        try:  # the one writer: never half a transcript
            write_atomic(args.output, text)
        except OutputFileError as e:
            print(f"keyboardwalk: error: -o {e}", file=sys.stderr)
            return 2
        print(f"transcript in {args.output} ({len(walker.lines)} lines)")
    else:
        sys.stdout.write(text)
    return code


if __name__ == "__main__":
    sys.exit(run_to_reader(main))
