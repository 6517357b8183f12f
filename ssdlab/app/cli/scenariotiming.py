"""One shipped scenario, played once in this process and timed part by part; prints one JSON
line. `ssdlab bench --scenarios` runs this file by its path, in a child process whose
current folder is the checkout being measured, which may be an older one (`--against`): so
it imports nothing of its own folder and uses only what every checkout since the scenario
format has (load_scenario, build_machine, run_scenario with a Series).

    python ssdlab/app/cli/scenariotiming.py ssdlab/assets/scenarios/NAME.toml

Seconds are CPU seconds of this process (user + system), which a busy shared machine
disturbs less than wall time:
- build: the machine and drive, without the compiled engine's first load;
- engine: calls into the compiled engine while the steps run (its flash work);
- host: the steps' own Python, file system and block layer: run minus engine;
- outputs: the step rows and the time series the command prints;
- scenario: build + run + outputs, what a lesson waits for once the engine is loaded;
- load: the compiled engine's first call of each kind, numba reading its cache.
"""

import importlib
import json
import os
import sys
import time


def _module(name: str):
    """model.NAME of the checkout measured: under ssdlab/ since issue 34's rename, at the top
    before it. Chosen by the folder, not by trying: an installed ssdlab would answer the
    import in an older checkout and measure the wrong code."""
    package = "ssdlab." if os.path.isdir(os.path.join(os.getcwd(), "ssdlab", "model")) else ""
    return importlib.import_module(f"{package}model.{name}")


class _Timed:
    """A module as the drive sees it, with some of its compiled functions timed. The drive
    module's name for it is swapped, never the module's own attributes: numba resolves a
    compiled function's callees from its module, and would find a Python wrapper there."""

    def __init__(self, module, names, clock: dict):
        self._module = module
        seen = set()
        for name in names:
            setattr(self, name, self._wrap(getattr(module, name), name, seen, clock))

    def __getattr__(self, name):
        return getattr(self._module, name)

    @staticmethod
    def _wrap(fn, name, seen, clock):
        def timed(*a, **k):
            t = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                key = "load " + clock["phase"] if name not in seen else clock["phase"]
                seen.add(name)
                clock[key] = clock.get(key, 0.0) + time.process_time() - t

        return timed


def _timed_engine(clock: dict) -> None:
    """Time the compiled entry points the drive calls, adding their CPU seconds to
    clock[phase]; a kind's first call is numba loading it, counted as "load"."""
    drive = _module("flash.drive")
    drive.ftl = _Timed(drive.ftl, ("run_commands", "run_single_page_writes"), clock)
    drive.gc = _Timed(drive.gc, ("collect", "idle_gc"), clock)


def main(path: str) -> dict:
    scenario_module = _module("lab.scenario")
    build_machine = scenario_module.build_machine
    load_scenario, run_scenario = scenario_module.load_scenario, scenario_module.run_scenario
    Series = _module("lab.series").Series
    clock = {"phase": "build"}
    _timed_engine(clock)
    scenario = load_scenario(path)
    t0 = time.process_time()
    machine = build_machine(scenario)
    t1 = time.process_time()
    try:
        series = Series(machine, None)  # the command's default: chosen by the run's length
    except TypeError:
        series = Series(machine, 1.0)  # before that default, 1 simulated second
    clock["phase"] = "engine"
    results = run_scenario(scenario, machine=machine, series=series)
    t2 = time.process_time()
    rows = [r.as_dict() for r in results]
    series.as_dicts()
    t3 = time.process_time()
    engine = clock.get("engine", 0.0)
    build = (t1 - t0) - clock.get("load build", 0.0) - clock.get("build", 0.0)
    host = (t2 - t1) - engine - clock.get("load engine", 0.0)
    engine += clock.get("build", 0.0)  # a drive built with data on it (none ship so)
    load = clock.get("load build", 0.0) + clock.get("load engine", 0.0)
    return {"scenario": os.path.basename(path), "steps": len(rows), "build": build,
            "engine": engine, "host": host, "outputs": t3 - t2,
            "scenario_s": build + engine + host + (t3 - t2), "load": load}


if __name__ == "__main__":
    sys.path[0] = os.getcwd()  # the checkout measured, not this file's folder
    print(json.dumps(main(sys.argv[1])))
