"""What reproduces a figure made from a scenario run, said one way wherever the figure is
made (`ssdlab chart`, the window's export, the gallery): the scenario file (its absolute
path, content hash, name and steps), the seeds its steps draw with, and the time series'
sampling (its interval, chosen or given, and rows)."""

from __future__ import annotations

import hashlib
import os

from ssdlab.model.inputfile import open_input

from .scenario import Scenario
from .series import Series


def file_sha256(path: str) -> str:
    """The file's hash, read through the one safe reader (a FIFO or device is refused)."""
    h = hashlib.sha256()
    with open_input(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def scenario_provenance(path: str, scenario: Scenario) -> dict:
    """The scenario file and the seeds its steps draw with."""
    seeds = {f"steps[{i}]": step.args["seed"] for i, step in enumerate(scenario.steps)
             if "seed" in step.args}
    return {"scenario": {"file": os.path.abspath(path), "sha256": file_sha256(path),
                         "name": scenario.name,
                         "steps": [{"do": st.do, **st.args} for st in scenario.steps]},
            "seed": seeds or None}


def series_provenance(series: Series) -> dict:
    """How the time series was sampled (call after its rows were made)."""
    rows = series.rows()
    return {"series": {"interval_s": series.interval_s, "rows": len(rows),
                       "interval": "given" if series.every_s is not None else
                       "from the run's length (ssdlab/model/lab/series.py auto_interval)",
                       "clock": "the drive's (simulated s)"}}
