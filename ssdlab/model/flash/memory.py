"""How much more memory this process may allocate: the smallest of every limit that applies.

A drive's arrays must fit before they are allocated, and the system's MemAvailable is only
one limit among several. The others that end a process long before the machine runs out:
- the address-space limit (`ulimit -v`, RLIMIT_AS) less the address space already mapped
  (VmSize: numba and numpy map a lot before any drive exists), and the data-segment limit
  (`ulimit -d`, RLIMIT_DATA, which Linux applies to private mappings too) less VmData;
- the memory cgroup the process runs in, and each of its ancestors: cgroup v2 memory.max
  less memory.current, cgroup v1 memory.limit_in_bytes less memory.usage_in_bytes. The
  cgroup's usage counts the page cache, which the kernel drops before it kills anything,
  so its inactive file pages are not counted as used (as container runtimes do).

Paths are parameters so tests can point them at a made-up /proc and cgroup tree.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

UNLIMITED = 2**62  # what is reported when no limit is known


@dataclass(frozen=True)
class MemoryBudget:
    """available_bytes: the most this process should expect to allocate now, in bytes;
    limit: which limit sets it, in words a user can act on."""

    available_bytes: int
    limit: str


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return None


def _kib_field(text: str | None, name: str) -> int | None:
    """A "Name:   1234 kB" field of /proc/meminfo or /proc/self/status, in bytes."""
    for line in (text or "").splitlines():
        if line.startswith(name + ":"):
            try:
                return int(line.split()[1]) * 1024
            except (IndexError, ValueError):
                return None
    return None


def _system(proc: Path) -> MemoryBudget | None:
    got = _kib_field(_read(proc / "meminfo"), "MemAvailable")
    if got is not None:
        return MemoryBudget(got, "the system's available memory")
    try:
        return MemoryBudget(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"),
                            "the system's free memory")
    except (ValueError, OSError, AttributeError):
        return None


def _rlimits(proc: Path) -> list[MemoryBudget]:
    try:
        import resource
    except ImportError:  # not a Unix
        return []
    status = _read(proc / "self" / "status")
    out = []
    for name, field, words in (("RLIMIT_AS", "VmSize", "the address-space limit (ulimit -v)"),
                               ("RLIMIT_DATA", "VmData", "the data-size limit (ulimit -d)")):
        if not hasattr(resource, name):
            continue
        soft = resource.getrlimit(getattr(resource, name))[0]
        if soft == resource.RLIM_INFINITY or soft < 0:
            continue
        used = _kib_field(status, field) or 0
        out.append(MemoryBudget(max(0, soft - used), words))
    return out


def _number(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isdigit() else None


def _stat_field(text: str | None, name: str) -> int:
    for line in (text or "").splitlines():
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


def _unescape(path: str) -> str:
    # mountinfo writes a space as \040, a tab as \011, a newline as \012, a backslash as \134
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        path = path.replace(code, char)
    return path


def _cgroup_folders(proc: Path) -> list[tuple[int, Path]]:
    """(version, folder) of every memory cgroup this process is in, and of each ancestor up
    to the top of its mount: a limit set on a parent binds the children too."""
    own: dict[str, str] = {}  # "v2" or "v1" -> path inside the hierarchy
    for line in (_read(proc / "self" / "cgroup") or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            own["v2"] = parts[2]
        elif "memory" in parts[1].split(","):
            own["v1"] = parts[2]
    folders = []
    for line in (_read(proc / "self" / "mountinfo") or "").splitlines():
        head, sep, tail = line.partition(" - ")
        fields, after = head.split(), tail.split()
        if not sep or len(fields) < 5 or len(after) < 3:
            continue
        if after[0] == "cgroup2":
            version = 2
        elif after[0] == "cgroup" and "memory" in after[2].split(","):
            version = 1
        else:
            continue
        inside = own.get(f"v{version}")
        root, point = _unescape(fields[3]), Path(_unescape(fields[4]))
        if inside is None or not (inside + "/").startswith(root.rstrip("/") + "/"):
            continue
        folder = point / inside[len(root.rstrip("/")):].lstrip("/")
        while True:
            folders.append((version, folder))
            if folder == point or point not in folder.parents:
                break
            folder = folder.parent
    return folders


def _cgroups(proc: Path) -> list[MemoryBudget]:
    out = []
    for version, folder in _cgroup_folders(proc):
        if version == 2:
            limit = _number(_read(folder / "memory.max"))  # "max" means none
            used = _number(_read(folder / "memory.current"))
            cache = _stat_field(_read(folder / "memory.stat"), "inactive_file")
            words = f"the cgroup memory limit ({folder / 'memory.max'})"
        else:
            limit = _number(_read(folder / "memory.limit_in_bytes"))
            used = _number(_read(folder / "memory.usage_in_bytes"))
            cache = _stat_field(_read(folder / "memory.stat"), "total_inactive_file")
            words = f"the cgroup memory limit ({folder / 'memory.limit_in_bytes'})"
        if limit is None or limit >= UNLIMITED:  # v1 writes "no limit" as about 2^63
            continue
        out.append(MemoryBudget(max(0, limit - max(0, (used or 0) - cache)), words))
    return out


def memory_budget(proc: str | os.PathLike = "/proc") -> MemoryBudget:
    """The tightest of the system's available memory, this process's rlimits and its memory
    cgroups; MemoryBudget(UNLIMITED, "no known limit") if none can be read."""
    proc = Path(proc)
    budgets = [b for b in [_system(proc), *_rlimits(proc), *_cgroups(proc)] if b is not None]
    return min(budgets, key=lambda b: b.available_bytes,
               default=MemoryBudget(UNLIMITED, "no known limit"))
