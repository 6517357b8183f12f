"""`ssdlab chart SOURCE --chart NAME -o FILE`: write one of the workbench's charts as the
window exports it (app/chartexport.py), from a scenario file (played headless), a session
file the window saved (SESSION.json), or a sweep's results (RESULTS.jsonl).

A session's wa, throughput, gc and free charts are drawn from the series it saved, as the
window drew them; wear, victims and steps need what a session does not store (erase
counts, GC victims, each step's totals), so its log is replayed headless first
(app/session/replay.py).

The scenario plays as `ssdlab run --series` plays it: on the drive's clock, with the time
series binned every --series-every simulated seconds. Every argument and the output path are
checked before the run, so a bad one costs nothing; the figure is written only whole.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import asdict

import numpy as np

from app.cli.args import existing_file, positive_real
from model.lab.charts import CHARTS


def add_parser(sub) -> None:
    p = sub.add_parser("chart", help="play a scenario and write one chart as a file",
                       description="Play a scenario file headless and write one of the "
                       "window's charts as PNG (300 dpi), SVG, PDF, or CSV with a JSON "
                       "sidecar, in the print profile.")
    p.add_argument("scenario", type=existing_file, metavar="SOURCE",
                   help="a scenario file (.toml), a session file the window saved (.json), or a "
                   "sweep's results (.jsonl) for "
                   + ", ".join(n for n, c in CHARTS.items() if c.source == "sweep"))
    p.add_argument("--chart", required=True, choices=tuple(CHARTS),
                   help="which chart: " + ", ".join(CHARTS))
    p.add_argument("--format", choices=("png", "svg", "pdf", "csv"),
                   help="file format; the output's extension must name it (default: from "
                   "the extension)")
    p.add_argument("--width", choices=("single", "double"), default="single",
                   help="column width: single (3.5 in, default) or double (7 in)")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the file to write (CSV also writes FILE's name with .json)")
    p.add_argument("--series-every", metavar="S", type=positive_real, default=None,
                   help="simulated seconds between time-series rows, above 0 (default: "
                   "from the run's length, 1, 2 or 5 x 10^k s for 80 to 200 rows)")


def _provenance(path: str, scenario, series) -> dict:
    """What reproduces the figure: the scenario file (path, hash, steps), its seeds and the
    series' sampling, as the window's export says it (model/lab/provenance.py)."""
    from model.lab.provenance import scenario_provenance, series_provenance

    return scenario_provenance(path, scenario) | series_provenance(series)


def check_files(args: argparse.Namespace, fmt: str, inputs: dict[str, str]) -> None:
    """Before any work: every file the export writes (the CSV's JSON sidecar too) can be
    written and is none of the files read. OutputFileError, naming the option."""
    from app.chartexport import check_export, sidecar_path
    from app.cli.outputs import check_outputs

    check_outputs(inputs, {"-o": args.output,
                           "-o's JSON sidecar": sidecar_path(args.output) if fmt == "csv"
                           else None})
    check_export(args.output, fmt, args.width)


def _sha256(path: str) -> str:
    """The file's hash, read through the one safe reader (it was read once already)."""
    from model.lab.provenance import file_sha256

    return file_sha256(path)


def main(args: argparse.Namespace) -> int:
    from app.atomicfile import OutputFileError
    from app.chartexport import Export, format_of, write
    from app.cli.outputs import files_read
    from model.lab.charts import chart_table, run_series
    from model.lab.scenario import ScenarioError, build_machine, load_scenario, run_scenario
    from model.lab.series import Series
    from model.lab.steps import StepError

    def fail(message: str) -> int:
        print(f"ssdlab chart: error: {message}", file=sys.stderr)
        return 2

    try:
        fmt = args.format or format_of(args.output)
    except OutputFileError as e:
        return fail(f"-o {e}")
    if CHARTS[args.chart].source == "sweep":
        return _sweep(args, fmt, fail)
    if args.scenario.lower().endswith(".json"):
        return _session(args, fmt, fail)
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as e:
        return fail(str(e))
    try:
        check_files(args, fmt, files_read(args.scenario, scenario.steps))
    except OutputFileError as e:
        return fail(str(e) if str(e).startswith("-o") else f"-o {e}")
    show = sys.stderr.isatty()

    def progress(i: int, label: str, done: int, total: int, unit: str) -> None:
        print(f"\rstep {i + 1}/{len(scenario.steps)} {label}: {done:,} of {total:,} {unit} "
              f"({100 * done / max(1, total):.0f} %)\033[K", end="", file=sys.stderr,
              flush=True)

    try:
        machine = build_machine(scenario)
        series = Series(machine, args.series_every)
        results = run_scenario(scenario, progress=progress if show else None, series=series)
    except (ScenarioError, StepError, OSError, ValueError) as e:
        return fail(str(e))
    finally:
        if show:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
    g = machine.drive.geometry
    capacity_mb = g.user_pages * g.page_bytes / 1e6
    steps = [{"step": r.name, "host_mb": r.device_written_mb, "nand_mb": r.nand_written_mb}
             for r in results]
    table = chart_table(args.chart, run_series(series.as_dicts(), capacity_mb), timed=True,
                        erases=machine.drive.block_views()["erases"], steps=steps,
                        victims=machine.drive.victim_valid(),
                        mapping=machine.drive.config.mapping)
    try:
        written = write(args.output, table, Export(fmt, args.width,
                                                   _provenance(args.scenario, scenario,
                                                               series)))
    except OutputFileError as e:
        return fail(f"-o {e}")
    print(f"wrote {', '.join(written)}")
    return 0


def _sweep(args: argparse.Namespace, fmt: str, fail) -> int:
    """A sweep chart from a sweep's results file, with the analytic curves it recorded."""
    from app.atomicfile import OutputFileError
    from app.chartexport import Export, write
    from model.lab.charts import sweep_table
    from model.lab.sweeprun import ResultsError, read_results

    try:
        check_files(args, fmt, {"sweep results": args.scenario})
    except OutputFileError as e:
        return fail(str(e) if str(e).startswith("-o") else f"-o {e}")
    try:
        records = list(read_results(args.scenario).records.values())
    except (ResultsError, OSError, UnicodeDecodeError) as e:
        return fail(f"{args.scenario}: {e}" if isinstance(e, OSError) else str(e))
    table = sweep_table(args.chart, records)
    if not table.x.size:
        return fail(f"{args.scenario}: holds no finished sweep point with a spare; run "
                    "`ssdlab sweep` first")
    digest = _sha256(args.scenario)
    seeds = sorted({r["point"].get("seed") for r in records if "seed" in r.get("point", {})})
    provenance = {"sweep_results": {"file": os.path.abspath(args.scenario), "sha256": digest,
                                    "points": len(records)}, "seed": seeds or None}
    try:
        written = write(args.output, table, Export(fmt, args.width, provenance))
    except OutputFileError as e:
        return fail(f"-o {e}")
    print(f"wrote {', '.join(written)}")
    return 0


SERIES_CHARTS = ("wa", "throughput", "gc", "free")  # drawn from a session's saved series


def _session(args: argparse.Namespace, fmt: str, fail) -> int:
    """A run chart from a session file: its saved series, or its log replayed headless."""
    from app.atomicfile import OutputFileError
    from app.chartexport import Export, write
    from app.session.replay import replay
    from app.session.sessionfile import SessionFileError, read_session
    from app.session.settings import theory_wa
    from model.lab.charts import chart_table
    from model.lab.steps import StepError

    try:
        settings, log, series = read_session(args.scenario)
    except SessionFileError as e:
        return fail(str(e))
    inputs = {"session": args.scenario}
    for i, entry in enumerate(log):  # the trace and tar files its replay reads
        for key in ("trace", "tar"):
            if isinstance((entry.get("args") or {}).get(key), str):
                inputs[f"log[{i}].args.{key} file"] = entry["args"][key]
    try:
        check_files(args, fmt, inputs)
    except OutputFileError as e:
        return fail(str(e) if str(e).startswith("-o") else f"-o {e}")
    rows = len(next(iter(series.values()), []))
    if args.chart in SERIES_CHARTS and rows == 0:
        return fail(f"{args.scenario}: series holds no rows, so there is no {args.chart} "
                    "chart to draw; save the session after a run")
    if args.chart == "steps" and not any(d.get("fs") for d in log):
        return fail(f"{args.scenario}: log holds no file-system step, so there is no steps "
                    "chart; the steps chart is for file-system runs")
    erases, steps, victims = None, None, None
    if args.chart not in SERIES_CHARTS:
        show = sys.stderr.isatty()

        def progress(i: int, label: str, done: int, total: int) -> None:
            print(f"\rreplaying log[{i}] {label}: {done:,} of {total:,} "
                  f"({100 * done / max(1, total):.0f} %)\033[K", end="", file=sys.stderr,
                  flush=True)

        try:
            done = replay(settings, log, progress if show else None)
        except (StepError, OSError, ValueError) as e:
            return fail(f"{args.scenario}: replaying the log: {e}")
        finally:
            if show:
                print("\r\033[K", end="", file=sys.stderr, flush=True)
        erases, steps = done.drive.block_views()["erases"], done.steps
        victims = done.drive.victim_valid()
    table = chart_table(args.chart, {k: np.asarray(v, dtype=float) for k, v in series.items()},
                        timed=bool(settings.profile), erases=erases,
                        theory=theory_wa(settings), steps=steps, victims=victims,
                        mapping=settings.mapping)
    digest = _sha256(args.scenario)
    provenance = {"session": {"file": os.path.abspath(args.scenario), "sha256": digest,
                              "settings": asdict(settings), "log_entries": len(log),
                              "replayed": args.chart not in SERIES_CHARTS},
                  "seed": settings.seed}
    try:
        written = write(args.output, table, Export(fmt, args.width, provenance))
    except OutputFileError as e:
        return fail(f"-o {e}")
    print(f"wrote {', '.join(written)}")
    return 0
