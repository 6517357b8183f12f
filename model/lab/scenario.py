"""Scenario files: a drive, a partition, a file system and a list of workload steps, as data.

A scenario is TOML with `version = 1`. It is read and checked whole before anything runs:
a bad file raises ScenarioError naming the file, the line and the field, so nothing is ever
half-applied. `run_scenario` plays the steps on a Machine and returns one StepResult each.

    version = 1
    name = "Discard on a SandForce drive"
    [drive]        profile = "ocz_vertex_le_100"   # optional: user_gib = 8 (scaled down)
    [host]         profile = "host_phenom2_x4_965" # optional: data_compression = 0.3
    [partition]    start_sector = 2048             # optional: lvm_pe_start_kib = 192
    [filesystem]   journal = true, atime = "relatime", discard = false
    [[steps]]      do = "unpack"                   # see STEP_FIELDS for every step
"""

from __future__ import annotations

import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from model.host.fstypes import ATIME_MODES, FsOptions
from model.host.machine import Machine, StepResult
from model.host.partition import Partition
from model.host.profiles import list_host_profiles, list_profiles, load_host_profile, load_profile

from .series import Series
from .steps import Context, StepError, StepRun

VERSION = 1

# step name -> {field: (type, low, high or None, default)}
STEP_FIELDS: dict[str, dict[str, tuple]] = {
    "unpack": {"scale": (float, 0.001, 4.0, 1.0), "tar": (str, None, None, "")},
    "rm": {},
    "sync": {},
    "fstrim": {},
    "idle": {"seconds": (float, 0.0, 86400.0, 60.0)},
    "git_clone": {"scale": (float, 0.001, 4.0, 1.0), "seconds": (float, 1.0, 1e5, 180.0)},
    "make": {"seconds": (float, 1.0, 1e6, 1500.0)},
    "make_clean": {"seconds": (float, 0.1, 1e5, 8.0)},
    "write": {"name": (str, None, None, "dd.bin"), "mb": (float, 0.001, 1e7, 1024.0)},
    "delete": {"name": (str, None, None, "dd.bin")},
    "fill": {"percent": (float, 0.0, 99.0, 50.0)},
    # sysbench fileio rndwr; defaults are seed 004's run (--file-total-size=200M, 128 files)
    "random_writes": {"name": (str, None, None, "test_file"),
                      "mb": (float, 1.0, 1e6, 209.7152), "files": (int, 1, 4096, 128),
                      "requests": (int, 1, 10**8, 10000),
                      "fsync_every": (int, 1, 10**6, 100)},
    "fill_free_and_delete": {},
    # ordinary use: file churn at a fill level plus 4 KiB rewrites, optionally hot/cold
    "user_mix": {"drive_writes": (float, 0.001, 100.0, 1.0), "fill": (float, 1.0, 95.0, 60.0),
                 "hot_pct": (float, 0.0, 99.0, 0.0), "hot_writes_pct": (float, 1.0, 99.0, 80.0),
                 "seed": (int, 0, 2**31 - 1, 1)},
    "restore_image": {},  # write every block of the partition, as restoring an image does
    "remount": {"atime": (str, None, None, None), "discard": (bool, None, None, None)},
    "replay": {"trace": (str, None, None, "")},
}


class ScenarioError(ValueError):
    """A scenario file that cannot be run, with where and why."""


@dataclass(frozen=True)
class Step:
    do: str
    args: dict = field(default_factory=dict)
    line: int = 0


@dataclass(frozen=True)
class Scenario:
    name: str
    profile: str
    host: str
    user_pages: int | None
    data_compression: float | None
    partition: Partition
    fs: FsOptions
    steps: tuple[Step, ...]
    source: str = ""


def _line_of(text: str, table: str, index: int, key: str | None) -> int:
    """1-based line of `key` in the index-th [[table]] / [table] of text (best effort)."""
    lines = text.splitlines()
    header = re.compile(rf"^\s*\[\[?\s*{re.escape(table)}\s*\]\]?\s*$")
    seen = -1
    start = None
    for i, ln in enumerate(lines):
        if header.match(ln):
            seen += 1
            if seen == index:
                start = i
                break
    if start is None:
        return 1
    if key is None:
        return start + 1
    for j in range(start + 1, len(lines)):
        if lines[j].lstrip().startswith("["):
            break
        if re.match(rf"^\s*{re.escape(key)}\s*=", lines[j]):
            return j + 1
    return start + 1


def _check(where: str, name: str, value, spec: tuple):
    kind, lo, hi, _ = spec
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ScenarioError(f"{where}: {name} must be {kind.__name__}; got {value!r}")
    if lo is not None and not (lo <= value <= hi):
        raise ScenarioError(f"{where}: {name} must be between {lo} and {hi}; got {value}")
    return value


def _table(data: dict, key: str, path: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ScenarioError(f"{path}: [{key}] must be a table")
    return value


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; raises ScenarioError with file, line and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(f"{path}: cannot be read: {e.strerror}") from e
    return parse_scenario(text, str(path))


def parse_scenario(text: str, path: str = "<scenario>") -> Scenario:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from e
    version = data.get("version")
    if version != VERSION:
        raise ScenarioError(f"{path}:{_line_of(text, '', 0, 'version')}: version must be "
                            f"{VERSION}; got {version!r}")
    known = {"version", "name", "description", "drive", "host", "partition", "filesystem",
             "steps"}
    for key in data:
        if key not in known:
            raise ScenarioError(f"{path}: unknown field {key!r}; allowed: "
                                f"{', '.join(sorted(known))}")

    drive = _table(data, "drive", path)
    at = f"{path}:{_line_of(text, 'drive', 0, 'profile')}"
    profile = drive.get("profile", "")
    if profile not in list_profiles():
        raise ScenarioError(f"{at}: drive.profile must be one of {', '.join(list_profiles())}"
                            f"; got {profile!r}")
    user_pages = None
    if "user_gib" in drive:
        gib = _check(f"{path}:{_line_of(text, 'drive', 0, 'user_gib')}", "drive.user_gib",
                     drive["user_gib"], (float, 0.01, 16384.0, None))
        user_pages = int(gib * 2**30) // load_profile(profile).page_bytes

    host = _table(data, "host", path)
    host_name = host.get("profile", "host_phenom2_x4_965")
    if host_name not in list_host_profiles():
        raise ScenarioError(f"{path}:{_line_of(text, 'host', 0, 'profile')}: host.profile "
                            f"must be one of {', '.join(list_host_profiles())}; got "
                            f"{host_name!r}")
    compression = host.get("data_compression")
    if compression is not None:
        compression = _check(f"{path}:{_line_of(text, 'host', 0, 'data_compression')}",
                             "host.data_compression", compression, (float, 0.05, 1.0, None))

    part = _table(data, "partition", path)
    try:
        partition = Partition(int(part.get("start_sector", 2048)),
                              int(part.get("lvm_pe_start_kib", 0)) * 1024)
    except (ValueError, TypeError) as e:
        raise ScenarioError(f"{path}:{_line_of(text, 'partition', 0, None)}: {e}") from e

    fs = _table(data, "filesystem", path)
    allowed_fs = {"journal", "atime", "discard", "extents", "commit_interval_s",
                  "stripe_width_blocks", "max_request_kib"}
    for key in fs:
        if key not in allowed_fs:
            raise ScenarioError(f"{path}:{_line_of(text, 'filesystem', 0, key)}: unknown "
                                f"field filesystem.{key}; allowed: "
                                f"{', '.join(sorted(allowed_fs))}")
    for key in ("journal", "discard", "extents"):
        if key in fs and not isinstance(fs[key], bool):
            raise ScenarioError(f"{path}:{_line_of(text, 'filesystem', 0, key)}: "
                                f"filesystem.{key} must be true or false; got {fs[key]!r}")
    fs = dict(fs)
    if "max_request_kib" in fs:  # the largest request the block layer sends (dd oflag=direct)
        kib = _check(f"{path}:{_line_of(text, 'filesystem', 0, 'max_request_kib')}",
                     "filesystem.max_request_kib", fs.pop("max_request_kib"),
                     (int, 4, 32768, None))
        fs["max_request_bytes"] = kib * 1024
    try:
        fs_options = FsOptions(**fs)
    except (ValueError, TypeError) as e:
        raise ScenarioError(f"{path}:{_line_of(text, 'filesystem', 0, None)}: {e}") from e

    steps = []
    raw_steps = data.get("steps", [])
    if not isinstance(raw_steps, list) or not raw_steps:
        raise ScenarioError(f"{path}: a scenario needs at least one [[steps]] entry")
    for i, raw in enumerate(raw_steps):
        line = _line_of(text, "steps", i, None)
        step = _checked_step(raw.get("do"), raw, f"steps[{i}]",
                             lambda key, i=i: f"{path}:{_line_of(text, 'steps', i, key)}", line)
        if step.do == "replay":
            step.args["trace"] = _resolve(step.args["trace"], path, line, i)
        steps.append(step)
    return Scenario(name=str(data.get("name", Path(path).stem)), profile=profile,
                    host=host_name, user_pages=user_pages, data_compression=compression,
                    partition=partition, fs=fs_options, steps=tuple(steps), source=path)


def _checked_step(do, raw: dict, name: str, where: Callable[[str], str], line: int = 0
                  ) -> Step:
    """A Step with its fields checked against STEP_FIELDS and defaults filled in;
    ScenarioError names where (where(field)), the field and its allowed range."""
    if do not in STEP_FIELDS:
        raise ScenarioError(f"{where('do')}: {name}.do must be one of {', '.join(STEP_FIELDS)}"
                            f"; got {do!r}")
    spec = STEP_FIELDS[do]
    args = {}
    for key, value in raw.items():
        if key == "do":
            continue
        if key not in spec:
            raise ScenarioError(f"{where(key)}: {name} ({do}) has no field {key!r}; "
                                f"allowed: {', '.join(spec) or 'none'}")
        args[key] = _check(where(key), f"{name}.{key}", value, spec[key])
    for key, (_, _, _, default) in spec.items():
        args.setdefault(key, default)
    if do == "remount" and args["atime"] is not None and args["atime"] not in ATIME_MODES:
        raise ScenarioError(f"{where('atime')}: {name}.atime must be one of "
                            f"{', '.join(ATIME_MODES)}")
    return Step(do, args, line)


def make_step(do: str, **fields) -> Step:
    """A checked Step built in code (the workbench's buttons), exactly as a scenario file's
    [[steps]] entry with these fields would be."""
    return _checked_step(do, fields, "step", lambda key: "step")


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value)
    return str(value)


def scenario_text(s: Scenario, comment: str = "") -> str:
    """The scenario as a version-1 TOML file that parse_scenario reads back to the same
    Scenario (trace paths as they are, fields at their defaults left out)."""
    lines = [f"# {ln}" for ln in comment.splitlines()]
    lines += [f"version = {VERSION}", f"name = {_toml_value(s.name)}", "", "[drive]",
              f"profile = {_toml_value(s.profile)}"]
    if s.user_pages is not None:
        page = load_profile(s.profile).page_bytes
        lines.append(f"user_gib = {_toml_value(s.user_pages * page / 2**30)}")
    lines += ["", "[host]", f"profile = {_toml_value(s.host)}"]
    if s.data_compression is not None:
        lines.append(f"data_compression = {_toml_value(float(s.data_compression))}")
    lines += ["", "[partition]", f"start_sector = {s.partition.start_sector}"]
    if s.partition.lvm_pe_start_bytes:
        lines.append(f"lvm_pe_start_kib = {s.partition.lvm_pe_start_bytes // 1024}")
    lines += ["", "[filesystem]"]
    default = FsOptions()
    for key in ("journal", "atime", "discard", "extents", "commit_interval_s",
                "stripe_width_blocks"):
        value = getattr(s.fs, key)
        if key in ("journal", "atime", "discard") or value != getattr(default, key):
            lines.append(f"{key} = {_toml_value(value)}")
    if s.fs.max_request_bytes != default.max_request_bytes:
        lines.append(f"max_request_kib = {s.fs.max_request_bytes // 1024}")
    for step in s.steps:
        lines += ["", "[[steps]]", f"do = {_toml_value(step.do)}"]
        spec = STEP_FIELDS[step.do]
        for key, value in step.args.items():
            if value is not None and value != spec[key][3]:
                lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _resolve(trace: str, path: str, line: int, i: int) -> str:
    """A trace path as written, or relative to the scenario file, or to the project."""
    if not trace:
        raise ScenarioError(f"{path}:{line}: steps[{i}] (replay) needs trace = FILE")
    for base in (Path.cwd(), Path(path).parent, Path(__file__).resolve().parents[2]):
        candidate = base / trace
        if candidate.is_file():
            return str(candidate)
    raise ScenarioError(f"{path}:{line}: steps[{i}].trace: no such file {trace!r}")


def build_machine(s: Scenario) -> Machine:
    return Machine(load_profile(s.profile), load_host_profile(s.host), s.fs, s.partition,
                   user_pages=s.user_pages, data_compression=s.data_compression)


def run_scenario(s: Scenario, on_step: Callable[[int, StepResult], None] | None = None,
                 machine: Machine | None = None,
                 progress: Callable[[int, str, int, int, str], None] | None = None,
                 every_s: float = 0.5, series: Series | None = None,
                 context: Context | None = None) -> list[StepResult]:
    """Play every step; on_step(index, result) is called after each, progress(index,
    label, done, total, unit) about every every_s seconds of wall time within a step, and
    series (built on the same machine) learns when each step began. context: pass one to
    read what the steps left there (replay reports) during and after the run."""
    m = machine or (series.m if series is not None else build_machine(s))
    context = context if context is not None else Context()
    results = []
    for i, step in enumerate(s.steps):
        try:
            run = StepRun(m, step, context)  # untimed preparation
        except StepError as e:
            raise ScenarioError(f"{s.source}:{step.line}: steps[{i}]: {e}") from e
        m.begin(run.label)
        if series is not None:
            series.step(i)
        if progress is None:
            run.run()
        else:
            next_report = time.perf_counter() + every_s
            for done in run:
                if done is not None and time.perf_counter() >= next_report:
                    progress(i, run.label, done, run.total, run.unit)
                    next_report = time.perf_counter() + every_s
        results.append(m.end())
        if on_step:
            on_step(i, results[-1])
    return results
