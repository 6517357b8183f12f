"""The `ssdlab` command: the window by default, or a headless subcommand.

    ssdlab                 open the window
    ssdlab simulate ...    one whole-drive experiment, printed as a table or JSON
    ssdlab bench [...]     engine speed against the C reference, or (--physics) WA against
                           the analytic models

Headless subcommands never import Qt. Bad arguments exit with status 2 and one line that
names the argument and its allowed range.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

# Model field names as the command line spells them, for error messages.
_FLAG_NAMES = {
    "user_pages": "--user-pages",
    "pages_per_block": "--pages-per-block",
    "spare": "--spare",
    "gc_low_blocks": "--gc-low-blocks",
    "d ": "--d ",
    "hot_lbas": "--hot-lbas",
    "hot_writes": "--hot-writes",
    "active_fraction": "--active-fraction",
    "warmup-drive-writes": "--warmup-drive-writes",
    "measure-drive-writes": "--measure-drive-writes",
    "seed": "--seed",
}


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{self.prog}: error: {message}\n")


def _flagged(message: str) -> str:
    for field, flag in _FLAG_NAMES.items():
        if message.startswith(field):
            return flag + message[len(field):]
    return message


def _add_simulate(sub) -> None:
    p = sub.add_parser("simulate", help="run one whole-drive experiment headless",
                       description="Fill a simulated drive sequentially, write W drive "
                       "writes of the workload to warm it up, then measure write "
                       "amplification over M more.")
    p.add_argument("--user-pages", type=int, default=1 << 20,
                   help="logical capacity in pages (16 to 2^31-1; default 2^20)")
    p.add_argument("--pages-per-block", type=int, default=256,
                   help="pages per erase block (2 to 4096; default 256)")
    p.add_argument("--spare", type=float, default=0.07,
                   help="(physical - user) / physical, 0 to 0.9 (default 0.07)")
    p.add_argument("--gc", choices=("greedy", "fifo", "cost-benefit", "random-d"),
                   default="greedy", help="GC victim policy")
    p.add_argument("--d", type=int, default=2, help="blocks sampled by random-d (1 to 1024)")
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
    p.add_argument("--warmup-drive-writes", type=float, default=2.0)
    p.add_argument("--measure-drive-writes", type=float, default=2.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _add_bench(sub) -> None:
    p = sub.add_parser("bench", help="measure engine speed, or WA against theory",
                       description="Without --physics: host page writes per second and "
                       "peak memory, beside the plain C reference loop when it can be "
                       "built. With --physics: simulated WA against model/flash/theory.py.")
    p.add_argument("--physics", action="store_true")
    p.add_argument("--repeat", type=int, default=3, help="runs per case; medians are quoted")
    p.add_argument("--sizes", default="20,24",
                   help="log2 of user pages for the speed cases, comma separated")
    p.add_argument("--user-pages", type=int, default=1 << 22,
                   help="--physics: user pages (default 2^22)")
    p.add_argument("--warmup-drive-writes", type=float, default=2.0)
    p.add_argument("--measure-drive-writes", type=float, default=2.0)
    p.add_argument("--reference", default=None,
                   help="path to ref_ftl.c (default: ../shared/reference/ref_ftl.c "
                   "beside the checkout)")
    p.add_argument("--jobs", type=int, default=0,
                   help="--physics: parallel processes (default: one per core)")
    p.add_argument("--json", action="store_true")


def _add_run(sub) -> None:
    p = sub.add_parser("run", help="play a scenario file (drive, file system, steps)",
                       description="Play every step of a scenario file and print, per "
                       "step, file-system MB, host MB, NAND MB, WA, TRIMs, cache flushes, "
                       "simulated seconds and MB/s; --json adds the time series.")
    p.add_argument("scenario", help="a scenario TOML file (see assets/scenarios/)")
    p.add_argument("--json", action="store_true", help="print the steps as JSON")
    p.add_argument("--csv", metavar="FILE", help="also write the steps as CSV to FILE")
    p.add_argument("--series", metavar="FILE", help="also write the time series (counters "
                   "every --series-every simulated seconds) as CSV to FILE")
    p.add_argument("--series-every", metavar="S", type=float, default=1.0,
                   help="simulated seconds between time-series rows (default 1)")


def _add_experiments(sub) -> None:
    p = sub.add_parser("experiments", help="replay every documented experiment",
                       description="Replay the documented experiments and put each "
                       "documented figure beside the simulated one.")
    p.add_argument("--only", default="", help="comma-separated experiment names: "
                   "discard, fstrim, journal, alignment, x25m, corsair, vertex60")
    p.add_argument("--json", action="store_true")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="ssdlab", description="SSD Lab: watch write "
                            "amplification happen. With no subcommand, opens the window.")
    sub = parser.add_subparsers(dest="command", parser_class=_OneLineParser)
    _add_simulate(sub)
    _add_bench(sub)
    _add_run(sub)
    _add_experiments(sub)
    return parser


def _progress_printer():
    """A progress callback that redraws one stderr line, or None when stderr is no
    terminal (so logs and pipes stay clean)."""
    if not sys.stderr.isatty():
        return None
    last = {"text": ""}

    def show(phase: str, fraction: float) -> None:
        text = f"\r{phase:8s} {100 * fraction:5.1f} %"
        if text != last["text"]:
            sys.stderr.write(text)
            sys.stderr.flush()
            last["text"] = text

    return show


def _simulate(args: argparse.Namespace) -> int:
    from model.flash.geometry import FtlConfig, Geometry, check_buildable
    from model.flash.runner import RunSpec, run
    from model.flash.workloads import Workload

    try:
        geometry = Geometry(user_pages=args.user_pages, pages_per_block=args.pages_per_block,
                            spare=args.spare)
        config = FtlConfig(mapping=args.mapping, gc=args.gc, d=args.d,
                           gc_low_blocks=args.gc_low_blocks, seed=args.seed % 2**63)
        workload = Workload(kind=args.workload, hot_lba_fraction=args.hot_lbas,
                            hot_write_fraction=args.hot_writes,
                            active_fraction=args.active_fraction)
        spec = RunSpec(geometry, config, workload, args.warmup_drive_writes,
                       args.measure_drive_writes, seed=args.seed)
        check_buildable(geometry, config)
    except ValueError as e:
        print(f"ssdlab simulate: error: {_flagged(str(e))}", file=sys.stderr)
        return 2
    progress = _progress_printer()
    try:
        result = run(spec, progress)
    except KeyboardInterrupt:
        print("\nssdlab simulate: stopped", file=sys.stderr)
        return 130
    finally:
        if progress is not None:
            sys.stderr.write("\r" + " " * 24 + "\r")
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        print(_simulate_table(result))
    return 0


def _simulate_table(r) -> str:
    theory = "no model" if r.theory_wa is None else (
        f"{r.theory_wa:.4f}; {r.theory_wa_usable:.4f} counting the {r.reserve_blocks} blocks "
        "GC holds back")
    rows = [
        ("drive", f"{r.user_pages} user pages, {r.physical_pages} physical, "
                  f"{r.blocks} blocks of {r.pages_per_block}"),
        ("over-provisioning", f"{100 * r.spare:.2f} % of physical = "
                              f"{100 * r.extra_of_user:.2f} % of user capacity"),
        ("policy", f"{r.gc}" + (f" (d={r.d})" if r.gc == "random-d" else "")
         + f", {r.mapping}-mapped, {r.workload} writes"),
        ("write amplification", f"{r.wa:.4f}  (analytic: {theory})"),
        ("per window", " ".join(f"{w:.3f}" for w in r.wa_windows)),
        ("host / NAND writes", f"{r.host_writes} / {r.nand_writes} pages"),
        ("GC copies, erases", f"{r.gc_copies}, {r.erases}"),
        ("engine speed", f"{r.host_writes_per_second / 1e6:.2f} M host writes/s "
                         f"({r.seconds:.2f} s measured)"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


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
    import csv

    from model.lab.scenario import ScenarioError, build_machine, load_scenario, run_scenario
    from model.lab.series import COLUMNS, Series
    from model.lab.steps import Context

    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as e:
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 2
    if not args.series_every > 0:
        print(f"ssdlab run: error: --series-every must be above 0 simulated seconds; got "
              f"{args.series_every:g}", file=sys.stderr)
        return 2
    for flag, out in (("--csv", args.csv), ("--series", args.series)):
        if out:
            try:
                open(out, "w").close()
            except OSError as e:
                print(f"ssdlab run: error: {flag} {out} cannot be written: {e.strerror}",
                      file=sys.stderr)
                return 2
    if not args.json:
        print(f"{scenario.name}  ({scenario.profile}, partition at sector "
              f"{scenario.partition.start_sector})")
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
    except KeyboardInterrupt:
        print("\nssdlab run: stopped", file=sys.stderr)
        return 130
    except ScenarioError as e:  # a step's bad input (a trace with nothing to replay ...)
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print(f"ssdlab run: error: {e}", file=sys.stderr)
        return 1
    rows = [r.as_dict() for r in results]
    if args.json:
        print(json.dumps({"scenario": scenario.name, "steps": rows,
                          "series": series.as_dicts(), "replays": replays}))
    for out, fields, data in ((args.csv, list(rows[0]), rows),
                              (args.series, list(COLUMNS), series.as_dicts())):
        if out:
            with open(out, "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=fields)
                writer.writeheader()
                writer.writerows(data)
    return 0


def _experiments(args: argparse.Namespace) -> int:
    import math

    from model.lab.experiments import EXPERIMENTS, run_all

    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = [x for x in only if x not in EXPERIMENTS]
    if unknown:
        print(f"ssdlab experiments: error: --only must name experiments among "
              f"{', '.join(EXPERIMENTS)}; got {', '.join(unknown)}", file=sys.stderr)
        return 2
    progress = (lambda name: print(f"running {name} ...", file=sys.stderr, flush=True)) \
        if sys.stderr.isatty() else None
    try:
        rows = run_all(only or None, progress)
    except KeyboardInterrupt:
        print("\nssdlab experiments: stopped", file=sys.stderr)
        return 130
    if args.json:
        # A figure documented only in words has no number: null in JSON.
        print(json.dumps([{**r.as_dict(), "documented": None
                           if math.isnan(r.documented) else r.documented} for r in rows]))
        return 0
    for r in rows:
        doc = "(in words)" if math.isnan(r.documented) else f"{r.documented:g} {r.unit}"
        mark = "agrees" if r.agrees else "DIFFERS"
        print(f"[{r.source}] {r.experiment}\n    {r.quantity}: documented {doc}, simulated "
              f"{r.simulated:.3g} {r.unit} ({r.basis}; {r.check}: {mark})\n    why: {r.why}")
    agree = sum(r.agrees for r in rows)
    print(f"\n{agree} of {len(rows)} rows agree with the documented figures")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    if args.command == "simulate":
        return _simulate(args)
    if args.command == "run":
        return _run(args)
    if args.command == "experiments":
        return _experiments(args)
    if args.command == "bench":
        from app.cli import bench

        return bench.main(args)
    from app.gui.launch import launch

    return launch([sys.argv[0]])


if __name__ == "__main__":
    sys.exit(main())
