"""What each workbench setting, and each record of a session file, may hold: one table.

The control panel builds its spin boxes and lists from `SETTINGS` (ranges, choices, decimals),
and `check_record` checks any dict against a table of `Field`s: the settings a control asks
for, and the settings, log entries and series of a session file. So a session file can hold
exactly what the controls can set, and nothing the controls refuse. The model's own rules
(geometry, GC, partition, file system) are checked after this, by Session.check.

No coercion: a bool is not a number, a float is not a whole number, and numbers must be
finite; a whole number is accepted where a number is expected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ssdlab.model.flash.geometry import (
    GC_FRONTIERS,
    HANDLE_GCS,
    PLACEMENTS,
    SLC_CACHES,
    VICTIM_ORDERS,
)
from ssdlab.model.host.fstypes import ATIME_MODES, KERNEL_ERAS
from ssdlab.model.host.partition import CYLINDER_START_SECTOR, DOS_START_SECTOR, MIB_START_SECTOR
from ssdlab.model.host.profiles import list_profiles
from ssdlab.model.lab.schema import TABLES

from .fsjobs import FS_KINDS
from .streams import KINDS

# Block map colourings: by state, or a heat map of valid pages, erase count or age.
HEAT_MODES = ("state", "valid", "erases", "age")
PARTITION_STARTS = ((DOS_START_SECTOR, "63 (old DOS)"), (MIB_START_SECTOR, "2048 (1 MiB)"),
                    (CYLINDER_START_SECTOR, "12544 (224 x 56 cylinder)"))
LVM_OFFSETS = ((0, "no LVM"), (192, "192 KiB (old default)"), (256, "256 KiB (aligned)"))
TYPE_NAMES = {bool: "true or false", int: "a whole number", float: "a number", str: "text",
              dict: "a table", list: "a list"}


class FieldError(ValueError):
    """A value a field cannot hold; `field` is the key it is about."""

    def __init__(self, field: str, message: str, reason: str = ""):
        super().__init__(message)
        self.field = field
        self.reason = reason or message


@dataclass(frozen=True)
class Field:
    """What one field may hold: its type, and either choices or a range lo..hi (an end
    marked open is excluded). label: the control's name, for messages; decimals and step:
    how its spin box shows and steps the value."""

    kind: type
    label: str = ""
    lo: float | None = None
    hi: float | None = None
    choices: tuple | None = None
    lo_open: bool = False
    hi_open: bool = False
    decimals: int = 0
    step: float = 1

    def allowed(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        what = TYPE_NAMES[self.kind]
        if self.lo is None:
            return what
        lo = f"above {self.lo:g}" if self.lo_open else f"from {self.lo:g}"
        hi = f"below {self.hi:g}" if self.hi_open else f"to {self.hi:g}"
        return f"{what} {lo} {hi}"

    def check(self, value):
        """The value as the field holds it (a whole number given for a number becomes a
        float); anything else raises ValueError (the caller names the field)."""
        if self.kind is float and type(value) is int:
            value = float(value)
        if type(value) is not self.kind:  # bool is an int subclass: no isinstance here
            raise ValueError(f"must be {self.allowed()}; got {_shown(value)}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"must be {self.allowed()}; got {_shown(value)}")
        if self.kind is float and not math.isfinite(value):
            raise ValueError(f"must be {self.allowed()}; got {value}")
        if self.lo is not None:
            low = value > self.lo if self.lo_open else value >= self.lo
            high = value < self.hi if self.hi_open else value <= self.hi
            if not (low and high):
                raise ValueError(f"must be {self.allowed()}; got {_shown(value)}")
        return value


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_record(record, fields: dict[str, Field], where: str,
                 required: tuple[str, ...] = ()) -> dict:
    """record checked against fields: a dict, no key the table lacks, the required keys
    present, each value as its Field allows. Returns the values as held; FieldError names
    where.key (and the control's label), the value and what is allowed."""
    if type(record) is not dict:
        raise FieldError("", f"{where} must be a table of fields; got {_shown(record)}")
    for key in record:
        if key not in fields:
            raise FieldError(key, f"{where} has no field {_shown(key)}; allowed: "
                                  f"{', '.join(fields)}")
    for key in required:
        if key not in record:
            raise FieldError(key, f"{where}.{key} is missing")
    out = {}
    for key, value in record.items():
        f = fields[key]
        try:
            out[key] = f.check(value)
        except ValueError as e:
            label = f" ({f.label})" if f.label else ""
            raise FieldError(key, f"{where}.{key}{label} {e}", f"{key} {e}") from None
    return out


SEED = Field(int, "Seed", 0, 2**31 - 1)
_FS = TABLES["filesystem"]

# Every setting of the workbench (ssdlab/app/gui/settings/session.py Settings), as its control
# allows it.
SETTINGS: dict[str, Field] = {
    "profile": Field(str, "Device profile", choices=("", *list_profiles())),
    "capacity_mib": Field(float, "Capacity (MiB)", 0, 1e8, decimals=1, step=16),
    "spare_pct": Field(float, "Spare (%)", 0, 99, decimals=1),
    "page_kib": Field(int, "Page size", choices=(4, 8, 16)),
    "pages_per_block": Field(int, "Pages per block", 0, 100000),
    "mapping": Field(str, "Mapping", choices=("page", "block", "fast")),
    "gc": Field(str, "GC policy", choices=("greedy", "fifo", "cost-benefit", "random-d")),
    "d": Field(int, "d (random-d)", 0, 4096),
    "gc_low_blocks": Field(int, "GC watermark", 0, 1000),
    "gc_frontier": Field(str, "GC frontier", choices=GC_FRONTIERS),
    "victim_order": Field(str, "Victim order", choices=VICTIM_ORDERS),
    "slc_cache": Field(str, "SLC cache", choices=SLC_CACHES),
    "wear_leveling_gap": Field(int, "Wear levelling", 0, 10**6),
    "placement": Field(str, "Placement", choices=PLACEMENTS),
    "handle_gc": Field(str, "Handle GC", choices=HANDLE_GCS),
    "tag_errors_pct": Field(float, "Wrong tags (%)", 0, 100, decimals=1, step=5),
    "seed": SEED,
    # the list's starts, or any sector in the custom box
    "partition_start": Field(int, "Partition start", 0, 2**31 - 1),
    "lvm_kib": Field(int, "LVM offset", choices=tuple(k for k, _ in LVM_OFFSETS)),
    "workload": Field(str, "Workload", choices=(*KINDS, *FS_KINDS)),
    "fill_pct": Field(float, "Fill to (%)", 0, 200, decimals=1, step=5),
    "amount": Field(float, "Amount (drive writes)", 0, 5000, decimals=2, step=0.5),
    "hot_lba_pct": Field(float, "Hot LBAs (%)", 0, 200, decimals=1, step=5),
    "hot_write_pct": Field(float, "Hot writes (%)", 0, 200, decimals=1, step=5),
    "trim_max_pages": Field(int, "TRIM size (pages)", 1, 1 << 20),
    "speed": Field(str, "Speed", choices=("teach", "slow", "normal", "fast")),
    "journal": Field(bool, "Journal"),
    "atime": Field(str, "atime", choices=tuple(ATIME_MODES)),
    "discard": Field(bool, "discard"),
    "kernel": Field(str, "Kernel", choices=KERNEL_ERAS),
    "fstrim_every_min": Field(float, "fstrim every (min)", 0, 1e6, decimals=2),
    "kernel_scale": Field(float, "Tree scale", 0, 10, decimals=3, step=0.05),
    "seq_mb": Field(float, "Write (MB)", 0, 1e7, step=50),
    "trace_path": Field(str, "Trace file"),
    # no control: a scenario file sets it (0 = the profile's rated data)
    "data_compression": Field(float, "Data compression", 0, 1),
    # no controls: a scenario file's format and mount options, in the ranges the scenario
    # schema allows (ssdlab/model/lab/schema.py), so the window plays what `ssdlab run` plays
    "extents": Field(bool, "Extents"),
    "commit_interval_s": Field(float, "Commit interval (s)", _FS["commit_interval_s"].low,
                               _FS["commit_interval_s"].high),
    "stripe_width_blocks": Field(int, "Stripe width (blocks)", _FS["stripe_width_blocks"].low,
                                 _FS["stripe_width_blocks"].high),
    "max_request_kib": Field(int, "Largest request (KiB)", _FS["max_request_kib"].low,
                             _FS["max_request_kib"].high),
    # how the block map colours its blocks (ssdlab/app/gui/drive/heatmap.py)
    "heatmap": Field(str, "Colour blocks by", choices=HEAT_MODES),
}
