"""File-system steps for the workbench: the model's host-stack workloads, cut into slices.

The worker runs a step a slice at a time (a few hundred files, a few MiB, a few thousand
trace requests), so it can publish snapshots, pause and cancel between slices. Each job is a
generator over the model's own operations (model/fsworkloads.py, model/traces.py); it yields
the units done so far. Nothing here computes physics: it only decides how much of a workload
to hand the model at a time.

Jobs are described by plain dicts (`FsStep.as_dict`) so a session file can record them and
replaying the same steps to the same unit counts rebuilds the same drive.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace

from model import fsworkloads as fw
from model.blockdev import BatchStats
from model.experiments import KERNEL_DISK_BYTES, kernel_tree_on_disk
from model.filesystem import ROOT_INO, FsOptions
from model.host import Machine
from model.profiles import load_host_profile, load_profile
from model.replay import replay
from model.traces import parse

HOST_PROFILE = "host_phenom2_x4_965"
FILES_PER_SLICE = 200
MIB_PER_SLICE = 16
REQUESTS_PER_SLICE = 2048
UNLINKS_PER_SLICE = 400

FS_KINDS = {
    "unpack": "Kernel tree unpack",
    "rmrf": "rm -rf of the tree",
    "seqwrite": "Sequential write (MB)",
    "trace": "Replay trace file…",
}


@dataclass(frozen=True)
class FsStep:
    """One file-system step. kind: unpack, rmrf, seqwrite, trace or fstrim. index numbers
    steps within a session (names of trees and files). total: units the step has (files,
    MiB, unlinks, requests); done: units run so far (what a replay runs to)."""

    kind: str
    index: int = 0
    scale: float = 0.1  # kernel tree: share of the 36,706 files, 493 MB
    megabytes: float = 100.0  # sequential write
    path: str = ""  # trace file
    total: int = 0

    def as_dict(self) -> dict:
        return asdict(self) | {"fs": True}

    @property
    def label(self) -> str:
        if self.kind == "unpack":
            return f"unpack kernel tree x{self.scale:g}"
        if self.kind == "rmrf":
            return "rm -rf tree"
        if self.kind == "seqwrite":
            return f"write {self.megabytes:g} MB"
        if self.kind == "trace":
            return "replay " + self.path.rsplit("/", 1)[-1]
        return "fstrim"


def kernel_tree_mb(scale: float) -> float:
    return KERNEL_DISK_BYTES * scale / 1e6


def build_machine(settings) -> Machine:
    """A Machine whose drive has exactly the workbench's geometry and FTL settings."""
    s = settings
    g = s.geometry()
    profile = replace(load_profile(s.profile), spare=g.spare, page_bytes=g.page_bytes,
                      pages_per_block=g.pages_per_block, mapping=s.mapping, gc_policy=s.gc)
    options = FsOptions(journal=s.journal, atime=s.atime, discard=s.discard)
    return Machine(profile, load_host_profile(HOST_PROFILE), options, s.partition(),
                   user_pages=g.user_pages, d=s.d, gc_low_blocks=s.gc_low_blocks, seed=s.seed)


def remount(m: Machine, settings) -> None:
    """Apply the mount options (atime, discard) to a mounted file system."""
    m.fs.remount(replace(m.fs.opt, atime=settings.atime, discard=settings.discard))


class FsJob:
    """A running step: `advance(until)` runs slices until the wall clock passes `until` or
    the step is done (or reaches `limit` units, for replays)."""

    def __init__(self, m: Machine, step: FsStep, trees: list[str], limit: int | None = None):
        self.m = m
        self.step = step
        self.trees = trees
        self.done = 0
        self.limit = limit
        self.message = ""
        self.finished = False
        self._gen = self._make()
        self.total = self._total

    def _make(self) -> Iterator[int]:
        kind = self.step.kind
        if kind == "unpack":
            files = kernel_tree_on_disk(scale=self.step.scale)
            self._total = len(files)
            return self._unpack(files)
        if kind == "rmrf":
            if not self.trees:
                raise ValueError("rm -rf: there is no kernel tree to remove; unpack one first")
            top = self.trees[-1]
            self._total = self._count(self.m.fs.lookup(ROOT_INO, top))
            return self._rmrf(top)
        if kind == "seqwrite":
            self._total = max(1, int(round(self.step.megabytes * 1e6 / 2**20)))
            return self._seqwrite(int(self.step.megabytes * 1e6))
        if kind == "trace":
            trace = parse(self.step.path)
            self._total = len(trace.requests)
            return self._replay(trace)
        if kind == "fstrim":
            self._total = 1
            return self._fstrim()
        raise ValueError(f"file-system step must be one of {', '.join(FS_KINDS)}, fstrim; "
                         f"got {kind!r}")

    def advance(self, until: float, clock) -> None:
        while not self.finished and (self.limit is None or self.done < self.limit):
            try:
                done = next(self._gen)
            except StopIteration:
                self.finished = True
                break
            if done is not None:  # a sync slice yields None: progress stays where it was
                self.done = done
            if clock() >= until:
                break
        if self.limit is not None and self.done >= self.limit:
            self.finished = True

    # --- the steps, slice by slice ---------------------------------------------------------

    def _unpack(self, files) -> Iterator[int]:
        top = f"linux-{self.step.index}"
        self.trees.append(top)
        for i in fw.unpack_steps(self.m, files, top):
            if i % FILES_PER_SLICE == 0:
                yield i
        yield from self.m.sync_steps()
        yield len(files)

    def _count(self, ino: int) -> int:
        fs = self.m.fs
        n = 0
        for child in fs.readdir(ino):
            child_ino = fs.lookup(ino, child)
            n += self._count(child_ino) if fs.inodes[child_ino].is_dir else 1
        return n

    def _rmrf(self, top: str) -> Iterator[int]:
        """fsworkloads.remove_tree_steps, yielding every UNLINKS_PER_SLICE unlinks."""
        done = 0
        for done in fw.remove_tree_steps(self.m, top):
            if done % UNLINKS_PER_SLICE == 0:
                yield done
        self.trees.remove(top)
        yield from self.m.sync_steps()
        yield done

    def _seqwrite(self, size: int) -> Iterator[int]:
        """fsworkloads.write_file_steps (dd in 1 MiB writes, then sync), in slices."""
        chunks = 0
        for chunks, _ in enumerate(fw.write_file_steps(
                self.m, f"seq-{self.step.index}.bin", size, sync=False), 1):
            if chunks % MIB_PER_SLICE == 0:
                yield chunks
        yield from self.m.sync_steps()
        yield chunks

    def _replay(self, trace) -> Iterator[int]:
        """traces.replay, REQUESTS_PER_SLICE requests at a time, through the partition. The
        requests queue on the Machine's device and go out through the Machine, so its clock
        and step counters include them."""
        n = len(trace.requests)
        device = _Deferred(self.m.dev)
        sent = skipped = 0
        first_bad = None
        for start in range(0, n, REQUESTS_PER_SLICE):
            part = replace(trace, requests=trace.requests[start:start + REQUESTS_PER_SLICE])
            result = replay(part, device)
            self.m.cpu(0.0)  # the Machine submits what the slice queued
            sent += result.requests
            skipped += result.skipped_out_of_range
            if first_bad is None:
                first_bad = result.first_out_of_range_line
            yield min(n, start + REQUESTS_PER_SLICE)
        yield from self.m.sync_steps()
        lines = [f"{trace.source.rsplit('/', 1)[-1]} ({trace.fmt}): {sent:,} of {n:,} "
                 "requests replayed"]
        if skipped:
            lines.append(f"{skipped:,} outside the partition skipped (first at line "
                         f"{first_bad})")
        if trace.problems:
            p = trace.problems[0]
            lines.append(f"{len(trace.problems)} lines unreadable; line {p.line}: {p.reason}")
        self.message = "; ".join(lines)
        yield n

    def _fstrim(self) -> Iterator[int]:
        self.m.fstrim()
        yield 1


class _Deferred:
    """The Machine's block device, except that submit() leaves the queue to the Machine."""

    def __init__(self, dev):
        self._dev = dev

    def __getattr__(self, name):
        return getattr(self._dev, name)

    def submit(self) -> BatchStats:
        return BatchStats()


def check_trace(path: str) -> str:
    """Parse a trace file now, so a bad one is reported at the control (ValueError names the
    file and the first unreadable line)."""
    if not path:
        raise ValueError("trace file: choose a file (tracefs, blkparse, fio iolog or "
                         "MSR-Cambridge CSV)")
    trace = parse(path)
    msg = f"{len(trace.requests):,} requests ({trace.fmt})"
    if trace.problems:
        p = trace.problems[0]
        msg += f"; {len(trace.problems)} lines skipped, first at line {p.line}: {p.reason}"
    return msg
