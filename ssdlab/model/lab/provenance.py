"""What reproduces a figure made from a scenario run, said one way wherever the figure is
made (`ssdlab chart`, the window's export, the gallery): the scenario file (its path, content
hash, name and steps), the seeds its steps draw with, the drive's settings as the run built
them, and the time series' sampling (its interval, chosen or given, and rows).

A path is written relative to the project when the file is the project's
(ssdlab/assets/scenarios/...), else relative to the folder the figure is written to: never
an absolute path, which would carry the author's home folder into every file."""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, fields

from ssdlab.model.inputfile import open_input

from .scenario import Scenario, drive_parts
from .series import Series


def file_sha256(path: str) -> str:
    """The file's hash, read through the one safe reader (a FIFO or device is refused)."""
    h = hashlib.sha256()
    with open_input(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))  # the folder holding the ssdlab package


def shown_path(path: str, base: str | None = None) -> str:
    """`path` as a figure's provenance names it: relative to the project when it lies in
    the project, else relative to `base` (the folder the figure goes to; None: the working
    folder), with forward slashes."""
    full = os.path.abspath(path)
    inside = os.path.commonpath([full, PROJECT]) == PROJECT
    try:
        shown = os.path.relpath(full, PROJECT if inside else os.path.abspath(base or "."))
    except ValueError:  # another drive (Windows): no relative path exists
        shown = os.path.basename(full)
    return shown.replace(os.sep, "/")


def drive_settings(drive) -> dict:
    """Every setting of a built drive (ssdlab/model/flash): its geometry and FTL config,
    gc_frontier and victim_order included, so no engine default goes unsaid."""
    return part_settings(drive.geometry, drive.config)


def part_settings(*parts) -> dict:
    """The fields of a Geometry and an FtlConfig, as one dict."""
    out = {}
    for part in parts:
        out.update({f.name: getattr(part, f.name) for f in fields(part)})
    return json_safe(out)


def json_safe(value):
    """A value with tuples as lists and dataclasses as dicts, as JSON writes it."""
    if hasattr(value, "__dataclass_fields__"):
        return json_safe(asdict(value))
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def scenario_provenance(path: str, scenario: Scenario, base: str | None = None) -> dict:
    """The scenario file (named as shown_path names it from `base`), the seeds its steps
    draw with, and every setting of the drive it builds."""
    seeds = {f"steps[{i}]": step.args["seed"] for i, step in enumerate(scenario.steps)
             if "seed" in step.args}
    return {"scenario": {"file": shown_path(path, base), "sha256": file_sha256(path),
                         "name": scenario.name,
                         "steps": [{"do": st.do, **st.args} for st in scenario.steps]},
            "drive": part_settings(*drive_parts(scenario)), "seed": seeds or None}


def series_provenance(series: Series) -> dict:
    """How the time series was sampled (call after its rows were made)."""
    rows = series.rows()
    return {"series": {"interval_s": series.interval_s, "rows": len(rows),
                       "interval": "given" if series.every_s is not None else
                       "from the run's length (ssdlab/model/lab/series.py auto_interval)",
                       "clock": "the drive's (simulated s)"}}
