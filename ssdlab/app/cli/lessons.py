"""`ssdlab lesson`: list, validate and play lessons without a window.

    ssdlab lesson list [--json]
    ssdlab lesson validate FILE...
    ssdlab lesson run NAME|--all [--report DIR] [--quiet]

`run` plays a lesson headless: each prediction gets the lesson's recorded answer, each run
step goes through the model, and a Markdown report per lesson (compare tables, the run's
figures, the quiz) goes to DIR. Progress and each run step's wall time go to stderr; Ctrl-C
stops cleanly (status 130); bad input is one line and status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("lesson", help="list, validate or play lessons headless",
                       description="Lessons: list the bundled ones, validate lesson files, "
                       "or play lessons without a window and write a Markdown report.")
    verbs = p.add_subparsers(dest="verb", parser_class=type(p))
    ls = verbs.add_parser("list", help="the bundled lessons, in order")
    ls.add_argument("--json", action="store_true", help="print one JSON array")
    va = verbs.add_parser("validate", help="check lesson files (and the glossary)")
    va.add_argument("files", nargs="+", metavar="FILE")
    run = verbs.add_parser("run", help="play lessons headless with their recorded answers")
    run.add_argument("name", nargs="?", help="lesson id, number, or a lesson file")
    run.add_argument("--all", action="store_true", help="every bundled lesson")
    run.add_argument("--report", metavar="DIR", help="write LESSON-ID.md reports into DIR")


def main(args: argparse.Namespace) -> int:
    if args.verb == "list":
        return _list(args)
    if args.verb == "validate":
        return _validate(args)
    if args.verb == "run":
        return _run(args)
    print("ssdlab lesson: error: choose one of list, validate, run", file=sys.stderr)
    return 2


def _error(message: str) -> int:
    print(f"ssdlab lesson: error: {message}", file=sys.stderr)
    return 2


def _list(args) -> int:
    from ssdlab.lessons import LessonError, bundled

    try:
        lessons = bundled()
    except LessonError as e:
        return _error(str(e))
    if args.json:
        print(json.dumps([{"id": x.id, "order": x.order, "title": x.title,
                           "minutes": x.minutes, "summary": x.summary,
                           "steps": [s.kind for s in x.steps], "terms": list(x.terms),
                           "file": str(x.path)} for x in lessons]))
        return 0
    for x in lessons:
        print(f"{x.order:2d}  {x.id:28s} {x.minutes:3d} min  {x.title}")
    return 0


def _validate(args) -> int:
    from ssdlab.lessons import LessonError
    from ssdlab.lessons.catalogue import check_file

    failed = 0
    for name in args.files:
        try:
            print(f"{name}: ok ({check_file(name)})")
        except LessonError as e:
            print(f"ssdlab lesson: error: {e}", file=sys.stderr)
            failed += 1
    return 2 if failed else 0


def _is_report(path: Path) -> bool:
    """Whether `path` is a report `lesson run` wrote (ssdlab/lessons/report.py's first lines)."""
    from ssdlab.model.inputfile import InputFileError, read_input

    try:
        head = read_input(path)[:2000].decode("utf-8", "replace")
    except InputFileError:
        return False
    return head.startswith("# Lesson ") and "Played headless: " in head


def _run(args) -> int:
    from ssdlab.app.atomicfile import OutputFileError, write_atomic
    from ssdlab.app.cli.outputs import check_outputs
    from ssdlab.lessons import LessonError, bundled, find
    from ssdlab.lessons.player import Cancelled, play
    from ssdlab.lessons.report import report_text

    if args.all == bool(args.name):
        return _error("give one lesson NAME or --all")
    if args.report == "":
        return _error("--report '' names no folder; give the folder for the reports")
    if args.report:
        out = Path(args.report)
        # A report folder that does not exist yet is made, as `--report DIR` reads.
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return _error(f"--report {out} must be a folder that can be created: {e.strerror}")
    try:
        lessons = bundled() if args.all else [find(args.name)]
    except LessonError as e:
        return _error(str(e))
    for lesson in lessons if args.report else ():  # before any play: a FIFO, a folder...
        path = Path(args.report) / f"{lesson.id}.md"
        try:
            check_outputs({"lesson": str(lesson.path)} if lesson.path else {},
                          {"--report": str(path)})
        except OutputFileError as e:
            return _error(str(e) if str(e).startswith("--report") else f"--report {e}")
        if path.exists() and not _is_report(path):  # the person named DIR, not this file
            return _error(f"--report {path}: is there already and is not a lesson report; "
                          "move it, or name another folder")
    live = sys.stderr.isatty()

    def progress(what: str, fraction: float) -> None:
        if live:
            print(f"\r\033[K  {what} {100 * fraction:3.0f} %", end="", file=sys.stderr,
                  flush=True)

    def on_step(rec) -> None:
        if live:
            print("\r\033[K", end="", file=sys.stderr)
        if rec.step.kind == "run":
            for r in rec.results:
                print(f"  run {rec.step.id}/{r.config.id}: {r.wall_seconds:.1f} s wall",
                      file=sys.stderr)
            over = rec.wall_seconds > rec.step.max_seconds
            print(f"  run step {rec.step.id}: {rec.wall_seconds:.1f} s wall (allowed "
                  f"{rec.step.max_seconds:g} s){'  OVER THE LIMIT' if over else ''}",
                  file=sys.stderr, flush=True)
        elif rec.step.kind == "compare":
            source = rec.step.experiment or f"analytic model vs {rec.step.run}"
            agree = sum(r.agrees for r in rec.rows)
            print(f"  compare ({source}): {agree} of {len(rec.rows)} rows agree, "
                  f"{rec.wall_seconds:.1f} s wall", file=sys.stderr, flush=True)

    for lesson in lessons:
        print(f"lesson {lesson.order}: {lesson.title}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            records = play(lesson, progress, on_step=on_step)
        except Cancelled:  # Ctrl-C itself is main()'s, like every other subcommand's
            raise KeyboardInterrupt from None
        except LessonError as e:
            return _error(str(e))
        print(f"lesson {lesson.order} played in {time.perf_counter() - t0:.1f} s",
              file=sys.stderr)
        if args.report:
            path = Path(args.report) / f"{lesson.id}.md"
            try:
                check_outputs({"lesson": str(lesson.path)} if lesson.path else {},
                              {"--report": str(path)})
                write_atomic(path, report_text(lesson, records))
            except OutputFileError as e:
                return _error(str(e) if str(e).startswith("--report") else f"--report {e}")
            print(path)
    return 0
