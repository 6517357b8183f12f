"""The scenario file's schema: every table, every key, its type and its allowed values.

One mechanism checks every table of a scenario file ([drive], [host], [partition],
[filesystem], each [[steps]] entry and the top level): unknown keys are refused, types are
exact (a boolean, a float or a string is never taken for an integer; an integer is taken
where a number is expected), numbers must be finite and in range. A problem is a Problem
naming the field's path (`steps[3].mb`), the value as written and what is allowed; the
check visits each value once, so it is linear in the size of the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ssdlab.model.flash.geometry import (
    GC_FRONTIERS,
    HANDLE_GCS,
    PLACEMENTS,
    SLC_CACHES,
    VICTIM_ORDERS,
)
from ssdlab.model.host.filetree import PACK_RATIO
from ssdlab.model.host.fstypes import ATIME_MODES, KERNEL_ERAS
from ssdlab.model.host.profiles import list_host_profiles, list_profiles

SUPPORTED_VERSIONS = (1,)
NAME_MAX_BYTES = 255  # ext4's limit for one directory entry


@dataclass(frozen=True)
class Field:
    """One key of a table.

    kind: "int", "float" (an integer is accepted too), "bool", "str", "choice" (one of
    `choices`), "name" (a file name in the root directory) or "path" (a file on this
    computer; "" means none). low/high: inclusive range of a number, in `unit`.
    multiple_of: an int must be a multiple of it. choices: the allowed strings, or a function
    that lists them (profiles are data files). default: the value when the key is absent.
    """

    kind: str
    low: float | None = None
    high: float | None = None
    default: object = None
    unit: str = ""
    choices: tuple[str, ...] | Callable[[], Sequence[str]] = ()
    multiple_of: int = 1
    required: bool = False

    def allowed(self) -> str:
        """What this field accepts, in words (for messages)."""
        unit = f" {self.unit}" if self.unit else ""
        if self.kind == "int":
            step = f"a multiple of {self.multiple_of}" if self.multiple_of > 1 else \
                "a whole number"
            return f"{step} from {_num(self.low)} to {_num(self.high)}{unit}"
        if self.kind == "float":
            return f"a number from {_num(self.low)} to {_num(self.high)}{unit}"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(self.options())
        if self.kind == "name":
            return f"a file name of 1 to {NAME_MAX_BYTES} bytes without '/'"
        if self.kind == "path":
            return "the path of a file (relative to the scenario file or the project)"
        return "a string"

    def options(self) -> tuple[str, ...]:
        return tuple(self.choices() if callable(self.choices) else self.choices)

    def check(self, value):
        """The value as the model takes it (an int given for a float becomes a float), or
        None when it is not allowed."""
        if self.kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, int | float):
                return None
            if self.kind == "int" and not isinstance(value, int):
                return None
            if isinstance(value, float) and not math.isfinite(value):
                return None
            # compare before converting: float() of a huge int overflows
            if not self.low <= value <= self.high:
                return None
            if self.kind == "int" and value % self.multiple_of:
                return None
            return float(value) if self.kind == "float" else value
        if self.kind == "bool":
            return value if isinstance(value, bool) else None
        if not isinstance(value, str):
            return None
        if self.kind == "choice":
            return value if value in self.options() else None
        if self.kind == "name":
            ok = (value not in ("", ".", "..") and "/" not in value and "\0" not in value
                  and len(value.encode("utf-8", "surrogatepass")) <= NAME_MAX_BYTES)
            return value if ok else None
        if self.kind == "path":
            return value if "\0" not in value and len(value) <= 4096 else None
        return value


def _num(x: float | None) -> str:
    if x is None:
        return "?"
    if x == int(x) and abs(x) >= 2**20 and int(x) & (int(x) - 1) == 0:
        return f"2^{int(x).bit_length() - 1}"
    return f"{int(x):,}" if x == int(x) else f"{x:g}"


def _key(key: str) -> str:
    """A key as a field path shows it: bare when TOML would write it bare, else quoted."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else show(key)


def one_line(text: str) -> str:
    """text with its line breaks escaped: every message is one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def show(value) -> str:
    """A value as a message shows it: short, one line, never recursing into nesting."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        text = str(value) if abs(value) < 10**30 else f"an integer of {len(str(value))} digits"
        return text
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        text = repr(value)
        # long enough for a path, short enough for one line
        return text if len(text) <= 300 else text[:60] + "...' (" + f"{len(value)} characters)"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    return f"a {type(value).__name__} ({str(value)[:40]})"  # TOML dates and times


@dataclass(frozen=True)
class Problem:
    """One bad field. path: where it is (`steps[3].mb`); table, index, key: where to look
    for its line ("steps", 3, "mb"; table "" for the top level)."""

    path: str
    message: str
    table: str = ""
    index: int = 0
    key: str | None = None


TOP_FIELDS = {
    "version": Field("int", 1, 1, required=True),
    "name": Field("str", default=""),
    "description": Field("str", default=""),
}
TABLES: dict[str, dict[str, Field]] = {
    "drive": {"profile": Field("choice", choices=list_profiles, required=True),
              "user_gib": Field("float", 0.01, 16384.0, unit="GiB"),
              # where GC copies go; absent: the profile's own setting
              "gc_frontier": Field("choice", choices=GC_FRONTIERS),
              # greedy GC among equally empty blocks; absent: the profile's own setting
              "victim_order": Field("choice", choices=VICTIM_ORDERS),
              # an SLC cache's mode (none turns it off); absent: the profile's own
              "slc_cache": Field("choice", choices=SLC_CACHES),
              # static wear levelling's erase gap (0: off); absent: off
              "wear_leveling_gap": Field("int", 0, 10**6, unit="erases"),
              # where GC copies pages of placement handles (host.placement); absent: mixed
              "handle_gc": Field("choice", choices=HANDLE_GCS)},
    "host": {"profile": Field("choice", choices=list_host_profiles,
                              default="host_phenom2_x4_965"),
             "data_compression": Field("float", 0.05, 1.0),
             # hotcold: the host tags a user mix's hot rewrites with a placement handle of
             # their own (the drive gets two); tag_errors: the share it tags wrongly
             "placement": Field("choice", choices=PLACEMENTS),
             "tag_errors": Field("float", 0.0, 1.0)},
    "partition": {"start_sector": Field("int", 0, 2**32, 2048, unit="sectors of 512 bytes"),
                  "lvm_pe_start_kib": Field("int", 0, 65536, 0, unit="KiB")},
    "filesystem": {"journal": Field("bool", default=True),
                   "atime": Field("choice", choices=ATIME_MODES, default="relatime"),
                   "discard": Field("bool", default=False),
                   # how discard behaves: one TRIM per freed extent in the commit (2.6.39,
                   # the documented experiments) or whole free runs after it (modern)
                   "kernel": Field("choice", choices=KERNEL_ERAS, default="2.6.39"),
                   "extents": Field("bool", default=True),
                   "commit_interval_s": Field("float", 0.1, 3600.0, 5.0, "seconds"),
                   "stripe_width_blocks": Field("int", 0, 4096, 0, "blocks of 4 KiB"),
                   # the largest request the block layer sends (dd oflag=direct)
                   "max_request_kib": Field("int", 4, 32768, 512, "KiB", multiple_of=4)},
}

_SIZE_MB = "MB (10^6 bytes)"
STEP_FIELDS: dict[str, dict[str, Field]] = {
    "unpack": {"scale": Field("float", 0.001, 4.0, 1.0, "x the kernel tree"),
               "tar": Field("path", default="")},
    "rm": {},
    "sync": {},
    "fstrim": {},
    "idle": {"seconds": Field("float", 0.0, 86400.0, 60.0, "seconds")},
    "git_clone": {"scale": Field("float", 0.001, 4.0, 1.0, "x the kernel tree"),
                  "seconds": Field("float", 1.0, 1e5, 180.0, "seconds"),
                  # the pack's bytes per byte of the tree: 0.27 measured for a one-commit
                  # clone (ssdlab/model/host/filetree.py); a full-history clone packs more
                  "pack_ratio": Field("float", 0.01, 2.0, PACK_RATIO, "x the tree's bytes")},
    "make": {"seconds": Field("float", 1.0, 1e6, 1500.0, "seconds"),
             # a partial build: directories of the tree, space-separated ("" = all)
             "targets": Field("str", default="")},
    "make_clean": {"seconds": Field("float", 0.1, 1e5, 8.0, "seconds")},
    "write": {"name": Field("name", default="dd.bin"),
              "mb": Field("float", 0.001, 1e7, 1024.0, _SIZE_MB)},
    "delete": {"name": Field("name", default="dd.bin")},
    "fill": {"percent": Field("float", 0.0, 99.0, 50.0, "% of the file system")},
    # sysbench fileio rndwr; defaults are seed 004's run (--file-total-size=200M, 128 files)
    "random_writes": {"name": Field("name", default="test_file"),
                      "mb": Field("float", 1.0, 1e6, 209.7152, _SIZE_MB),
                      "files": Field("int", 1, 4096, 128),
                      "requests": Field("int", 1, 10**8, 10000),
                      "fsync_every": Field("int", 1, 10**6, 100, "requests")},
    "fill_free_and_delete": {},
    # ordinary use: file churn at a fill level plus 4 KiB rewrites, optionally hot/cold
    "user_mix": {"drive_writes": Field("float", 0.001, 100.0, 1.0, "drive capacities"),
                 "fill": Field("float", 1.0, 95.0, 60.0, "% of the file system"),
                 "hot_pct": Field("float", 0.0, 99.0, 0.0, "% of the live blocks"),
                 "hot_writes_pct": Field("float", 1.0, 99.0, 80.0, "% of the rewrites"),
                 "seed": Field("int", 0, 2**31 - 1, 1)},
    "restore_image": {},  # write every block of the partition, as restoring an image does
    "remount": {"atime": Field("choice", choices=ATIME_MODES),
                "discard": Field("bool")},
    "replay": {"trace": Field("path", default="", required=True)},
    # many files of log-uniform sizes in a few top-level directories, to a df use level;
    # a later fill_files continues the same files (a refill), delete_files removes some
    "fill_files": {"percent": Field("float", 1.0, 99.0, 90.0, "% used, as df shows it"),
                   "dirs": Field("int", 1, 1000, 4, "directories"),
                   "min_bytes": Field("int", 1, 2**30, 1024, "bytes"),
                   "max_bytes": Field("int", 1, 2**30, 8 << 20, "bytes"),
                   "seed": Field("int", 0, 2**31 - 1, 1)},
    "delete_files": {"percent": Field("float", 0.0, 100.0, 50.0,
                                      "% of the files fill_files made, at random")},
    "symlink": {"name": Field("name", default="link"),
                "target": Field("str", default="linux")},
    "umount": {},  # sync, then the final journal and superblock writes
}

# The field a step's run-time failure is charged to (the size that did not fit, the file
# that was missing); None: the step has no field that decides it.
RUNTIME_FIELD: dict[str, str | None] = {
    "unpack": "scale", "git_clone": "scale", "write": "mb", "delete": "name",
    "fill": "percent", "random_writes": "mb", "user_mix": "fill", "replay": "trace",
    "fill_files": "percent", "delete_files": "percent", "symlink": "name",
}


def check_table(raw, spec: dict[str, Field], path: str, table: str = "", index: int = 0,
                skip: Sequence[str] = ()) -> tuple[dict, list[Problem]]:
    """The table's values checked against spec, defaults filled in, and its problems
    (unknown keys, wrong types, values out of range, missing required keys). raw must be a
    dict; `skip` keys are checked by the caller. path prefixes field names ("steps[3]")."""
    prefix = f"{path}." if path else ""
    values: dict = {}
    problems: list[Problem] = []
    for key, value in raw.items():
        if key in skip:
            continue
        f = spec.get(key)
        if f is None:
            allowed = ", ".join([*spec, *skip]) or "none"
            problems.append(Problem(f"{prefix}{_key(key)}", f"is not a known field; allowed "
                                    f"here: {allowed}", table, index, key))
            continue
        checked = f.check(value)
        if checked is None:
            problems.append(Problem(f"{prefix}{key}", f"must be {f.allowed()}; got "
                                    f"{show(value)}", table, index, key))
            continue
        values[key] = checked
    for key, f in spec.items():
        if key not in values and key not in raw:
            if f.required:
                problems.append(Problem(f"{prefix}{key}", f"is missing; it must be "
                                        f"{f.allowed()}", table, index, None))
            values[key] = f.default
    return values, problems


def check_step(raw, path: str, index: int = 0) -> tuple[str | None, dict, list[Problem]]:
    """One [[steps]] entry: its `do`, its checked fields with defaults, its problems."""
    if not isinstance(raw, dict):
        return None, {}, [Problem(path, f"must be a table with do = STEP; got {show(raw)}",
                                  "steps", index, None)]
    do = raw.get("do")
    if not isinstance(do, str) or do not in STEP_FIELDS:
        what = "it is missing" if do is None else f"got {show(do)}"
        return None, {}, [Problem(f"{path}.do", f"must be one of {', '.join(STEP_FIELDS)}; "
                                  f"{what}", "steps", index, "do" if do is not None else None)]
    args, problems = check_table(raw, STEP_FIELDS[do], path, "steps", index, skip=("do",))
    return do, args, problems

