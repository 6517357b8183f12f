"""Numba settings shared by the compiled engine (primitives.py, gc.py, ftl.py).

Numba's on-disk cache checks only the timestamp of the file that defines a function, not of
the files whose functions it inlined, so an edit to primitives.py would leave ftl.py's cached
machine code stale. The cache therefore lives in a folder named by a hash of every engine
source file: any edit starts a fresh cache. It sits under the user's cache folder
(ssdlab/model/cachedir.py), never inside the installed package or the checkout, and every function
has the checked cache of numbacache.py: a bad cache file is compiled over, never trusted.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from numba import njit

from ssdlab.model.cachedir import cache_root, folder

from . import numbacache

_ENGINE_FILES = ("state.py", "compiled.py", "prefetch.py", "primitives.py", "gc.py",
                 "slccache.py", "placement.py", "ftl.py")


def _engine_hash() -> str:
    here = Path(__file__).parent
    h = hashlib.sha256()
    for name in _ENGINE_FILES:
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def _cache_dir() -> Path:
    return folder(cache_root() / f"numba-{_engine_hash()}")


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(_cache_dir())


def _checked(decorator):
    """decorator (numba's, without cache=True), with the checked cache (numbacache.py): numba's
    own cache=True would first try other folders, the source tree's __pycache__ among them."""

    def wrap(func):
        dispatcher = decorator(func)
        numbacache.install(dispatcher)
        return dispatcher

    return wrap


# The engine never allocates, so it runs without numba's reference-counting runtime (_nrt):
# with it, every call that passes the 18-array tuple increments and decrements 18 counters,
# which measured 40x slower than a plain loop. Small helpers are also inlined at IR level.
jit = _checked(njit(nogil=True, _nrt=False))
inline = _checked(njit(nogil=True, inline="always", _nrt=False))
# Cold paths (once per block or per victim, not per page) are called instead: numba inlines
# at IR level by copying the callee's IR into every call site, which made big helpers cost
# more compile time than everything else. Called only from compiled code, so no Python
# wrapper is built for them.
called = _checked(njit(nogil=True, _nrt=False, no_cpython_wrapper=True))
