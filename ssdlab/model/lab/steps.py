"""One scenario step, run a slice at a time.

`StepRun(machine, step, context)` prepares a step (untimed: building the file list, parsing
a trace, sysbench's prepare) and iterating it performs the step, yielding after each unit of
work: files created or removed, MiB written, requests sent. A caller that only wants the
result drains it (`ssdlab run`); the workbench runs it for a few milliseconds at a time so it
can draw, pause and cancel between slices. Both run exactly the same operations, so a
scenario played in the window and on the command line ends in the same state.
"""

from __future__ import annotations

import lzma
import tarfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ssdlab.model.host import fsworkloads as w
from ssdlab.model.host.filesystem import ROOT_INO
from ssdlab.model.host.filetree import (
    clone_outputs,
    kernel_tree_on_disk,
    make_schedule,
    tar_members,
)
from ssdlab.model.host.fillfiles import FillPlan, FillSpec, delete_steps, expected_files, fill_steps
from ssdlab.model.host.fstypes import FsOptions
from ssdlab.model.host.machine import Machine

from .schema import RUNTIME_FIELD, one_line, show

MIB = 1 << 20
REPLAY_SLICE_REQUESTS = 2048


def step_label(step) -> str:
    """A scenario step's name in the step table: its do, and its name when it has one."""
    return step.do if not step.args.get("name") else f"{step.do} {step.args['name']}"


@dataclass
class TreeRecord:
    """A directory tree a step made: its top-level name, the Tree (path -> inode) and the
    files it was made from (make and make clean need them)."""

    top: str
    tree: w.Tree
    files: list
    cloned: bool


@dataclass
class Context:
    """What the steps of one run share: the trees unpacked or cloned, newest last."""

    trees: list[TreeRecord] = field(default_factory=list)
    mix_files: list[str] = field(default_factory=list)  # files user_mix steps keep alive
    mix_serial: list[int] = field(default_factory=lambda: [0])  # next user_mix file number
    replays: list[dict] = field(default_factory=list)  # each replay's report (host/replay.py)
    fill: FillPlan | None = None  # the files fill_files made (a refill continues them)

    def new_top(self, m: Machine) -> str:
        """linux, then linux-2, linux-3, ... while earlier trees (or files of that name)
        still exist."""
        tops = {t.top for t in self.trees}
        return tree_top(lambda name: name in tops or _exists(m, name))

    def newest(self, cloned: bool = False) -> TreeRecord | None:
        for t in reversed(self.trees):
            if t.cloned or not cloned:
                return t
        return None


def fresh_name(base: str, taken: Callable[[str], bool]) -> str:
    """base, or base-2, base-3, ...: the first name taken() says is free."""
    n = 1
    while taken(name := base if n == 1 else f"{base}-{n}"):
        n += 1
    return name


def tree_top(taken: Callable[[str], bool]) -> str:
    """The top directory the next unpack or git_clone makes."""
    return fresh_name("linux", taken)


def _exists(m: Machine, name: str) -> bool:
    return name in m.fs.inodes[ROOT_INO].entries


# What a step's run can fail with when its input does not fit the drive or the archive is
# damaged: the model's own refusals (ValueError, OSError such as ENOSPC or a missing file)
# and the archive readers'. Anything else is a bug and is left to surface as one.
RUNTIME_ERRORS = (OSError, ValueError, KeyError, tarfile.TarError, EOFError, zlib.error,
                  lzma.LZMAError, MemoryError)


class StepError(ValueError):
    """A step that cannot run in the current state (rm with nothing to remove, a file
    system that fills up, a damaged archive). It names the step's `do`, the field the
    failure is charged to and its value; `located` adds the step's number and file."""

    def __init__(self, reason: str, do: str = "", field: str | None = None, value=None,
                 index: int | None = None, source: str = "", line: int = 0):
        self.reason, self.do, self.field, self.value = reason, do, field, value
        self.index, self.source, self.line = index, source, line
        super().__init__(str(self))

    def located(self, index: int, source: str, line: int) -> StepError:
        return StepError(self.reason, self.do, self.field, self.value, index, source, line)

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}: " if self.source and self.line else \
            f"{self.source}: " if self.source else ""
        what = "step" if self.index is None else f"steps[{self.index}]"
        if self.field:
            what += f".{self.field} = {show(self.value)}"
        if self.do:
            what += f" ({self.do})"
        return one_line(f"{where}{what}: {self.reason}")


class StepRun:
    """One step on a Machine. Attributes: total (units the step has), unit (what a unit is),
    message (a summary once done, for replays). Iterate to run; each item is the units done
    so far, or None for a slice that does not advance the count (sync). cancel: asked
    during long preparation (reading a trace or a tar, building a tree, sysbench's
    prepare); True stops it with ssdlab.model.flash.runner.Cancelled (TraceCancelled is one)."""

    def __init__(self, m: Machine, step, context: Context, cancel=None):
        self.m = m
        self.step = step
        self.ctx = context
        self.cancel = cancel
        self.message = ""
        self.total = 1
        self.unit = "step"
        try:
            self._gen = self._guarded(self._prepare(step.do, step.args))
        except StepError as e:
            raise self._error(e.reason, e.field) from e
        except RUNTIME_ERRORS as e:
            raise self._error(_reason(e)) from e

    @property
    def label(self) -> str:
        return step_label(self.step)

    def __iter__(self) -> Iterator[int | None]:
        return self._gen

    def _error(self, reason: str, field: str | None = None) -> StepError:
        """A StepError naming this step's do and the field its failure is charged to (the
        one given, or the step's usual one)."""
        do, a = self.step.do, self.step.args
        key = field or ("tar" if do == "unpack" and a.get("tar") else RUNTIME_FIELD.get(do))
        return StepError(reason, do, key, a.get(key) if key else None)

    def _guarded(self, gen: Iterator[int | None]) -> Iterator[int | None]:
        try:
            yield from gen
        except StepError as e:
            raise self._error(e.reason, e.field) from e
        except RUNTIME_ERRORS as e:
            raise self._error(_reason(e)) from e

    def run(self) -> None:
        for _ in self._gen:
            pass

    # --- preparation: decides the total, builds what the step needs ------------------------

    def _prepare(self, do: str, a: dict) -> Iterator[int | None]:
        m, ctx = self.m, self.ctx
        if do == "unpack":
            # reading a tar or building the tree can take seconds: both ask cancel
            files = (tar_members(a["tar"], cancel=self.cancel) if a.get("tar")
                     else kernel_tree_on_disk(scale=a["scale"], cancel=self.cancel))
            self.total, self.unit = len(files), "files"
            return self._unpack(files)
        if do == "rm":
            rec = ctx.newest()
            if rec is None:
                raise StepError("there is no kernel tree to remove; unpack or clone one first")
            self.total, self.unit = max(1, _count_files(m, rec.top)), "files"
            return self._rm(rec)
        if do == "git_clone":
            files = kernel_tree_on_disk(scale=a["scale"], cancel=self.cancel)
            outputs = clone_outputs(files, a["pack_ratio"])
            self.total, self.unit = len(outputs), "files"
            return self._clone(files, outputs, a["seconds"])
        if do in ("make", "make_clean"):
            rec = ctx.newest(cloned=True)
            if rec is None:
                raise StepError("needs a git_clone step before it")
            if do == "make":
                units = make_schedule(rec.files, targets=a["targets"].split())
                if not units:
                    raise StepError("no C source under these target directories")
                self.total, self.unit = len(units), "compile units"
                return w.make_steps(m, rec.tree, units, seconds=a["seconds"])
            targets = w.make_clean_targets(rec.tree, rec.files)
            self.total, self.unit = max(1, sum(len(t) for t in targets)), "operations"
            return w.make_clean_steps(m, rec.tree, targets, seconds=a["seconds"])
        if do == "write":
            size = int(a["mb"] * 1e6)
            self.total, self.unit = max(1, -(-size // MIB)), "MiB"
            return self._write(a["name"], size)
        if do == "fill":
            want = w.fill_size(m, a["percent"] / 100.0)
            self.total, self.unit = max(1, -(-want // MIB)), "MiB"
            name = fresh_name("filler", lambda n: _exists(m, n))
            return self._write(name, want) if want else _once(lambda: None)
        if do == "fill_free_and_delete":
            size = w.free_fill_size(m)
            self.total, self.unit = max(1, -(-size // MIB)), "MiB"
            return self._fill_free_and_delete(size)
        if do == "user_mix":
            self.total = max(1, int(a["drive_writes"] * m.drive.geometry.user_bytes / 1e6))
            self.unit = "MB"
            return w.user_mix_steps(m, a["drive_writes"], np.random.default_rng(a["seed"]),
                                    ctx.mix_files, ctx.mix_serial, fill=a["fill"] / 100,
                                    hot_share=a["hot_pct"] / 100,
                                    hot_writes=a["hot_writes_pct"] / 100,
                                    tag_rng=np.random.default_rng([a["seed"], 1]))
        if do == "restore_image":
            size = m.fs.layout.total_blocks * 4096
            self.total, self.unit = max(1, -(-size // MIB)), "MiB"
            return w.restore_image_steps(m)
        if do == "random_writes":
            inos = w.sysbench_prepare(m, int(a["mb"] * 1e6), a["files"], a["name"],
                                      cancel=self.cancel)
            self.total, self.unit = a["requests"], "requests"
            return w.random_writes_steps(m, inos, a["requests"], fsync_every=a["fsync_every"])
        if do == "replay":
            from ssdlab.model.host.replay import Replay
            from ssdlab.model.host.traces import parse
            try:  # a trace with nothing to replay is bad input, named like any step error
                run = Replay(parse(a["trace"], cancel=self.cancel), m.dev)
            except ValueError as e:
                raise StepError(str(e)) from e
            self.total, self.unit = max(1, len(run.table)), "requests"
            return self._replay(run)
        if do == "fill_files":
            if a["min_bytes"] > a["max_bytes"]:
                raise StepError(f"must be at most max_bytes ({a['max_bytes']})",
                                field="min_bytes")
            spec = FillSpec(seed=a["seed"], dirs=a["dirs"], min_bytes=a["min_bytes"],
                            max_bytes=a["max_bytes"])
            if ctx.fill is None:
                taken = [d for d in FillPlan(spec).dir_names() if _exists(m, d)]
                if taken:
                    raise StepError(f"{taken[0]} exists already; fill_files makes it")
                ctx.fill = FillPlan(spec)
            elif ctx.fill.spec != spec:
                raise StepError("a later fill_files continues the first one's files: its "
                                "dirs, min_bytes, max_bytes and seed must be the same")
            self.total, self.unit = expected_files(m.fs, spec, a["percent"]), "files"
            return fill_steps(m, ctx.fill, a["percent"])
        if do == "delete_files":
            if ctx.fill is None or not ctx.fill.live:
                raise StepError("there are no files to delete; run fill_files first")
            self.total, self.unit = max(1, round(a["percent"] / 100 * len(ctx.fill.live))), \
                "files"
            return delete_steps(m, ctx.fill, a["percent"] / 100)
        if do == "sync":
            return self._sync()
        simple = {
            "fstrim": m.fstrim,
            "idle": lambda: m.idle(a["seconds"]),
            "delete": lambda: w.delete_file(m, a["name"]),
            "symlink": lambda: w.symlink(m, ROOT_INO, a["name"], a["target"]),
            "umount": lambda: w.umount(m),
            "remount": lambda: m.fs.remount(FsOptions(**{**vars(m.fs.opt), **{
                k: v for k, v in a.items() if v is not None}})),
        }
        if do not in simple:
            raise StepError(f"unknown step {do!r}")
        return _once(simple[do])

    # --- the steps -------------------------------------------------------------------------

    def _unpack(self, files) -> Iterator[int]:
        top = self.ctx.new_top(self.m)
        yield from w.unpack_steps(self.m, files, top)
        self.ctx.trees.append(TreeRecord(top, self.m.last_tree, files, cloned=False))

    def _clone(self, files, outputs, seconds: float) -> Iterator[int]:
        top = self.ctx.new_top(self.m)
        yield from w.git_clone_steps(self.m, outputs, top, seconds)
        self.ctx.trees.append(TreeRecord(top, self.m.last_tree, files, cloned=True))

    def _rm(self, rec: TreeRecord) -> Iterator[int]:
        yield from w.remove_tree_steps(self.m, rec.top)
        self.ctx.trees.remove(rec)

    def _write(self, name: str, size: int) -> Iterator[int | None]:
        for done in w.write_file_steps(self.m, name, size, sync=False):
            yield -(-done // MIB)
        yield from self._sync()

    def _fill_free_and_delete(self, size: int) -> Iterator[int | None]:
        name = fresh_name("zero.fill", lambda n: _exists(self.m, n))
        yield from self._write(name, size)
        w.delete_file(self.m, name)
        yield from self._sync()

    def _sync(self) -> Iterator[None]:
        yield from self.m.sync_steps()

    def _replay(self, run) -> Iterator[int]:
        """REPLAY_SLICE_REQUESTS requests at a time through the partition; the Machine is
        charged for each slice, so its clock and step counters include them. The message
        and the context's report say what was dropped and why."""
        from ssdlab.model.host.replay import headline, report
        for done, stats in run.slices(REPLAY_SLICE_REQUESTS):
            self.m.account(stats)
            yield done
        self.message = headline(run.result(), run.trace)
        self.ctx.replays.append(report(run.result(), run.trace))


def _reason(e: BaseException) -> str:
    """An exception as the end of a one-line message."""
    if isinstance(e, MemoryError):
        return "out of memory"
    if isinstance(e, KeyError):
        return f"not found: {show(e.args[0]) if e.args else '?'}"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e) or type(e).__name__


def _once(fn) -> Iterator[int]:
    fn()
    yield 1


def _count_files(m: Machine, top: str) -> int:
    """Files under top, from the directory entries as they are (no readdir: counting for a
    progress bar must not touch atimes)."""
    inodes = m.fs.inodes

    def count(ino: int) -> int:
        n = 0
        for entry in inodes[ino].entries.values():
            child = entry[0]
            n += count(child) if inodes[child].is_dir else 1
        return n

    return count(m.fs.lookup(ROOT_INO, top))
