"""Record real ext4 doing the documented workloads (run as root; not a test).

For each configuration this script creates a sparse image file in /tmp, attaches it to a
loop device, makes an ext4 file system on it (with or without a journal), mounts it with
the configuration's options and runs the steps of the configuration's plan:

- documented: the workloads of ssdlab/model/host/filetree.py at a small scale: unpack, sync,
  rm -rf, sync, git clone, make, make clean, dd, rm of the dd file, fstrim (format 1
  recordings, ext4_journal_* and ext4_nojournal_*);
- untar: a real `tar -xf` of a kernel-tree archive (tens of thousands of files), sync,
  rm -rf, sync, fstrim; with and without `discard`, and a larger tree on a larger image;
- paced: the tree written file by file over a minute (a slow untar), then sync, so that the
  30 s dirty expiry, the 5 s flusher and the 5 s journal commits show in time.

Per step it records the phases separately: the command, the sync after it, and (for steps
that settle) the time after sync until the device has been quiet for a few seconds, which
catches discards the kernel issues from a worker after the commit. Per phase: the change of
/sys/fs/ext4/<loop>/lifetime_write_kbytes (the counter seed 002 used), the requests by
operation, the writes into the journal's block range, the discards (count, summed bytes,
distinct bytes) and the times of the first and last request relative to the step's start.
The tracefs events block/block_rq_issue, writeback/writeback_start (the flusher's passes and
their reasons) and jbd2/jbd2_run_stats (one per journal commit) are filtered to the loop
device and time-stamped with CLOCK_MONOTONIC, the clock of each step's t0_monotonic_s, so
the trace gives every request's time in the step.

Output, next to this file: ext4_<config>.json (per-step numbers and the setup, including
the host's RAM and dirty-page settings) and ext4_<config>.trace.gz (the tracefs text lines;
"# step: NAME" lines separate the steps).

    sudo .venv/bin/python tests/recordings/record_ext4.py [--only CONFIG] [--list]

Everything is undone on the way out, even after an error: the trace instance is removed,
the file system unmounted, the loop device detached and the image deleted.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from ext4trace import (  # noqa: E402  (beside this file, run as a script)
    EVENTS,
    Tracer,
    kernel_events,
    parse,
    run,
    summarise,
)
from loophost import (  # noqa: E402
    QUIET_S,
    drop_caches,
    host_memory,
    journal_range,
    read_file,
    syncfs,
    wait_quiet,
)

from ssdlab.model.host.filetree import (  # noqa: E402
    FileSpec,
    build_outputs,
    clone_outputs,
    directories,
    kernel_tree,
    make_schedule,
    total_bytes,
)

GIB = 1 << 30
DD_MIB = 64
SEED = 2639
# The emulated compile lasts this long at scale 1 (seconds of wall time, spread evenly over
# the compile units), so that it spans several 5-second journal commits even at small scale.
MAKE_SECONDS_AT_SCALE_1 = 400.0
PACED_SECONDS = 60.0  # the paced plan writes its tree over this long
ARCHIVE_MTIME = 1309478400  # 2011-07-01, when the documented runs were made
MKFS_BASE = ["mkfs.ext4", "-F", "-q", "-b", "4096",
             "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard"]
FORMAT = 2


@dataclass(frozen=True)
class Config:
    """One recording: a plan of steps on a file system of these options and size."""

    plan: str  # documented, untar or paced
    journal: bool
    atime: str
    discard: bool = False
    scale: float = 0.2
    image_bytes: int = 2 * GIB
    label: str = ""  # added to the name (several configurations of one plan and options)

    @property
    def name(self) -> str:
        parts = [] if self.plan == "documented" else [self.plan]
        parts += ["journal" if self.journal else "nojournal", self.atime]
        parts += (["discard"] if self.discard else []) + ([self.label] if self.label else [])
        return "_".join(parts)

    @property
    def mkfs_options(self) -> list[str]:
        return MKFS_BASE[1:] + ([] if self.journal else ["-O", "^has_journal"])

    @property
    def mount_options(self) -> str:
        return ",".join([self.atime] + (["discard"] if self.discard else []))


CONFIGS = [Config("documented", j, a) for j in (True, False)
           for a in ("strictatime", "relatime", "noatime")]
CONFIGS += [
    Config("documented", True, "relatime", discard=True),
    Config("untar", True, "relatime", scale=1.0),
    Config("untar", True, "relatime", discard=True, scale=1.0),
    Config("untar", True, "relatime", scale=2.5, image_bytes=4 * GIB, label="big"),
    Config("paced", True, "relatime", scale=0.2),
]

class Payload:
    """Incompressible bytes to fill files with (the content does not matter to ext4)."""

    def __init__(self) -> None:
        self.block = np.random.default_rng(SEED).bytes(1 << 20)

    def write(self, path: Path, size: int) -> None:
        with open(path, "wb") as f:
            left = size
            while left > 0:
                n = min(left, len(self.block))
                f.write(self.block[:n])
                left -= n


def write_tree(root: Path, files: list[FileSpec], payload: Payload,
               seconds: float = 0.0) -> None:
    """Create the files under root; with seconds > 0, spread evenly over that long."""
    for d in directories(files):
        (root / d).mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    for i, spec in enumerate(files):
        payload.write(root / spec.path, spec.size_bytes)
        if seconds:
            delay = start + (i + 1) * seconds / len(files) - time.monotonic()
            if delay > 0:
                time.sleep(delay)


def write_archive(path: Path, files: list[FileSpec], payload: Payload) -> None:
    """A tar archive of the tree (directories, then files in tree order), as tar -c would
    store a source tree."""
    with open(path, "wb") as f, tarfile.open(fileobj=f, mode="w",
                                             format=tarfile.GNU_FORMAT) as tar:
        for d in directories(files):
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, ARCHIVE_MTIME
            tar.addfile(info)
        for spec in files:
            if spec.size_bytes > len(payload.block):
                raise ValueError(f"{spec.path}: larger than the payload block")
            info = tarfile.TarInfo(spec.path)
            info.size, info.mode, info.mtime = spec.size_bytes, 0o644, ARCHIVE_MTIME
            tar.addfile(info, io.BytesIO(payload.block[:spec.size_bytes]))
        tar.close()
        # on disk before the steps, so its dirty pages do not count towards the machine's
        # dirty thresholds while the steps run
        f.flush()
        os.fsync(f.fileno())


@dataclass
class Step:
    """One step: the command, whether a sync phase follows, whether to wait for the
    device to fall quiet after it, whether to drop the page cache before it."""

    name: str
    action: Callable[[], None]
    sync: bool = False
    settle: bool = False
    drop: bool = False
    extra: dict = field(default_factory=dict)


def plan_steps(cfg: Config, mnt: Path, work: Path, payload: Payload,
               fstrim_bytes: list[int]) -> tuple[list[Step], dict]:
    """The steps of cfg's plan on the file system at mnt, and what to say about them."""
    tree = kernel_tree(cfg.scale, SEED)
    linux = mnt / "linux"
    about: dict = {"tree": {"files": len(tree), "bytes": total_bytes(tree),
                            "directories": len(directories(tree))}}

    def fstrim() -> None:
        text = run("fstrim", "-v", str(mnt))
        m = re.search(r"\((\d+) bytes\)", text)
        fstrim_bytes.append(int(m.group(1)) if m else -1)

    def rm_tree() -> None:
        shutil.rmtree(linux)

    if cfg.plan == "untar":
        archive = work / "linux.tar"
        write_archive(archive, tree, payload)
        read_file(archive)  # in the page cache: tar reads no device during the untar
        linux.mkdir()
        about["archive_bytes"] = archive.stat().st_size
        return [Step("untar", lambda: run("tar", "-xf", str(archive), "-C", str(linux)),
                     sync=True, settle=True),
                Step("rm -rf", rm_tree, sync=True, settle=True, drop=True),
                Step("fstrim", fstrim, settle=True)], about
    if cfg.plan == "paced":
        about["paced_seconds"] = PACED_SECONDS
        return [Step("paced unpack", lambda: write_tree(linux, tree, payload, PACED_SECONDS),
                     sync=True, settle=True),
                Step("rm -rf", rm_tree, sync=True, settle=True, drop=True)], about
    if cfg.plan != "documented":
        raise ValueError(f"unknown plan {cfg.plan!r}")

    clone = clone_outputs(tree)
    schedule = make_schedule(tree, SEED)
    outputs = build_outputs(tree, SEED)
    make_seconds = MAKE_SECONDS_AT_SCALE_1 * cfg.scale
    repo = mnt / "clone"

    def make() -> None:
        pause = make_seconds / max(1, len(schedule))
        start = time.monotonic()
        for i, unit in enumerate(schedule):
            for path in unit.reads:
                read_file(repo / path)
            for spec in unit.writes:
                (repo / spec.path).parent.mkdir(parents=True, exist_ok=True)
                payload.write(repo / spec.path, spec.size_bytes)
            # Keep to the schedule: unit i ends no earlier than (i + 1) * pause.
            delay = start + (i + 1) * pause - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    def make_clean() -> None:
        # make clean walks the tree (readdir of every directory), then deletes outputs.
        for d in ["", *directories(clone)]:
            with os.scandir(repo / d) as it:
                for _ in it:
                    pass
        for spec in outputs:
            (repo / spec.path).unlink()

    def dd() -> None:
        run("dd", "if=/dev/zero", f"of={mnt / 'big.dd'}", "bs=1M", f"count={DD_MIB}",
            "status=none")

    about.update({
        "clone": {"files": len(clone), "bytes": total_bytes(clone)},
        "build_outputs": {"files": len(outputs), "bytes": total_bytes(outputs)},
        "make": {"units": len(schedule), "file_reads": sum(len(u.reads) for u in schedule),
                 "paced_seconds": make_seconds},
        "dd_bytes": DD_MIB << 20,
    })
    return [
        Step("unpack", lambda: write_tree(linux, tree, payload)),
        Step("sync", lambda: syncfs(mnt)),
        Step("rm -rf", rm_tree, drop=True),
        Step("sync", lambda: syncfs(mnt)),
        Step("git clone", lambda: write_tree(repo, clone, payload), sync=True),
        Step("make", make, sync=True, drop=True),
        Step("make clean", make_clean, sync=True, drop=True),
        Step("dd", dd, sync=True),
        Step("rm dd file", lambda: (mnt / "big.dd").unlink(), sync=True),
        Step("fstrim", fstrim),
    ], about


def measure(step: Step, tracer: Tracer, counter: Path, disk: str, mnt: Path,
            journal: tuple[int, int] | None) -> tuple[dict, list[str]]:
    """Run one step, phase by phase; its summary and its trace lines."""
    if step.drop:
        drop_caches(mnt)
    tracer.clear()
    marks = [(time.monotonic(), int(counter.read_text()))]
    step.action()
    marks.append((time.monotonic(), int(counter.read_text())))
    phases = ["command"]
    if step.sync:
        syncfs(mnt)
        marks.append((time.monotonic(), int(counter.read_text())))
        phases.append("sync")
    if step.settle:
        wait_quiet(disk)
        marks.append((time.monotonic(), int(counter.read_text())))
        phases.append("after")
    lines, lost = tracer.take()
    requests = parse(lines)
    t0 = marks[0][0]
    entry: dict = {"name": step.name, "ends_with_sync": step.sync or step.name == "sync",
                   "dropped_caches_before": step.drop, "t0_monotonic_s": round(t0, 6),
                   "phases": {}}
    for k, phase in enumerate(phases):
        start, end = marks[k][0], marks[k + 1][0]
        last = k == len(phases) - 1
        inside = [r for r in requests
                  if (r.time_s >= start or k == 0) and (r.time_s < end or last)]
        entry["phases"][phase] = {"seconds": round(end - start, 4),
                                  "lifetime_write_kbytes": marks[k + 1][1] - marks[k][1],
                                  **summarise(inside, journal, t0),
                                  **kernel_events(lines, -1.0 if k == 0 else start,
                                                  float("inf") if last else end)}
    # Format 1 keys: the step as a whole, command and sync (not what settled after it).
    body = [p for p in phases if p != "after"]
    entry["wall_s"] = round(marks[len(body)][0] - t0, 4)
    entry["lifetime_write_kbytes"] = marks[len(body)][1] - marks[0][1]
    whole = [r for r in requests if r.time_s < marks[len(body)][0] or len(body) == len(phases)]
    entry["requests"] = {k: v for k, v in summarise(whole, None, t0).items()
                         if k in ("write", "write_bytes", "read", "read_bytes", "discard",
                                  "discard_bytes", "flush", "other")}
    entry["trace_lines"] = len(lines)
    entry["trace_lost"] = lost
    return entry, lines


def record(cfg: Config, outdir: Path) -> dict:
    """Run the plan on a fresh ext4 of one configuration; write and return its summary."""
    payload = Payload()
    work = Path(tempfile.mkdtemp(prefix="ssdlab_ext4_", dir="/tmp"))
    image = work / "ext4.img"
    mnt = work / "mnt"
    loop = ""
    mounted = False
    tracer = None
    steps: list[dict] = []
    trace_out: list[str] = []
    try:
        mnt.mkdir()
        with open(image, "wb") as f:
            f.truncate(cfg.image_bytes)
        loop = run("losetup", "-f", "--show", str(image)).strip()
        disk = Path(loop).name
        major, minor = (int(x) for x in
                        Path(f"/sys/block/{disk}/dev").read_text().strip().split(":"))
        run(*MKFS_BASE, *([] if cfg.journal else ["-O", "^has_journal"]), loop)
        journal = journal_range(loop) if cfg.journal else None
        run("mount", "-t", "ext4", "-o", cfg.mount_options, loop, str(mnt))
        mounted = True
        counter = Path(f"/sys/fs/ext4/{disk}/lifetime_write_kbytes")
        fstrim_bytes: list[int] = []
        plan, about = plan_steps(cfg, mnt, work, payload, fstrim_bytes)
        syncfs(mnt)
        time.sleep(6)  # let the mount-time transaction commit before measuring
        memory = host_memory()
        discard_max = int(Path(f"/sys/block/{disk}/queue/discard_max_bytes").read_text())
        tracer = Tracer(major, minor)
        for step in plan:
            entry, lines = measure(step, tracer, counter, disk, mnt, journal)
            if step.name == "fstrim":
                entry["fstrim_reported_bytes"] = fstrim_bytes[-1]
            steps.append(entry)
            trace_out.append(f"# step: {step.name}")
            trace_out.extend(lines)
            print(f"{cfg.name:36s} {step.name:13s} {entry['lifetime_write_kbytes']:9d} KiB  "
                  f"{len(lines):6d} requests  {entry['wall_s']:7.2f} s", flush=True)
    finally:
        if tracer is not None:
            tracer.close()
        if mounted:
            subprocess.run(["umount", str(mnt)], check=False)
        if loop:
            subprocess.run(["losetup", "-d", loop], check=False)
        image.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)

    summary = {
        "format": FORMAT,
        "config": cfg.name,
        "plan": cfg.plan,
        "journal": cfg.journal,
        "atime": cfg.atime,
        "discard": cfg.discard,
        "kernel": platform.release(),
        "e2fsprogs": subprocess.run(["mkfs.ext4", "-V"], capture_output=True,
                                    text=True).stderr.splitlines()[0],
        "image_bytes": cfg.image_bytes,
        "mkfs_options": cfg.mkfs_options,
        "mount_options": cfg.mount_options,
        "journal_sectors": list(journal) if journal else None,
        "discard_max_bytes": discard_max,
        "host": memory,
        "scale": cfg.scale,
        "seed": SEED,
        **about,
        "trace": {"file": f"ext4_{cfg.name}.trace.gz", "events": list(EVENTS),
                  "clock": "mono (CLOCK_MONOTONIC, as t0_monotonic_s)",
                  "device": "loop device holding the file system (sector 0 = fs start)",
                  "step_separator": "# step: NAME"},
        "notes": [
            "lifetime_write_kbytes counts sectors written to the block device, so it agrees "
            "with the write bytes of the trace; discards are not part of it.",
            "A step's phases: command, sync (steps that sync), after (steps that settle: "
            f"until the device was quiet for {QUIET_S} s after the sync). The step's "
            "lifetime_write_kbytes and requests cover command and sync.",
            "Caches are dropped (after a sync) before the steps marked "
            "dropped_caches_before, so they read from the device.",
            "journal_sectors: the journal inode's blocks, as [first, end) sectors; "
            "journal_writes/journal_bytes count write requests that start inside it.",
            "documented plan: make is emulated: each compile unit reads its source, nearby "
            "headers and common include/ headers, writes an object, and the units are paced "
            "over paced_seconds so that atime updates fall into several journal commits.",
        ],
        "steps": steps,
    }
    (outdir / f"ext4_{cfg.name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    with gzip.open(outdir / f"ext4_{cfg.name}.trace.gz", "wt", compresslevel=9) as f:
        f.write("\n".join(trace_out) + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="record only these configurations")
    parser.add_argument("--outdir", type=Path, default=HERE)
    parser.add_argument("--list", action="store_true", help="list the configurations")
    args = parser.parse_args(argv)
    names = [c.name for c in CONFIGS]
    if args.list:
        print("\n".join(names))
        return 0
    unknown = sorted(set(args.only or ()) - set(names))
    if unknown:
        print(f"--only: no configuration {unknown[0]!r}; known: {', '.join(names)}",
              file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("record_ext4.py needs root (losetup, mount, tracefs)", file=sys.stderr)
        return 2
    for cfg in CONFIGS:
        if args.only and cfg.name not in args.only:
            continue
        record(cfg, args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
