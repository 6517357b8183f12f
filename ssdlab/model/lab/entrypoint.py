"""Running a command so that a reader who goes away never sees a traceback.

`ssdlab simulate | head -1`, or a pager closed early: the pipe's reader is gone, and the
next write to stdout fails with BrokenPipeError. Into a pipe, stdout is block-buffered, so
for a short output that write is Python's own flush at exit, where no handler can catch it
and the user reads "Exception ignored ... BrokenPipeError" (PYTHONUNBUFFERED hides this).
Every command-line entry point runs through `run_to_reader`, which flushes while it can
still catch the error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

# The status a command ends with when its reader went away (as `ssdlab ... | head`).
READER_GONE = 1


def discard_stdout() -> None:
    """Point stdout at /dev/null, so that Python's final flush has nowhere to fail."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_to_reader(command: Callable[[], int | None]) -> int:
    """Run `command` and flush stdout before returning its status (None counts as 0).

    A reader that went away, during the command or at the final flush, ends it quietly with
    status READER_GONE. SystemExit (argparse's --help and errors) passes through once its
    output is flushed.
    """
    try:
        try:
            return command() or 0
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()
        return READER_GONE
