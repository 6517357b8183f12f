"""One checked entry of SSD Lab's on-disk caches (replayed rows, drawn trees), as JSON.

What is kept can always be made again, so a kept file is input and never trusted: each is
written with a format version, the key it was made for and a SHA-256 of its payload, and is
read back only when all three match. A file edited by hand (rows altered, sizes zeroed),
cut short, copied under another key or of an older format reads as "not kept", and the
caller replays or draws it again. The file is read through ssdlab/model/inputfile.py, so a pipe,
a folder or a link to a device in its place is refused at once, never opened blocking, and
no more than a cap of bytes is read.

The checksum finds damage, not malice: whoever can write in the cache folder can also write
a matching checksum. The folder is the user's own (ssdlab/model/cachedir.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from .cachedir import discard
from .inputfile import InputFileError, read_text_input
from .partialfiles import replace_with

FORMAT = "ssdlab-kept"
VERSION = 1


def _digest(payload: object) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read(path: Path, key: str, max_bytes: int) -> object | None:
    """The payload kept at path for key, or None (none, or one that fails its check)."""
    try:
        entry = json.loads(read_text_input(path, max_bytes, what="a cache entry"))
        if not (isinstance(entry, dict) and entry.get("format") == FORMAT
                and entry.get("version") == VERSION and entry.get("key") == key):
            return None
        payload = entry.get("payload")
        return payload if entry.get("sha256") == _digest(payload) else None
    except (InputFileError, ValueError, RecursionError):
        return None


def write(path: Path, key: str, payload: object) -> None:
    """Keep payload for key at path, whole or not at all; a cache that cannot be written
    only costs the next run the work (an entry of the wrong kind in the way is removed)."""
    text = json.dumps({"format": FORMAT, "version": VERSION, "key": key,
                       "sha256": _digest(payload), "payload": payload})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                discard(path)  # a folder, pipe or link where the entry goes
        except FileNotFoundError:
            pass
        # a new file of a random name (O_EXCL), named after this process so that one a
        # killed run left is removed by the next; removed at once on any failure
        replace_with(path, text.encode("utf-8"))
    except OSError:
        pass  # a full disk or a read-only folder: the entry is still right, only not kept
