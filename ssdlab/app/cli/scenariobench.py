"""`ssdlab bench --scenarios [--against DIR]`: how long every shipped scenario takes, whole
and part by part, as medians; with --against, beside another checkout of SSD Lab (an older
commit, say) run in the same session, alternating, with ratios.

Each run is a child process without PYTHON* variables. Per scenario and checkout, `repeat`
times:
- the whole command, `ssdlab run SCENARIO` with its rows thrown away: start-up, imports,
  loading the compiled engine, the run; CPU seconds (user + system) and wall seconds;
- the same scenario in ssdlab/app/cli/scenariotiming.py, which splits its CPU seconds into the
  build, the engine's flash work, the host stack (file system, block layer, workloads) and
  the outputs.
Before the timed runs each checkout plays the smallest scenario once, untimed, so a stale
compiled engine is rebuilt there and not counted.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]  # the checkout holding ssdlab/
TIMING = Path(__file__).with_name("scenariotiming.py")
# The whole command as the console script runs it, from the checkout's own packages.
COMMAND = ("import sys; sys.path.insert(0, '.'); from {package}app.cli.main import main; "
           "sys.argv = ['ssdlab', 'run', sys.argv[1]]; sys.exit(main())")
PARTS = ("build", "engine", "host", "outputs", "scenario_s")
WARM_SCENARIO = "trace_replay.toml"


class ScenarioBenchError(Exception):
    pass


class AgainstError(ScenarioBenchError):
    """The --against checkout failed or answered something that is not its timings: the
    option's input is at fault (exit status 2), not this checkout."""


def check_against(folder: str | None) -> Path | None:
    """The --against checkout, or None; ValueError naming the flag when it is not one."""
    if folder is None:
        return None
    try:
        path = Path(folder).expanduser().resolve(strict=True)
    except (OSError, RuntimeError) as e:  # RuntimeError: a loop of symbolic links
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "a symbolic link loop"
        raise ValueError(f"--against: {folder}: cannot be read ({reason}); name another "
                         "checkout of SSD Lab") from None
    if not any((path / top / "model" / "lab" / "scenario.py").is_file()
               and (path / top / "assets" / "scenarios").is_dir() for top in ("ssdlab", ".")):
        raise ValueError(f"--against: {folder} is not a checkout of SSD Lab (no "
                         f"ssdlab/model/lab/scenario.py and ssdlab/assets/scenarios/ in it, "
                         f"nor model/ and assets/ as before the packages moved into ssdlab/)")
    return path


def entry(tree: Path) -> tuple[str, str]:
    """The command to run in tree and its scenarios folder, relative to it: its packages are
    in ssdlab/, or at the top in a checkout from before issue 34 moved them (what --against
    usually measures)."""
    top = "ssdlab/" if (tree / "ssdlab" / "model").is_dir() else ""
    return COMMAND.format(package=top.replace("/", ".")), f"{top}assets/scenarios"


def _environment() -> dict:
    """This one without PYTHON* variables: the children run as on a fresh machine."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def _child(tree: Path, argv: list[str]) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run argv in tree; the result, its CPU seconds (user + system) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=tree, env=_environment(), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        error = ScenarioBenchError if tree == REPO else AgainstError
        raise error(f"{' '.join(argv[-1:])} in {tree} ended with status "
                    f"{done.returncode}: {last}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, cpu, wall


def _one(tree: Path, scenario: str) -> dict:
    command, scenarios = entry(tree)
    path = f"{scenarios}/{scenario}"
    _, cpu, wall = _child(tree, [sys.executable, "-c", command, path])
    done, _, _ = _child(tree, [sys.executable, str(TIMING), path])
    return {"command_cpu": cpu, "command_wall": wall, **_parts(tree, done.stdout)}


def _parts(tree: Path, stdout: str) -> dict:
    """The timings a child printed as its last line: each of PARTS a number of seconds from
    0 to a day. Anything else (a checkout of other code, junk on stdout) is refused."""
    lines = stdout.strip().splitlines()
    try:
        parts = json.loads(lines[-1]) if lines else None
    except (ValueError, RecursionError):
        parts = None
    bad = [p for p in PARTS if not isinstance(parts, dict) or isinstance(parts.get(p), bool)
           or not isinstance(parts.get(p), int | float) or not 0 <= parts[p] <= 86400]
    if bad:
        error = ScenarioBenchError if tree == REPO else AgainstError
        shown = (lines[-1][:80] if lines else "nothing")
        raise error(f"the scenario timing in {tree} printed {shown!r}; its last line must be "
                    f"JSON with {', '.join(PARTS)}, each from 0 to 86400 seconds "
                    f"({', '.join(bad)} not)")
    return {p: float(parts[p]) for p in PARTS}


def _medians(runs: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def scenario_names(only: str | None) -> list[str]:
    """The shipped scenarios' file names, those containing `only` if given; ValueError
    naming --only when none does."""
    names = sorted(p.name for p in (REPO / "ssdlab" / "assets" / "scenarios").glob("*.toml"))
    picked = [n for n in names if only is None or only in n]
    if not picked:
        raise ValueError(f"--only: no shipped scenario's name contains {only!r}; they are "
                         + ", ".join(n[:-5] for n in names))
    return picked


def scenarios(names: list[str], repeat: int, against: Path | None,
              progress=None) -> list[dict]:
    """One row per scenario: medians for this checkout and, with against, for that one
    too, runs alternating between them."""
    trees = {"this": REPO} if against is None else {"against": against, "this": REPO}
    for tree in trees.values():
        command, scenarios = entry(tree)
        _child(tree, [sys.executable, "-c", command, f"{scenarios}/{WARM_SCENARIO}"])
    rows = []
    for name in names:
        runs: dict[str, list[dict]] = {label: [] for label in trees}
        for i in range(repeat):
            for label, tree in trees.items():
                if progress is not None:
                    progress(f"{name}: run {i + 1} of {repeat} ({label})")
                runs[label].append(_one(tree, name))
        row = {"scenario": name, "runs": repeat,
               **{label: _medians(r) for label, r in runs.items()}}
        if against is not None:
            row["ratio"] = {key: row["against"][key] / row["this"][key]
                            for key in row["this"] if row["this"][key] > 0}
        rows.append(row)
    return rows


def _cell(row: dict, key: str) -> str:
    if "against" not in row:
        return f"{row['this'][key]:6.2f}"
    ratio = row["ratio"].get(key)
    return (f"{row['against'][key]:6.2f} → {row['this'][key]:5.2f} "
            + (f"{ratio:4.1f}x" if ratio is not None else "   - "))


def print_table(rows: list[dict], against: Path | None) -> None:
    head = ("CPU seconds, medians of " + str(rows[0]["runs"]) +
            ("" if against is None else f"; {against} → this checkout ({REPO}), ratio"))
    print(head)
    columns = (("whole command", "command_cpu"), ("scenario in process", "scenario_s"),
               ("host stack", "host"), ("engine", "engine"))
    columns = [(title, key, max(len(title), len(_cell(rows[0], key))) + 2)
               for title, key in columns]
    print(f"{'scenario':26s}" + "".join(f"{title:>{w}s}" for title, _, w in columns))
    for row in rows:
        print(f"{row['scenario'][:-5]:26s}" +
              "".join(f"{_cell(row, key):>{w}s}" for _, key, w in columns))
