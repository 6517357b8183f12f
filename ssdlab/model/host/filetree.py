"""Deterministic file trees for the file-system workloads.

The documented experiments (seeds 000-002) unpack, clone, build and clean a Linux kernel
tree. This module describes those trees as plain lists of files, so that the ext4-like
model and the real-ext4 recorder (``tests/recordings/record_ext4.py``) write exactly the
same files in the same order.

Every size is in bytes. Paths are relative, use "/" and never start with "/". All
randomness comes from a numpy Generator seeded by the caller, so the same arguments always
give the same tree; nothing depends on the Python hash seed or the machine.
"""

from __future__ import annotations

import hashlib
import tarfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ssdlab.model.flash.runner import Cancelled  # one class for all cancelled work
from ssdlab.model.inputfile import open_input

from . import treecache
from .rawdraws import RawDraws

# The kernel tree of seeds 000/001 (linux 2.6.39): file count and total size in bytes.
KERNEL_FILES = 36_706
KERNEL_BYTES = 493_000_000
KERNEL_DIRS = 2_200
MAX_DIR_DEPTH = 6
MAX_FILE_BYTES = 1 << 20
MIN_FILE_BYTES = 32


@dataclass(frozen=True)
class FileSpec:
    """One regular file: its relative path and its size in bytes."""

    path: str
    size_bytes: int


# Top-level directories of a kernel tree with their share of the sub-directories.
_TOP_LEVEL: tuple[tuple[str, float], ...] = (
    ("drivers", 0.44), ("arch", 0.17), ("tools", 0.07), ("Documentation", 0.05),
    ("net", 0.05), ("fs", 0.045), ("sound", 0.04), ("include", 0.035),
    ("kernel", 0.01), ("lib", 0.01), ("security", 0.008), ("crypto", 0.003),
    ("scripts", 0.01), ("mm", 0.002), ("block", 0.002), ("samples", 0.005),
    ("firmware", 0.003), ("init", 0.001), ("ipc", 0.001), ("virt", 0.002),
    ("usr", 0.001), ("certs", 0.001),
)

# Directory names found below the top level (suffixes keep siblings unique).
_DIR_WORDS: tuple[str, ...] = (
    "net", "usb", "gpu", "drm", "media", "scsi", "staging", "platform", "pci", "i2c",
    "input", "mtd", "video", "hwmon", "ethernet", "wireless", "intel", "amd", "broadcom",
    "realtek", "mellanox", "serial", "tty", "spi", "gpio", "clk", "power", "regulator",
    "iio", "leds", "mfd", "misc", "mmc", "block", "char", "acpi", "cpufreq", "firmware",
    "infiniband", "isdn", "md", "nfc", "phy", "pinctrl", "rtc", "thermal", "watchdog",
    "x86", "arm", "arm64", "powerpc", "mips", "sparc", "s390", "kernel", "mm", "boot",
    "include", "asm", "uapi", "lib", "mach", "configs", "dts", "ext4", "btrfs", "xfs",
    "nfs", "cifs", "ipv4", "ipv6", "netfilter", "bluetooth", "sched", "codecs", "soc",
    "core", "host", "gadget", "common", "linux", "perf", "testing", "selftests", "bpf",
    "crypto", "filesystems", "networking", "admin-guide", "devicetree", "bindings",
)

# File-name stems (a number is appended, as in drivers/net/foo123.c).
_FILE_WORDS: tuple[str, ...] = (
    "foo", "core", "main", "dev", "drv", "bus", "io", "irq", "dma", "mem", "reg", "ctl",
    "init", "probe", "phy", "mac", "hw", "fw", "sysfs", "debug", "ops", "util", "queue",
    "ring", "tx", "rx", "link", "port", "chip", "board", "clock", "power", "pm", "of",
    "acpi", "pci", "usb", "i2c", "spi", "gpio", "timer", "cache", "page", "inode", "super",
    "file", "dir", "namei", "xattr", "acl", "journal", "alloc", "sched", "signal", "sock",
)

# Extension mix per kind of top-level directory: (extension, probability).
_MIX_CODE = ((".c", 0.54), (".h", 0.36), (".S", 0.02), ("Kconfig", 0.04), (".txt", 0.04))
_MIX_ARCH = ((".c", 0.40), (".h", 0.36), (".S", 0.09), (".dts", 0.09), ("Kconfig", 0.03),
             ("_defconfig", 0.03))
_MIX_INCLUDE = ((".h", 0.97), (".c", 0.01), ("Kbuild", 0.02))
_MIX_DOCS = ((".rst", 0.55), (".txt", 0.33), (".yaml", 0.12))
_MIX_TOOLS = ((".c", 0.38), (".h", 0.22), (".sh", 0.16), (".py", 0.10), (".json", 0.06),
              (".txt", 0.08))
_MIX_BY_TOP = {"arch": _MIX_ARCH, "include": _MIX_INCLUDE, "Documentation": _MIX_DOCS,
               "tools": _MIX_TOOLS, "scripts": _MIX_TOOLS, "samples": _MIX_TOOLS}


def _mix_table(mix: tuple) -> tuple[list[str], np.ndarray]:
    """A mix as (extensions, probabilities summing to 1) for drawing from it."""
    probs = np.array([p for _, p in mix])
    return [e for e, _ in mix], probs / probs.sum()


_MIX_CODE_TABLE = _mix_table(_MIX_CODE)
_MIX_TABLES = {top: _mix_table(mix) for top, mix in _MIX_BY_TOP.items()}

# Lognormal size parameters per extension before the tree is scaled to its total:
# (median bytes, sigma of log size). Headers are small, C sources a few times larger.
_SIZE_PARAMS = {
    ".c": (9_000.0, 1.2), ".h": (3_000.0, 1.3), ".S": (6_000.0, 1.0),
    ".dts": (5_000.0, 1.1), ".rst": (6_000.0, 1.1), ".txt": (5_000.0, 1.1),
    ".yaml": (2_500.0, 0.8), ".sh": (3_000.0, 1.0), ".py": (4_000.0, 1.0),
    ".json": (2_000.0, 1.0), "Kconfig": (2_500.0, 1.1), "Kbuild": (400.0, 0.8),
    "_defconfig": (2_000.0, 0.6), "Makefile": (800.0, 1.0),
}


def _size_kind(path: str) -> str:
    """The key of _SIZE_PARAMS that applies to a path."""
    name = path.rsplit("/", 1)[-1]
    if name in ("Makefile", "Kconfig", "Kbuild"):
        return name
    if name.endswith("_defconfig"):
        return "_defconfig"
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else "Makefile"


def _unique(name: str, taken: set[str], draws: RawDraws) -> str:
    """A sibling name not yet in ``taken`` (a number is appended on a clash)."""
    candidate = name
    while candidate in taken:
        candidate = f"{name}{draws.integers(0, 1000)}"
    taken.add(candidate)
    return candidate


def _make_directories(n_dirs: int, rng: np.random.Generator) -> list[str]:
    """A kernel-like directory hierarchy of ``n_dirs`` directories (top level included).

    Each new directory joins one top-level subtree (chosen by the subtree's share), and in it
    a parent chosen by preferential attachment that favours shallow, already busy
    directories, never deeper than MAX_DIR_DEPTH components.
    """
    tops = [name for name, _ in _TOP_LEVEL]
    n_dirs = max(n_dirs, len(tops))
    shares = np.array([share for _, share in _TOP_LEVEL])
    per_top = rng.multinomial(n_dirs - len(tops), shares / shares.sum())
    result = list(tops)
    with RawDraws(rng) as draws:  # rng's own stream, one value at a time, faster
        for top, extra in zip(tops, per_top, strict=True):
            paths = [top]
            # per directory of this subtree so far (preallocated: a slice of them is the
            # array of the directories made so far)
            depth = np.zeros(int(extra) + 1, dtype=np.int64)
            children = np.zeros(int(extra) + 1, dtype=np.int64)
            depth[0] = 1
            names: list[set[str]] = [set()]
            for n in range(1, int(extra) + 1):
                d = depth[:n]
                weight = (1.0 + children[:n]) * 0.55 ** (d - 1.0)
                weight[d >= MAX_DIR_DEPTH] = 0.0
                parent = draws.choice(n, None, weight / weight.sum())
                word = _DIR_WORDS[draws.integers(0, len(_DIR_WORDS))]
                name = _unique(word, names[parent], draws)
                paths.append(f"{paths[parent]}/{name}")
                depth[n] = depth[parent] + 1
                names.append(set())
                children[parent] += 1
            result.extend(paths[1:])
    return result


def _fit_sizes(raw: np.ndarray, total: int) -> np.ndarray:
    """Scale raw sizes so they sum to ``total`` bytes, each within [MIN, MAX_FILE_BYTES]."""
    n = raw.size
    if not n * MIN_FILE_BYTES <= total <= n * MAX_FILE_BYTES:
        raise ValueError(f"{n} files cannot hold {total} bytes with sizes between "
                         f"{MIN_FILE_BYTES} and {MAX_FILE_BYTES}")
    sizes = raw.astype(np.float64)
    for _ in range(60):
        sizes = np.clip(sizes * (total / sizes.sum()), MIN_FILE_BYTES, MAX_FILE_BYTES)
        if abs(sizes.sum() - total) < 0.5:
            break
    ints = np.floor(sizes).astype(np.int64)
    # Hand the rounding remainder, one byte each, to the files with room left.
    rest = int(total - ints.sum())
    room = np.flatnonzero(ints < MAX_FILE_BYTES) if rest > 0 else np.flatnonzero(
        ints > MIN_FILE_BYTES)
    step = 1 if rest > 0 else -1
    for i in range(abs(rest)):
        ints[room[i % room.size]] += step
    return ints


def _check_cancel(cancel: Callable[[], bool] | None, what: str) -> None:
    if cancel is not None and cancel():
        raise Cancelled(f"{what} was cancelled")


def kernel_tree(scale: float = 1.0, seed: int = 2639,
                cancel: Callable[[], bool] | None = None) -> list[FileSpec]:
    """A synthetic Linux source tree, sorted by path (the order tar would store it).

    At scale 1 it has 36,706 files totalling 493,000,000 bytes (the tree of seeds 000/001)
    in about 2,200 directories up to 6 levels deep. ``scale`` multiplies the file count,
    the total size and the directory count. Sizes follow a lognormal mix per file type
    (median around 5 KB overall, headers smaller, C files larger, tail clipped at 1 MiB);
    every directory has a Makefile except under Documentation. cancel: asked once per
    directory; True raises Cancelled.
    """
    paths, sizes = _kernel_tree_columns(scale, seed, cancel)
    return [FileSpec(p, s) for p, s in zip(paths, sizes, strict=True)]


def _kernel_tree_columns(scale: float, seed: int, cancel: Callable[[], bool] | None
                         ) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """kernel_tree's paths and sizes in bytes (kernel_tree_on_disk makes its own files)."""
    if not scale > 0:
        raise ValueError(f"scale must be positive; got {scale}")
    key = (float(scale), int(seed))
    if key not in _TREES:
        if len(_TREES) >= 4:  # a few trees of 37,000 files: a few MB each
            _TREES.pop(next(iter(_TREES)))
        kept = treecache.load(*key)
        if kept is None:
            files = _build_kernel_tree(scale, seed, cancel)
            kept = [f.path for f in files], [f.size_bytes for f in files]
            treecache.store(*key, *kept)
        _TREES[key] = (tuple(kept[0]), tuple(kept[1]))
    return _TREES[key]


# Built trees by (scale, seed), as paths and sizes: a lesson runs the same tree in each of
# its configurations, and building one takes about half a second of random draws one at a
# time (kept on disk too, for the next run: treecache.py).
_TREES: dict[tuple[float, int], tuple[tuple[str, ...], tuple[int, ...]]] = {}


def _build_kernel_tree(scale: float, seed: int,
                       cancel: Callable[[], bool] | None) -> list[FileSpec]:
    rng = np.random.default_rng(seed)
    n_files = max(1, round(KERNEL_FILES * scale))
    total = round(KERNEL_BYTES * scale)
    dirs = _make_directories(max(1, round(KERNEL_DIRS * scale)), rng)
    # Directories that hold files: every directory, a few heavy ones holding many files.
    weight = rng.lognormal(0.0, 1.0, size=len(dirs))
    counts = rng.multinomial(n_files, weight / weight.sum())
    paths: list[str] = []
    n_words = len(_FILE_WORDS)
    with RawDraws(rng) as draws:  # rng's own stream, one value at a time, faster
        for directory, count in zip(dirs, counts.tolist(), strict=True):
            _check_cancel(cancel, "building the kernel tree")
            top = directory.split("/", 1)[0]
            taken: set[str] = set()
            if count and top != "Documentation":
                taken.add("Makefile")
                paths.append(f"{directory}/Makefile")
                count -= 1
            exts, probs = _MIX_TABLES.get(top, _MIX_CODE_TABLE)
            for ext_index in draws.choice(len(exts), count, probs).tolist():
                ext = exts[ext_index]
                if ext in ("Kconfig", "Kbuild") and ext not in taken:
                    taken.add(ext)
                    paths.append(f"{directory}/{ext}")
                    continue
                if ext in ("Kconfig", "Kbuild"):
                    ext = ".h"
                name = ""
                while not name or name in taken:
                    stem = _FILE_WORDS[draws.integers(0, n_words)]
                    name = f"{stem}{draws.integers(0, 1000)}{ext}"
                taken.add(name)
                paths.append(f"{directory}/{name}")
    paths.sort()
    # one normal draw per file in path order: the same stream as drawing them one by one
    params = np.array([_SIZE_PARAMS[_size_kind(path)] for path in paths]).reshape(-1, 2)
    raw = params[:, 0] * np.exp(params[:, 1] * rng.standard_normal(len(paths)))
    sizes = _fit_sizes(raw, total)
    return [FileSpec(p, int(s)) for p, s in zip(paths, sizes, strict=True)]


def directories(files: Iterable[FileSpec]) -> list[str]:
    """Every directory the files need, ancestors included, parents before children."""
    found: set[str] = set()
    for spec in files:
        # up from the file's directory until one already found: its ancestors are too
        d, sep, _ = spec.path.rpartition("/")
        while sep and d not in found:
            found.add(d)
            d, sep, _ = d.rpartition("/")
    return sorted(found, key=lambda d: (d.count("/"), d))


def total_bytes(files: Iterable[FileSpec]) -> int:
    """Sum of the file sizes, in bytes."""
    return sum(spec.size_bytes for spec in files)


def tar_members(path: str, cancel: Callable[[], bool] | None = None) -> list[FileSpec]:
    """The regular files stored in a tar archive (any compression tarfile reads), in order.

    The archive is read as a stream and nothing is extracted. A leading "./" is dropped.
    cancel: asked once per member; True raises Cancelled.
    """
    members: list[FileSpec] = []
    with open_input(path) as raw, tarfile.open(fileobj=raw, mode="r|*") as archive:
        for member in archive:
            _check_cancel(cancel, f"reading {path}")
            if member.isreg():
                name = member.name[2:] if member.name.startswith("./") else member.name
                members.append(FileSpec(name.lstrip("/"), int(member.size)))
    return members


MAKEFILE_NAMES = ("Makefile", "Kbuild", "Makefile.include")


def makefiles(files: Sequence[FileSpec]) -> list[str]:
    """The Makefiles of a tree (what make clean reads in every directory it descends)."""
    return [spec.path for spec in files if spec.path.rsplit("/", 1)[-1] in MAKEFILE_NAMES
            or spec.path.endswith(".mk")]


def build_reads(files: Sequence[FileSpec]) -> list[FileSpec]:
    """The sources "make" reads: every .c and .h file, in tree order."""
    return [spec for spec in files if spec.path.endswith((".c", ".h"))]


# Link products: (path, share of the source tree's total size).
_LINK_PRODUCTS = (("vmlinux.o", 0.045), ("vmlinux", 0.04), ("System.map", 0.003),
                  ("arch/x86/boot/bzImage", 0.012))


def build_outputs(files: Sequence[FileSpec], seed: int = 2639) -> list[FileSpec]:
    """What "make" writes: one object per .c file, then a few large link products.

    Each object is 1.2x to 2x its source (uniform, seeded by ``seed``), with a 4 KiB floor
    for its ELF headers and sections; vmlinux.o and vmlinux are about 4-5 % of the source
    tree each, bzImage about 1 %, System.map well under 1 %.
    """
    sources = [spec for spec in files if spec.path.endswith(".c")]
    out = [_object(spec, r) for spec, r in zip(sources, _object_ratios(len(sources), seed),
                                                strict=True)]
    out.extend(_link_products(files))
    return out


def output_paths(files: Sequence[FileSpec]) -> list[str]:
    """The paths of build_outputs(files), in its order, without drawing their sizes."""
    return [spec.path[:-2] + ".o" for spec in files if spec.path.endswith(".c")] + [
        path for path, _ in _LINK_PRODUCTS]


def _object_ratios(n: int, seed: int) -> list[float]:
    """Object size / source size of the tree's n .c files, in order."""
    return np.random.default_rng(seed).uniform(1.2, 2.0, size=n).tolist()


def _object(source: FileSpec, ratio: float) -> FileSpec:
    return FileSpec(source.path[:-2] + ".o", max(4096, int(source.size_bytes * ratio)))


def _link_products(files: Sequence[FileSpec]) -> list[FileSpec]:
    tree = total_bytes(files)
    return [FileSpec(path, max(4096, int(tree * share))) for path, share in _LINK_PRODUCTS]


# The pack of a one-commit (shallow) clone as a share of the checked-out tree's bytes,
# measured: git's own sources (4,841 files, 48.2 MB) packed to 13.0 MB on Linux 6.18 with
# git 2.39 (tests/recordings/ext4_repo_relatime.json). A kernel tree packs to about a fifth.
# A clone with full history packs every version: seed 002's 2009 clone is set to 0.75.
PACK_RATIO = 0.27


def clone_outputs(files: Sequence[FileSpec], pack_ratio: float = PACK_RATIO
                  ) -> list[FileSpec]:
    """What "git clone" writes, in order: small .git metadata, the pack (pack_ratio x the
    tree's bytes) and its index, the checked-out files, and finally the work-tree index.

    The pack name is a hash of the paths, so it is the same for the same tree. The pack
    index holds about 28 bytes per object (files, directories, one commit); the work-tree
    index about 62 bytes plus the path per file.
    """
    digest = hashlib.sha1("\n".join(spec.path for spec in files).encode()).hexdigest()
    tree = total_bytes(files)
    objects = len(files) + len(directories(files)) + 1
    meta = [FileSpec(".git/HEAD", 23), FileSpec(".git/config", 259),
            FileSpec(".git/description", 73), FileSpec(".git/info/exclude", 240)]
    pack = f".git/objects/pack/pack-{digest}"
    if not 0.01 <= pack_ratio <= 2.0:
        raise ValueError(f"pack ratio must be from 0.01 to 2; got {pack_ratio}")
    out = meta + [FileSpec(pack + ".pack", int(tree * pack_ratio)),
                  FileSpec(pack + ".idx", 1072 + 28 * objects + 40),
                  FileSpec(".git/packed-refs", 114),
                  FileSpec(".git/refs/heads/master", 41),
                  FileSpec(".git/logs/HEAD", 180)]
    out.extend(files)
    index = 12 + sum(62 + len(spec.path) + 8 - (62 + len(spec.path)) % 8 for spec in files)
    out.append(FileSpec(".git/index", index + 20))
    return out


@dataclass(frozen=True)
class MakeUnit:
    """One step of an emulated "make": the paths it reads, then the files it writes."""

    reads: tuple[str, ...]
    writes: tuple[FileSpec, ...]


def in_targets(path: str, targets: Sequence[str]) -> bool:
    """Whether path lies under one of the target directories (no targets: everything)."""
    return not targets or any(path == t or path.startswith(t.rstrip("/") + "/")
                              for t in targets)


def make_schedule(files: Sequence[FileSpec], seed: int = 2639,
                  common_headers: int = 24, headers_per_unit: int = 6,
                  targets: Sequence[str] = ()) -> list[MakeUnit]:
    """The order in which an emulated "make" reads sources and writes outputs.

    One unit per .c file: it reads the source, up to 3 headers from the same directory and
    ``headers_per_unit`` headers drawn from a pool of ``common_headers`` headers under
    include/ (the ones every file pulls in), then writes its object (``build_outputs``).
    Headers are therefore read many times, which matters for atime. A unit then reads every
    header not read so far, and the last unit reads all objects and writes the link
    products. Every file of ``build_reads`` is read at least once.

    targets: a partial build ("make fs/ net/"): only the .c files under these directories
    are compiled, nothing is linked and headers are read only as the compiles pull them.
    """
    rng = np.random.default_rng(seed)
    c_files = [spec for spec in files if spec.path.endswith(".c")]
    ratios = _object_ratios(len(c_files), seed)  # build_outputs' sizes, made for the units
    headers = [spec.path for spec in files if spec.path.endswith(".h")]
    pool = [p for p in headers if p.startswith("include/")][:common_headers] or headers[
        :common_headers]
    local: dict[str, list[str]] = {}
    for path in headers:
        local.setdefault(path.rsplit("/", 1)[0], []).append(path)
    units: list[MakeUnit] = []
    seen: set[str] = set()
    # in_targets for each .c file, with the prefixes made once
    exact, prefixes = set(targets), tuple(t.rstrip("/") + "/" for t in targets)
    sources = [(spec, r) for spec, r in zip(c_files, ratios, strict=True)
               if not targets or spec.path in exact or spec.path.startswith(prefixes)]
    # rng.choice(len(pool), size, replace=False) a unit, drawn for all units at once
    with RawDraws(rng) as draws:
        chosen = (draws.samples(len(pool), min(headers_per_unit, len(pool)), len(sources))
                  if pool else [[]] * len(sources))
    for (spec, ratio), picks in zip(sources, chosen, strict=True):
        path = spec.path
        near = local.get(path.rsplit("/", 1)[0], [])[:3]
        reads = (path, *near, *[pool[i] for i in picks])
        seen.update(reads)
        units.append(MakeUnit(reads, (_object(spec, ratio),)))
    if targets:
        return units
    rest = tuple(p for p in headers if p not in seen)
    if rest:
        units.append(MakeUnit(rest, ()))
    object_paths = tuple(spec.path[:-2] + ".o" for spec in c_files)
    units.append(MakeUnit(object_paths, tuple(_link_products(files))))
    return units


# The 2.6.39 tree of seeds 000/001 as du counts it: 36,706 files in 493 MB of 4 KiB blocks.
KERNEL_DISK_BYTES = 493_000_000


def kernel_tree_on_disk(disk_bytes: int = KERNEL_DISK_BYTES, scale: float = 1.0,
                        cancel: Callable[[], bool] | None = None) -> list[FileSpec]:
    """The kernel tree with file sizes scaled so that it occupies disk_bytes in 4 KiB blocks
    (what du reports, and how the seeds size the 2.6.39 tree: 36,706 files, 493 MB)."""
    paths, raw = _kernel_tree_columns(scale, 2639, cancel)  # kernel_tree's own seed
    sizes = np.array(raw, dtype=np.float64)
    target = disk_bytes * scale
    lo, hi = 0.1, 1.0
    for _ in range(50):
        mid = (lo + hi) / 2
        on_disk = (np.ceil(sizes * mid / 4096) * 4096).sum()
        lo, hi = (mid, hi) if on_disk < target else (lo, mid)
    # max(1, int(size * lo)) for every file: the same double product, truncated alike
    scaled = np.maximum(1, (sizes * lo).astype(np.int64)).tolist()
    return [FileSpec(p, s) for p, s in zip(paths, scaled, strict=True)]
