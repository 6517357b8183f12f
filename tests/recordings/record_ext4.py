"""Record real ext4 doing the documented workloads (run as root; not a test).

For each configuration this script creates a sparse image file in /tmp, attaches it to a
loop device, makes an ext4 file system on it (with or without a journal), mounts it with
the configuration's options and runs the workload steps of model/host/filetree.py at a small
scale: unpack, sync, rm -rf, sync, git clone, make, make clean, dd, rm of the dd file,
fstrim. Per step it records the change of /sys/fs/ext4/<loop>/lifetime_write_kbytes (the
counter seed 002 used), the block requests the loop device was issued (tracefs event
block/block_rq_issue, filtered to the loop device), and the wall time.

Output, next to this file: ext4_<config>.json (per-step numbers and the setup) and
ext4_<config>.trace.gz (the tracefs text lines; "# step: NAME" lines separate the steps).

    sudo .venv/bin/python tests/recordings/record_ext4.py [--scale 0.2] [--only CONFIG]

Everything is undone on the way out, even after an error: the trace instance is removed,
the file system unmounted, the loop device detached and the image deleted.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from model.host.filetree import (  # noqa: E402
    FileSpec,
    build_outputs,
    clone_outputs,
    directories,
    kernel_tree,
    make_schedule,
    total_bytes,
)

TRACEFS = Path("/sys/kernel/tracing")
IMAGE_BYTES = 2 << 30
DD_MIB = 64
SEED = 2639
# The emulated compile lasts this long at scale 1 (seconds of wall time, spread evenly over
# the compile units), so that it spans several 5-second journal commits even at small scale.
MAKE_SECONDS_AT_SCALE_1 = 400.0
MKFS_BASE = ["mkfs.ext4", "-F", "-q", "-b", "4096",
             "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard"]


@dataclass(frozen=True)
class Config:
    """One file-system setup: journal on/off, atime mode, discard on/off."""

    journal: bool
    atime: str
    discard: bool = False

    @property
    def name(self) -> str:
        parts = ["journal" if self.journal else "nojournal", self.atime]
        return "_".join(parts + (["discard"] if self.discard else []))

    @property
    def mkfs_options(self) -> list[str]:
        return MKFS_BASE[1:] + ([] if self.journal else ["-O", "^has_journal"])

    @property
    def mount_options(self) -> str:
        return ",".join([self.atime] + (["discard"] if self.discard else []))


CONFIGS = [Config(j, a) for j in (True, False) for a in ("strictatime", "relatime", "noatime")]
CONFIGS.append(Config(True, "relatime", discard=True))

LINE_RE = re.compile(
    r"block_rq_issue:\s+(\d+),(\d+)\s+(\S+)\s+(\d+)\s+\(.*?\)\s+(\d+)\s+\+\s+(\d+)")
ENTRIES_RE = re.compile(r"entries-in-buffer/entries-written:\s+(\d+)/(\d+)")


def run(*cmd: str) -> str:
    """Run a command, fail loudly, return its standard output."""
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return done.stdout


def classify(rwbs: str) -> str:
    """The operation of a request from its rwbs flags: write, read, discard, flush or other.

    A leading F before another operation letter is a pre-flush flag, not the operation.
    """
    op = rwbs[1] if len(rwbs) > 1 and rwbs[0] == "F" and rwbs[1] in "WRDFN" else rwbs[0]
    return {"W": "write", "R": "read", "D": "discard", "F": "flush"}.get(op, "other")


def count_requests(lines: list[str]) -> dict[str, int]:
    """Request counts and bytes per operation in block_rq_issue lines."""
    out = {k: 0 for k in ("write", "write_bytes", "read", "read_bytes", "discard",
                          "discard_bytes", "flush", "other")}
    for line in lines:
        m = LINE_RE.search(line)
        if not m:
            continue
        op = classify(m.group(3))
        out[op] += 1
        if op in ("write", "read", "discard"):
            out[op + "_bytes"] += int(m.group(6)) * 512
    return out


class Tracer:
    """A private tracefs instance recording block_rq_issue for one device."""

    def __init__(self, major: int, minor: int) -> None:
        if not (TRACEFS / "events").is_dir():
            run("mount", "-t", "tracefs", "nodev", str(TRACEFS))
        self.dir = TRACEFS / "instances" / f"ssdlab_rec_{os.getpid()}"
        self.dir.mkdir()
        (self.dir / "buffer_size_kb").write_text("65536\n")
        event = self.dir / "events" / "block" / "block_rq_issue"
        # The kernel's dev_t keeps the minor number in the low 20 bits.
        (event / "filter").write_text(f"dev == {(major << 20) | minor}\n")
        (event / "enable").write_text("1\n")
        (self.dir / "tracing_on").write_text("1\n")
        self.clear()

    def clear(self) -> None:
        with open(self.dir / "trace", "w"):
            pass

    def take(self) -> tuple[list[str], int]:
        """The event lines since the last take, and how many events were lost."""
        text = (self.dir / "trace").read_text()
        self.clear()
        lost = 0
        m = ENTRIES_RE.search(text)
        if m:
            lost = int(m.group(2)) - int(m.group(1))
        return [ln for ln in text.splitlines() if ln and not ln.startswith("#")], lost

    def close(self) -> None:
        try:
            (self.dir / "tracing_on").write_text("0\n")
            (self.dir / "events" / "block" / "block_rq_issue" / "enable").write_text("0\n")
            (self.dir / "events" / "block" / "block_rq_issue" / "filter").write_text("0\n")
        finally:
            self.dir.rmdir()


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


def write_tree(root: Path, files: list[FileSpec], payload: Payload) -> None:
    for d in directories(files):
        (root / d).mkdir(parents=True, exist_ok=True)
    for spec in files:
        payload.write(root / spec.path, spec.size_bytes)


def drop_caches() -> None:
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def read_file(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def record(cfg: Config, scale: float, outdir: Path) -> dict:
    """Run the workload on a fresh ext4 of one configuration; write and return its summary."""
    tree = kernel_tree(scale, SEED)
    clone = clone_outputs(tree)
    schedule = make_schedule(tree, SEED)
    outputs = build_outputs(tree, SEED)
    make_seconds = MAKE_SECONDS_AT_SCALE_1 * scale
    payload = Payload()
    work = Path(tempfile.mkdtemp(prefix="ssdlab_ext4_", dir="/tmp"))
    image = work / "ext4.img"
    mnt = work / "mnt"
    mnt.mkdir()
    with open(image, "wb") as f:
        f.truncate(IMAGE_BYTES)
    loop = ""
    mounted = False
    tracer = None
    steps: list[dict] = []
    trace_out: list[str] = []
    try:
        loop = run("losetup", "-f", "--show", str(image)).strip()
        name = Path(loop).name
        major, minor = (int(x) for x in
                        Path(f"/sys/block/{name}/dev").read_text().strip().split(":"))
        run(*MKFS_BASE, *([] if cfg.journal else ["-O", "^has_journal"]), loop)
        run("mount", "-t", "ext4", "-o", cfg.mount_options, loop, str(mnt))
        mounted = True
        counter = Path(f"/sys/fs/ext4/{name}/lifetime_write_kbytes")
        os.sync()
        time.sleep(6)  # let the mount-time transaction commit before measuring
        tracer = Tracer(major, minor)
        linux, repo = mnt / "linux", mnt / "clone"

        def unpack() -> None:
            write_tree(linux, tree, payload)

        def git_clone() -> None:
            write_tree(repo, clone, payload)
            os.sync()

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
            os.sync()

        def make_clean() -> None:
            # make clean walks the tree (readdir of every directory), then deletes outputs.
            for d in ["", *directories(clone)]:
                with os.scandir(repo / d) as it:
                    for _ in it:
                        pass
            for spec in outputs:
                (repo / spec.path).unlink()
            os.sync()

        def dd() -> None:
            run("dd", "if=/dev/zero", f"of={mnt / 'big.dd'}", "bs=1M", f"count={DD_MIB}",
                "status=none")
            os.sync()

        def rm_dd() -> None:
            (mnt / "big.dd").unlink()
            os.sync()

        fstrim_bytes: list[int] = []

        def fstrim() -> None:
            text = run("fstrim", "-v", str(mnt))
            m = re.search(r"\((\d+) bytes\)", text)
            fstrim_bytes.append(int(m.group(1)) if m else -1)

        plan = [
            ("unpack", unpack, False, False),
            ("sync", os.sync, True, False),
            ("rm -rf", lambda: shutil.rmtree(linux), False, True),
            ("sync", os.sync, True, False),
            ("git clone", git_clone, True, False),
            ("make", make, True, True),
            ("make clean", make_clean, True, True),
            ("dd", dd, True, False),
            ("rm dd file", rm_dd, True, False),
            ("fstrim", fstrim, False, False),
        ]
        for step, action, synced, drop in plan:
            if drop:
                drop_caches()
            tracer.clear()
            before = int(counter.read_text())
            t0 = time.monotonic()
            action()
            wall = time.monotonic() - t0
            after = int(counter.read_text())
            lines, lost = tracer.take()
            entry = {"name": step, "ends_with_sync": synced, "dropped_caches_before": drop,
                     "wall_s": round(wall, 4), "lifetime_write_kbytes": after - before,
                     "requests": count_requests(lines), "trace_lines": len(lines),
                     "trace_lost": lost}
            if step == "fstrim":
                entry["fstrim_reported_bytes"] = fstrim_bytes[-1]
            steps.append(entry)
            trace_out.append(f"# step: {step}")
            trace_out.extend(lines)
            print(f"{cfg.name:28s} {step:11s} {after - before:9d} KiB  "
                  f"{len(lines):6d} requests  {wall:7.2f} s", flush=True)
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
        "format": 1,
        "config": cfg.name,
        "journal": cfg.journal,
        "atime": cfg.atime,
        "discard": cfg.discard,
        "kernel": platform.release(),
        "e2fsprogs": subprocess.run(["mkfs.ext4", "-V"], capture_output=True,
                                    text=True).stderr.splitlines()[0],
        "image_bytes": IMAGE_BYTES,
        "mkfs_options": cfg.mkfs_options,
        "mount_options": cfg.mount_options,
        "scale": scale,
        "seed": SEED,
        "tree": {"files": len(tree), "bytes": total_bytes(tree),
                 "directories": len(directories(tree))},
        "clone": {"files": len(clone), "bytes": total_bytes(clone)},
        "build_outputs": {"files": len(outputs), "bytes": total_bytes(outputs)},
        "make": {"units": len(schedule), "file_reads": sum(len(u.reads) for u in schedule),
                 "paced_seconds": make_seconds},
        "dd_bytes": DD_MIB << 20,
        "trace": {"file": f"ext4_{cfg.name}.trace.gz", "event": "block/block_rq_issue",
                  "device": "loop device holding the file system (sector 0 = fs start)",
                  "step_separator": "# step: NAME"},
        "notes": [
            "lifetime_write_kbytes counts sectors written to the block device, so it agrees "
            "with the write bytes of the trace; discards are not part of it.",
            "Caches are dropped (after a sync) before rm -rf, make and make clean, so make "
            "reads its sources from the device.",
            "unpack, rm -rf and fstrim end without sync; the other steps end with sync.",
            "make is emulated: each compile unit reads its source, nearby headers and common "
            "include/ headers, writes an object, and the units are paced over paced_seconds "
            "so that atime updates fall into several journal commits.",
        ],
        "steps": steps,
    }
    (outdir / f"ext4_{cfg.name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    with gzip.open(outdir / f"ext4_{cfg.name}.trace.gz", "wt", compresslevel=9) as f:
        f.write("\n".join(trace_out) + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.2)
    parser.add_argument("--only", action="append", help="record only these configurations")
    parser.add_argument("--outdir", type=Path, default=HERE)
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("record_ext4.py needs root (losetup, mount, tracefs)", file=sys.stderr)
        return 2
    for cfg in CONFIGS:
        if args.only and cfg.name not in args.only:
            continue
        record(cfg, args.scale, args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
