"""Built kernel trees kept on disk, so a later run reads the tree instead of drawing it again.

Drawing the kernel tree of seeds 000/001 (filetree.kernel_tree) takes about 0.4 s of CPU,
a tenth of a whole `ssdlab run` of the kernel-tree scenarios, and every run of a lesson or
scenario draws the same tree again. The tree is a function of its scale and seed, the code
that draws it and numpy's random streams, so it is kept under ~/.cache/ssdlab/trees/
($XDG_CACHE_HOME moves it) in a file named by scale, seed and a hash of those; any change
to them names another file. A file that cannot be read as a tree is drawn over, never
trusted; a cache that cannot be written only costs the next run the drawing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import cache
from pathlib import Path

import numpy as np

from model.partialfiles import replace_with

# what the tree is drawn by: its own code and the Generator's streams
_SOURCES = ("filetree.py", "rawdraws.py")


@cache
def _version() -> str:
    h = hashlib.sha256(f"{sys.version} numpy {np.__version__}".encode())
    here = Path(__file__).parent
    for name in _SOURCES:
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def _path(scale: float, seed: int) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ssdlab" / "trees" / f"kernel-{scale!r}-{seed}-{_version()}.json"


def load(scale: float, seed: int) -> tuple[list[str], list[int]] | None:
    """(paths, sizes in bytes) of the tree kept for (scale, seed), or None if there is none
    that can be read."""
    try:
        kept = json.loads(_path(scale, seed).read_text(encoding="utf-8"))
        paths, sizes = kept["paths"], kept["sizes"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not (isinstance(paths, list) and isinstance(sizes, list) and len(paths) == len(sizes)
            and all(isinstance(p, str) for p in paths)
            and all(type(s) is int for s in sizes)):
        return None
    return paths, sizes


def store(scale: float, seed: int, paths: list[str], sizes: list[int]) -> None:
    """Keep a drawn tree for the next run (whole or not at all)."""
    path = _path(scale, seed)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # whole or not at all; a full disk or a kill leaves no temporary file for long
        replace_with(path, json.dumps({"paths": paths, "sizes": sizes}).encode("utf-8"))
    except OSError:
        pass  # a read-only home: the tree is still right, only not kept
