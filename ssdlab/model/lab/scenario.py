"""Scenario files: a drive, a partition, a file system and a list of workload steps, as data.

A scenario is TOML (UTF-8) with `version = 1`. It is read and checked whole before anything
runs: the schema (schema.py: every table, key, type and range) and then what the steps need
(preflight.py: archives, files to delete, trees, room on the drive). A bad file raises
ScenarioError, one line naming the file, the line, the field, its value and what is
allowed, so nothing is ever half-applied. `run_scenario` plays the steps on a Machine and
returns one StepResult each; a step that fails as it runs raises StepError naming the step
number, its `do` and the field the failure is charged to.

    version = 1
    name = "Discard on a SandForce drive"
    [drive]        profile = "ocz_vertex_le_100"   # optional: user_gib = 8 (scaled down)
    [host]         profile = "host_phenom2_x4_965" # optional: data_compression = 0.3,
                   # placement = "hotcold" (and tag_errors = 0.1; drive.handle_gc)
    [partition]    start_sector = 2048             # optional: lvm_pe_start_kib = 192
    [filesystem]   journal = true, atime = "relatime", discard = false
                   # optional: kernel = "modern" (how discard behaves; "2.6.39" default)
    [[steps]]      do = "unpack"                   # schema.STEP_FIELDS has every step
"""

from __future__ import annotations

import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.model.host.fstypes import FsOptions
from ssdlab.model.host.machine import Machine, StepResult
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_host_profile, load_profile
from ssdlab.model.inputfile import InputFileError, read_text_input

from .collector import collector_paused
from .preflight import drive_problems, fs_bytes, step_problems
from .schema import (
    STEP_FIELDS,
    SUPPORTED_VERSIONS,
    TABLES,
    TOP_FIELDS,
    Problem,
    check_step,
    check_table,
    one_line,
    show,
)
from .series import Series
from .steps import Context, StepError, StepRun

VERSION = SUPPORTED_VERSIONS[-1]  # the version scenario_text writes
BOM = "\ufeff"


class ScenarioError(ValueError):
    """A scenario file that cannot be run: one line with the file, the line, the field, the
    value and what is allowed. problems: every problem found (the message shows the first
    and counts the rest)."""

    def __init__(self, message: str, problems: tuple[Problem, ...] = ()):
        super().__init__(one_line(message))
        self.problems = problems


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
    gc_frontier: str | None = None  # where GC copies go; None: the profile's setting
    victim_order: str | None = None  # greedy among equals; None: the profile's setting
    slc_cache: str | None = None  # the SLC cache's mode; None: the profile's own
    wear_leveling_gap: int | None = None  # static wear levelling; None: off (FtlConfig's)
    handle_gc: str | None = None  # where GC copies placement handles' pages; None: mixed
    placement: str | None = None  # how the host tags its writes; None: not at all
    tag_errors: float | None = None  # the share of its tags that are wrong; None: none


_HEADER = re.compile(r"^\s*\[\[?\s*\"?([A-Za-z0-9_-]+)\"?\s*\]\]?\s*(#.*)?$")


def _headers(lines: list[str]) -> list[tuple[str, int]]:
    """(table name, 0-based line) of every [table] and [[table]] header, in order."""
    return [(m.group(1), i) for i, ln in enumerate(lines) if (m := _HEADER.match(ln))]


def _line_of(text: str, table: str, index: int, key: str | None) -> int:
    """1-based line of `key` in the index-th [table] / [[table]] of text ("" for the top
    level), or of the header when key is None; 1 when it cannot be told (best effort)."""
    lines = text.splitlines()
    heads = _headers(lines)
    if table:
        found = [i for name, i in heads if name == table]
        if index >= len(found):
            return 1
        start = found[index]
    else:
        start = -1
    if key is None:
        return start + 1 if start >= 0 else 1
    key_re = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
    for j in range(start + 1, len(lines)):
        if _HEADER.match(lines[j]):
            break
        if key_re.match(lines[j]):
            return j + 1
    return max(start + 1, 1)


def _refuse(problems: list[Problem], text: str, path: str) -> ScenarioError:
    """One ScenarioError for the problems found: the first, with its line, and a count."""
    first = problems[0]
    line = _line_of(text, first.table, first.index, first.key)
    more = len(problems) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return ScenarioError(f"{path}:{line}: {first.path} {first.message}{tail}",
                         tuple(problems))


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; raises ScenarioError with file, line and field."""
    path = Path(path)
    try:
        text = read_scenario_text(path)
    except InputFileError as e:
        raise ScenarioError(str(e)) from None
    return parse_scenario(text, str(path))


def read_scenario_text(path: str | Path) -> str:
    """A scenario file's text, as `run`, lessons and sweeps all read it (a byte-order mark
    and CRLF line ends allowed); raises InputFileError (a FIFO, a device, too large, not
    UTF-8)."""
    return read_text_input(path, what="a scenario file (TOML)")


def parse_scenario(text: str, path: str = "<scenario>") -> Scenario:
    """Check a scenario's text whole (schema, then what its steps need) and build it;
    raises ScenarioError naming the first problem and counting the others."""
    text = text.removeprefix(BOM)  # editors on Windows write one; TOML does not allow it
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from e
    except RecursionError as e:
        raise ScenarioError(f"{path}: not a scenario: arrays or tables nested too deeply") \
            from e
    version = data.get("version")
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        got = "it is missing" if version is None else f"got {show(version)}"
        raise _refuse([Problem("version", f"must be a supported version: "
                               f"{', '.join(map(str, SUPPORTED_VERSIONS))}; {got}", "",
                               0, "version" if version is not None else None)], text, path)
    top, problems = check_table(data, TOP_FIELDS, "", skip=(*TABLES, "steps"))
    tables = {}
    for name, spec in TABLES.items():
        raw = data.get(name, {})
        if not isinstance(raw, dict):
            problems.append(Problem(name, f"must be a table ([{name}]); got {show(raw)}",
                                    "", 0, name))
            raw = {}
        tables[name], found = check_table(raw, spec, name, name)
        problems += found
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        got = "it is missing" if raw_steps is None else f"got {show(raw_steps)}"
        problems.append(Problem("steps", f"must be a list of one or more [[steps]] tables; "
                                f"{got}", "", 0, None if raw_steps is None else "steps"))
        raw_steps = []
    steps = []
    for i, raw in enumerate(raw_steps):
        do, args, found = check_step(raw, f"steps[{i}]", i)
        problems += found
        steps.append((do, args))
    if problems:
        raise _refuse(problems, text, path)

    drive, host, part, fs = (tables[k] for k in ("drive", "host", "partition", "filesystem"))
    page = load_profile(drive["profile"]).page_bytes
    user_pages = None if drive["user_gib"] is None else int(drive["user_gib"] * 2**30) // page
    partition = Partition(part["start_sector"], part["lvm_pe_start_kib"] * 1024)
    fs["max_request_bytes"] = fs.pop("max_request_kib") * 1024
    fs_options = FsOptions(**fs)
    problems = drive_problems(drive["profile"], user_pages, partition, fs_options.journal,
                              drive["slc_cache"], drive["wear_leveling_gap"],
                              host["placement"], drive["handle_gc"])
    problems += _placement_problems(host, steps)
    if not problems:
        problems += step_problems(steps, path, fs_bytes(drive["profile"], user_pages,
                                                        partition))
    if problems:
        raise _refuse(problems, text, path)
    lines = [i + 1 for name, i in _headers(text.splitlines()) if name == "steps"]
    if len(lines) != len(steps):  # steps written inline (steps = [{...}]): no header lines
        lines = [0] * len(steps)
    return Scenario(name=top["name"] or Path(path).stem, profile=drive["profile"],
                    host=host["profile"], user_pages=user_pages,
                    data_compression=host["data_compression"], partition=partition,
                    fs=fs_options, steps=tuple(Step(do, args, line) for (do, args), line
                                               in zip(steps, lines, strict=True)),
                    source=path, gc_frontier=drive["gc_frontier"],
                    victim_order=drive["victim_order"], slc_cache=drive["slc_cache"],
                    wear_leveling_gap=drive["wear_leveling_gap"],
                    handle_gc=drive["handle_gc"], placement=host["placement"],
                    tag_errors=host["tag_errors"])


def _placement_problems(host: dict, steps: list[tuple[str, dict]]) -> list[Problem]:
    """The host's placement tags something: a user mix with hot data to tag, and errors
    only of tags it makes."""
    placed = host["placement"] == "hotcold"
    if host["tag_errors"] and not placed:
        return [Problem("host.tag_errors", f"= {host['tag_errors']!r} is the share of the "
                        "host's placement tags that are wrong; it needs placement = "
                        "'hotcold'", "host", 0, "tag_errors")]
    if placed and not any(do == "user_mix" and args.get("hot_pct", 0) > 0
                          for do, args in steps):
        return [Problem("host.placement", "= 'hotcold' tags the hot rewrites of user_mix "
                        "steps; this scenario has no user_mix step with hot_pct above 0",
                        "host", 0, "placement")]
    return []


def make_step(do: str, **fields) -> Step:
    """A checked Step built in code (the workbench's buttons), exactly as a scenario file's
    [[steps]] entry with these fields would be; ScenarioError names the field."""
    checked_do, args, problems = check_step({"do": do, **fields}, "step")
    if problems:
        p = problems[0]
        raise ScenarioError(f"{p.path} {p.message}", tuple(problems))
    return Step(checked_do, args)


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
    for key in _FTL_KEYS:
        if getattr(s, key) is not None:
            lines.append(f"{key} = {_toml_value(getattr(s, key))}")
    lines += ["", "[host]", f"profile = {_toml_value(s.host)}"]
    if s.data_compression is not None:
        lines.append(f"data_compression = {_toml_value(float(s.data_compression))}")
    for key in _HOST_KEYS:
        if getattr(s, key) is not None:
            lines.append(f"{key} = {_toml_value(getattr(s, key))}")
    lines += ["", "[partition]", f"start_sector = {s.partition.start_sector}"]
    if s.partition.lvm_pe_start_bytes:
        lines.append(f"lvm_pe_start_kib = {s.partition.lvm_pe_start_bytes // 1024}")
    lines += ["", "[filesystem]"]
    default = FsOptions()
    for key in ("journal", "atime", "discard", "kernel", "extents", "commit_interval_s",
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
            if value is not None and value != spec[key].default:
                lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


# [drive] keys that override the profile's FTL settings
_FTL_KEYS = ("gc_frontier", "victim_order", "slc_cache", "wear_leveling_gap", "handle_gc")
# [host] keys of how it places its data (Machine's arguments of those names)
_HOST_KEYS = ("placement", "tag_errors")


def _ftl_overrides(s: Scenario) -> dict:
    overrides = {key: getattr(s, key) for key in _FTL_KEYS if getattr(s, key) is not None}
    if s.placement == "hotcold":
        overrides["placement_handles"] = 2  # as Machine gives it
    return overrides


def drive_parts(s: Scenario):
    """The (Geometry, FtlConfig) the scenario's drive is built with, without building it
    (no memory for its pages): what its figures' provenance lists."""
    profile = load_profile(s.profile)
    overrides = _ftl_overrides(s)
    if s.data_compression is not None and profile.compression_ratio < 1.0:
        overrides["stored_fraction"] = s.data_compression  # as Machine does
    geometry = profile.geometry(s.user_pages)
    return geometry, profile.ftl_config(geometry, **overrides)


def build_machine(s: Scenario) -> Machine:
    """The scenario's machine; ScenarioError when this computer cannot hold the drive."""
    overrides = _ftl_overrides(s)
    overrides.update({key: getattr(s, key) for key in _HOST_KEYS
                      if getattr(s, key) is not None})
    try:
        return Machine(load_profile(s.profile), load_host_profile(s.host), s.fs, s.partition,
                       user_pages=s.user_pages, data_compression=s.data_compression,
                       **overrides)
    except (ValueError, MemoryError) as e:
        raise ScenarioError(f"{s.source}: drive.user_gib: the drive cannot be built here: "
                            f"{e or 'out of memory'}") from e


def run_scenario(s: Scenario, on_step: Callable[[int, StepResult], None] | None = None,
                 machine: Machine | None = None,
                 progress: Callable[[int, str, int, int, str], None] | None = None,
                 every_s: float = 0.5, series: Series | None = None,
                 context: Context | None = None) -> list[StepResult]:
    """Play every step; on_step(index, result) is called after each, progress(index,
    label, done, total, unit) about every every_s seconds of wall time within a step, and
    series (built on the same machine) learns when each step began. context: pass one to
    read what the steps left there (replay reports) during and after the run. A step that
    cannot run raises StepError located at its number and line in the file. The cyclic
    garbage collector is paused meanwhile (collector.py)."""
    with collector_paused():
        return _run_steps(s, on_step, machine, progress, every_s, series, context)


def _run_steps(s: Scenario, on_step, machine, progress, every_s, series, context
               ) -> list[StepResult]:
    m = machine or (series.m if series is not None else build_machine(s))
    context = context if context is not None else Context()
    results = []
    for i, step in enumerate(s.steps):
        try:
            run = StepRun(m, step, context)  # untimed preparation
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
        except StepError as e:
            raise e.located(i, s.source, step.line) from e
        results.append(m.end(settle=i == len(s.steps) - 1))  # the run ends: see Machine.end
        if on_step:
            on_step(i, results[-1])
    return results
