"""The model beside real ext4, phase by phase: command, sync, and what follows the sync.

The format-2 recordings in tests/recordings (record_ext4.py, plans "untar" and "paced")
split each step into the command, the sync after it and the seconds after the sync until
the device fell quiet, and carry each phase's bytes written, journal bytes and commits,
discards (requests, summed and distinct bytes) and fstrim bytes. This module runs the same
steps on the model, on a file system of the image's size at sector 0, with the options of
the recording, the modern kernel era and the host profile of the recording machine
(ssdlab/assets/profiles/host_recorder_vm.toml, whose RAM sets the writeback thresholds), and
returns the same figures.

Discards are compared over sync and after together: modern ext4 issues them from a worker
after the commit and sync does not wait, so how many fall before sync returns depends on
the device; the model sends them right after the commit.

    python -m ssdlab.model.lab.ext4compare      # prints these tables after the format-1 ones

Nothing here imports Qt.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache

from ssdlab.model.host import fsworkloads as w
from ssdlab.model.host.filesystem import FsOptions
from ssdlab.model.host.filetree import kernel_tree
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_host_profile, load_profile

from .ext4recordings import RECORDINGS, distinct_bytes, trace_discards, trace_writes

PHASE_CONFIGS = ("untar_journal_relatime", "untar_journal_relatime_discard",
                 "untar_journal_relatime_big", "paced_journal_relatime")
HOST_PROFILE = "host_recorder_vm"
DRIVE_PROFILE = "nvme_modern_1tb"  # only the file system's requests count
_ATIME = {"strictatime": "strict", "relatime": "relatime", "noatime": "noatime"}
# figure name -> (unit, what it counts)
FIGURES = {
    "command_mb": ("MB", "bytes written while the command ran"),
    "sync_mb": ("MB", "bytes written by the sync after it"),
    "journal_mb": ("MB", "bytes written into the journal (command + sync + after)"),
    "commits": ("", "journal commits (command + sync + after)"),
    "discard_requests": ("", "discard requests (sync + after)"),
    "discard_mb": ("MB", "bytes discarded, summed over requests (sync + after)"),
    "discard_distinct_mb": ("MB", "bytes discarded, each counted once (sync + after)"),
    "fstrim_mb": ("MB", "what fstrim reported trimming"),
    "data_from_s": ("s", "when the command's first write outside the journal went out, from "
                         "the step's start (0 when it wrote none)"),
}


@dataclass(frozen=True)
class Figure:
    """One figure of one step: the kernel's and the model's value; ratio model / kernel
    (nan when the kernel's is 0)."""

    config: str
    step: str
    figure: str
    kernel: float
    model: float

    @property
    def ratio(self) -> float:
        return self.model / self.kernel if self.kernel else math.nan

    @property
    def within_10_percent(self) -> bool:
        if self.kernel == 0:
            return abs(self.model) < 1e-9
        return abs(self.ratio - 1) <= 0.10


def load(config: str) -> dict:
    if config not in PHASE_CONFIGS:
        raise ValueError(f"no phase recording {config!r}; recorded: {', '.join(PHASE_CONFIGS)}")
    return json.loads((RECORDINGS / f"ext4_{config}.json").read_text())


def _machine(rec: dict) -> Machine:
    profile = load_profile(DRIVE_PROFILE)
    mount = rec["mount_options"].split(",")
    opts = FsOptions(journal=rec["journal"], atime=_ATIME[mount[0]],
                     discard="discard" in mount, kernel="modern")
    return Machine(profile, load_host_profile(HOST_PROFILE), opts,
                   partition=Partition(start_sector=0),
                   user_pages=rec["image_bytes"] // profile.page_bytes)


def _kernel_figures(step: dict) -> dict[str, float]:
    ph = step["phases"]
    every = list(ph.values())
    late = [ph[k] for k in ("sync", "after") if k in ph] or every
    out = {
        "command_mb": ph["command"]["write_bytes"] / 1e6,
        "sync_mb": ph["sync"]["write_bytes"] / 1e6 if "sync" in ph else 0.0,
        "journal_mb": sum(p["journal_bytes"] for p in every) / 1e6,
        "commits": float(sum(p["commits"] for p in every)),
        "discard_requests": float(sum(p["discard"] for p in late)),
        "discard_mb": sum(p["discard_bytes"] for p in late) / 1e6,
        "fstrim_mb": step.get("fstrim_reported_bytes", 0) / 1e6,
    }
    return out


@cache
def _replay(config: str) -> tuple[Figure, ...]:
    rec = load(config)
    tree = kernel_tree(rec["scale"], rec["seed"])
    m = _machine(rec)
    trims: list[tuple[int, int]] = []
    send, write = m.dev.trim, m.dev.write
    home_writes: list[float] = []  # file-system time of each write outside the journal
    journal = m.fs.journal
    j0, j1 = (journal.start * 4096, (journal.start + journal.blocks) * 4096) if journal \
        else (0, 0)

    def trim(offset: int, length: int) -> None:
        trims.append((offset, offset + length))
        send(offset, length)

    def write_(offset: int, length: int) -> None:
        if not j0 <= offset < j1:
            home_writes.append(m.fs.now)
        write(offset, length)

    m.dev.trim, m.dev.write = trim, write_
    m.idle(6.0)  # the recorder waits for the mount-time commit before measuring
    steps = {
        "untar": lambda: w.unpack_steps(m, tree, top="linux"),
        "rm -rf": lambda: w.remove_tree_steps(m, "linux"),
        "paced unpack": lambda: _paced_unpack(m, tree, rec["paced_seconds"]),
    }
    out: list[Figure] = []
    for step in rec["steps"]:
        name = step["name"]
        phases = step["phases"]
        marks = [(m.fs.count.copy(), len(trims))]
        t0, first_home = m.clock, len(home_writes)
        if name == "fstrim":
            m.fstrim()
        else:
            _run_for(m, steps[name](), len(tree), phases["command"]["seconds"])
        marks.append((m.fs.count.copy(), len(trims)))
        in_command = home_writes[first_home:]
        if "sync" in phases:
            m.sync()
            marks.append((m.fs.count.copy(), len(trims)))
        if "after" in phases:
            m.idle(phases["after"]["seconds"])
            marks.append((m.fs.count.copy(), len(trims)))
        kernel = _kernel_figures(step)
        kernel_discards = _kernel_distinct(config, step)
        c0, c1, cn = marks[0][0], marks[1][0], marks[-1][0]
        c2 = marks[2][0] if "sync" in phases else c1
        late = trims[marks[1][1]:]
        model = {
            "command_mb": (c1.written_blocks - c0.written_blocks) * 4096 / 1e6,
            "sync_mb": (c2.written_blocks - c1.written_blocks) * 4096 / 1e6,
            "journal_mb": (cn.journal_blocks - c0.journal_blocks) * 4096 / 1e6,
            "commits": float(cn.commits - c0.commits),
            "discard_requests": float(len(late)) if name != "fstrim" else float(
                len(trims) - marks[0][1]),
            "discard_mb": sum(b - a for a, b in (late if name != "fstrim"
                                                 else trims[marks[0][1]:])) / 1e6,
            "fstrim_mb": 0.0,
            "data_from_s": in_command[0] - t0 if in_command else 0.0,
        }
        kernel["data_from_s"] = _kernel_data_from(config, step, rec)
        if name == "fstrim":
            model["fstrim_mb"] = model["discard_mb"]
            kernel["discard_requests"] = float(phases["command"]["discard"])
            kernel["discard_mb"] = phases["command"]["discard_bytes"] / 1e6
        distinct = distinct_bytes(trims[marks[0][1]:] if name == "fstrim" else late)
        model["discard_distinct_mb"] = distinct / 1e6
        kernel["discard_distinct_mb"] = kernel_discards / 1e6
        out += [Figure(config, name, f, kernel[f], model[f]) for f in FIGURES]
    return tuple(out)


def _run_for(m: Machine, work, items: int, seconds: float) -> None:
    """Run a workload generator (it yields after each file) so that it lasts `seconds` of
    simulated time, as the recorded command did: the host profile prices each file, and
    what the recording took beyond that (reading directories and inodes back after the
    page cache was dropped, a shared machine) is spread evenly over the files, so the
    journal's 5 s commits fall as often as they did."""
    start = m.clock
    for i, _ in enumerate(work, 1):
        behind = start + i * seconds / items - m.clock
        if behind > 0:
            m.cpu(behind)
    if start + seconds > m.clock:
        m.cpu(start + seconds - m.clock)


def _paced_unpack(m: Machine, tree, seconds: float):
    """The recorder's paced write: directories first, then file i finishing at
    (i + 1) x seconds / files; yields after each file."""
    t = w.Tree(m, "linux")
    t.ensure_dir("linux")
    for d in sorted({s.path.rpartition("/")[0] for s in tree} - {""},
                    key=lambda p: (p.count("/"), p)):
        t.ensure_dir("linux/" + d)
    start = m.clock
    for i, spec in enumerate(tree):
        t.create(spec, seconds=max(0.0, start + (i + 1) * seconds / len(tree) - m.clock))
        yield i


def _kernel_distinct(config: str, step: dict) -> int:
    """Distinct bytes the kernel discarded in the phases the comparison counts (read from
    the trace: the union over phases is not the sum of each phase's distinct bytes)."""

    first = 0 if step["name"] == "fstrim" else step["t0_monotonic_s"] + \
        step["phases"]["command"]["seconds"]
    ranges = [(a, b) for t, a, b in trace_discards(config, step["name"]) if t >= first]
    return distinct_bytes(ranges)


def _kernel_data_from(config: str, step: dict, rec: dict) -> float:
    """Seconds from the step's start to its first write outside the journal during the
    command (0 when there was none)."""

    t0 = step["t0_monotonic_s"]
    end = t0 + step["phases"]["command"]["seconds"]
    j0, j1 = (rec["journal_sectors"] or (0, 0))
    times = [t for t, offset in trace_writes(config, step["name"])
             if t < end and not j0 <= offset // 512 < j1]
    return min(times) - t0 if times else 0.0


def compare(config: str) -> list[Figure]:
    """Every figure of every step of one recording, kernel beside model (cached)."""
    return list(_replay(config))


def markdown() -> str:
    """Per recording, the figures either side has (not both 0), as markdown tables."""
    parts = ["# Real ext4 (Linux 6.18) versus the model (modern kernel era), by phase", ""]
    for config in PHASE_CONFIGS:
        parts += [f"## {config}", "", "| step | figure | kernel | model | model / kernel |",
                  "|---|---|---:|---:|---:|"]
        for f in compare(config):
            if not (f.kernel or f.model):
                continue  # both 0: nothing to compare (every step has every figure)
            ratio = "-" if math.isnan(f.ratio) else f"{f.ratio:.3f}"
            parts.append(f"| {f.step} | {f.figure} | {f.kernel:.2f} | {f.model:.2f} | {ratio} |")
        parts.append("")
    return "\n".join(parts)
