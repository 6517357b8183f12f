"""The `ssdlab` command: the window by default, or a headless subcommand.

    ssdlab                 open the window (needs a display, or QT_QPA_PLATFORM=offscreen)
    ssdlab simulate ...    one whole-drive experiment, printed as a table or JSON
    ssdlab run FILE ...    play a scenario file; --csv/--series also write CSV files
    ssdlab chart FILE ...  play a scenario file and write its charts as PNG/SVG/PDF/CSV
    ssdlab plot R.jsonl .. any field of a sweep's results against another (ssdlab/app/cli/plot.py)
    ssdlab figures -o DIR  regenerate the gallery of reference figures
    ssdlab experiments     replay the documented experiments beside their figures
    ssdlab bench [...]     engine speed against the C reference, or (--physics) WA against
                           the analytic models
    ssdlab sweep SPEC -o F run a parameter sweep, one JSON line per run (ssdlab/app/cli/sweep.py)

Headless subcommands never import Qt. Exit status: 0 done; 2 bad input (an argument, a file,
a drive too big for memory, an output that cannot be written), with one line that names the
argument and its allowed range; 130 after Ctrl-C, with one "interrupted" line. Output files
are replaced only when complete (ssdlab/app/atomicfile.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from ssdlab.app.cli.args import (
    OneLineParser,
    existing_file,
    names,
    positive_real,
    real_between,
    whole,
    whole_list,
)
from ssdlab.model.lab.entrypoint import READER_GONE, discard_stdout, run_to_reader

# The one definition (ssdlab/model/flash/amplification.py), as --help states it.
WA_HELP = ("WA (write amplification) = flash bytes programmed / bytes the host wrote: a write "
           "that covers part of a flash page counts the whole page programmed "
           "(read-modify-write), and on a compressing (SandForce) drive flash bytes are "
           "after compression, so WA can fall below 1.")


# --data-compression's range: a scenario's host.data_compression (model/lab/schema.py)
DATA_COMPRESSION = (0.05, 1.0)


def _add_drive_writes(p) -> None:
    """The warm-up and measured drive writes, as simulate and bench both take them."""
    p.add_argument("--warmup-drive-writes", type=float, default=2.0,
                   help="drive writes before measuring, 0 to 1000 (default 2)")
    p.add_argument("--measure-drive-writes", type=float, default=2.0,
                   help="drive writes measured, above 0 and at most 1000 (default 2)")


def _add_simulate(sub) -> None:
    p = sub.add_parser("simulate", help="run one whole-drive experiment headless",
                       description="Fill a simulated drive sequentially, write W drive "
                       "writes of the workload to warm it up, then measure write "
                       f"amplification over M more. {WA_HELP}")
    p.add_argument("--user-pages", type=int, default=1 << 20,
                   help="logical capacity in pages (16 to 2^31-1; default 2^20)")
    p.add_argument("--pages-per-block", type=int, default=256,
                   help="pages per erase block (2 to 4096; default 256)")
    p.add_argument("--spare", type=float, default=0.07,
                   help="(physical - user) / physical, 0 to 0.9 (default 0.07)")
    p.add_argument("--gc", choices=("greedy", "fifo", "cost-benefit", "random-d"),
                   default="greedy", help="GC victim policy")
    p.add_argument("--d", type=int, default=2, help="blocks sampled by random-d (1 to 1024)")
    p.add_argument("--gc-frontier", choices=("separate", "shared"), default="separate",
                   help="where GC writes the pages it copies: an open block of its own "
                   "(separate, the default) or the host's open block (shared, one write "
                   "frontier, as Desnoyers' hot/cold model assumes)")
    p.add_argument("--victim-order", choices=("newest", "oldest"), default="oldest",
                   help="which block greedy GC takes among those with the same fewest valid "
                   "pages: the one that got there first (oldest, the default, as Desnoyers' "
                   "simulator does) or last (newest)")
    p.add_argument("--mapping", choices=("page", "block", "fast"), default="page",
                   help="page-mapped, block-mapped (first generation) or hybrid log-block "
                   "(FAST)")
    p.add_argument("--workload", choices=("random", "sequential", "hotcold"),
                   default="random")
    p.add_argument("--hot-lbas", type=float, default=0.2,
                   help="hotcold: fraction of logical pages that are hot (0 to 1)")
    p.add_argument("--hot-writes", type=float, default=0.8,
                   help="hotcold: fraction of writes that go to hot pages (0 to 1)")
    p.add_argument("--active-fraction", type=float, default=1.0,
                   help="fraction of logical pages the workload uses; the rest are "
                   "trimmed after the fill (0 to 1)")
    p.add_argument("--gc-low-blocks", type=int, default=2,
                   help="foreground GC runs while free blocks are at most this (1 to 64)")
    p.add_argument("--data-compression", type=real_between(*DATA_COMPRESSION), default=1.0,
                   metavar="C", help="a compressing (SandForce-style) drive: the share of "
                   "a flash page each page of data is stored in, 0.05 to 1, in hundredths of "
                   "a page (default 1, no compression); the scenarios' data_compression")
    p.add_argument("--slc-cache", choices=("none", "static", "dynamic"), default="none",
                   help="host writes land first in blocks used one bit per cell: static "
                   "(--slc-blocks kept so, out of the spare) or dynamic (those plus free "
                   "blocks borrowed, --slc-dynamic-share); page mapping and greedy GC only")
    p.add_argument("--cell-bits", type=int, default=3,
                   help="bits per cell of the dense flash: 2 MLC, 3 TLC, 4 QLC (default 3)")
    p.add_argument("--slc-blocks", type=int, default=0,
                   help="erase blocks of the static cache (0 to 2^31-1; default 0)")
    p.add_argument("--slc-dynamic-share", type=float, default=0.0,
                   help="dynamic cache: the share of the free user capacity's blocks it "
                   "may borrow, 0 to 1 (default 0)")
    p.add_argument("--placement", choices=("none", "hotcold"), default="none",
                   help="hotcold: the host tags the hotcold workload's hot pages with one "
                   "placement handle and the rest with another (streams, FDP), and the drive "
                   "keeps an open block for each; page mapping and a separate GC frontier")
    p.add_argument("--handle-gc", choices=("mixed", "isolated"), default="mixed",
                   help="with --placement: GC copies into one block for all handles (mixed, "
                   "the default) or into the victim's handle's own (isolated)")
    p.add_argument("--tag-errors", type=float, default=0.0, metavar="F",
                   help="with --placement: the share of pages the host tags wrongly, 0 to 1 "
                   "(default 0)")
    p.add_argument("--wear-leveling", type=int, default=0, metavar="GAP",
                   help="static wear levelling: move a full block's cold data when the most "
                   "worn block has GAP more erases than it, 0 to 1000000 (default 0: off); "
                   "page mapping and greedy GC only")
    p.add_argument("--zoned", action="store_true",
                   help="a zoned drive (NVMe zoned namespaces, ZNS): the host keeps its pages "
                   "in zones written in order and reset whole, and does the garbage "
                   "collection itself (greedy over zones); --spare is then the host's, "
                   "--gc-frontier where it writes its copies")
    p.add_argument("--zone-blocks", type=int, default=None, metavar="N",
                   help="with --zoned: erase blocks per zone, 1 to 4096 (default 1)")
    p.add_argument("--open-zones", type=int, default=None, metavar="N",
                   help="with --zoned: zones the drive lets be open at once, 1 to 8, each "
                   "with a placement handle of its own (default 2; 1 needs --gc-frontier "
                   "shared)")
    p.add_argument("--slc-idle-every", type=int, default=0, metavar="PAGES",
                   help="with a cache: the host pauses after every PAGES pages written and "
                   "the drive folds its full cache blocks then (0, the default: never idle)")
    _add_drive_writes(p)
    p.add_argument("--seed", type=int, default=1, help="seeds the workload and the engine "
                   "(0 to 2^63-1; default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _add_bench(sub) -> None:
    p = sub.add_parser("bench", help="measure engine speed, or WA against theory",
                       description="Without --physics: host page writes per second and "
                       "peak memory, beside the plain C reference loop when it can be "
                       "built. With --physics: simulated WA against ssdlab/model/flash/theory/.")
    p.add_argument("--physics", action="store_true")
    p.add_argument("--tib", action="store_true",
                   help="simulate a 1 TiB drive (2^28 pages of 4 KiB) in one process and "
                   "print its peak memory against 2.5 GiB; takes several minutes, with "
                   "progress, and Ctrl-C stops it")
    p.add_argument("--scenarios", action="store_true",
                   help="time every shipped scenario, whole and split into build, host "
                   "stack and engine (CPU seconds, medians of --repeat)")
    p.add_argument("--against", metavar="DIR", default=None,
                   help="--scenarios: another checkout of SSD Lab timed beside this one, "
                   "alternating, with ratios. This runs DIR's code (its ssdlab and "
                   "scenario timing) as you: name only a checkout you trust")
    p.add_argument("--only", metavar="TEXT", default=None,
                   help="--physics: run only the cases whose name contains TEXT, such as "
                   "'greedy hot/cold' or '90/5 shared'; --scenarios: only the scenarios "
                   "whose file name contains TEXT")
    p.add_argument("--victim-order", choices=("newest", "oldest"), default="oldest",
                   help="which block greedy GC takes among equally empty ones, in the "
                   "physics and speed cases (default oldest)")
    p.add_argument("--repeat", type=whole(1, 100), default=3,
                   help="runs per case, 1 to 100; medians are quoted")
    p.add_argument("--sizes", type=whole_list(15, 30), default="20,24",
                   help="log2 of user pages for the speed cases, comma separated, each 15 to "
                   "30 (default 20,24)")
    p.add_argument("--user-pages", type=int, default=1 << 22,
                   help="--physics: user pages, 16 to 2^31-1 and enough for the spare "
                   "range (default 2^22)")
    _add_drive_writes(p)
    p.add_argument("--reference", type=existing_file, default=None,
                   help="path to ref_ftl.c (default: ../shared/reference/ref_ftl.c "
                   "beside the checkout); the file is compiled with gcc and run with your "
                   "rights, so name only a C file you trust")
    p.add_argument("--jobs", type=whole(0, 256), default=0,
                   help="--physics: parallel processes, 1 to 256 (default 0: one per core)")
    p.add_argument("--json", action="store_true")


def _add_run(sub) -> None:
    p = sub.add_parser("run", help="play a scenario file (drive, file system, steps)",
                       description="Play every step of a scenario file and print, per "
                       "step, file-system MB, host MB, NAND MB, WA, TRIMs, cache flushes, "
                       f"simulated seconds and MB/s; --json adds the time series. {WA_HELP}")
    p.add_argument("scenario", help="a scenario TOML file (see ssdlab/assets/scenarios/)")
    p.add_argument("--json", action="store_true", help="print the steps as JSON")
    p.add_argument("--csv", metavar="FILE", help="also write the steps as CSV to FILE")
    p.add_argument("--series", metavar="FILE", help="also write the time series (counters "
                   "every --series-every simulated seconds) as CSV to FILE")
    p.add_argument("--series-every", metavar="S", type=positive_real, default=None,
                   help="simulated seconds between time-series rows, above 0 (default: "
                   "from the run's length, 1, 2 or 5 x 10^k s for 80 to 200 rows)")


def _add_experiments(sub) -> None:
    p = sub.add_parser("experiments", help="replay every documented experiment",
                       description="Replay the documented experiments and put each "
                       "documented figure beside the simulated one.")
    p.add_argument("--only", type=names(_experiment_names), default=None,
                   help="comma-separated names of the experiments to run (default: all); a "
                   "name that is not one lists those that are")
    p.add_argument("--json", action="store_true")


def _experiment_names() -> list[str]:
    # Imported only when --only is given: the experiments pull in the whole model.
    from ssdlab.model.lab.experiments import EXPERIMENTS

    return list(EXPERIMENTS)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="ssdlab", description="SSD Lab: watch write "
                           "amplification happen. With no subcommand, opens the window.",
                           epilog="Code from outside: the compiled engine is loaded from "
                           "numba's cache (pickles, see `ssdlab prepare --help`), and "
                           "`bench --against DIR` runs DIR's code.")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)
    _add_simulate(sub)
    _add_bench(sub)
    _add_run(sub)
    _add_experiments(sub)
    from ssdlab.app.cli import lessons, sweep

    lessons.add_parser(sub)
    sweep.add_parser(sub)
    from ssdlab.app.cli import chart, plot

    chart.add_parser(sub)
    plot.add_parser(sub)
    from ssdlab.app.cli import figures

    figures.add_parser(sub)
    from ssdlab.app.cli import prepare

    prepare.add_parser(sub)
    parser.subcommands = list(sub.choices)  # named in the no-display message
    return parser


# fs MB: what the file system wrote (ext4's lifetime_write_kbytes); host MB: what reached
# the drive, raw writes (an image restore, a trace) included; MB/s: host MB per second
STEP_COLUMNS = ("step", "fs MB", "host MB", "NAND MB", "WA", "TRIMs", "flushes", "sim s",
                "MB/s")


def _step_cells(r) -> list[str]:
    wa = "-" if r.wa != r.wa else f"{r.wa:.3f}"
    mbs = "-" if r.mb_s != r.mb_s else f"{r.mb_s:.1f}"
    return [r.name, f"{r.fs_written_mb:.1f}", f"{r.device_written_mb:.1f}",
            f"{r.nand_written_mb:.1f}", wa, str(r.trims), str(r.flushes), f"{r.seconds:.3f}",
            mbs]


def _run(args: argparse.Namespace) -> int:
    from ssdlab.model.lab.collector import collector_paused

    with collector_paused():  # from before the simulator's imports (collector.py)
        return _play(args)


def _play(args: argparse.Namespace) -> int:
    from ssdlab.app.cli.outputs import OutputFileError, check_outputs, files_read, write_csvs
    from ssdlab.model.lab.scenario import ScenarioError, build_machine, load_scenario, run_scenario
    from ssdlab.model.lab.series import COLUMNS, Series
    from ssdlab.model.lab.steps import Context, StepError

    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as e:
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 2
    try:
        check_outputs(files_read(args.scenario, scenario.steps),
                      {"--csv": args.csv, "--series": args.series})
    except OutputFileError as e:
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 2
    if not args.json:
        print(f"{scenario.name}  ({scenario.profile}, partition at sector "
              f"{scenario.partition.start_sector})")
        stored = _stored_fraction(scenario)
        if stored < 1.0:
            print(f"WA counts compressed flash bytes: this drive compresses, storing data at "
                  f"{stored:.2f} of its size, so WA can fall below 1")
        print("  ".join(f"{c:>10s}" for c in STEP_COLUMNS))
    show = sys.stderr.isatty() and not args.json
    context = Context()
    replays: list[dict] = []  # each replay step's report, with its step number

    def on_step(i: int, r) -> None:
        if show:
            print("\r\033[K", end="", file=sys.stderr, flush=True)  # clear the progress line
        for rep in context.replays[len(replays):]:  # dropped requests warn, never silently
            replays.append({"step": i + 1, **rep})
            if rep["dropped"] or rep["unreadable"]:
                print(f"ssdlab run: warning: step {i + 1}: {rep['summary']}", file=sys.stderr)
        if not args.json:
            print("  ".join(f"{c:>10s}" for c in _step_cells(r)), flush=True)
        elif show:
            print(f"step {i + 1}/{len(scenario.steps)} done", file=sys.stderr)

    def progress(i: int, label: str, done: int, total: int, unit: str) -> None:
        print(f"\rstep {i + 1}/{len(scenario.steps)} {label}: {done:,} of {total:,} {unit} "
              f"({100 * done / max(1, total):.0f} %)", end="", file=sys.stderr, flush=True)

    try:
        series = Series(build_machine(scenario), args.series_every)
        results = run_scenario(scenario, on_step, progress=progress if show else None,
                               series=series, context=context)
    except (ScenarioError, StepError) as e:  # bad input found at load or at run time
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise  # the reader of the rows went away (main ends quietly), not a bad drive
    except (OSError, ValueError) as e:  # e.g. a drive refused for memory when it is built
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 2
    rows = [r.as_dict() for r in results]
    if args.json:
        print(json.dumps({"scenario": scenario.name, "steps": rows,
                          "series": series.as_dicts(), "replays": replays}))
    tables = [("--csv", args.csv, list(rows[0]), rows),
              ("--series", args.series, COLUMNS, series.as_dicts())]
    try:
        write_csvs([t for t in tables if t[1]])
    except OutputFileError as e:
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 2
    return 0


def _stored_fraction(scenario) -> float:
    """The share of its size data keeps in flash on the scenario's drive (1.0: none)."""
    from ssdlab.model.host.profiles import load_profile

    ratio = load_profile(scenario.profile).compression_ratio
    if ratio < 1.0 and scenario.data_compression is not None:
        return scenario.data_compression
    return ratio


def _experiments(args: argparse.Namespace) -> int:
    import math

    from ssdlab.lessons.articles import source_words
    from ssdlab.model.lab.experiments import run_all

    progress = (lambda name: print(f"running {name} ...", file=sys.stderr, flush=True)) \
        if sys.stderr.isatty() else None
    rows = run_all(args.only, progress)
    if args.json:
        # A figure documented only in words has no number: null in JSON.
        print(json.dumps([{**r.as_dict(), "documented": None
                           if math.isnan(r.documented) else r.documented} for r in rows]))
        return 0
    for r in rows:
        doc = "(in words)" if math.isnan(r.documented) else f"{r.documented:g} {r.unit}"
        mark = "agrees" if r.agrees else "DIFFERS"
        # Articles are named in words on screen (issue 21); the JSON keeps the ids.
        print(f"[{source_words(r.source)}] {r.experiment}\n    {r.quantity}: documented "
              f"{doc}, simulated {r.simulated:.3g} {r.unit} ({r.basis}; {r.check}: {mark})\n"
              f"    why: {r.why}")
    agree = sum(r.agrees for r in rows)
    print(f"\n{agree} of {len(rows)} rows agree with the documented figures")
    return 0


def _display_missing() -> bool:
    """True where Qt needs an X11 or Wayland display and none is named, so opening the
    window would abort (status 134) instead of saying what to do."""
    if sys.platform in ("win32", "darwin", "cygwin"):
        return False
    return not any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ssdlab.app.cli import prepare

    if args.command == "prepare":
        return prepare.main(args)
    if prepare.needs_engine(args):
        try:
            prepare.ensure_compiled(args.command)
        except RuntimeError as e:  # the command compiles on first use instead, and says why
            print(f"ssdlab {args.command}: warning: {e}", file=sys.stderr)
    if args.command == "simulate":
        from ssdlab.app.cli.simulate import simulate

        return simulate(args)
    if args.command == "run":
        return _run(args)
    if args.command == "experiments":
        return _experiments(args)
    if args.command == "lesson":
        from ssdlab.app.cli import lessons

        return lessons.main(args)
    if args.command == "sweep":
        from ssdlab.app.cli import sweep

        return sweep.main(args)
    if args.command == "chart":
        from ssdlab.app.cli import chart

        return chart.main(args)
    if args.command == "plot":
        from ssdlab.app.cli import plot

        return plot.main(args)
    if args.command == "figures":
        from ssdlab.app.cli import figures

        return figures.main(args)
    if args.command == "bench":
        from ssdlab.app.cli import bench

        return bench.main(args)
    if _display_missing():
        commands = ", ".join(parser.subcommands)
        print(f"ssdlab: error: the window needs a display and none is set (DISPLAY, "
              f"WAYLAND_DISPLAY); run a headless subcommand ({commands}; see ssdlab --help), "
              "or open the window off screen with QT_QPA_PLATFORM=offscreen", file=sys.stderr)
        return 2
    from ssdlab.app.gui.launch import launch

    return launch([sys.argv[0]])


def main(argv: Sequence[str] | None = None) -> int:
    return run_to_reader(lambda: _main(argv))


def window() -> int:
    """The `ssdlab-window` entry point: the window, as a bare `ssdlab` opens it."""
    return main([])


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    command = None
    try:
        args = parser.parse_args(argv)
        command = args.command
        return _dispatch(parser, args)
    except KeyboardInterrupt:
        # One place for Ctrl-C, wherever it lands (loading, running, a worker pool): each
        # subcommand writes its output files only whole (ssdlab/app/atomicfile.py) and stops its
        # own child processes as the exception passes through.
        name = "ssdlab" + (f" {command}" if command else "")
        end_progress_line = "\n" if sys.stderr.isatty() else ""
        print(f"{end_progress_line}{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away mid-output (`ssdlab experiments | head`): nothing left to say
        # to it, and Python's final flush of stdout must not fail again.
        discard_stdout()
        return READER_GONE
    except MemoryError:
        name = "ssdlab" + (f" {command}" if command else "")
        print(f"{name}: error: out of memory; choose a smaller drive or free memory",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
