"""A documented experiment's rows, replayed once per version of the model and kept on disk.

A lesson's compare step shows an experiment's rows; replaying the journal experiment (eight
clone / make / make clean runs) takes about 22 s of processor time, too long to wait for in
class, so `ssdlab prepare` (setup) replays the lessons' experiments ahead. The replay is
deterministic, so its rows are a function of the code and data that produce them: they are
kept under the cache folder (ssdlab/model/cachedir.py: ~/.cache/ssdlab/experiments/ on Linux), in
a file named by a hash of every source file under ssdlab/model/ and every scenario and profile
file, and replayed again whenever any of them changes. A file that fails its check
(ssdlab/model/keptfile.py: format, key, checksum) is replayed over, never trusted. `ssdlab
experiments` always replays.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from dataclasses import asdict
from functools import cache
from pathlib import Path

import numpy as np

from ssdlab.model import keptfile
from ssdlab.model.cachedir import cache_root, folder
from ssdlab.model.inputfile import TEXT_MAX_BYTES

from .experiments import EXPERIMENTS, Row

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (ROOT / "model", ROOT / "assets" / "scenarios", ROOT / "assets" / "profiles")


@cache
def model_version() -> str:
    """A hash of everything a replay reads: the model's code, scenarios and profiles."""
    h = hashlib.sha256(f"{sys.version} numpy {np.__version__}".encode())
    for source in SOURCES:
        for path in sorted(source.rglob("*")):
            if path.suffix in (".py", ".toml") and path.is_file():
                h.update(str(path.relative_to(ROOT)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    return folder(cache_root() / "experiments")


def _path(name: str) -> Path:
    return cache_dir() / f"{name}-{model_version()}.json"


def _key(name: str) -> str:
    return f"rows of {name}, model {model_version()}"


def _kept(name: str) -> tuple[Row, ...] | None:
    """The rows kept for experiment name, or None (none yet, or a file that fails its
    check: ssdlab/model/keptfile.py)."""
    kept = keptfile.read(_path(name), _key(name), TEXT_MAX_BYTES)
    try:
        return tuple(Row.from_dict(d) for d in kept) if isinstance(kept, list) else None
    except (TypeError, ValueError, AttributeError):
        return None


def is_cached(name: str) -> bool:
    """Whether experiment `name` would come from the cache rather than be replayed."""
    return _kept(name) is not None


def cached_rows(name: str, replay: Callable[[], list[Row]] | None = None) -> tuple[Row, ...]:
    """The rows of experiment `name`, from the cache when this model version replayed it
    before, else replayed now (and kept for next time when the cache can be written)."""
    kept = _kept(name)
    if kept is not None:
        return kept
    rows = tuple((replay or EXPERIMENTS[name])())
    keptfile.write(_path(name), _key(name), [asdict(r) for r in rows])
    return rows
