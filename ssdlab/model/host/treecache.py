"""Built kernel trees kept on disk, so a later run reads the tree instead of drawing it again.

Drawing the kernel tree of seeds 000/001 (filetree.kernel_tree) takes about 0.4 s of CPU,
a tenth of a whole `ssdlab run` of the kernel-tree scenarios, and every run of a lesson or
scenario draws the same tree again. The tree is a function of its scale and seed, the code
that draws it and numpy's random streams, so it is kept under the cache folder
(ssdlab/model/cachedir.py: ~/.cache/ssdlab/trees/ on Linux) in a file named by scale, seed and a
hash of those; any change to them names another file. A file that fails its check
(ssdlab/model/keptfile.py: format, key, checksum) is drawn over, never trusted; a cache that
cannot be written only costs the next run the drawing.
"""

from __future__ import annotations

import hashlib
import sys
from functools import cache
from pathlib import Path

import numpy as np

from ssdlab.model import keptfile
from ssdlab.model.cachedir import cache_root, folder

# what the tree is drawn by: its own code and the Generator's streams
_SOURCES = ("filetree.py", "rawdraws.py")


@cache
def _version() -> str:
    h = hashlib.sha256(f"{sys.version} numpy {np.__version__}".encode())
    here = Path(__file__).parent
    for name in _SOURCES:
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


# A whole kernel tree (36,706 files) is about 1.5 MB of JSON.
MAX_BYTES = 32 * 2**20


def _path(scale: float, seed: int) -> Path:
    return folder(cache_root() / "trees") / f"kernel-{scale!r}-{seed}-{_version()}.json"


def _key(scale: float, seed: int) -> str:
    return f"kernel tree {scale!r} {seed} {_version()}"


def load(scale: float, seed: int) -> tuple[list[str], list[int]] | None:
    """(paths, sizes in bytes) of the tree kept for (scale, seed), or None if there is none
    that passes its check."""
    kept = keptfile.read(_path(scale, seed), _key(scale, seed), MAX_BYTES)
    if not isinstance(kept, dict):
        return None
    paths, sizes = kept.get("paths"), kept.get("sizes")
    if not (isinstance(paths, list) and isinstance(sizes, list) and len(paths) == len(sizes)
            and all(isinstance(p, str) for p in paths)
            and all(type(s) is int and s >= 0 for s in sizes)):
        return None
    return paths, sizes


def store(scale: float, seed: int, paths: list[str], sizes: list[int]) -> None:
    """Keep a drawn tree for the next run (whole or not at all)."""
    keptfile.write(_path(scale, seed), _key(scale, seed), {"paths": paths, "sizes": sizes})
