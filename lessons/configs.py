"""A run step's configurations, from the lesson's tables to the model's own objects.

A block-level configuration becomes a model.flash.runner.RunSpec; a scenario configuration
is a shipped scenario file (assets/scenarios/NAME.toml, or a path beside the lesson) with
some of its fields set otherwise, merged into the file's own tables and checked by the
scenario loader itself, so a lesson can vary anything a scenario file can say and nothing
else. Errors are ValueError with the model's message; the loader adds file, line and field.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from model.flash.geometry import FtlConfig, Geometry, check_buildable
from model.flash.runner import RunSpec
from model.flash.workloads import Workload
from model.lab.experiments import SCENARIOS
from model.lab.scenario import Scenario, parse_scenario

# lesson key -> allowed sub-keys, for block-level configurations
BLOCK_TABLES = {
    "drive": ("user_pages", "pages_per_block", "spare"),
    "ftl": ("mapping", "gc", "d", "gc_low_blocks", "honour_trim", "gc_frontier",
            "victim_order"),
    "workload": ("kind", "hot_lba_fraction", "hot_write_fraction", "active_fraction"),
}
BLOCK_SCALARS = ("warmup_drive_writes", "measure_drive_writes", "seed", "windows")
# What the lesson table's `set` may change in a scenario file.
SCENARIO_TABLES = ("drive", "host", "partition", "filesystem", "steps")


def block_spec(tables: dict) -> RunSpec:
    """A RunSpec from a lesson's drive / ftl / workload tables and run lengths."""
    geometry = Geometry(**tables.get("drive", {}))
    ftl = dict(tables.get("ftl", {}))
    seed = int(tables.get("seed", 1))
    config = FtlConfig(seed=seed, **ftl)
    workload = Workload(**tables.get("workload", {}))
    check_buildable(geometry, config)
    lengths = {k: tables[k] for k in BLOCK_SCALARS if k in tables and k != "seed"}
    return RunSpec(geometry, config, workload, seed=seed, **lengths)


def scenario_path(name: str, lesson_dir: Path | None) -> Path:
    """A shipped scenario by name, or a scenario file relative to the lesson's folder."""
    shipped = SCENARIOS / f"{name}.toml"
    if shipped.is_file():
        return shipped
    if lesson_dir is not None and (lesson_dir / name).is_file():
        return lesson_dir / name
    names = ", ".join(sorted(p.stem for p in SCENARIOS.glob("*.toml")))
    raise ValueError(f"must name a shipped scenario ({names}) or a file beside the lesson; "
                     f"got {name!r}")


def scenario_config(name: str, changes: dict, lesson_dir: Path | None) -> Scenario:
    """The scenario file with changes merged in: tables replace fields of the file's tables;
    steps maps a 0-based step index (as a string) to the fields that step gets."""
    path = scenario_path(name, lesson_dir)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if key not in SCENARIO_TABLES or not isinstance(value, dict):
            raise ValueError(f"set.{key} is not a table a scenario has; allowed: "
                             f"{', '.join(SCENARIO_TABLES)}")
        if key == "steps":
            steps = data.get("steps", [])
            for index, fields in value.items():
                if not (index.isdigit() and int(index) < len(steps)) or not isinstance(
                        fields, dict):
                    raise ValueError(f"set.steps keys must be step indices 0 to "
                                     f"{len(steps) - 1} with a table of fields; got {index!r}")
                steps[int(index)].update(fields)
        else:
            data.setdefault(key, {}).update(value)
    return parse_scenario(toml_text(data), str(path))


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (int, float)):
        return repr(v)
    raise ValueError(f"a scenario field must be a number, a string or true/false; got {v!r}")


def toml_text(data: dict) -> str:
    """A scenario-shaped document (scalars, tables of scalars, one array of tables) as TOML."""
    lines = [f"{k} = {_value(v)}" for k, v in data.items()
             if not isinstance(v, (dict, list))]
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"[{key}]")
            lines += [f"{k} = {_value(v)}" for k, v in value.items()]
        elif isinstance(value, list):
            for item in value:
                lines.append(f"[[{key}]]")
                lines += [f"{k} = {_value(v)}" for k, v in item.items()]
    return "\n".join(lines) + "\n"
