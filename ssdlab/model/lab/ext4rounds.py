"""The model beside real ext4 on the workloads people run: a real git clone, a partial
build and make clean, and fill / delete / refill rounds of many files.

tests/recordings/record_ext4_rounds.py recorded them on Linux 6.18 (loop device, tracefs):
repo_relatime, repo_strictatime, repo_relatime_traced (2 GiB; the last recorded again with
the writeback and jbd2 events, on a busy machine), rounds_discard, rounds_fstrim and
rounds_discard_idle (1 GiB; the last waits 20 s after each delete's sync, so the kernel's
asynchronous discards finish before the refill reuses the freed blocks);
this module replays each recording on the model, step for step, on a file system of the
image's size with the recording's mount options, and returns per step:

- KiB written: the kernel's lifetime_write_kbytes (for umount, the traced write bytes,
  since the counter goes with the mount) beside the model's data + metadata + journal;
- discards: requests and distinct bytes (the union of the ranges), real and model;
- fstrim: the bytes fstrim -v reported beside the model's;
- files: for a fill, the files real ext4 needed to reach the df level beside the files the
  model needed (the replay itself creates exactly the recorded files, so that the same
  files are deleted afterwards);
- group spread: after each sync, the largest difference of free blocks in one block group,
  in % of a group (mb_groups of the kernel beside the model's allocator).

The repository replay takes the recorded file lists: the checked-out tree, the .git files
(the pack among them), what make wrote, which files and directories make and make clean
updated the atime of (a read under the recording's atime rule), and what make clean
removed. Git fsyncs its pack, pack index and refs before the checkout (core.fsync's
default), which is why the clone command itself writes about the pack's size.

    python -m ssdlab.model.lab.ext4rounds      # markdown tables of every recording here

Nothing here imports Qt.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import cache

from ssdlab.model.host import fsworkloads as w
from ssdlab.model.host.filetree import FileSpec
from ssdlab.model.host.fillfiles import FillPlan, FillSpec, delete_steps, fill_steps
from ssdlab.model.host.fstypes import ROOT_INO, FsOptions
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_host_profile, load_profile

from .entrypoint import run_to_reader
from .ext4recordings import (
    DRIVE_PROFILE,
    RECORDINGS,
    distinct_bytes,
    mb_text,
    real_discard_ranges,
    record_trims,
)

ROUND_CONFIGS = ("repo_relatime", "repo_strictatime", "repo_relatime_traced", "rounds_discard",
                 "rounds_discard_idle", "rounds_fstrim")
_ATIME = {"strictatime": "strict", "relatime": "relatime", "noatime": "noatime"}
GIT_FSYNCED = (".pack", ".idx", "packed-refs", "/HEAD", "/master")  # core.fsync default
RECORDING_HOST = "host_recorder_vm"  # the machine the recordings were made on (its RAM)
# The recordings' device, a loop device on a file, completes one discard (a hole punched in
# the file) in about 3.1 ms: modern ext4's discard worker, which waits for each, sent 327
# and 321 requests/s in rounds 1 and 3 of rounds_discard (from the commit's last write to
# its last discard, ext4_rounds_discard.trace.gz); the NVMe profile's 5 us would let the
# worker finish before the refill reuses any freed block, which the kernel did not.
LOOP_DISCARD_US = 200.0
LOOP_DISCARD_S_PER_GIB = 2.3


@dataclass(frozen=True)
class RoundStep:
    """One step of one recording, real beside model. KiB written; discards as requests and
    distinct bytes; fstrim bytes (None when the step is not fstrim); files (fills: files
    needed to reach the level, None otherwise); group_diff_pct: the largest per-group
    difference of free blocks after the step, % of a group (None when not recorded)."""

    config: str
    index: int
    step: str
    real_kib: int
    model_kib: float
    real_discard_requests: int
    real_discard_bytes: int
    model_trim_requests: int
    model_trimmed_bytes: int
    real_fstrim_bytes: int | None = None
    model_fstrim_bytes: int | None = None
    real_files: int | None = None
    model_files: int | None = None
    group_diff_pct: float | None = None
    # the byte ranges (first, end) discarded, to count distinct bytes over several steps
    real_discard_ranges: tuple[tuple[int, int], ...] = ()
    model_trim_ranges: tuple[tuple[int, int], ...] = ()

    @property
    def ratio(self) -> float:
        return self.model_kib / self.real_kib if self.real_kib else math.nan


def load_round_recording(config: str) -> dict:
    if config not in ROUND_CONFIGS:
        raise ValueError(f"no recording {config!r}; recorded: {', '.join(ROUND_CONFIGS)}")
    return json.loads((RECORDINGS / f"ext4_{config}.json").read_text())


def _machine(rec: dict) -> Machine:
    mount = rec["mount_options"].split(",")
    options = FsOptions(journal="^has_journal" not in rec["mkfs_options"],
                        atime=_ATIME[mount[0]], discard="discard" in mount, kernel="modern")
    profile = replace(load_profile(DRIVE_PROFILE), trim_command_us=LOOP_DISCARD_US,
                      trim_s_per_gib=LOOP_DISCARD_S_PER_GIB)
    return Machine(profile, load_host_profile(RECORDING_HOST), options,
                   partition=Partition(start_sector=0),
                   user_pages=rec["image_bytes"] // profile.page_bytes)


def _paced(m: Machine, ops, seconds: float) -> None:
    """Run the callables in ops evenly over `seconds` of simulated time."""
    ops = list(ops)
    per = seconds / max(1, len(ops))
    for op in ops:
        op()
        m.cpu(per)


def _interleave(a: list, b: list) -> list:
    """a and b merged so that each is spread evenly over the result."""
    keyed = [((i + 0.5) / len(a), 0, x) for i, x in enumerate(a)] + \
        [((i + 0.5) / len(b), 1, x) for i, x in enumerate(b)]
    return [x for *_, x in sorted(keyed, key=lambda k: k[:2])]


class _Repo:
    """The repository recording's actions on the model."""

    def __init__(self, m: Machine, rec: dict):
        self.m, self.rec = m, rec
        self.tree = w.Tree(m, "clone")

    def _path_ino(self, path: str) -> int:
        if path == ".":
            return self.tree.ensure_dir("clone")
        full = "clone/" + path
        return self.tree.dirs[full] if full in self.tree.dirs else self.tree.files[path]

    def _read(self, path: str) -> None:
        ino = self._path_ino(path)
        if self.m.fs.inodes[ino].is_dir:
            self.m.fs.readdir(ino)
        else:
            self.m.fs.read(ino)

    def git_clone(self, seconds: float) -> None:
        self.tree.ensure_dir("clone")
        git = [FileSpec(p, s) for p, s in self.rec["git_files"] if p != ".git/index"]
        work = [FileSpec(p, s) for p, s in self.rec["worktree"]]
        index = [FileSpec(p, s) for p, s in self.rec["git_files"] if p == ".git/index"]
        per = seconds / (len(git) + len(work) + len(index))
        for spec in git:
            ino = self.tree.create(spec, per)
            if spec.path.endswith(GIT_FSYNCED):
                self.m.fsync(ino)
        links = {p: t for p, t in self.rec.get("symlinks", [])}
        for spec in sorted(work + [FileSpec(p, 0) for p in links], key=lambda f: f.path):
            if spec.path in links:
                self._symlink(spec.path, links[spec.path])
                self.m.cpu(per)
            else:
                self.tree.create(spec, per)
        for spec in index:
            self.tree.create(spec, per)

    def _symlink(self, path: str, target: str) -> None:
        parent, _, name = ("clone/" + path).rpartition("/")
        self.tree.files[path] = w.symlink(self.m, self.tree.ensure_dir(parent), name, target)

    def walk(self) -> None:
        """The recorder's own listing of the tree (os.walk: a readdir of every directory)
        between steps: under strictatime and relatime it updates directory atimes."""
        for path, ino in list(self.tree.dirs.items()):
            if path.startswith("clone"):
                self.m.fs.readdir(ino)

    def make(self, seconds: float) -> None:
        """Each object written is one compile that reads the headers (every compile reads
        the common ones again, which under strictatime re-dirties their inodes in every
        journal commit); the other reads once, spread over the build."""
        self.walk()
        changed = self.rec["make_atime_changed"]
        headers = [p for p in changed if p.endswith(".h")]
        reads = [lambda p=p: self._read(p) for p in changed if not p.endswith(".h")]
        writes = []
        for path, size in self.rec["make_written"]:
            if path in self.tree.files:  # rewritten in place (GIT-VERSION-FILE)
                writes.append(lambda p=path, s=size: self.m.fs.write(self.tree.files[p], 0, s))
            elif path.endswith(".o"):
                writes.append(lambda p=path, s=size: self._compile(p, s, headers))
            else:
                writes.append(lambda p=path, s=size: self._create(p, s))
        _paced(self.m, _interleave(reads, writes), seconds)

    def _compile(self, path: str, size: int, headers: list[str]) -> None:
        for h in headers:
            self._read(h)
        self._create(path, size)

    def _create(self, path: str, size: int) -> None:
        parent = ("clone/" + path).rpartition("/")[0]
        self.tree.ensure_dir(parent)
        self.tree.create(FileSpec(path, size), 0.0)

    def make_clean(self, seconds: float) -> None:
        ops = [lambda p=p: self._read(p) for p in self.rec["clean_atime_changed"]]
        ops += [lambda p=p: self.tree.delete(p) for p in self.rec["clean_removed"]]
        _paced(self.m, ops, seconds)


def _actions(m: Machine, rec: dict, plan: FillPlan | None, fills: list[int]):
    """Per recorded step name, what the model does (returns files to reach a fill level,
    or fstrim bytes, or None)."""
    repo = _Repo(m, rec) if "worktree" in rec else None
    fill_no = iter(range(len(fills)))

    def fill():
        i = next(fill_no)
        gen = fill_steps(m, plan, rec["fill"]["percent"], count=fills[i])
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                return ("files", stop.value)

    def delete():
        for _ in delete_steps(m, plan, rec["fill"]["delete_fraction"]):
            pass

    def mkdir():
        for d in plan.dir_names():
            m.fs.mkdir(ROOT_INO, d)
        m.sync()

    def step(name: str, wall: float):
        if name == "sync":
            return m.sync()
        if name == "umount":
            if repo is not None:
                repo.walk()
            return w.umount(m)
        if name == "fstrim":
            return ("fstrim", m.fstrim() * 4096)
        if name == "mkdir":
            return mkdir()
        if name == "idle":
            return m.idle(wall)
        if name == "fill" or name.startswith("refill"):
            return fill()
        if name.startswith("delete"):
            return delete()
        if name == "git clone":
            return repo.git_clone(wall)
        if name == "make":
            return repo.make(wall)
        if name == "make clean":
            return repo.make_clean(wall)
        raise ValueError(f"{rec['config']}: no model action for step {name!r}")

    return step


@cache
def replay_rounds(config: str) -> tuple[RoundStep, ...]:
    """Run one recording's steps on the model; per step, real beside model."""
    rec = load_round_recording(config)
    m = _machine(rec)
    plan = None
    fills: list[int] = []
    if "fill" in rec:
        f = rec["fill"]
        plan = FillPlan(FillSpec(seed=f["seed"], dirs=f["dirs"], min_bytes=f["min_bytes"],
                                 max_bytes=f["max_bytes"]))
        fills = rec["filled"]
    trims = record_trims(m)
    act = _actions(m, rec, plan, fills)
    real_ranges = real_discard_ranges(config)
    bpg = m.fs.layout.blocks_per_group
    out = []
    for i, s in enumerate(rec["steps"]):
        c0 = m.fs.count.written_blocks
        t0 = len(trims)
        m.begin(s["name"])
        start = m.clock
        result = act(s["name"], s["wall_s"])
        # the step lasts at least as long as it did in the recording: the model's host and
        # drive are faster than the recording's loop device, and modern discard's worker
        # goes on through that time at the loop device's pace
        if m.clock - start < s["wall_s"]:
            m.cpu(s["wall_s"] - (m.clock - start))
        m.end()
        real_kib = s["lifetime_write_kbytes"]
        if real_kib is None:
            real_kib = s["traced_write_kib"]
        groups = s.get("group_free_blocks")
        diff = None
        # only after a sync: the kernel keeps freed blocks busy until their commit, so
        # mb_groups lags the model's bitmap between a delete and its sync
        if groups is not None and s["name"] == "sync":
            model = m.fs.alloc.group_free
            diff = 100 * max(abs(int(a) - int(b)) for a, b in zip(groups, model, strict=True)
                             ) / bpg
        kind, value = result if isinstance(result, tuple) else (None, None)
        out.append(RoundStep(
            config=config, index=i, step=s["name"], real_kib=real_kib,
            model_kib=float((m.fs.count.written_blocks - c0) * 4),
            real_discard_requests=s["requests"]["discard"],
            real_discard_bytes=distinct_bytes(real_ranges[i]),
            model_trim_requests=len(trims) - t0,
            model_trimmed_bytes=distinct_bytes(trims[t0:]),
            real_fstrim_bytes=s.get("fstrim_reported_bytes"),
            model_fstrim_bytes=value if kind == "fstrim" else None,
            real_files=s.get("files") if kind == "files" else None,
            model_files=value if kind == "files" else None,
            group_diff_pct=diff, real_discard_ranges=tuple(real_ranges[i]),
            model_trim_ranges=tuple(trims[t0:])))
    return tuple(out)


def round_discards(config: str) -> list[tuple[int, int, int, int]]:
    """Per round of a rounds recording (a delete up to the next delete, or to the end): the
    discards as (real requests, real distinct bytes, model requests, model distinct bytes).
    Modern ext4's worker runs on into the steps after the delete's sync, and discards some
    free runs more than once, so a round's distinct bytes are the union over its steps."""
    rows = replay_rounds(config)
    starts = [i for i, s in enumerate(rows) if s.step.startswith("delete")]
    out = []
    for a, b in zip(starts, starts[1:] + [len(rows)], strict=True):
        r = rows[a:b]
        out.append((sum(s.real_discard_requests for s in r),
                    distinct_bytes([x for s in r for x in s.real_discard_ranges]),
                    sum(s.model_trim_requests for s in r),
                    distinct_bytes([x for s in r for x in s.model_trim_ranges])))
    return out


def markdown() -> str:
    """Tables of every recording, as markdown."""
    parts = ["# Real ext4 (Linux 6.18) versus the model: clone, build, fill rounds", ""]
    for config in ROUND_CONFIGS:
        rec = load_round_recording(config)
        parts += [f"## {config} ({rec['image_bytes'] >> 20} MiB, {rec['mount_options']})", "",
                  "| # | step | real KiB | model KiB | ratio | real discards (MB) "
                  "| model trims (MB) | fstrim real / model MB | files real / model "
                  "| group diff % |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in replay_rounds(config):
            ratio = "-" if math.isnan(r.ratio) else f"{r.ratio:.3f}"
            fstrim = "-" if r.real_fstrim_bytes is None else \
                f"{mb_text(r.real_fstrim_bytes)} / {mb_text(r.model_fstrim_bytes)}"
            files = "-" if r.real_files is None else f"{r.real_files} / {r.model_files}"
            diff = "-" if r.group_diff_pct is None else f"{r.group_diff_pct:.0f}"
            parts.append(
                f"| {r.index} | {r.step} | {r.real_kib} | {r.model_kib:.0f} | {ratio} "
                f"| {r.real_discard_requests} ({mb_text(r.real_discard_bytes)}) "
                f"| {r.model_trim_requests} ({mb_text(r.model_trimmed_bytes)}) | {fstrim} "
                f"| {files} | {diff} |")
        parts.append("")
        if "discard" in rec["mount_options"].split(",") and "fill" in rec:
            parts += ["Discards per round (a delete up to the next; distinct MB over its "
                      "steps):", "",
                      "| round | real requests | model requests | real MB | model MB "
                      "| MB ratio |", "|---|---:|---:|---:|---:|---:|"]
            for k, (rq, rb, mq, mb) in enumerate(round_discards(config), 1):
                ratio = f"{mb / rb:.2f}" if rb else "-"
                parts.append(f"| {k} | {rq} | {mq} | {mb_text(rb)} | {mb_text(mb)} | {ratio} |")
            parts.append("")
    return "\n".join(parts)


def main() -> int:
    print(markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(run_to_reader(main))
