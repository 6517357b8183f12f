"""Temporary files made while an output is written, named so a later run can tell they are
stale, and removed when they are.

Every file SSD Lab writes whole (ssdlab/app/atomicfile.py for the window and the command line, the
model's caches here) is first written beside its target as `.NAME.PID.RANDOM.partial` and
renamed over NAME only when complete. A failure removes the temporary file at once; a
process killed outright (SIGKILL, the out-of-memory killer, a power cut) cannot, so the next
write of NAME removes the ones left behind: only files of that pattern, and only when the
process that made them is gone (its PID is not alive, or is alive but started after the
file was last written, so it is another process that got the same number). A temporary
file of a process still writing is never touched.

Qt-free and app-free: the model's caches use it, below the front ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

SUFFIX = ".partial"


def _started_at(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), where /proc says; else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # the command name (field 2) may hold spaces and brackets: split after its ")"
            fields = f.read().rsplit(b")", 1)[1].split()
        with open("/proc/stat", "rb") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith(b"btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def gone(pid: int, made_at: float) -> bool:
    """True when the process that made a file at `made_at` (its mtime) with `pid` in its name
    has ended: no process has that PID, or the one that has it started later."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return pid <= 0  # another user's live process; a PID out of range is nobody's
    started = _started_at(pid)
    return started is not None and started > made_at + 1.0  # a second of clock slack


def reap(folder: str | os.PathLike, prefix: str, suffix: str = SUFFIX) -> list[str]:
    """Remove the stale entries of `folder` named PREFIX + PID + "." ... + suffix (files, or
    folders with what is in them); returns the names removed. Errors are ignored: reaping is
    tidying, never a reason for a write to fail."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        # PID.RANDOM exactly: ".x.1.ab.partial" is x's, while ".x.1.2.ab.partial" is x.1's
        parts = name[len(prefix):len(name) - len(suffix)].split(".")
        if len(parts) != 2 or not parts[0].isdigit():
            continue
        pid_text = parts[0]
        try:
            made_at = entry.stat(follow_symlinks=False).st_mtime
            if not gone(int(pid_text), made_at):
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            continue
        removed.append(name)
    return removed


def prefix_for(target: str | os.PathLike) -> str:
    """The start of a temporary file's name for `target`, up to its PID: ".NAME."."""
    return f".{Path(target).name}."


def make_temp(target: str | os.PathLike) -> tuple[int, str]:
    """(open descriptor, path) of a new temporary file beside `target`, named after it and
    this process; stale ones left for `target` by killed processes are removed first.
    Raises OSError."""
    target = Path(target)
    reap(target.parent, prefix_for(target))
    return tempfile.mkstemp(dir=target.parent, prefix=f"{prefix_for(target)}{os.getpid()}.",
                            suffix=SUFFIX)


def replace_with(target: str | os.PathLike, data: bytes) -> None:
    """Write `data` to a temporary file beside `target` and rename it over `target`: whole or
    not at all, the temporary file removed on any failure. Raises OSError. For caches, whose
    files no person names; a person's outputs go through ssdlab/app/atomicfile.py."""
    fd, temp = make_temp(target)
    try:
        with open(fd, "wb") as f:
            f.write(data)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise

