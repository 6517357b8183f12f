"""Compiling the engine ahead of use, and telling whether it is compiled.

The engine's numba functions compile on first use and land in numba's on-disk cache
(compiled.py names the folder by a hash of the engine's sources). A cold cache costs about a
minute of compiling on a two-core machine; `python -m model.flash.warm` (run by setup.sh)
does it once, up front, with a line of progress per function, so the first simulation loads
machine code instead.

Every entry point has exactly one signature (Drive passes contiguous int8/int64 arrays and
Python ints), so `is_warm` can ask numba's own cache index whether each is there without
compiling anything. Numba's cache is one index per function, so functions whose callees are
already compiled can be compiled in separate processes at once: `prepare` runs them on
`workers` processes in dependency order (a caller waits until its callees are cached, then
loads them instead of compiling them again).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

PREPARING_MESSAGE = "preparing the simulator, once: about a minute"


@dataclass(frozen=True)
class EntryPoint:
    """One compiled function: module (in model.flash), name, the entry points it calls
    (compiled before it), and its argument kinds: "a" the FlashArrays tuple, "i" an int64,
    "ops" int8[::1], "pages" int64[::1]."""

    module: str
    name: str
    calls: tuple[str, ...]
    args: tuple[str, ...]


ENTRY_POINTS = (
    EntryPoint("gc", "collect_block", (), ("a", "i")),
    EntryPoint("ftl", "fast_write_page", (), ("a", "i")),
    EntryPoint("ftl", "block_write", (), ("a", "i", "i")),
    EntryPoint("ftl", "block_trim", (), ("a", "i", "i")),
    EntryPoint("gc", "collect", ("collect_block",), ("a",)),
    EntryPoint("gc", "foreground_gc", ("collect",), ("a",)),
    EntryPoint("gc", "idle_gc", ("collect_block",), ("a", "i", "i", "i")),
    EntryPoint("ftl", "run_single_page_writes", ("foreground_gc",), ("a", "pages")),
    EntryPoint("ftl", "run_commands",
               ("foreground_gc", "fast_write_page", "block_write", "block_trim"),
               ("a", "ops", "pages", "pages", "i", "i")),
)
_BY_NAME = {e.name: e for e in ENTRY_POINTS}


@dataclass(frozen=True)
class Step:
    """Progress of `prepare`: `done` of `total` functions ready, `name` the one just done,
    `seconds` since prepare started."""

    done: int
    total: int
    name: str
    seconds: float


def _dispatcher(entry: EntryPoint):
    return getattr(importlib.import_module(f"model.flash.{entry.module}"), entry.name)


def _signature(entry: EntryPoint) -> tuple:
    from numba import typeof, types

    from .geometry import FtlConfig, Geometry
    from .state import allocate

    arrays = typeof(allocate(Geometry(user_pages=256, pages_per_block=16, spare=0.25),
                             FtlConfig()))
    kinds = {"a": arrays, "i": types.int64, "ops": types.Array(types.int8, 1, "C"),
             "pages": types.Array(types.int64, 1, "C")}
    return tuple(kinds[k] for k in entry.args)


def _is_cached(entry: EntryPoint) -> bool:
    dispatcher = _dispatcher(entry)
    sig = _signature(entry)
    if tuple(sig) in dispatcher.overloads:
        return True
    cache = dispatcher._cache  # numba's FunctionCache (private, but the only way to ask)
    try:
        key = cache._index_key(sig, dispatcher.targetctx.codegen())
        name = cache._cache_file._load_index().get(key)
    except (AttributeError, OSError, ValueError, EOFError):
        return False
    return name is not None and os.path.exists(os.path.join(cache.cache_path, name))


def missing() -> list[str]:
    """Names of the entry points not in numba's cache (nor compiled in this process)."""
    return [e.name for e in ENTRY_POINTS if not _is_cached(e)]


def is_warm() -> bool:
    """Whether every engine function would load from the cache rather than compile."""
    return not missing()


def compile_entry(name: str) -> str:
    """Compile (or load) one entry point into the cache; runs in a worker process."""
    entry = _BY_NAME[name]
    _dispatcher(entry).compile(_signature(entry))
    return name


def _start(name: str) -> subprocess.Popen:
    code = f"from model.flash.warm import compile_entry; compile_entry({name!r})"
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def prepare(workers: int | None = None) -> Iterator[Step]:
    """Compile every entry point not yet cached, yielding a Step as each becomes ready.

    workers: processes compiling at once (default: the CPUs this process may use, at most
    3); with 1 it compiles in this process. Either way this process then loads them all from
    the cache, so its own first call does not wait. Raises RuntimeError with the compiler's
    last line if a worker fails.
    """
    t0 = time.perf_counter()
    todo = [e.name for e in ENTRY_POINTS if not _is_cached(e)]
    total = len(todo)
    if workers is None:
        workers = max(1, min(3, len(os.sched_getaffinity(0))))
    done = 0
    if workers > 1 and total > 1:
        # Separate interpreters, not forks: a fork of a process holding numba's compiler
        # state or Qt's threads is not safe, and multiprocessing's spawn re-imports the
        # caller's __main__.
        running: dict[str, subprocess.Popen] = {}
        try:
            while todo or running:
                for name in list(todo):
                    busy = set(todo) | set(running)
                    if len(running) < workers and not busy & set(_BY_NAME[name].calls):
                        running[name] = _start(name)
                        todo.remove(name)
                for name, proc in list(running.items()):
                    if proc.poll() is None:
                        continue
                    del running[name]
                    err = proc.stderr.read().decode(errors="replace").strip()
                    proc.stderr.close()
                    if proc.returncode != 0:
                        last = err.splitlines()[-1] if err else f"exit {proc.returncode}"
                        raise RuntimeError(f"compiling the simulator ({name}) failed: {last}")
                    done += 1
                    yield Step(done, total, name, time.perf_counter() - t0)
                time.sleep(0.05)
        finally:
            for proc in running.values():
                proc.kill()
                proc.wait()
                proc.stderr.close()
        for entry in ENTRY_POINTS:
            compile_entry(entry.name)
        return
    for name in todo:
        compile_entry(name)
        done += 1
        yield Step(done, total, name, time.perf_counter() - t0)
    for entry in ENTRY_POINTS:
        compile_entry(entry.name)
