"""A run step's configurations, from the lesson's tables to the model's own objects.

A block-level configuration becomes a ssdlab.model.flash.runner.RunSpec; a scenario configuration
is a shipped scenario file (ssdlab/assets/scenarios/NAME.toml, or a path beside the lesson) with
some of its fields set otherwise, merged into the file's own tables and checked by the
scenario loader itself, so a lesson can vary anything a scenario file can say and nothing
else. Errors are ValueError with the model's message; the loader adds file, line and field.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ssdlab.model.flash.geometry import FtlConfig, Geometry, check_buildable
from ssdlab.model.flash.runner import RunSpec
from ssdlab.model.flash.workloads import Workload
from ssdlab.model.inputfile import InputFileError, inside
from ssdlab.model.lab.experiments import SCENARIOS
from ssdlab.model.lab.scenario import Scenario, parse_scenario, read_scenario_text
from ssdlab.model.lab.tomlwrite import toml_text

ASSETS = SCENARIOS.parent  # the project's assets: scenarios, profiles, images

# lesson key -> allowed sub-keys, for block-level configurations
BLOCK_TABLES = {
    "drive": ("user_pages", "pages_per_block", "spare"),
    "ftl": ("mapping", "gc", "d", "gc_low_blocks", "honour_trim", "gc_frontier",
            "victim_order", "stored_fraction", "wear_leveling_gap", "slc_cache", "cell_bits",
            "slc_blocks", "slc_dynamic_share", "placement_handles", "handle_gc"),
    "workload": ("kind", "hot_lba_fraction", "hot_write_fraction", "active_fraction"),
}
# placement and tag_errors: how the host tags its pages; zoned, zone_blocks, open_zones: a
# zoned drive whose host does the garbage collection (RunSpec's fields of those names)
BLOCK_SCALARS = ("warmup_drive_writes", "measure_drive_writes", "seed", "windows",
                 "placement", "tag_errors", "zoned", "zone_blocks", "open_zones")
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


def lesson_folders(lesson_dir: Path | None) -> tuple[Path, ...]:
    """Where a lesson may read files: its own folder and the project's assets, no further
    (a lesson is shared as a file; it must not read /etc/shadow or ../secret)."""
    return (ASSETS,) if lesson_dir is None else (lesson_dir, ASSETS)


def scenario_path(name: str, lesson_dir: Path | None) -> Path:
    """A shipped scenario by name, or a scenario file in the lesson's folder; either way
    resolved (links and .. followed) inside lesson_folders."""
    names = ", ".join(sorted(p.stem for p in SCENARIOS.glob("*.toml")))
    allowed = (f"must name a shipped scenario ({names}) or a file in the lesson's own "
               f"folder; got {name!r}")
    if not name or "\0" in name:
        raise ValueError(allowed)
    for candidate in (SCENARIOS / f"{name}.toml",
                      *(() if lesson_dir is None else (lesson_dir / name,))):
        if candidate.is_file():
            if not inside(candidate, lesson_folders(lesson_dir)):
                raise ValueError(f"{name!r} lies outside the lesson's folder and the "
                                 "project's assets (a lesson reads only beside itself)")
            return candidate
    raise ValueError(allowed)


def scenario_config(name: str, changes: dict, lesson_dir: Path | None) -> Scenario:
    """The scenario file with changes merged in: tables replace fields of the file's tables;
    steps maps a 0-based step index (as a string) to the fields that step gets. The file is
    read as `ssdlab run` reads it (a byte-order mark and CRLF allowed)."""
    path = scenario_path(name, lesson_dir)
    try:
        data = tomllib.loads(read_scenario_text(path))
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{name}: not valid TOML: {e}") from None
    except RecursionError:
        raise ValueError(f"{name}: arrays or tables nested too deeply") from None
    except InputFileError as e:
        raise ValueError(str(e)) from None
    for key, value in changes.items():
        if key not in SCENARIO_TABLES or not isinstance(value, dict):
            raise ValueError(f"set.{key} is not a table a scenario has; allowed: "
                             f"{', '.join(SCENARIO_TABLES)}")
        if not isinstance(data.get(key, [] if key == "steps" else {}),
                          list if key == "steps" else dict):
            raise ValueError(f"{name}: {key} is not a table in the scenario file; got "
                             f"{data[key]!r:.40}")
        if key == "steps":
            steps = data.get("steps", [])
            for index, fields in value.items():
                if not (index.isdigit() and int(index) < len(steps)) or not isinstance(
                        fields, dict) or not isinstance(steps[int(index)], dict):
                    raise ValueError(f"set.steps keys must be step indices 0 to "
                                     f"{len(steps) - 1} with a table of fields; got {index!r}")
                steps[int(index)].update(fields)
        else:
            data.setdefault(key, {}).update(value)
    return parse_scenario(toml_text(data), str(path))
