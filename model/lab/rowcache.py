"""A documented experiment's rows, replayed once per version of the model and kept on disk.

A lesson's compare step shows an experiment's rows; replaying the journal experiment (eight
clone / make / make clean runs) takes about 22 s of processor time, too long to wait for in
class, so `ssdlab prepare` (setup) replays the lessons' experiments ahead. The replay is
deterministic, so its rows are a function of the code and data that produce them: they are
kept under ~/.cache/ssdlab/experiments/ ($XDG_CACHE_HOME moves it), in a file named by a
hash of every source file under model/ and every scenario and profile file, and replayed
again whenever any of them changes. A file that cannot be read is replayed over, never
trusted. `ssdlab experiments` always replays.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import asdict
from functools import cache
from pathlib import Path

import numpy as np

from model.partialfiles import replace_with

from .experiments import EXPERIMENTS, Row

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (ROOT / "model", ROOT / "assets" / "scenarios", ROOT / "assets" / "profiles")


@cache
def model_version() -> str:
    """A hash of everything a replay reads: the model's code, scenarios and profiles."""
    h = hashlib.sha256(f"{sys.version} numpy {np.__version__}".encode())
    for folder in SOURCES:
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".toml") and path.is_file():
                h.update(str(path.relative_to(ROOT)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ssdlab" / "experiments"


def _path(name: str) -> Path:
    return cache_dir() / f"{name}-{model_version()}.json"


def _kept(path: Path) -> tuple[Row, ...] | None:
    """The rows kept at path, or None (none yet, or a file that cannot be read)."""
    try:
        return tuple(Row.from_dict(d) for d in json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def is_cached(name: str) -> bool:
    """Whether experiment `name` would come from the cache rather than be replayed."""
    return _kept(_path(name)) is not None


def cached_rows(name: str, replay: Callable[[], list[Row]] | None = None) -> tuple[Row, ...]:
    """The rows of experiment `name`, from the cache when this model version replayed it
    before, else replayed now (and kept for next time when the cache can be written)."""
    path = _path(name)
    kept = _kept(path)
    if kept is not None:
        return kept
    rows = tuple((replay or EXPERIMENTS[name])())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # whole or not at all; a full disk or a kill leaves no temporary file for long
        replace_with(path, json.dumps([asdict(r) for r in rows]).encode("utf-8"))
    except OSError:
        pass  # a read-only home: the rows are still right, only not kept
    return rows
