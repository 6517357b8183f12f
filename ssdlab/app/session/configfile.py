"""Read one of the person's own small JSON files (preferences.json, lessons.json) safely.

These files are read when the window starts, before anything is shown, so a bad one used to
stop the window opening: a pipe (FIFO) in its place waited for ever, a link to /dev/zero
filled memory, deep nesting raised RecursionError. Here the file is read through
ssdlab/model/inputfile.py (never opened blocking, anything but a regular file refused, at most
MAX_BYTES read) and a file that cannot be used is set aside under a new name beside it
(preferences.json.bad, then .bad2, ...), never deleted and never overwritten by the next
save, so the person can still look at it. The caller starts from defaults and says why.
No Qt here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ssdlab.model.inputfile import InputFileError, read_text_input

# Preferences and progress are a few KiB even after years of lessons.
MAX_BYTES = 2**20


def set_aside(path: Path) -> Path | None:
    """Rename path (the link itself, if it is one) to a free .bad name beside it; the new
    path, or None when it cannot be moved (it is then left as it is)."""
    for n in range(1, 100):
        aside = path.with_name(f"{path.name}.bad" + (str(n) if n > 1 else ""))
        if os.path.lexists(aside):
            continue
        try:
            os.rename(path, aside)
        except OSError:
            return None
        return aside
    return None


def _reason(e: Exception, path: Path) -> str:
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return str(e).removeprefix(f"{path}: ")


def read_json(path: Path) -> tuple[object, str]:
    """The JSON value in path (None when there is no file) and "", or None and why the
    file was not used, the bad file set aside (the message says where)."""
    if not os.path.lexists(path):
        return None, ""
    try:
        value = json.loads(read_text_input(path, MAX_BYTES, what="a settings file"))
    except (InputFileError, ValueError, RecursionError) as e:
        return None, unusable(path, _reason(e, path))
    if value is None:  # JSON's null would read as "no file", and be saved over
        return None, unusable(path, "it holds null, not settings")
    return value, ""


def unusable(path: Path, reason: str) -> str:
    """Set path aside and say so: "{path}: not used (reason); kept as NAME"."""
    aside = set_aside(path)
    kept = f"kept as {aside.name}" if aside else "left where it is"
    return f"{path}: not used ({reason}); {kept}"
