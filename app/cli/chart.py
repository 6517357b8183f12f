"""`ssdlab chart SCENARIO.toml --chart NAME -o FILE`: play a scenario headless and write one
of the workbench's charts as the window exports it (app/chartexport.py).

The scenario plays as `ssdlab run --series` plays it: on the drive's clock, with the time
series binned every --series-every simulated seconds. Every argument and the output path are
checked before the run, so a bad one costs nothing; the figure is written only whole.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys

from app.cli.args import existing_file, positive_real
from model.lab.charts import CHARTS


def add_parser(sub) -> None:
    p = sub.add_parser("chart", help="play a scenario and write one chart as a file",
                       description="Play a scenario file headless and write one of the "
                       "window's charts as PNG (300 dpi), SVG, PDF, or CSV with a JSON "
                       "sidecar, in the print profile.")
    p.add_argument("scenario", type=existing_file, metavar="SOURCE",
                   help="a scenario file (.toml), or a sweep's results (.jsonl) for "
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
    p.add_argument("--series-every", metavar="S", type=positive_real, default=1.0,
                   help="simulated seconds between time-series rows, above 0 (default 1)")


def _provenance(path: str, scenario) -> dict:
    """What reproduces the figure: the scenario file (path and content hash) and the seeds
    its steps draw with."""
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    seeds = {f"steps[{i}]": step.args["seed"] for i, step in enumerate(scenario.steps)
             if "seed" in step.args}
    return {"scenario": {"file": os.path.abspath(path), "sha256": digest,
                         "name": scenario.name},
            "seed": seeds or None}


def main(args: argparse.Namespace) -> int:
    from app.atomicfile import OutputFileError
    from app.chartexport import Export, check_export, format_of, write
    from app.cli.outputs import check_outputs, files_read
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
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as e:
        return fail(str(e))
    try:
        check_outputs(files_read(args.scenario, scenario.steps), {"-o": args.output})
        check_export(args.output, fmt, args.width)
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
                        erases=machine.drive.block_views()["erases"], steps=steps)
    try:
        written = write(args.output, table, Export(fmt, args.width,
                                                   _provenance(args.scenario, scenario)))
    except OutputFileError as e:
        return fail(f"-o {e}")
    print(f"wrote {', '.join(written)}")
    return 0


def _sweep(args: argparse.Namespace, fmt: str, fail) -> int:
    """A sweep chart from a sweep's results file, with the analytic curves it recorded."""
    from app.atomicfile import OutputFileError
    from app.chartexport import Export, check_export, write
    from app.cli.outputs import check_outputs
    from model.lab.charts import sweep_table
    from model.lab.sweeprun import ResultsError, read_results

    try:
        check_outputs({"sweep results": args.scenario}, {"-o": args.output})
        check_export(args.output, fmt, args.width)
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
    with open(args.scenario, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    seeds = sorted({r["point"].get("seed") for r in records if "seed" in r.get("point", {})})
    provenance = {"sweep_results": {"file": os.path.abspath(args.scenario), "sha256": digest,
                                    "points": len(records)}, "seed": seeds or None}
    try:
        written = write(args.output, table, Export(fmt, args.width, provenance))
    except OutputFileError as e:
        return fail(f"-o {e}")
    print(f"wrote {', '.join(written)}")
    return 0
