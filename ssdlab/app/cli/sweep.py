"""`ssdlab sweep SPEC.toml -o results.jsonl`: run every point of a sweep file.

Each finished run is appended to the results file as one JSON line and flushed at once, so
a sweep stopped anywhere (Ctrl-C, a killed machine) keeps every finished run; `--resume`
reads the file back and runs only the points not yet in it (a torn last line is cut off and
its point run again). Without --resume an existing results file is never touched.

Runs go to a local process pool (one worker per core, or --jobs N), or with --dask ADDRESS
to a Dask cluster through distributed.Client: the same tasks, the same results. Both are
driven the same way: submit every task, and let each finished one call back into a queue
that this process alone reads and writes to the file. Progress (runs done, failed, time
left) goes to stderr. Exit status: 0 every point ran; 1 some points failed (each recorded
with its message), or a worker process died (killed: the sweep stops, what finished is
kept); 2 bad input; 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import queue
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ssdlab.app.cli.args import existing_file, whole

PROG = "ssdlab sweep"


def add_parser(sub) -> None:
    p = sub.add_parser("sweep", help="run a parameter sweep, one JSON line per run",
                       description="Run every point of a sweep file (see ssdlab/assets/sweeps/) "
                       "and append each result to a JSON Lines file as soon as it "
                       "finishes. Exit status 1 when some points failed.")
    p.add_argument("spec", type=existing_file, help="a sweep TOML file (format = 1)")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the results file (JSON Lines); must not exist unless --resume")
    p.add_argument("--resume", action="store_true",
                   help="continue FILE: run only the points not already finished in it")
    p.add_argument("--jobs", type=whole(0, 256), default=0,
                   help="local worker processes, 1 to 256 (default 0: one per core)")
    p.add_argument("--dask", metavar="ADDRESS", default=None,
                   help="run on the Dask cluster whose scheduler is at ADDRESS "
                   "(tcp://host:8786); needs the dask extra, and ssdlab on every worker. "
                   "Dask sends tasks and results as pickles: the scheduler and its workers "
                   "can run code in this process, so name only a cluster you trust")


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def _ignore_ctrl_c() -> None:
    # The terminal's Ctrl-C reaches the whole process group; the parent alone handles it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class WorkerDied(Exception):
    """A worker process ended without finishing its task (killed by the out-of-memory
    killer, a signal, a crash): the sweep stops rather than wait for it for ever."""


class LocalPool:
    """Runs tasks in a pool of worker processes; terminated at once on close.

    concurrent.futures rather than multiprocessing.Pool: when a worker is killed (SIGKILL
    from the out-of-memory killer), multiprocessing.Pool starts another and the lost task's
    result never comes, so the sweep would wait for ever; ProcessPoolExecutor fails every
    pending task with BrokenProcessPool instead, which the sweep reports."""

    def __init__(self, jobs: int):
        self.pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                                        initializer=_ignore_ctrl_c)

    def submit(self, fn: Callable, task, done: Callable[[object, object], None]) -> None:
        def finished(future) -> None:
            if future.cancelled():
                return
            error = future.exception()
            if isinstance(error, BrokenProcessPool):
                error = WorkerDied(str(error))
            done(task, future.result() if error is None else error)

        self.pool.submit(fn, task).add_done_callback(finished)

    def close(self) -> None:
        # The executor has no terminate: stop the workers (one may run a point for hours)
        # ourselves, then let it clean up without waiting.
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            with contextlib.suppress(OSError, ValueError):
                p.terminate()
        for p in processes:
            with contextlib.suppress(OSError, ValueError, AssertionError):
                p.join(5)


class DaskCluster:
    """Runs tasks on a Dask cluster through distributed.Client; its scheduler does the rest."""

    def __init__(self, address: str):
        from distributed import Client  # ImportError: told apart by the caller

        self.client = Client(address, timeout="10s", set_as_default=False)
        self.futures = []

    def submit(self, fn: Callable, task, done: Callable[[object, object], None]) -> None:
        future = self.client.submit(fn, task, pure=False)  # pure=False: a fresh key each
        future.add_done_callback(lambda f: done(task, f.exception() or f.result()
                                                if f.status != "cancelled" else
                                                RuntimeError("cancelled")))
        self.futures.append(future)

    def close(self) -> None:
        try:
            self.client.cancel(self.futures)
        finally:
            self.client.close()


def _backend(args: argparse.Namespace):
    if args.dask is None:
        return LocalPool(args.jobs or os.cpu_count() or 1)
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ValueError("--dask needs Dask: pip install 'ssdlab[dask]' (dask and "
                         "distributed)") from None
    check_dask_address(args.dask)
    try:
        return DaskCluster(args.dask)
    except (OSError, TimeoutError, ValueError) as e:
        raise ValueError(f"--dask cannot reach a scheduler at {args.dask}: "
                         f"{' '.join(str(e).split()) or type(e).__name__}") from None


def check_dask_address(address: str) -> None:
    """Refuse an address the Client would fail on only after it is half built (its __del__
    then prints a traceback at exit): tcp:// or tls://HOST:PORT, PORT 1 to 65535 (or an
    in-process cluster's inproc:// address)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    allowed = "must be tcp://HOST:PORT or tls://HOST:PORT with PORT 1 to 65535"
    try:
        scheme, location = parse_address(address)
        if scheme == "inproc":
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError):
        raise ValueError(f"--dask {address!r}: {allowed}") from None
    if scheme not in ("tcp", "tls") or not host or not 1 <= int(port) <= 65535:
        raise ValueError(f"--dask {address!r}: {allowed}")


class Progress:
    """One stderr line: runs done, failed, time left. Redrawn on a terminal, else a line per
    finished run (so a log shows how far a sweep got)."""

    def __init__(self, total: int, skipped: int):
        self.total, self.skipped = total, skipped
        self.done = self.failed = 0
        self.t0 = time.monotonic()
        self.tty = sys.stderr.isatty()

    def update(self, status: str) -> None:
        self.done += 1
        self.failed += status != "ok"
        elapsed = time.monotonic() - self.t0
        left = elapsed / self.done * (self.total - self.done)
        text = (f"{PROG}: {self.done + self.skipped}/{self.total + self.skipped} runs done, "
                f"{self.failed} failed, about {_duration(left)} left")
        if self.tty:
            print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)
        else:
            print(text, file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.tty and self.done:
            print(file=sys.stderr)
        self.tty = False  # the line is ended once


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _read_results(args: argparse.Namespace):
    """The keys of the points the results file already holds, and the length to cut it to
    (None: leave it as it is). Creates and changes nothing."""
    from ssdlab.app.atomicfile import OutputFileError, check_writable
    from ssdlab.model.lab.sweeprun import ResultsError, read_results

    path = args.output
    exists = os.path.exists(path)
    if exists and not args.resume:
        raise ValueError(f"-o {path} already exists; pass --resume to continue it, or choose "
                         "another file")
    try:
        check_writable(path)
    except OutputFileError as e:
        raise ValueError(f"-o {e}") from None
    if not exists:
        return set(), None
    try:
        results = read_results(path)
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"-o {path}: cannot be read: {e}") from None
    except ResultsError as e:
        raise ValueError(f"-o {e}") from None
    return results.done(), results.good_bytes if results.torn else None


def _open_results(path: str, cut_to: int | None) -> int:
    """A descriptor appending to the results file, a torn last line first cut off. Opened
    without waiting, so a FIFO put in its place since it was checked is refused."""
    from ssdlab.app.atomicfile import OutputFileError, open_append

    try:
        fd = open_append(path)
    except OutputFileError as e:
        raise ValueError(f"-o {e}") from None
    if cut_to is not None:
        print(f"{PROG}: {path}: dropped an unfinished last line (a run stopped while "
              "writing it); its point runs again", file=sys.stderr)
        try:
            os.ftruncate(fd, cut_to)
        except OSError as e:
            os.close(fd)
            raise ValueError(f"-o {path}: cannot be written: {e.strerror or e}") from None
    return fd


def _check_memory(sweep, jobs: int) -> None:
    """Refuse up front a drive that `jobs` workers, one drive each, cannot hold at once."""
    from ssdlab.model.flash.geometry import available_memory_bytes, check_buildable
    from ssdlab.model.lab.sweep import drive_spec

    if sweep.kind != "drive":
        return
    share = available_memory_bytes() // max(1, jobs)
    for task in sweep.tasks:
        g, c, _ = drive_spec(task.point)
        try:
            check_buildable(g, c, share)
        except ValueError as e:
            raise ValueError(f"{sweep.source}: with {jobs} jobs: {e}") from None


def run_sweep(args: argparse.Namespace, fn: Callable | None = None) -> int:
    """Run the sweep args name; fn runs one task (tests pass a counting wrapper)."""
    from ssdlab.app.atomicfile import OutputFileError, append_whole
    from ssdlab.model.lab.sweep import SweepError, load_sweep
    from ssdlab.model.lab.sweeprun import failed, line, run_task

    fn = fn or run_task
    try:
        sweep = load_sweep(args.spec)
        if args.dask is None:
            _check_memory(sweep, args.jobs or os.cpu_count() or 1)
        done, cut_to = _read_results(args)
    except (SweepError, ValueError) as e:
        return _error(str(e))
    todo = [t for t in sweep.tasks if t.key not in done]
    if not todo:
        print(f"{PROG}: all {len(sweep.tasks)} runs are already in {args.output}",
              file=sys.stderr)
        return 0
    progress = Progress(len(todo), len(sweep.tasks) - len(todo))
    finished: queue.Queue = queue.Queue()
    try:
        backend = _backend(args)  # before the results file is touched: it may be refused
    except ValueError as e:
        return _error(str(e))
    try:
        out = _open_results(args.output, cut_to)
    except ValueError as e:
        backend.close()
        return _error(str(e))
    try:
        for task in todo:
            backend.submit(fn, task, lambda t, rec: finished.put((t, rec)))
        for _ in todo:
            task, rec = finished.get()
            if isinstance(rec, WorkerDied):
                return _worker_died(args.output, progress)
            if not isinstance(rec, dict):  # the worker itself failed, not the point
                rec = failed(task, rec)
            # a line is on disk whole or not at all: a full disk keeps the lines before
            append_whole(out, args.output, line(rec).encode("utf-8"))
            progress.update(rec["status"])
    except OutputFileError as e:
        progress.end()
        return _error(f"-o {e}; the {progress.done} runs done before are kept whole; free "
                      "space and continue with --resume")
    finally:
        os.close(out)
        progress.end()
        backend.close()
    print(f"{PROG}: {progress.done} runs done, {progress.failed} failed, "
          f"{progress.skipped} already in {args.output}; "
          f"{time.monotonic() - progress.t0:.1f} s", file=sys.stderr)
    return 1 if progress.failed else 0


def _worker_died(path: str, progress: Progress) -> int:
    progress.end()
    print(f"{PROG}: error: a worker process died before finishing its run (killed, perhaps "
          f"by the out-of-memory killer: try fewer --jobs); the {progress.done} runs done are "
          f"kept in {path}; continue with --resume", file=sys.stderr)
    return 1


def main(args: argparse.Namespace) -> int:
    return run_sweep(args)
