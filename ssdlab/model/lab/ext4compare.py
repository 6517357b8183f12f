"""The model beside real ext4: replay the recorded workloads and put the numbers side by side.

tests/recordings/ holds what a real ext4 (Linux 6.18, 2 GiB image on a loop device) wrote
while tests/recordings/record_ext4.py ran the workloads of ssdlab/model/host/filetree.py. This
module runs the same workload on the model, step by step, on a file system of the same size and
options, and returns per step what the kernel wrote (the change of lifetime_write_kbytes)
beside what the model's file system wrote (data + home metadata + journal), and for the
steps that discard, the distinct bytes the kernel discarded beside the distinct bytes the
model trimmed.

How the replay matches the recording:

- the tree is kernel_tree(scale, seed) with the recording's scale and seed; the clone,
  build schedule and build outputs are derived from it as the recorder derived them;
- the drive has exactly the image's capacity and the file system starts at its sector 0
  (a loop device has no partition table), so the model's mke2fs sees 524,288 blocks, 16
  groups of 8,192 inodes and picks the same 64 MiB journal as the real mke2fs;
- mount options: journal on/off, strictatime/relatime/noatime, discard as recorded;
- steps in the recorded order; unpack, rm -rf and fstrim end without sync, the others with
  one; git clone and make clean last their recorded wall time, make is paced over the
  recorded paced_seconds (so it spans the same number of 5-second journal commits), unpack
  and rm -rf cost what the host profile says (a fraction of a second, as recorded).

Dropping the page cache before rm -rf, make and make clean changes what is read, not what is
written, so the replay does not model it (the model's reads never write).

Real discards are compared as distinct sectors (the union of the ranges), never as summed
bytes: this kernel discards the whole free extent around freed blocks, again each time a
neighbour is freed, so the summed bytes of one step can exceed the device many times over.

    python -m ssdlab.model.lab.ext4compare      # markdown tables of every recorded configuration

(then the tables of ssdlab/model/lab/ext4rounds.py: git clone, partial build, make clean, fill
rounds)

Nothing here imports Qt.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache

from ssdlab.model.host import fsworkloads as w
from ssdlab.model.host.filesystem import FsOptions
from ssdlab.model.host.filetree import clone_outputs, kernel_tree
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_host_profile, load_profile

from .entrypoint import run_to_reader
from .ext4phases import markdown as phase_markdown
from .ext4recordings import (
    DRIVE_PROFILE,
    RECORDINGS,
    distinct_bytes,
    mb_text,
    real_discard_ranges,
    record_trims,
)
from .ext4rounds import markdown as rounds_markdown

CONFIGS = (
    "journal_strictatime", "journal_relatime", "journal_noatime",
    "nojournal_strictatime", "nojournal_relatime", "nojournal_noatime",
    "journal_relatime_discard",
)
STEPS = ("unpack", "sync", "rm -rf", "sync", "git clone", "make", "make clean", "dd",
         "rm dd file", "fstrim")
ATIME_MODES = ("strictatime", "relatime", "noatime")
HOST_PROFILE = "host_phenom2_x4_965"
# The seed the schedule and build outputs of fsworkloads.make / make_clean are drawn with.
WORKLOAD_SEED = 2639
_ATIME = {"strictatime": "strict", "relatime": "relatime", "noatime": "noatime"}


@dataclass(frozen=True)
class StepComparison:
    """One step of one configuration, real beside model.

    real_kib: change of lifetime_write_kbytes; model_kib: KiB the model's file system wrote
    (data + metadata + journal), split into the three model_*_kib fields; ratio: model_kib /
    real_kib (nan when the kernel wrote nothing). Discards: real_discard_bytes is the
    distinct bytes (union of sector ranges) the kernel discarded during the step,
    model_trimmed_bytes the distinct bytes the model trimmed; *_requests count requests.
    real_fstrim_bytes: what fstrim -v reported (fstrim step only)."""

    config: str
    index: int
    step: str
    real_kib: int
    model_kib: float
    ratio: float
    model_data_kib: float
    model_metadata_kib: float
    model_journal_kib: float
    real_discard_requests: int
    real_discard_bytes: int
    model_trim_requests: int
    model_trimmed_bytes: int
    real_fstrim_bytes: int | None = None
    # the model's trimmed byte ranges (first, end): modern discard's worker runs on into
    # the next steps, so distinct bytes over several steps need the union
    model_trim_ranges: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class OverheadRow:
    """Journal overhead of one step in one atime mode, in percent: KiB written with a
    journal / KiB written without - 1 (nan when the journal-less run wrote nothing)."""

    step: str
    index: int
    atime: str
    real_pct: float
    model_pct: float


def load_recording(config: str) -> dict:
    """The JSON summary of one recorded configuration."""
    if config not in CONFIGS:
        raise ValueError(f"no recording {config!r}; recorded: {', '.join(CONFIGS)}")
    return json.loads((RECORDINGS / f"ext4_{config}.json").read_text())


def recorded_pack_ratio(recording: dict, tree) -> float:
    """The pack ratio the recorder's clone_outputs used, from the clone's recorded bytes
    (recordings made before the ratio was a parameter used 0.75)."""
    tree_bytes = sum(f.size_bytes for f in tree)
    others = sum(f.size_bytes for f in clone_outputs(tree, 1.0)) - tree_bytes
    return (recording["clone"]["bytes"] - others) / tree_bytes


def fs_options(recording: dict) -> FsOptions:
    """Mount and format options of the model that match the recording's mkfs and mount."""
    mkfs = recording["mkfs_options"]
    if mkfs[mkfs.index("-b") + 1] != "4096":
        raise ValueError("the model's file system has 4 KiB blocks only")
    journal = "^has_journal" not in mkfs
    if journal != recording["journal"]:
        raise ValueError("mkfs options and the journal flag of the recording disagree")
    mount = recording["mount_options"].split(",")
    return FsOptions(journal=journal, atime=_ATIME[mount[0]], discard="discard" in mount,
                     kernel="modern")


def machine_for(recording: dict) -> Machine:
    """A model machine whose drive is exactly the recorded image, file system at sector 0."""
    profile = load_profile(DRIVE_PROFILE)
    image = recording["image_bytes"]
    if image % profile.page_bytes:
        raise ValueError(f"image of {image} bytes is not a whole number of pages")
    return Machine(profile, load_host_profile(HOST_PROFILE), fs_options(recording),
                   partition=Partition(start_sector=0), user_pages=image // profile.page_bytes)


@cache
def _replay(config: str) -> tuple[StepComparison, ...]:
    rec = load_recording(config)
    if rec["seed"] != WORKLOAD_SEED:
        raise ValueError(f"recording seed {rec['seed']} differs from the seed the model's "
                         f"make and make clean use ({WORKLOAD_SEED})")
    if [s["name"] for s in rec["steps"]] != list(STEPS):
        raise ValueError(f"{config}: recorded steps differ from {STEPS}")
    tree = kernel_tree(rec["scale"], rec["seed"])
    wall = [s["wall_s"] for s in rec["steps"]]
    m = machine_for(rec)

    trims = record_trims(m)
    clone: list[w.Tree] = []

    def git_clone() -> None:
        clone.append(w.git_clone(m, tree, top="clone", seconds=wall[4],
                                 pack_ratio=recorded_pack_ratio(rec, tree)))
        m.sync()

    def make() -> None:
        w.make(m, clone[0], tree, seconds=rec["make"]["paced_seconds"])
        m.sync()

    def make_clean() -> None:
        # record_ext4.py's make clean lists directories and deletes; it reads no Makefile
        w.make_clean(m, clone[0], tree, seconds=wall[6], read_makefiles=False)
        m.sync()

    def rm_dd() -> None:
        w.delete_file(m, "big.dd")
        m.sync()

    plan = [
        lambda: w.unpack(m, tree, top="linux"),
        m.sync,
        lambda: w.remove_tree(m, "linux"),
        m.sync,
        git_clone,
        make,
        make_clean,
        lambda: w.write_file(m, "big.dd", rec["dd_bytes"]),
        rm_dd,
        m.fstrim,
    ]
    real_ranges = real_discard_ranges(config)
    out = []
    for i, (action, step) in enumerate(zip(plan, rec["steps"], strict=True)):
        c0 = m.fs.count.copy()
        first_trim = len(trims)
        m.begin(step["name"])
        action()
        m.end()
        c1 = m.fs.count
        data, meta, jour = ((getattr(c1, k) - getattr(c0, k)) * 4
                            for k in ("data_blocks", "metadata_blocks", "journal_blocks"))
        model_kib = float(data + meta + jour)
        real_kib = step["lifetime_write_kbytes"]
        out.append(StepComparison(
            config=config, index=i, step=step["name"], real_kib=real_kib,
            model_kib=model_kib,
            ratio=model_kib / real_kib if real_kib else math.nan,
            model_data_kib=float(data), model_metadata_kib=float(meta),
            model_journal_kib=float(jour),
            real_discard_requests=step["requests"]["discard"],
            real_discard_bytes=distinct_bytes(real_ranges[i]),
            model_trim_requests=len(trims) - first_trim,
            model_trimmed_bytes=distinct_bytes(trims[first_trim:]),
            real_fstrim_bytes=step.get("fstrim_reported_bytes"),
            model_trim_ranges=tuple(trims[first_trim:])))
    return tuple(out)


def replay_recording_workload(config_name: str) -> list[StepComparison]:
    """Run the recorded workload of config_name on the model; per step, real beside model.
    (Replays are cached: the model is deterministic.)"""
    return list(_replay(config_name))


def journal_overhead_table() -> list[OverheadRow]:
    """Per step that writes and per atime mode: the journal's extra writes, real and model."""
    rows = []
    for atime in ATIME_MODES:
        with_j = _replay(f"journal_{atime}")
        without = _replay(f"nojournal_{atime}")
        for a, b in zip(with_j, without, strict=True):
            if a.real_kib == 0 and b.real_kib == 0:
                continue
            rows.append(OverheadRow(
                step=a.step, index=a.index, atime=atime,
                real_pct=100 * (a.real_kib / b.real_kib - 1) if b.real_kib else math.nan,
                model_pct=100 * (a.model_kib / b.model_kib - 1) if b.model_kib else math.nan))
    return rows


def markdown_sections():
    """The markdown of markdown(), one section (a list of lines) at a time: each table as
    soon as its replay is done, so a reader sees the first while the rest run."""
    yield ["# Real ext4 (Linux 6.18, loop device) versus the model", ""]
    for config in CONFIGS:
        rows = replay_recording_workload(config)
        lines = [f"## {config}", "",
                 "| # | step | real KiB | model KiB | ratio | real discard MB (distinct) "
                 "| model trim MB (distinct) |",
                 "|---|---|---:|---:|---:|---:|---:|"]
        for r in rows:
            ratio = "-" if math.isnan(r.ratio) else f"{r.ratio:.3f}"
            lines.append(f"| {r.index} | {r.step} | {r.real_kib} | {r.model_kib:.0f} | {ratio} "
                         f"| {mb_text(r.real_discard_bytes)} | {mb_text(r.model_trimmed_bytes)} |")
        yield [*lines, ""]
    lines = ["## Journal overhead (with journal / without - 1)", "",
             "| # | step | atime | real % | model % |", "|---|---|---|---:|---:|"]
    for o in journal_overhead_table():
        lines.append(f"| {o.index} | {o.step} | {o.atime} | {o.real_pct:.1f} "
                     f"| {o.model_pct:.1f} |")
    yield [*lines, ""]


def markdown() -> str:
    """Tables of every configuration and of the journal overhead, as markdown."""
    return "\n".join(line for section in markdown_sections() for line in section)


def main() -> int:
    for section in markdown_sections():  # each table as it is done: the whole takes a while
        print("\n".join(section), flush=True)
    print(phase_markdown())
    print(rounds_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(run_to_reader(main))
