"""Play every lesson in the window and save a screenshot of each step, as a student would
see it: the predict, run, compare and other steps, at 1024 x 768 (or another size), in the
normal or the projector profile. Prints each run and compare step's wall time.

    .venv/bin/python -m ssdlab.app.devtools.lessontour -o /tmp/tour [--lesson 4] [--projector]

Predictions get the lesson's recorded answers, the quiz its recorded answer. Lesson
progress goes to a throw-away folder, never the user's. Ctrl+C stops between steps.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from ssdlab.model.lab.entrypoint import run_to_reader

# event-loop passes before a picture: one pass left the results column laid out at its old
# width (a cut axis label, a sideways scroll bar) that the window itself never shows
SETTLE_PASSES = 10


def overflow(window) -> str:
    """What a step hides below the fold, in px: how far the lesson's results, the main area
    and the lessons panel would scroll (0: all shown), and whether the results show."""
    results = window.lesson_results
    parts = (("results", results), ("main", window.central_fit),
             ("lessons", window.lessons_fit))
    said = [f"{name} {part.verticalScrollBar().maximum()}" for name, part in parts
            if part.isVisible()]
    said += [f"{name} sideways {part.horizontalScrollBar().maximum()}" for name, part in parts
             if part.isVisible() and part.horizontalScrollBar().maximum()]
    return ", ".join(said) + ("" if results.isVisible() else " (results hidden)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ssdlab.app.devtools.lessontour",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True, metavar="DIR",
                    help="folder for the PNGs (made if missing)")
    ap.add_argument("--lesson", action="append", default=[],
                    help="a lesson id or number (repeatable; default: every lesson)")
    ap.add_argument("--projector", action="store_true", help="the projector profile")
    ap.add_argument("--size", default="1024x768", help="window size WxH (default 1024x768)")
    args = ap.parse_args(argv)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
        if not (640 <= width <= 7680 and 480 <= height <= 4320):
            raise ValueError
    except ValueError:
        print(f"lessontour: --size must be WxH from 640x480 to 7680x4320; got {args.size!r}",
              file=sys.stderr)
        return 2
    os.environ["SSDLAB_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ssdlab-tour-")
    from ssdlab.app.devtools.qtapp import application
    from ssdlab.app.gui.frame.workbench import Workbench
    from ssdlab.lessons.catalogue import bundled, find
    from ssdlab.lessons.lesson import LessonError

    try:
        lessons = [find(x) for x in args.lesson] or bundled()
    except LessonError as e:
        print(f"lessontour: --lesson: {e}", file=sys.stderr)
        return 2
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    app = application()
    window = Workbench()
    window.resize(width, height)
    window.show()
    if args.projector:
        window.toggle_presentation(True)
        window.showNormal()  # the tour grabs the window at the size asked
        window.resize(width, height)
    panel = window.lesson_panel
    tag = "projector" if args.projector else "normal"
    for _ in range(20):  # the status bar and wrapped rows settle over a few passes
        app.processEvents()
    window.grab().save(str(out / f"00_welcome_{tag}.png"))

    def wait() -> float:
        t0 = time.perf_counter()
        while panel.job is not None:
            app.processEvents()
            time.sleep(0.02)
        app.processEvents()
        return time.perf_counter() - t0

    def engine_ready() -> None:
        # Run waits, disabled, while the engine compiles (a first run): a tour that went on
        # would take the next step's picture over a run that never started
        while panel.engine_notice:
            app.processEvents()
            time.sleep(0.02)

    try:
        for lesson in lessons:
            panel.start(lesson, 0)
            for i, step in enumerate(lesson.steps):
                name = out / f"{lesson.order:02d}_{i:02d}_{step.kind}_{tag}.png"
                if step.kind == "predict":
                    panel.predict(step.answer)
                elif step.kind == "run":
                    engine_ready()
                    panel.start_job()
                    print(f"lesson {lesson.order} run {step.id}: {wait():.1f} s "
                          f"({len(step.configs)} configurations)", flush=True)
                elif step.kind == "compare":
                    engine_ready()
                    print(f"lesson {lesson.order} compare: {wait():.1f} s", flush=True)
                elif step.kind == "quiz" and step.answer:
                    panel.quiz_answer.setText(step.answer)
                    panel.check_quiz()
                for _ in range(SETTLE_PASSES):  # a new step's widgets lay out in passes
                    app.processEvents()
                window.grab().save(str(name))
                print(f"{name.name}: {overflow(window)}", flush=True)
                results = window.lesson_results
                for page in range(1, len(results.pages) if results.isVisible() else 0):
                    results.turn(1)  # the results' later pages (a short screen), as Page Down
                    for _ in range(SETTLE_PASSES):
                        app.processEvents()
                    more = name.with_stem(f"{name.stem}_page{page + 1}")
                    window.grab().save(str(more))
                    print(f"{more.name}: {overflow(window)}", flush=True)
                panel.next()
                app.processEvents()
    except KeyboardInterrupt:
        print("lessontour: stopped", file=sys.stderr)
        return 130
    finally:
        window.close()
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(run_to_reader(main))
