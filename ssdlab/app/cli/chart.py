"""`ssdlab chart SOURCE --chart NAME -o FILE`: write one of the workbench's charts as the
window exports it (ssdlab/app/chartexport.py), from a scenario file (played headless), a session
file the window saved (SESSION.json), or a sweep's results (RESULTS.jsonl). `--chart all`
and a list of formats (`--format pdf,svg,csv`) write every chart and format into a folder
from one play of the scenario (ssdlab/app/cli/figureoutputs.py).

A session's wa, throughput, gc and free charts are drawn from the series it saved, as the
window drew them; wear, victims and steps need what a session does not store (erase
counts, GC victims, each step's totals), so its log is replayed headless first
(ssdlab/app/session/replay.py).

The scenario plays as `ssdlab run --series` plays it: on the drive's clock, with the time
series binned every --series-every simulated seconds. Every argument and the output path are
checked before the run, so a bad one costs nothing; the figure is written only whole.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ssdlab.app.cli.args import existing_file, positive_real
from ssdlab.app.cli.figureoutputs import (
    add_options,
    folder_of,
    plan,
    relative,
    reproduce,
    write_all,
)
from ssdlab.model.lab.charts import CHARTS, RUN_CHARTS

SWEEP_CHARTS = tuple(n for n, c in CHARTS.items() if c.source == "sweep")


def add_parser(sub) -> None:
    p = sub.add_parser("chart", help="play a scenario and write its charts as files",
                       description="Play a scenario file headless and write one of the "
                       "window's charts (or all) as PNG (300 dpi), SVG, PDF, or CSV with a "
                       "JSON sidecar, in the print profile, provenance inside every file.")
    p.add_argument("scenario", type=existing_file, metavar="SOURCE",
                   help="a scenario file (.toml), a session file the window saved (.json), or a "
                   "sweep's results (.jsonl) for " + ", ".join(SWEEP_CHARTS))
    p.add_argument("--chart", required=True, choices=(*CHARTS, "all"),
                   help="which chart: " + ", ".join(CHARTS) + "; all: every chart the "
                   "source has, from one run")
    add_options(p, "--chart all")
    p.add_argument("--series-every", metavar="S", type=positive_real, default=None,
                   help="simulated seconds between time-series rows, above 0 (default: "
                   "from the run's length, 1, 2 or 5 x 10^k s for 80 to 200 rows)")


def _charts(args: argparse.Namespace) -> tuple[str, list[str]]:
    """The source's kind (sweep, session, scenario) and the charts to draw from it."""
    if args.chart in SWEEP_CHARTS or (args.chart == "all"
                                      and args.scenario.lower().endswith(".jsonl")):
        return "sweep", list(SWEEP_CHARTS) if args.chart == "all" else [args.chart]
    kind = "session" if args.scenario.lower().endswith(".json") else "scenario"
    return kind, list(RUN_CHARTS) if args.chart == "all" else [args.chart]


def _provenance(path: str, scenario, series, base: str) -> dict:
    """What reproduces the figure: the scenario file (path, hash, steps), its seeds, the
    drive's settings and the series' sampling, as the window's export says it
    (ssdlab/model/lab/provenance.py)."""
    from ssdlab.model.lab.provenance import scenario_provenance, series_provenance

    return scenario_provenance(path, scenario, base) | series_provenance(series)


def _command(args: argparse.Namespace, files) -> dict:
    """The command that writes the files again, run in their folder."""
    words = ["chart", relative(args.scenario, folder_of(files)), "--chart", args.chart]
    if getattr(args, "series_every", None) is not None:
        words += ["--series-every", repr(args.series_every)]
    return reproduce(args, words, files)


def _sha256(path: str) -> str:
    """The file's hash, read through the one safe reader (it was read once already)."""
    from ssdlab.model.lab.provenance import file_sha256

    return file_sha256(path)


def _fail(message: str) -> int:
    print(f"ssdlab chart: error: {message}", file=sys.stderr)
    return 2


def _planned(args, charts, inputs):
    """The planned files, or the exit status of a refusal."""
    from ssdlab.app.atomicfile import OutputFileError

    try:
        return plan(args, charts, inputs)
    except OutputFileError as e:
        return _fail(str(e) if str(e).startswith("-o") else f"-o {e}")


def _finish(args, files, tables, provenance) -> int:
    from ssdlab.app.atomicfile import OutputFileError

    try:
        written = write_all(files, tables, args, provenance)
    except OutputFileError as e:
        return _fail(str(e) if str(e).startswith("-o") else f"-o {e}")
    print(f"wrote {', '.join(written)}")
    return 0


def play(scenario, series_every: float, show: bool):
    """Play a scenario headless once: (machine, series, step results)."""
    from ssdlab.model.lab.collector import collector_paused
    from ssdlab.model.lab.scenario import build_machine, run_scenario
    from ssdlab.model.lab.series import Series

    def progress(i: int, label: str, done: int, total: int, unit: str) -> None:
        print(f"\rstep {i + 1}/{len(scenario.steps)} {label}: {done:,} of {total:,} {unit} "
              f"({100 * done / max(1, total):.0f} %)\033[K", end="", file=sys.stderr,
              flush=True)

    try:
        with collector_paused():
            machine = build_machine(scenario)
            series = Series(machine, series_every)
            results = run_scenario(scenario, progress=progress if show else None,
                                   series=series)
    finally:
        if show:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
    return machine, series, results


def main(args: argparse.Namespace) -> int:
    from ssdlab.app.cli.outputs import files_read
    from ssdlab.model.lab.charts import chart_table, run_series
    from ssdlab.model.lab.scenario import ScenarioError, load_scenario
    from ssdlab.model.lab.steps import StepError

    kind, charts = _charts(args)
    if kind == "sweep":
        return _sweep(args, charts)
    if kind == "session":
        return _session(args, charts)
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as e:
        return _fail(str(e))
    files = _planned(args, charts, files_read(args.scenario, scenario.steps))
    if isinstance(files, int):
        return files
    try:  # one play for every chart and format
        machine, series, results = play(scenario, args.series_every, sys.stderr.isatty())
    except (ScenarioError, StepError, OSError, ValueError) as e:
        return _fail(str(e))
    g = machine.drive.geometry
    capacity_mb = g.user_pages * g.page_bytes / 1e6
    steps = [{"step": r.name, "host_mb": r.device_written_mb, "nand_mb": r.nand_written_mb}
             for r in results]
    run = run_series(series.as_dicts(), capacity_mb)
    erases, victims = machine.drive.block_views()["erases"], machine.drive.victim_valid()
    tables = {c: chart_table(c, run, timed=True, erases=erases, steps=steps, victims=victims,
                             mapping=machine.drive.config.mapping)
              for c in charts}
    return _finish(args, files, tables,
                   _provenance(args.scenario, scenario, series, folder_of(files))
                   | _command(args, files))


def _sweep(args: argparse.Namespace, charts: list[str]) -> int:
    """A sweep chart from a sweep's results file, with the analytic curves it recorded."""
    from ssdlab.model.lab.plottable import PlotError, sweep_table
    from ssdlab.model.lab.sweeprun import ResultsError, read_results

    files = _planned(args, charts, {"sweep results": args.scenario})
    if isinstance(files, int):
        return files
    try:
        records = list(read_results(args.scenario).records.values())
    except (ResultsError, OSError, UnicodeDecodeError) as e:
        return _fail(f"{args.scenario}: {e}" if isinstance(e, OSError) else str(e))
    try:
        tables = {c: sweep_table(c, records) for c in charts}
    except PlotError as e:
        return _fail(f"{args.scenario}: {e}")
    if not all(t.x.size for t in tables.values()):
        return _fail(f"{args.scenario}: holds no finished sweep point with a spare; run "
                     "`ssdlab sweep` first")
    warn_failed("ssdlab chart", tables.values())
    return _finish(args, files, tables,
                   results_provenance(args.scenario, records, folder_of(files))
                   | _command(args, files))


def warn_failed(prog: str, tables) -> None:
    """Say on stderr what the figures say of failed runs (each table's caveats), once."""
    for caveat in dict.fromkeys(c for t in tables for table in getattr(t, "tables", [t])
                                for c in table.caveats):
        print(f"{prog}: warning: {caveat}", file=sys.stderr)


def results_provenance(path: str, records: list[dict], base: str | None = None) -> dict:
    """What reproduces a figure of a sweep's results: the file (relative to the project or
    to `base`, the figure's folder), its hash, its points (how many finished and failed),
    every setting the points share and the values of those they vary, the engine's fixed
    settings a drive point does not name (gc_frontier, victim_order), the seeds and the
    version(s) of SSD Lab that wrote them."""
    from ssdlab.model.lab.provenance import shown_path
    from ssdlab.model.lab.sweepsettings import point_settings

    seeds = sorted({json.dumps(r["point"].get("seed")): r["point"].get("seed")
                    for r in records if isinstance(r.get("point"), dict)
                    and "seed" in r["point"]}.values(), key=str)  # any JSON, hashable or not
    versions = sorted({str(r["ssdlab_version"]) for r in records if "ssdlab_version" in r})
    failed = [r.get("key") for r in records if r.get("status") != "ok"]
    return {"sweep_results": {"file": shown_path(path, base), "sha256": _sha256(path),
                              "points": len(records), "finished": len(records) - len(failed),
                              "failed": len(failed),
                              **({"failed_points": failed} if failed else {}),
                              **({"written_by": versions} if versions else {})},
            **point_settings(records), "seed": seeds or None}


SERIES_CHARTS = ("wa", "throughput", "gc", "free")  # drawn from a session's saved series


def drawable(charts, rows: int, log: list[dict]) -> list[str]:
    """Of `charts`, those a run with `rows` rows of series and this worker's log can draw:
    the series charts once it has rows, the steps chart only after file-system steps
    (`--chart all` on a session, and the window's Export all charts)."""
    return [c for c in charts if (c not in SERIES_CHARTS or rows)
            and (c != "steps" or any(d.get("fs") for d in log))]


def _session(args: argparse.Namespace, charts: list[str]) -> int:
    """Run charts from a session file: its saved series, or its log replayed headless (once,
    for every chart that needs it)."""
    from ssdlab.app.session.replay import replay
    from ssdlab.app.session.sessionfile import SessionFileError, read_session
    from ssdlab.app.session.settings import run_theory_wa
    from ssdlab.app.session.wanotes import analytic_name, theory_source
    from ssdlab.model.lab.charts import chart_table
    from ssdlab.model.lab.steps import StepError

    try:
        settings, log, series = read_session(args.scenario)
    except SessionFileError as e:
        return _fail(str(e))
    inputs = {"session": args.scenario}
    for i, entry in enumerate(log):  # the trace and tar files its replay reads
        for key in ("trace", "tar"):
            if isinstance((entry.get("args") or {}).get(key), str):
                inputs[f"log[{i}].args.{key} file"] = entry["args"][key]
    rows = len(next(iter(series.values()), []))
    if args.chart == "all":  # what this session can draw
        charts = drawable(charts, rows, log)
    files = _planned(args, charts, inputs)
    if isinstance(files, int):
        return files
    if any(c in SERIES_CHARTS for c in charts) and rows == 0:
        return _fail(f"{args.scenario}: series holds no rows, so there is no {charts[0]} "
                     "chart to draw; save the session after a run")
    if "steps" in charts and not any(d.get("fs") for d in log):
        return _fail(f"{args.scenario}: log holds no file-system step, so there is no steps "
                     "chart; the steps chart is for file-system runs")
    erases, steps, victims = None, None, None
    replayed = any(c not in SERIES_CHARTS for c in charts)
    if replayed:
        show = sys.stderr.isatty()

        def progress(i: int, label: str, done: int, total: int) -> None:
            print(f"\rreplaying log[{i}] {label}: {done:,} of {total:,} "
                  f"({100 * done / max(1, total):.0f} %)\033[K", end="", file=sys.stderr,
                  flush=True)

        try:
            done = replay(settings, log, progress if show else None)
        except (StepError, OSError, ValueError) as e:
            return _fail(f"{args.scenario}: replaying the log: {e}")
        finally:
            if show:
                print("\r\033[K", end="", file=sys.stderr, flush=True)
        erases, steps = done.drive.block_views()["erases"], done.steps
        victims = done.drive.victim_valid()
    arrays = {k: np.asarray(v, dtype=float) for k, v in series.items()}
    tables = {c: chart_table(c, arrays, timed=bool(settings.profile), erases=erases,
                             theory=run_theory_wa(settings, log), steps=steps, victims=victims,
                             mapping=settings.mapping, theory_name=analytic_name(settings))
              for c in charts}
    from ssdlab.app.session.runprovenance import session_provenance

    # the window's export of the same run says the same (ssdlab/app/session/runprovenance.py)
    provenance = session_provenance(settings, log, args.scenario, folder_of(files),
                                    replayed) | _command(args, files)
    analytic = theory_source(settings, log)  # what its analytic line assumes, if it has one
    if analytic["model"] is not None:
        provenance["analytic"] = analytic
    return _finish(args, files, tables, provenance)
