"""Sweep files: the axes of a parameter sweep and the points they expand to, as data.

A sweep file is TOML (UTF-8) with `format = 1`. It is one of two kinds:

* a drive sweep: `[drive]` holds the values every point shares (the fields of
  `ssdlab simulate`), `[axes]` lists the values of the fields that vary, and `repeats` runs
  every combination with seeds seed, seed+1, ...; each point is one whole-drive run
  (ssdlab/model/flash/runner.py);

      format = 1
      measure = ["wa", "theory_wa", "gc_copies"]
      [drive]  user_pages = 4194304
      [axes]   gc = ["greedy", "fifo"]   spare = [0.05, 0.1, 0.2]

* a scenario sweep: `[scenario]` names a scenario file, one of its fields (`filesystem.
  discard`, `drive.user_gib`, `steps[2].mb`) and the values that field takes; each point plays
  the scenario with that one field changed.

Everything is checked before anything runs, with the schema's Field (unknown keys refused,
types exact, ranges named) and then by building every point the way the model will, so a bad
file raises SweepError: one line naming the file, the field and what is allowed. The points
are Tasks: plain data that a process pool or a Dask cluster can ship; sweeprun.py runs them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from ssdlab.model.flash.geometry import (
    GC_FRONTIERS,
    GC_POLICIES,
    HANDLE_GCS,
    MAPPINGS,
    MAX_HANDLES,
    PLACEMENTS,
    SLC_CACHES,
    FtlConfig,
    Geometry,
    check_buildable,
)
from ssdlab.model.flash.runner import RunResult, RunSpec
from ssdlab.model.flash.workloads import WORKLOAD_KINDS, Workload
from ssdlab.model.flash.zoned import MAX_ZONE_BLOCKS
from ssdlab.model.host.machine import StepResult
from ssdlab.model.inputfile import InputFileError, read_text_input

from .scenario import ScenarioError, load_scenario, parse_scenario, read_scenario_text
from .schema import STEP_FIELDS, TABLES, TOP_FIELDS, Field, check_table, one_line, show
from .tomlwrite import toml_text

FORMATS = (1,)
REPEATS_MAX = 1000
POINTS_MAX = 100_000

# The shared values of a drive sweep and the fields an axis may vary: `ssdlab simulate`'s.
DRIVE_FIELDS: dict[str, Field] = {
    "user_pages": Field("int", 16, 2**31 - 1, 1 << 20, "pages"),
    "pages_per_block": Field("int", 2, 4096, 256, "pages"),
    "spare": Field("float", 0.0, 0.9, 0.07, "of physical capacity"),
    "gc": Field("choice", choices=GC_POLICIES, default="greedy"),
    "d": Field("int", 1, 1024, 2, "blocks sampled by random-d"),
    "mapping": Field("choice", choices=MAPPINGS, default="page"),
    "workload": Field("choice", choices=WORKLOAD_KINDS, default="random"),
    "hot_lba_fraction": Field("float", 0.0, 1.0, 0.2, "of logical pages (exclusive)"),
    "hot_write_fraction": Field("float", 0.0, 1.0, 0.8, "of writes (exclusive)"),
    "active_fraction": Field("float", 0.0, 1.0, 1.0, "of logical pages"),
    "gc_low_blocks": Field("int", 1, 64, 2, "free blocks"),
    "warmup_drive_writes": Field("float", 0.0, 1000.0, 2.0, "drive writes"),
    "measure_drive_writes": Field("float", 0.0, 1000.0, 2.0, "drive writes"),
    "seed": Field("int", 0, 2**63 - 1, 1),
    # a compressing drive: the share of a flash page each page is stored in (simulate's
    # --data-compression, a scenario's host.data_compression); 1: none
    "data_compression": Field("float", 0.05, 1.0, 1.0, "of a flash page"),
}
# An SLC cache (simulate's --slc-* flags; model/flash/slccache.py): none by default.
SLC_FIELDS: dict[str, Field] = {
    "slc_cache": Field("choice", choices=SLC_CACHES, default="none"),
    "cell_bits": Field("int", 2, 4, 3, "bits per cell of the dense flash"),
    "slc_blocks": Field("int", 0, 2**31 - 1, 0, "erase blocks of the static cache"),
    "slc_dynamic_share": Field("float", 0.0, 1.0, 0.0, "of the free user capacity's blocks"),
    "slc_idle_every": Field("int", 0, 2**31 - 1, 0, "pages between the host's pauses"),
}
DRIVE_FIELDS.update(SLC_FIELDS)
# Static wear levelling (simulate's --wear-leveling): 0, off, by default.
WL_FIELDS = {"wear_leveling_gap": Field("int", 0, 10**6, 0, "erases between the most and "
                                        "least worn blocks")}
DRIVE_FIELDS.update(WL_FIELDS)
# Placement handles (simulate's --placement, --handle-gc, --tag-errors): none by default.
PLACEMENT_FIELDS = {
    "placement": Field("choice", choices=PLACEMENTS, default="none"),
    "handle_gc": Field("choice", choices=HANDLE_GCS, default="mixed"),
    "tag_errors": Field("float", 0.0, 1.0, 0.0, "of the pages, tagged wrongly"),
}
DRIVE_FIELDS.update(PLACEMENT_FIELDS)
# A zoned drive (simulate's --zoned, --zone-blocks, --open-zones; model/flash/zonerun.py),
# and where GC writes its copies (--gc-frontier; the host's GC on a zoned drive).
ZONED_FIELDS = {
    "zoned": Field("bool", default=False),
    "zone_blocks": Field("int", 1, MAX_ZONE_BLOCKS, 1, "erase blocks per zone"),
    "open_zones": Field("int", 1, MAX_HANDLES, 2, "zones open at once"),
    "gc_frontier": Field("choice", choices=GC_FRONTIERS, default="separate"),
}
DRIVE_FIELDS.update(ZONED_FIELDS)
# Fields a point names only when the sweep file does, so the points (and keys) of a sweep
# made before the field existed, and its results, stay the same.
NAMED_ONLY = ("data_compression", *SLC_FIELDS, *WL_FIELDS, *PLACEMENT_FIELDS, *ZONED_FIELDS)
# What a point can measure: a drive run's figures, or each scenario step's.
DRIVE_MEASURES = tuple(f.name for f in fields(RunResult))
STEP_MEASURES = (*(f.name for f in fields(StepResult)), "mb_s")
# Always recorded for a drive point: what a WA chart needs beside the simulated figure.
DRIVE_ALWAYS = ("wa", "theory_wa", "theory_wa_usable", "spare", "effective_spare")
DRIVE_DEFAULT = (*DRIVE_ALWAYS, "usable_spare", "host_writes", "nand_writes", "gc_copies",
                 "erases", "wa_windows")
STEP_DEFAULT = ("wa", "device_written_mb", "nand_written_mb", "trims", "gc_copies", "seconds")

_TOP = {"format": Field("int", 1, 1, required=True), "name": Field("str", default=""),
        "description": Field("str", default=""),
        "repeats": Field("int", 1, REPEATS_MAX, 1, "runs per point, seeds seed, seed+1, ...")}
_SCENARIO = {"file": Field("path", required=True),
             "field": Field("str", required=True)}
_FIELD_PATH = re.compile(r"^(?:([a-z]+)\.([a-z_]+)|steps\[(\d+)\]\.([a-z_]+)|([a-z_]+))$")


class SweepError(ValueError):
    """A sweep file that cannot run: one line naming the file, the field and what is allowed."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


@dataclass(frozen=True)
class Task:
    """One run: `point` is what varies and what the result line is keyed by; `measure` the
    figures to record; `scenario_text` and `scenario_path` the varied scenario (scenario
    sweeps only: the text travels with the task, so a remote worker needs no files)."""

    key: str
    point: dict
    measure: tuple[str, ...]
    scenario_text: str = ""
    scenario_path: str = ""


@dataclass(frozen=True)
class Sweep:
    name: str
    kind: str  # "drive" or "scenario"
    tasks: tuple[Task, ...]
    source: str = ""


def point_key(point: dict) -> str:
    """The point's identity: its parameters as canonical JSON (sorted keys, no spaces)."""
    return json.dumps(point, sort_keys=True, separators=(",", ":"))


def load_sweep(path: str | Path) -> Sweep:
    """Read and check a sweep file; raises SweepError naming the file and the field."""
    path = Path(path)
    try:
        data = tomllib.loads(read_text_input(path, what="a sweep file (TOML)"))
    except InputFileError as e:
        raise SweepError(str(e)) from None
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{path}: not valid TOML: {e}") from e
    except RecursionError as e:
        raise SweepError(f"{path}: not a sweep: arrays or tables nested too deeply") from e
    return sweep_from_data(data, path)


def _fail(path: Path, where: str, message: str) -> SweepError:
    return SweepError(f"{path}: {where} {message}")


def sweep_from_data(data: dict, path: Path) -> Sweep:
    fmt = data.get("format")
    if type(fmt) is not int or fmt not in FORMATS:
        got = "it is missing" if fmt is None else f"got {show(fmt)}"
        raise _fail(path, "format", f"must be {', '.join(map(str, FORMATS))}; {got}")
    top, problems = check_table(data, _TOP, "", skip=("measure", "drive", "axes", "scenario"))
    if problems:
        raise _fail(path, problems[0].path, problems[0].message)
    kinds = [k for k in ("drive", "scenario") if k in data]
    if len(kinds) != 1:
        raise _fail(path, "drive, scenario", "exactly one of [drive] (with [axes]) or "
                    f"[scenario] must be given; got {len(kinds)}")
    for table in ("drive", "axes", "scenario"):
        if table in data and not isinstance(data[table], dict):
            raise _fail(path, table, f"must be a table ([{table}]); got {show(data[table])}")
    kind = kinds[0]
    allowed, default = (DRIVE_MEASURES, DRIVE_DEFAULT) if kind == "drive" else \
        (STEP_MEASURES, STEP_DEFAULT)
    measure = _measures(data.get("measure"), allowed, default, path)
    name = top["name"] or path.stem
    if kind == "drive":
        if "axes" not in data:
            raise _fail(path, "axes", "is missing; it must be a table of field = [values]")
        tasks = _drive_tasks(data["drive"], data["axes"], top["repeats"], measure, path)
    else:
        if "axes" in data:
            raise _fail(path, "axes", "is not allowed in a scenario sweep; the [scenario] "
                        "table's field and values say what varies")
        if top["repeats"] != 1:
            raise _fail(path, "repeats", "must be 1 in a scenario sweep; vary a step's seed "
                        "(field = \"steps[N].seed\") instead")
        tasks = _scenario_tasks(data["scenario"], measure, path)
    unique = {t.key: t for t in tasks}  # a point listed twice runs once
    return Sweep(name, kind, tuple(unique.values()), str(path))


def _measures(raw, allowed: tuple[str, ...], default: tuple[str, ...],
              path: Path) -> tuple[str, ...]:
    if raw is None:
        return default
    rule = f"must be a list of one or more of {', '.join(allowed)}"
    if not isinstance(raw, list) or not raw:
        raise _fail(path, "measure", f"{rule}; got {show(raw)}")
    for i, item in enumerate(raw):
        if not isinstance(item, str) or item not in allowed:
            raise _fail(path, f"measure[{i}]", f"{rule}; got {show(item)}")
    return tuple(dict.fromkeys(raw))


def _values(raw, f: Field, where: str, path: Path) -> list:
    """An axis's list of values, each checked against the field."""
    if not isinstance(raw, list) or not raw:
        raise _fail(path, where, f"must be a list of one or more values, each "
                    f"{f.allowed()}; got {show(raw)}")
    if len(raw) > POINTS_MAX:
        raise _fail(path, where, f"must have at most {POINTS_MAX} values; got {len(raw)}")
    out = []
    for i, value in enumerate(raw):
        checked = f.check(value)
        if checked is None:
            raise _fail(path, f"{where}[{i}]", f"must be {f.allowed()}; got {show(value)}")
        out.append(checked)
    return out


def _drive_tasks(base_raw: dict, axes_raw, repeats: int, measure: tuple[str, ...],
                 path: Path) -> list[Task]:
    base, problems = check_table(base_raw, DRIVE_FIELDS, "drive")
    if problems:
        raise _fail(path, problems[0].path, problems[0].message)
    for key in NAMED_ONLY:
        if key not in base_raw:
            base.pop(key, None)
    axes: dict[str, list] = {}
    for key, raw in axes_raw.items():
        f = DRIVE_FIELDS.get(key)
        if f is None:
            raise _fail(path, f"axes.{key}", f"is not a field a sweep can vary; allowed: "
                        f"{', '.join(DRIVE_FIELDS)}")
        axes[key] = _values(raw, f, f"axes.{key}", path)
    if not axes:
        raise _fail(path, "axes", f"must vary at least one of {', '.join(DRIVE_FIELDS)}")
    count = repeats
    for values in axes.values():
        count *= len(values)
    if count > POINTS_MAX:
        raise _fail(path, "axes", f"must make at most {POINTS_MAX} runs (axes x repeats); "
                    f"got {count}")
    tasks = []
    for combo in itertools.product(*axes.values()):
        for r in range(repeats):
            point = {**base, **dict(zip(axes, combo, strict=True))}
            point["seed"] = min(point["seed"] + r, 2**63 - 1)
            try:
                g, c, spec = drive_spec(point)
                if not spec.zoned:  # a zoned spec checks its zones when it is made
                    check_buildable(g, c)
            except ValueError as e:
                varied = ", ".join(f"{k}={show(point[k])}" for k in axes)
                raise _fail(path, f"point ({varied}):", str(e)) from None
            tasks.append(Task(point_key(point), point, measure))
    return tasks


def drive_spec(point: dict) -> tuple[Geometry, FtlConfig, RunSpec]:
    """The model's parameters for a drive point; raises ValueError naming the field."""
    g = Geometry(user_pages=point["user_pages"], pages_per_block=point["pages_per_block"],
                 spare=point["spare"])
    c = FtlConfig(mapping=point["mapping"], gc=point["gc"], d=point["d"],
                  gc_low_blocks=point["gc_low_blocks"], seed=point["seed"],
                  stored_fraction=point.get("data_compression", 1.0),
                  wear_leveling_gap=point.get("wear_leveling_gap", 0),
                  placement_handles=2 if point.get("placement", "none") != "none"
                  and not point.get("zoned", False) else 1,
                  handle_gc=point.get("handle_gc", "mixed"),
                  gc_frontier=point.get("gc_frontier", "separate"),
                  **{k: point[k] for k in SLC_FIELDS if k in point and k != "slc_idle_every"})
    w = Workload(kind=point["workload"], hot_lba_fraction=point["hot_lba_fraction"],
                 hot_write_fraction=point["hot_write_fraction"],
                 active_fraction=point["active_fraction"])
    return g, c, RunSpec(g, c, w, point["warmup_drive_writes"], point["measure_drive_writes"],
                         seed=point["seed"], fold_every_pages=point.get("slc_idle_every", 0),
                         placement=point.get("placement", "none"),
                         tag_errors=point.get("tag_errors", 0.0),
                         zoned=point.get("zoned", False),
                         zone_blocks=point.get("zone_blocks", 1),
                         open_zones=point.get("open_zones", 2))


def _scenario_field(field: str, data: dict, path: Path) -> tuple[dict, str, Field]:
    """The table of the scenario's raw TOML that holds `field`, its key, and its Field."""
    m = _FIELD_PATH.match(field)
    allowed = ("must be a scenario field as table.key (filesystem.discard), steps[N].key "
               "or a top-level key")
    if m is None:
        raise _fail(path, "scenario.field", f"{allowed}; got {show(field)}")
    table, key, step, step_key, top_key = m.groups()
    if top_key:
        spec, holder, key = TOP_FIELDS, data, top_key
    elif table:
        spec = TABLES.get(table)
        if spec is None:
            raise _fail(path, "scenario.field", f"{allowed}; tables: {', '.join(TABLES)}; "
                        f"got {show(field)}")
        holder = data.setdefault(table, {})
    else:
        steps = data.get("steps") or []
        i = int(step)
        if not i < len(steps):
            raise _fail(path, "scenario.field", f"must name one of the scenario's "
                        f"{len(steps)} steps (steps[0] to steps[{len(steps) - 1}]); got "
                        f"{show(field)}")
        holder, key = steps[i], step_key
        spec = STEP_FIELDS.get(holder.get("do"), {})
    if key not in spec or key == "version":
        raise _fail(path, "scenario.field", f"names no field a sweep can vary; allowed "
                    f"there: {', '.join(k for k in spec if k != 'version') or 'none'}; got "
                    f"{show(field)}")
    return holder, key, spec[key]


def _scenario_tasks(raw: dict, measure: tuple[str, ...], path: Path) -> list[Task]:
    table, problems = check_table(raw, _SCENARIO, "scenario", skip=("values",))
    if problems:
        raise _fail(path, problems[0].path, problems[0].message)
    file = (path.parent / table["file"]) if not Path(table["file"]).is_absolute() \
        else Path(table["file"])
    try:
        load_scenario(file)  # the unvaried scenario must be sound on its own
        text = read_scenario_text(file)
    except (ScenarioError, InputFileError) as e:
        raise _fail(path, "scenario.file", f"is not a runnable scenario: {e}") from None
    data = tomllib.loads(text)
    holder, key, f = _scenario_field(table["field"], data, path)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    tasks = []
    for value in _values(raw.get("values"), f, "scenario.values", path):
        holder[key] = value
        varied = toml_text(data)
        try:
            parse_scenario(varied, str(file))
        except ScenarioError as e:
            raise _fail(path, f"scenario.values ({table['field']} = {show(value)}):",
                        str(e).split(": ", 1)[-1]) from None
        point = {"scenario": table["file"], "scenario_sha256": digest,
                 "field": table["field"], "value": value}
        tasks.append(Task(point_key(point), point, measure, varied, str(file)))
    return tasks
