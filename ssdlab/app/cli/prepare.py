"""`ssdlab prepare`: compile the simulator's engine once, and the notice every command that
simulates gives when it finds the engine not compiled (a fresh install, an engine edit).

Without it the first run waits, silently, for numba to compile (about a minute on two busy
cores); here it says so at once and shows each function as it becomes ready.

prepare then replays the documented experiments the lessons' compare steps show, into the
rows cache (ssdlab/model/lab/rowcache.py), so that no compare step makes a student wait for a
replay: lesson 7's journal experiment alone takes about 22 s of processor time.
"""

from __future__ import annotations

import argparse
import sys
import time

# Processor seconds of each replay on the two-core machine (Nov 2026; the rest under 2 s):
# the longest starts first, so it does not run alone at the end.
REPLAY_COST_S = {"journal": 22.0, "vertex60": 6.0, "discard": 5.0, "corsair": 4.0}

# The subcommands that build a drive, and so need the compiled engine.
SIMULATING = ("simulate", "run", "experiments", "lesson", "sweep", "bench", "chart", "figures")


def add_parser(sub) -> None:
    p = sub.add_parser("prepare", help="compile the simulator once (setup.sh runs this)",
                       description="Compile the simulator's engine into numba's cache, so "
                       "that the first run starts at once, then replay the documented "
                       "experiments the lessons compare with into the rows cache. Does "
                       "nothing for what is there already. The cache folder is "
                       "$XDG_CACHE_HOME/ssdlab or ~/.cache/ssdlab (macOS "
                       "~/Library/Caches/ssdlab, Windows %LOCALAPPDATA%\\ssdlab). numba "
                       "keeps the compiled engine there as pickles that every simulating "
                       "command loads, so whoever can write in that folder can run code as "
                       "you; a cache file that does not load is removed and compiled again.")
    p.add_argument("--workers", type=int, choices=range(1, 9), metavar="N",
                   help="processes compiling or replaying at once, 1 to 8 (default: the "
                   "CPUs, at most 3)")


def needs_engine(args: argparse.Namespace) -> bool:
    """Whether this command line builds a drive (listing or checking lessons does not)."""
    if args.command == "lesson":
        return getattr(args, "verb", None) == "run"
    return args.command in SIMULATING


def ensure_compiled(command: str, workers: int | None = None) -> None:
    """Compile the engine, with progress on stderr, if it is not in the cache."""
    from ssdlab.model.flash import warm

    if warm.is_warm():
        return
    print(f"ssdlab {command}: {warm.PREPARING_MESSAGE}", file=sys.stderr, flush=True)
    tty = sys.stderr.isatty()
    for step in warm.prepare(workers):
        text = (f"  compiled {step.done} of {step.total} ({step.name}), "
                f"{step.seconds:.0f} s")
        if tty:
            print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)
        else:
            print(text, file=sys.stderr, flush=True)
    if tty:
        print(file=sys.stderr, flush=True)


def lesson_experiments() -> list[str]:
    """The documented experiments the bundled lessons' compare steps show, costliest first."""
    from ssdlab.lessons.catalogue import bundled

    names = {step.experiment for lesson in bundled() for step in lesson.steps
             if step.kind == "compare" and step.experiment is not None}
    return sorted(names, key=lambda n: (-REPLAY_COST_S.get(n, 0.0), n))


def _replay(name: str) -> str:
    from ssdlab.model.lab.rowcache import cached_rows

    cached_rows(name)
    return name


def ensure_rows(workers: int | None = None) -> int:
    """Replay the lessons' experiments the rows cache lacks, side by side, with a line as
    each is kept; returns how many the lessons use."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    from ssdlab.model.flash.warm import default_workers
    from ssdlab.model.lab.rowcache import is_cached

    names = lesson_experiments()
    missing = [n for n in names if not is_cached(n)]
    if not missing:
        return len(names)
    print(f"ssdlab prepare: replaying the {len(missing)} documented experiments the lessons "
          "compare with, once: under a minute", file=sys.stderr, flush=True)
    workers = workers or default_workers()
    t0 = time.monotonic()
    # spawn: a fork would copy this process's numba and LLVM state into each worker
    with ProcessPoolExecutor(min(workers, len(missing)), mp_context=get_context("spawn")) as pool:
        jobs = [pool.submit(_replay, n) for n in missing]
        for done, job in enumerate(as_completed(jobs), 1):
            print(f"  replayed {done} of {len(missing)} ({job.result()}), "
                  f"{time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    return len(names)


def main(args: argparse.Namespace) -> int:
    from ssdlab.model.flash import warm

    try:
        ensure_compiled("prepare", args.workers)
        # Said compiled only once each function has loaded here: a file that merely exists
        # in the cache proves nothing (a bad one is removed and compiled again).
        bad = warm.load_all()
    except RuntimeError as e:
        print(f"ssdlab prepare: error: {e}", file=sys.stderr)
        return 1
    for path in bad:
        print(f"ssdlab prepare: {path}: a bad cache file, removed; compiled again",
              file=sys.stderr)
    print(f"ssdlab prepare: the simulator is compiled ({len(warm.ENTRY_POINTS)} functions "
          "loaded from the cache)", file=sys.stderr)
    try:
        count = ensure_rows(args.workers)
    except Exception as e:  # noqa: BLE001 - only a head start is lost: a compare replays
        print(f"ssdlab prepare: warning: the lessons' experiments were not replayed ({e}); "
              "each compare step replays its own when it is shown", file=sys.stderr)
        return 0
    print(f"ssdlab prepare: the {count} documented experiments the lessons compare with are "
          "replayed and kept", file=sys.stderr)
    return 0
