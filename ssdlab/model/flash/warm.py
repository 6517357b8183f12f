"""Compiling the engine ahead of use, and telling whether it is compiled.

The engine's numba functions compile on first use and land in numba's on-disk cache
(compiled.py names the folder by a hash of the engine's sources). A cold cache costs about a
minute of compiling on a two-core machine; `python -m ssdlab.model.flash.warm` (run by setup.sh)
does it once, up front, with a line of progress per function, so the first simulation loads
machine code instead.

Every entry point has exactly one signature (Drive passes contiguous int8/int64 arrays and
Python ints), so `is_warm` can ask the cache (numbacache.py) whether each is there and
reads back, without compiling anything. Numba's cache is one index per function, so
functions whose callees are already compiled can be compiled in separate processes at
once: `prepare` hands them to `workers` long-lived processes in dependency order, the
longest remaining chain first (a caller waits until its callees are cached, then loads
them instead of compiling them again). One process per worker, not per function: each
interpreter spends a second or two importing numba and setting up LLVM before it compiles
anything.
"""

from __future__ import annotations

import importlib
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

PREPARING_MESSAGE = "preparing the simulator, once: about a minute"


@dataclass(frozen=True)
class EntryPoint:
    """One compiled function: module (in ssdlab.model.flash), name, the entry points it calls
    (compiled before it), its argument kinds ("a" the FlashArrays tuple, "i" an int64,
    "ops" int8[::1], "pages" int64[::1]), and its compile time in seconds, measured alone on
    one core (only the order of work depends on it)."""

    module: str
    name: str
    calls: tuple[str, ...]
    args: tuple[str, ...]
    compile_s: float


ENTRY_POINTS = (
    EntryPoint("gc", "collect_block", (), ("a", "i"), 4.0),
    EntryPoint("ftl", "fast_write_page", (), ("a", "i"), 6.0),
    EntryPoint("ftl", "block_write", (), ("a", "i", "i"), 3.5),
    EntryPoint("ftl", "block_trim", (), ("a", "i", "i"), 1.5),
    EntryPoint("gc", "collect", ("collect_block",), ("a",), 1.5),
    EntryPoint("gc", "foreground_gc", ("collect",), ("a",), 1.0),
    EntryPoint("gc", "idle_gc", ("collect_block",), ("a", "i", "i", "i"), 1.0),
    EntryPoint("slccache", "fold", ("collect_block",), ("a", "i"), 1.0),
    EntryPoint("ftl", "run_single_page_writes", ("foreground_gc",), ("a", "pages"), 4.0),
    EntryPoint("ftl", "run_commands",
               ("foreground_gc", "fast_write_page", "block_write", "block_trim"),
               ("a", "ops", "pages", "pages", "i", "i"), 9.0),
    # the host's store on a zoned drive (zonestore.py): "z" its arrays, "log" its command log
    EntryPoint("zonecore", "store_collect", (),
               ("pages", "z", "pages", "pages", "log", "pages", "pages"), 2.0),
    EntryPoint("zonecore", "store_write_pages", ("store_collect",),
               ("pages", "z", "pages", "pages", "pages", "i", "log", "pages", "pages"), 3.0),
)
_BY_NAME = {e.name: e for e in ENTRY_POINTS}


def _chain_s(name: str) -> float:
    """Compile seconds from the start of `name` to the end of the longest chain of callers
    waiting on it: the longest chains start first, so the last caller is not left alone."""
    callers = [e.name for e in ENTRY_POINTS if name in e.calls]
    return _BY_NAME[name].compile_s + max((_chain_s(c) for c in callers), default=0.0)


@dataclass(frozen=True)
class Step:
    """Progress of `prepare`: `done` of `total` functions ready, `name` the one just done,
    `seconds` since prepare started."""

    done: int
    total: int
    name: str
    seconds: float


def _dispatcher(entry: EntryPoint):
    return getattr(importlib.import_module(f"ssdlab.model.flash.{entry.module}"), entry.name)


@cache
def _arrays_type():
    """numba's type of the engine's arrays: the same for every drive, and building a small
    one to ask takes 6 ms, once per entry point before (every command's start-up)."""
    from numba import typeof

    from .geometry import FtlConfig, Geometry
    from .state import allocate

    return typeof(allocate(Geometry(user_pages=256, pages_per_block=16, spare=0.25),
                           FtlConfig()))


@cache
def _zone_arrays_type():
    """numba's type of a zoned drive's host store's arrays (zonestore.py), from a small one:
    the same for every store."""
    from numba import typeof

    from .zoned import ZonedDrive, ZoneLayout
    from .zonestore import ZonedStore

    store = ZonedStore(ZonedDrive(ZoneLayout(zones=16, pages_per_block=16)), app_pages=64)
    return typeof(store.arrays)


def _signature(entry: EntryPoint) -> tuple:
    from numba import types

    kinds = {"i": types.int64, "ops": types.Array(types.int8, 1, "C"),
             "pages": types.Array(types.int64, 1, "C"),
             "log": types.Array(types.int64, 2, "C")}
    typed = {"a": _arrays_type, "z": _zone_arrays_type}
    return tuple(typed[k]() if k in typed else kinds[k] for k in entry.args)


def _is_cached(entry: EntryPoint) -> bool:
    dispatcher = _dispatcher(entry)
    sig = _signature(entry)
    if tuple(sig) in dispatcher.overloads:
        return True
    has = getattr(dispatcher._cache, "has", None)  # numbacache.CheckedCache; None: no cache
    return has is not None and has(sig, dispatcher.targetctx.codegen())


def missing() -> list[str]:
    """Names of the entry points not in numba's cache (nor compiled in this process)."""
    return [e.name for e in ENTRY_POINTS if not _is_cached(e)]


def is_warm() -> bool:
    """Whether every engine function would load from the cache rather than compile."""
    return not missing()


def load_all() -> list[str]:
    """Load every entry point in this process, from the cache where it reads back, compiling
    the rest; returns the cache files this process found bad and removed (each compiled
    again)."""
    from .numbacache import discarded

    for entry in ENTRY_POINTS:
        compile_entry(entry.name)
    return list(discarded)


def compile_entry(name: str) -> str:
    """Compile (or load) one entry point into the cache; runs in a worker process."""
    entry = _BY_NAME[name]
    _dispatcher(entry).compile(_signature(entry))
    return name


def serve() -> None:
    """A worker: compile each entry point named on a line of stdin, answering "ok NAME" or
    "error NAME: message" on stdout; ends at end of input. Anything else printed goes to
    stderr, so nothing but answers reaches the pipe."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        name = line.strip()
        try:
            compile_entry(name)
        except Exception as e:  # noqa: BLE001 - any compiler failure is reported, not raised
            text = str(e).strip().splitlines()
            print(f"error {name}: {text[-1] if text else type(e).__name__}", file=answers,
                  flush=True)
        else:
            print(f"ok {name}", file=answers, flush=True)


class _Worker:
    """One compiling interpreter, its stderr kept in a file for when it dies."""

    def __init__(self) -> None:
        self.log = tempfile.TemporaryFile()
        # Separate interpreters, not forks: a fork of a process holding numba's compiler
        # state or Qt's threads is not safe, and multiprocessing's spawn re-imports the
        # caller's __main__.
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from ssdlab.model.flash.warm import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.name: str | None = None

    def give(self, name: str) -> None:
        self.name = name
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()

    def answer(self) -> str:
        """The name it finished; RuntimeError if it failed or died."""
        line = self.proc.stdout.readline().strip()
        name, self.name = self.name, None
        if line == f"ok {name}":
            return name
        if line.startswith("error "):
            raise RuntimeError(f"compiling the simulator ({name}) failed: "
                               f"{line.split(': ', 1)[-1]}")
        self.proc.wait()
        self.log.seek(0)
        err = self.log.read().decode(errors="replace").strip().splitlines()
        last = err[-1] if err else f"exit {self.proc.returncode}"
        raise RuntimeError(f"compiling the simulator ({name}) failed: {last}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.log):
            f.close()


def _parallel(todo: list[str], workers: int) -> Iterator[str]:
    """Compile `todo` on `workers` processes, yielding each name as it is cached."""
    todo = sorted(todo, key=_chain_s, reverse=True)
    pool = [_Worker() for _ in range(min(workers, len(todo)))]
    try:
        while todo or any(w.name for w in pool):
            for w in pool:
                pending = set(todo) | {v.name for v in pool if v.name}
                ready = [n for n in todo if not pending & set(_BY_NAME[n].calls)]
                if w.name is None and ready:
                    todo.remove(ready[0])
                    w.give(ready[0])
            busy = {w.proc.stdout: w for w in pool if w.name}
            for f in select.select(list(busy), [], [])[0]:
                yield busy[f].answer()
    finally:
        for w in pool:
            w.close()


def default_workers() -> int:
    """Processes `prepare` runs side by side: the CPUs this process may use, at most 3."""
    return max(1, min(3, len(os.sched_getaffinity(0))))


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
        workers = default_workers()
    if workers > 1 and total > 1:
        names = _parallel(todo, workers)
    else:
        names = (compile_entry(name) for name in todo)
    for done, name in enumerate(names, 1):
        yield Step(done, total, name, time.perf_counter() - t0)
    for entry in ENTRY_POINTS:
        compile_entry(entry.name)
