"""What can be known about a scenario's run before it starts, checked before it starts.

The schema (schema.py) checks each value alone; this checks them together: the drive the
[drive] and [partition] tables describe can be built and holds a file system, the files a
step reads (a tar archive, a trace) exist and are what they claim, a file deleted was
written by an earlier step, a file written does not exist already, and rm, make and make
clean have the tree they need. One pass over the steps, constant work per step.
"""

from __future__ import annotations

import heapq
import itertools
import lzma
import tarfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from ssdlab.model.flash.geometry import check_buildable
from ssdlab.model.host.ext4layout import default_journal_blocks
from ssdlab.model.host.filetree import KERNEL_DISK_BYTES
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_profile
from ssdlab.model.inputfile import open_input

from .schema import Problem, show

PROJECT = Path(__file__).resolve().parents[2]
MIN_FS_BLOCKS = 64  # the smallest file system the ext4 layout makes
JOURNAL_MIN_FS_BLOCKS = 2048  # below this mke2fs makes no journal, so journal = true fails
# Bytes a step writes at the least, by step: more than the whole file system cannot fit.
LEAST_BYTES = {
    "write": ("mb", lambda a: a["mb"] * 1e6),
    "random_writes": ("mb", lambda a: a["mb"] * 1e6),
    "unpack": ("scale", lambda a: 0 if a["tar"] else a["scale"] * KERNEL_DISK_BYTES),
    "git_clone": ("scale", lambda a: a["scale"] * KERNEL_DISK_BYTES),
}
TAR_ERRORS = (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError, ValueError)


def resolve(path_text: str, scenario: str) -> Path | None:
    """A file path as written, or relative to the scenario file, or to the project; None
    when none of them is a file."""
    for base in (Path.cwd(), Path(scenario).parent, PROJECT):
        try:
            candidate = base / path_text
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):  # a name too long for the OS, a NUL
            return None
    return None


def check_tar(path: Path) -> str | None:
    """None if path opens as a tar archive (any compression tarfile reads), else why not."""
    try:
        with open_input(path) as raw, tarfile.open(fileobj=raw, mode="r|*") as archive:
            archive.next()
    except TAR_ERRORS as e:
        return f"{path} is not a readable tar archive ({e or type(e).__name__})"
    return None


def drive_problems(profile: str, user_pages: int | None, partition: Partition,
                   journal: bool, slc_cache: str | None = None,
                   wear_leveling_gap: int | None = None,
                   placement: str | None = None, handle_gc: str | None = None
                   ) -> list[Problem]:
    """The drive builds (with the SLC cache's mode, wear levelling and placement handles,
    when the file sets them) and the partition leaves room for the file system."""
    p = load_profile(profile)
    cache = {"slc_cache": slc_cache} if slc_cache else {}
    if wear_leveling_gap:
        try:
            p.ftl_config(p.geometry(user_pages), wear_leveling_gap=wear_leveling_gap, **cache)
        except ValueError as e:
            return [Problem("drive.wear_leveling_gap", f"= {wear_leveling_gap}: {e}", "drive",
                            0, "wear_leveling_gap")]
    if handle_gc and placement in (None, "none"):
        return [Problem("drive.handle_gc", f"= {handle_gc!r} chooses where GC copies the "
                        f"pages of placement handles; it needs host.placement = 'hotcold'",
                        "drive", 0, "handle_gc")]
    if slc_cache not in (None, "none", p.slc_cache):
        try:
            p.ftl_config(p.geometry(user_pages), slc_cache=slc_cache)
        except ValueError:
            modes = ", ".join(dict.fromkeys(("none", p.slc_cache)))
            return [Problem("drive.slc_cache", f"= {slc_cache!r}: profile {profile} has no "
                            f"figures for that cache; allowed here: {modes}", "drive", 0,
                            "slc_cache")]
    if placement == "hotcold":
        try:
            geometry = p.geometry(user_pages)
            check_buildable(geometry, p.ftl_config(
                geometry, placement_handles=2, **({"handle_gc": handle_gc} if handle_gc
                                                  else {}), **cache),
                memory_limit_bytes=2**62)
        except ValueError as e:
            return [Problem("host.placement", f"= 'hotcold' needs a drive with two placement "
                            f"handles, which this one cannot have: {e}", "host", 0,
                            "placement")]
    try:
        geometry = p.geometry(user_pages)
        # memory is the computer's, not the file's: build_machine checks it
        check_buildable(geometry, p.ftl_config(geometry), memory_limit_bytes=2**62)
        user_bytes = geometry.user_bytes
    except ValueError as e:
        return [Problem("drive.user_gib", f"gives a drive the model cannot build: {e}",
                        "drive", 0, "user_gib")]
    blocks = (user_bytes - partition.offset_bytes) // 4096
    need = JOURNAL_MIN_FS_BLOCKS if journal and default_journal_blocks(
        max(blocks, 0)) < 8 else MIN_FS_BLOCKS
    if blocks >= need:
        return []
    most = max(0, (user_bytes - need * 4096 - partition.lvm_pe_start_bytes) // 512)
    return [Problem("partition.start_sector", f"= {partition.start_sector} leaves "
                    f"{max(blocks, 0)} blocks of 4 KiB for the file system on this "
                    f"{user_bytes / 2**30:.3g} GiB drive; it needs {need}: start at most at "
                    f"sector {most}, or raise drive.user_gib", "partition", 0,
                    "start_sector")]


class NameSeries:
    """base, base-2, base-3, ...: the smallest one free, as steps.fresh_name picks it at run
    time, in amortized constant time (a scenario of thousands of unpacks stays linear).
    Every number below `scan` is taken or in `freed`."""

    def __init__(self, base: str):
        self.base, self.scan, self.freed = base, 1, []

    def name(self, n: int) -> str:
        return self.base if n == 1 else f"{self.base}-{n}"

    def next(self, taken: Callable[[str], bool]) -> str:
        while self.freed:
            n = heapq.heappop(self.freed)
            if not taken(self.name(n)):
                return self.name(n)
        while taken(self.name(self.scan)):
            self.scan += 1
        self.scan += 1
        return self.name(self.scan - 1)

    def released(self, name: str) -> None:
        """name is free again."""
        head, _, tail = name.rpartition("-")
        n = 1 if name == self.base else int(tail) if head == self.base and tail.isdigit() \
            and tail == str(int(tail)) and int(tail) >= 2 else None
        if n is not None and n < self.scan:
            heapq.heappush(self.freed, n)


class Namespace:
    """The root directory as the steps leave it: the files written (name -> step index),
    the sysbench file sets (name -> file count, step), the trees unpacked or cloned (top
    directory -> cloned?, newest last). Every question costs constant time."""

    def __init__(self) -> None:
        self.files: dict[str, int] = {}
        self.sets: dict[str, tuple[int, int]] = {}
        self.gone: set[str] = set()  # members of a set deleted since
        self.trees: dict[str, bool] = {}  # insertion order: newest last
        self.clones = 0  # cloned trees among them
        self.series = {base: NameSeries(base) for base in ("linux", "filler")}

    def owner(self, name: str) -> str | None:
        """What made name, if it exists ("steps[2]", "a tree ..."), else None."""
        if name in self.files:
            return f"steps[{self.files[name]}]"
        if name in self.trees:
            return "a tree an earlier step made"
        stem, _, number = name.rpartition(".")
        if stem in self.sets and name not in self.gone and number.isdigit() \
                and str(int(number)) == number and int(number) < self.sets[stem][0]:
            return f"steps[{self.sets[stem][1]}]"
        return None

    def taken(self, name: str) -> bool:
        return self.owner(name) is not None

    def add_tree(self, cloned: bool) -> None:
        self.trees[self.series["linux"].next(self.taken)] = cloned
        self.clones += cloned

    def remove_tree(self) -> None:
        top = next(reversed(self.trees))
        self.clones -= self.trees.pop(top)
        self.released(top)

    def released(self, name: str) -> None:
        for s in self.series.values():
            s.released(name)


def fs_bytes(profile: str, user_pages: int | None, partition: Partition) -> int:
    """Bytes of the partition the file system is made on (drive_problems passed)."""
    return load_profile(profile).geometry(user_pages).user_bytes - partition.offset_bytes


def step_problems(steps: list, scenario: str, room_bytes: int) -> Iterator[Problem]:
    """Problems of the step sequence on a file system of room_bytes; resolves tar and trace
    paths in place (steps holds (do, args) pairs already checked against the schema)."""
    ns = Namespace()
    mixing = any(do == "user_mix" for do, _ in steps)
    for i, (do, a) in enumerate(steps):
        at = f"steps[{i}]"
        if do in LEAST_BYTES:
            key, least = LEAST_BYTES[do]
            if least(a) > room_bytes:
                yield Problem(f"{at}.{key}", f"= {show(a[key])} writes at least "
                              f"{least(a) / 1e6:,.0f} MB, more than the whole file system "
                              f"({room_bytes / 1e6:,.0f} MB on this drive and partition)",
                              "steps", i, key)
        if do in ("unpack", "replay"):
            key = "tar" if do == "unpack" else "trace"
            if a[key]:
                found = resolve(a[key], scenario)
                if found is None:
                    what = "a tar archive" if key == "tar" else "a trace file"
                    yield Problem(f"{at}.{key}", f"must be {what}; no such file "
                                  f"{show(a[key])}", "steps", i, key)
                    continue
                a[key] = str(found)
                why = check_tar(found) if key == "tar" else None
                if why:
                    yield Problem(f"{at}.tar", f"must be a tar archive; {why}", "steps", i,
                                  "tar")
            elif do == "replay":
                yield Problem(f"{at}.trace", "must name a trace file (tracefs, blkparse, "
                              "fio iolog or MSR-Cambridge CSV); got ''", "steps", i, "trace")
        if do in ("unpack", "git_clone"):
            ns.add_tree(do == "git_clone")
        elif do == "rm":
            if not ns.trees:
                yield Problem(f"{at}.do", "= 'rm' needs an earlier unpack or git_clone step "
                              "whose tree is still there", "steps", i, "do")
            else:
                ns.remove_tree()
        elif do in ("make", "make_clean"):
            if not ns.clones:
                yield Problem(f"{at}.do", f"= {do!r} needs an earlier git_clone step whose "
                              "tree is still there", "steps", i, "do")
        elif do in ("write", "random_writes"):
            yield from _new_files(ns, do, a, i, mixing)
        elif do == "fill":
            if a["percent"] > 0:
                ns.files[ns.series["filler"].next(ns.taken)] = i
        elif do == "delete":
            name = a["name"]
            if name in ns.files:
                del ns.files[name]
                ns.released(name)
            elif ns.owner(name) is not None and ns.owner(name).startswith("steps["):
                ns.gone.add(name)
            else:
                written = ", ".join(itertools.islice(ns.files, 8)) or "none"
                yield Problem(f"{at}.name", f"must name a file an earlier step wrote; got "
                              f"{show(name)} (files written and not deleted: {written})",
                              "steps", i, "name")


def _new_files(ns: Namespace, do: str, a: dict, i: int, mixing: bool) -> Iterator[Problem]:
    """A write or random_writes step: its names must be free (and not user_mix's)."""
    name = a["name"]
    at = f"steps[{i}].name"
    if mixing and name[:1] == "u" and name[1:].isdigit():
        yield Problem(at, f"must not be u<number>, the names user_mix steps give their files; "
                      f"got {show(name)}", "steps", i, "name")
        return
    if do == "write":
        owner = ns.owner(name)
        if owner:
            yield Problem(at, f"must name a file that does not exist yet; {show(name)} was "
                          f"made by {owner} (delete it first or choose another name)",
                          "steps", i, "name")
            return
        ns.files[name] = i
        return
    count = a["files"]
    earlier = ns.sets.get(name)
    if any(f"{name}.{k}" in ns.files for k in range(count)) or (earlier and any(
            f"{name}.{k}" not in ns.gone for k in range(earlier[0]))):
        yield Problem(at, f"must not reuse the files of an earlier step: {name}.0 to "
                      f"{name}.{count - 1} exist already", "steps", i, "name")
        return
    ns.sets[name] = (count, i)
