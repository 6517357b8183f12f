"""`ssdlab prepare`: compile the simulator's engine once, and the notice every command that
simulates gives when it finds the engine not compiled (a fresh install, an engine edit).

Without it the first run waits, silently, for numba to compile (about a minute on two busy
cores); here it says so at once and shows each function as it becomes ready.
"""

from __future__ import annotations

import argparse
import sys

# The subcommands that build a drive, and so need the compiled engine.
SIMULATING = ("simulate", "run", "experiments", "lesson", "sweep", "bench", "chart", "figures")


def add_parser(sub) -> None:
    p = sub.add_parser("prepare", help="compile the simulator once (setup.sh runs this)",
                       description="Compile the simulator's engine into numba's cache, so "
                       "that the first run starts at once. Does nothing when it is compiled "
                       "already.")
    p.add_argument("--workers", type=int, choices=range(1, 9), metavar="N",
                   help="processes compiling at once, 1 to 8 (default: the CPUs, at most 3)")


def needs_engine(args: argparse.Namespace) -> bool:
    """Whether this command line builds a drive (listing or checking lessons does not)."""
    if args.command == "lesson":
        return getattr(args, "verb", None) == "run"
    return args.command in SIMULATING


def ensure_compiled(command: str, workers: int | None = None) -> None:
    """Compile the engine, with progress on stderr, if it is not in the cache."""
    from model.flash import warm

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


def main(args: argparse.Namespace) -> int:
    from model.flash import warm

    try:
        ensure_compiled("prepare", args.workers)
    except RuntimeError as e:
        print(f"ssdlab prepare: error: {e}", file=sys.stderr)
        return 1
    print(f"ssdlab prepare: the simulator is compiled ({len(warm.ENTRY_POINTS)} functions "
          "in the cache)", file=sys.stderr)
    return 0
