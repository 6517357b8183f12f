"""`ssdlab bench`: numbers, never verdicts from timed unit tests.

Speed: each case runs in its own process (so peak memory is that case's alone), `repeat`
times; medians are printed beside the plain C loop in ../shared/reference/ref_ftl.c and the
same loop with software prefetching (ref_ftl_prefetch.c), built with gcc -O2 and run with the
same parameters in the same session, as ratios; when a source or gcc is missing or a build
fails, the output says which (and so does each row's "c_reference" in --json).
Physics (--physics): simulated WA against ssdlab/model/flash/theory/ over the spare range
(ssdlab/app/cli/physics.py).
"""

from __future__ import annotations

import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ssdlab.app.cli import scenariobench
from ssdlab.app.cli.physics import job_count, physics, physics_specs

REPO = Path(__file__).resolve().parents[3]  # the checkout holding ssdlab/
DEFAULT_REFERENCE = REPO.parent / "shared" / "reference" / "ref_ftl.c"
# The same loop with software prefetching: the practical single-core limit to compare with.
PREFETCH_REFERENCE = REPO.parent / "shared" / "reference" / "ref_ftl_prefetch.c"
# (name, spare, GC policy, hot/cold (hot LBA share, hot write share) or None, stored
# fraction). Spare None: the sequential fill alone. The C loops run uniform random writes of
# incompressible data under greedy or FIFO, so a hot/cold or compressed case has no C figure
# beside it. The compressed cases sit beside "random greedy": the same drive and writes, the
# data stored at half or a third of a page (FtlConfig.stored_fraction), so each host write
# costs GC less; WA is flash bytes per host byte. The SLC cache case too: a QLC drive with a
# static cache of 1 % of its blocks (out of the spare) and a dynamic one of a tenth of the
# unwritten capacity, the cache folded after each chunk of writes (slccache.py). Placement:
# the even pages tagged with one handle and the odd with another, GC isolated per handle
# (the handles' own path through the engine, on the same writes). Wear levelling at a gap
# of 64 erases.
SPEED_CASES = (
    ("sequential fill", None, "greedy", None, 1.0),
    ("random greedy", 0.07, "greedy", None, 1.0),
    ("random greedy", 0.28, "greedy", None, 1.0),
    ("random fifo", 0.07, "fifo", None, 1.0),
    ("hot/cold 90/10 greedy", 0.07, "greedy", (0.1, 0.9), 1.0),
    ("greedy stored 0.5", 0.07, "greedy", None, 0.5),
    ("greedy stored 0.3", 0.07, "greedy", None, 0.3),
    ("greedy SLC cache (QLC)", 0.07, "greedy", None, 1.0),
    ("greedy placement (2 handles)", 0.07, "greedy", None, 1.0),
    ("greedy wear levelling (gap 64)", 0.07, "greedy", None, 1.0),
)
SLC_CASES = {"greedy SLC cache (QLC)": {"slc_cache": "dynamic", "cell_bits": 4,
                                        "slc_dynamic_share": 0.1}}
# The cases beside "random greedy" at the same spare, each with its on/off column's key
ON_OFF = {"greedy SLC cache (QLC)": "slc_ratio",
          "greedy placement (2 handles)": "placement_ratio",
          "greedy wear levelling (gap 64)": "wear_leveling_ratio"}
EXTRA_CONFIG = {"greedy placement (2 handles)": {"placement_handles": 2,
                                                 "handle_gc": "isolated"},
                "greedy wear levelling (gap 64)": {"wear_leveling_gap": 64}}
SLC_STATIC_SHARE = 0.01  # of the drive's blocks


def case_config(name: str, gc: str, stored: float, geometry, victim_order: str = "oldest"):
    """The FtlConfig of speed case name on a drive of this geometry."""
    from ssdlab.model.flash.geometry import FtlConfig

    slc = SLC_CASES.get(name, {})
    if slc:
        slc = {**slc, "slc_blocks": max(1, int(SLC_STATIC_SHARE * geometry.blocks))}
    return FtlConfig(gc=gc, victim_order=victim_order, stored_fraction=stored, **slc,
                     **EXTRA_CONFIG.get(name, {}))
# The 1 TiB drive (--tib): 2^28 pages of 4 KiB in one process, within this peak RSS.
TIB_LOG2_PAGES = 28
TIB_PEAK_LIMIT_BYTES = int(2.5 * 2**30)
# Host writes per call into the engine: the lpn arrays stay small beside a big drive's maps.
WRITE_CHUNK_PAGES = 1 << 22


class BenchError(Exception):
    """A case or the C reference failed to run; the message is one line saying which."""


def _child(cmd: list[str], what: str, **kwargs) -> subprocess.CompletedProcess:
    """Run a helper process in its own process group, so a Ctrl-C at the terminal reaches
    only this process, which stops the child (subprocess.run kills it on any exception) and
    reports the interruption once, instead of every child printing its own traceback."""
    done = subprocess.run(cmd, capture_output=True, text=True, process_group=0, **kwargs)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise BenchError(f"{what} failed with status {done.returncode}"
                         + (f": {lines[-1]}" if lines else ""))
    return done


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _speed_case(name: str, spare: float | None) -> tuple:
    return next(c for c in SPEED_CASES if c[0] == name and c[1] == spare)


def _write_random(drive, rng, pages: int, hot_cold: tuple | None,
                  progress=None) -> float:
    """pages host writes, uniform or hot/cold, in chunks of WRITE_CHUNK_PAGES; returns the
    seconds spent in the engine (drawing the pages is not timed: the C loops' xorshift is
    a few instructions)."""
    from ssdlab.model.flash.workloads import hot_cold_pages

    user = drive.geometry.user_pages
    done = 0
    engine_s = 0.0
    while done < pages:
        n = min(WRITE_CHUNK_PAGES, pages - done)
        if hot_cold is None:
            lpns = rng.integers(0, user, size=n)
        else:
            lpns = hot_cold_pages(user, n, hot_cold[0], hot_cold[1], rng)
        t0 = time.perf_counter()
        drive.write_pages(lpns)
        drive.fold(2**31 - 1)  # an SLC cache folds in the idle time between chunks
        engine_s += time.perf_counter() - t0
        done += n
        if progress is not None:
            progress(done / pages)
    return engine_s


def run_speed_case(name: str, log2_pages: int, spare: float | None, progress=None,
                   victim_order: str = "oldest") -> dict:
    """One speed case in this process: host writes per second of the timed part (one drive
    write after a sequential fill and a one-drive-write warm-up). progress(phase, fraction),
    if given, hears how far each phase is."""
    import numpy as np

    from ssdlab.model.flash.drive import Drive, window_wa
    from ssdlab.model.flash.geometry import Geometry
    from ssdlab.model.flash.workloads import sequential_fill

    _, _, gc, hot_cold, stored = _speed_case(name, spare)
    user = 1 << log2_pages
    report = (lambda phase: None) if progress is None else (
        lambda phase: lambda fraction: progress(phase, fraction))
    # Load the compiled engine from numba's cache on a tiny drive first: the fill's time
    # is the engine's, not the loading's.
    small = Geometry(user_pages=1024, pages_per_block=16, spare=0.25)
    tiny = Drive(small, case_config(name, gc, stored, small, victim_order))
    tiny.run(sequential_fill(1024))
    tiny.write_pages(np.arange(64))
    tiny.fold(1)
    del tiny
    rss_before = _peak_rss_bytes()
    geometry = Geometry(user_pages=user, spare=0.07 if spare is None else spare)
    drive = Drive(geometry, case_config(name, gc, stored, geometry, victim_order))
    if drive.config.placement_handles > 1:  # even pages one handle, odd the other
        drive.set_tags(np.arange(user, dtype=np.int64) & 1)
    t0 = time.perf_counter()
    fill = sequential_fill(user)
    for i in range(len(fill)):
        drive.run(fill.slice(i, i + 1))
        if progress is not None:
            progress("fill", (i + 1) / len(fill))
    fill_s = time.perf_counter() - t0
    out = {"case": name, "log2_pages": log2_pages, "spare": spare, "gc": gc,
           "state_bytes": drive.geometry.state_bytes(stored_fraction=stored)}
    if spare is None:
        out.update(host_writes=user, seconds=fill_s)
    else:
        rng = np.random.default_rng(1)
        _write_random(drive, rng, user, hot_cold, report("warmup"))
        before = drive.counters()
        seconds = _write_random(drive, rng, user, hot_cold, report("measure"))
        after = drive.counters()
        out.update(host_writes=user, seconds=seconds, fill_seconds=fill_s,
                   wa=window_wa(before, after, drive.stored_fraction))
    out["host_writes_per_second"] = out["host_writes"] / out["seconds"]
    out["peak_rss_bytes"] = _peak_rss_bytes()
    out["peak_rss_start_bytes"] = rss_before
    return out


def run_host_stack_case() -> dict:
    """Wall-clock seconds to simulate seeds 000/001 on the full 100 GB Vertex LE: unpack the
    kernel tree, sync, rm -rf, sync (with discard), file system and FTL together."""
    from ssdlab.model.host.filesystem import FsOptions
    from ssdlab.model.host.filetree import kernel_tree_on_disk
    from ssdlab.model.host.fsworkloads import remove_tree, unpack
    from ssdlab.model.host.machine import Machine
    from ssdlab.model.host.profiles import load_host_profile, load_profile

    files = kernel_tree_on_disk()
    t0 = time.perf_counter()
    m = Machine(load_profile("ocz_vertex_le_100"), load_host_profile("host_phenom2_x4_965"),
                FsOptions(discard=True))
    built = time.perf_counter()
    unpack(m, files)
    m.sync()
    remove_tree(m)
    m.sync()
    done = time.perf_counter()
    return {"case": "kernel tree unpack + rm -rf, 100 GB drive", "build_s": built - t0,
            "workload_s": done - built, "simulated_s": m.clock,
            "peak_rss_bytes": _peak_rss_bytes()}


def _subprocess_case(name: str, log2_pages: int, spare: float | None,
                     victim_order: str = "oldest") -> dict:
    call = ("run_host_stack_case()" if name == "host stack"
            else f"run_speed_case({name!r}, {log2_pages}, {spare!r}, "
                 f"victim_order={victim_order!r})")
    code = f"import json, sys; from ssdlab.app.cli.bench import *; print(json.dumps({call}))"
    done = _child([sys.executable, "-c", code], f"bench case {name!r}", cwd=REPO)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _print_step(what: str) -> None:
    sys.stderr.write(f"\r\033[K{what}")
    sys.stderr.flush()


def _print_progress(phase: str, fraction: float) -> None:
    sys.stderr.write(f"\r{phase:8s} {100 * fraction:5.1f} %")
    sys.stderr.flush()


def run_tib_case() -> dict:
    """The 1 TiB drive in this process, progress on stderr when it is a terminal."""
    show = _print_progress if sys.stderr.isatty() else None
    out = run_speed_case("random greedy", TIB_LOG2_PAGES, 0.07, show)
    if show is not None:
        sys.stderr.write("\r" + " " * 24 + "\r")
    return out


def tib(args) -> dict:
    """`--tib`: simulate a 1 TiB drive (2^28 pages of 4 KiB, spare 0.07, greedy) in a child
    process of its own and print its peak RSS against TIB_PEAK_LIMIT_BYTES. The child's
    progress line passes through to this terminal; Ctrl-C stops it (subprocess.run kills
    the child on the way out)."""
    code = ("import json; from ssdlab.app.cli.bench import run_tib_case; "
            "print(json.dumps(run_tib_case()))")
    if not args.json:
        print("1 TiB drive: 2^28 pages of 4 KiB, spare 0.07, greedy; fill, one drive write of "
              "warm-up, one measured (several minutes)", flush=True)
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                          process_group=0, cwd=REPO)
    if done.returncode != 0:
        raise BenchError(f"the 1 TiB case failed with status {done.returncode}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["peak_rss_limit_bytes"] = TIB_PEAK_LIMIT_BYTES
    row["within_limit"] = row["peak_rss_bytes"] <= TIB_PEAK_LIMIT_BYTES
    if not args.json:
        verdict = "within" if row["within_limit"] else "ABOVE"
        print(f"1 TiB drive ({row['state_bytes'] / 2**30:.2f} GiB of engine state): peak RSS "
              f"{row['peak_rss_bytes'] / 2**30:.2f} GiB, {verdict} the "
              f"{TIB_PEAK_LIMIT_BYTES / 2**30:.1f} GiB limit; fill "
              f"{2**TIB_LOG2_PAGES / row['fill_seconds'] / 1e6:.2f} M/s, random greedy "
              f"{row['host_writes_per_second'] / 1e6:.2f} M host writes/s, WA "
              f"{row['wa']:.4f}", flush=True)
    return row


def _build_reference(source: Path, folder: str) -> tuple[Path | None, str]:
    """A C reference built with gcc -O2, or None; and one line saying which, and if not
    built, what was missing or what failed."""
    if not source.is_file():
        return None, f"C reference not run: {source} not found"
    if shutil.which("gcc") is None:
        return None, "C reference not run: gcc not found on PATH"
    exe = Path(folder) / source.stem
    try:
        _child(["gcc", "-O2", "-o", str(exe), str(source)], f"gcc -O2 {source}")
    except BenchError as e:
        return None, f"C reference not run: {e}"
    return exe, f"C reference: {source} built with gcc -O2"


def _reference_run(exe: Path, log2_pages: int, spare: float, gc: str) -> dict:
    done = _child([str(exe), str(1 << log2_pages), "256", str(spare), "1", "1", gc],
                  "the C reference")
    fields = dict(re.findall(r"(\w+)=([\d.]+)", done.stdout))
    if "wa" not in fields or "mwps" not in fields:
        raise BenchError("the C reference printed no wa= and mwps= figures")
    return {"wa": float(fields["wa"]), "host_writes_per_second": float(fields["mwps"]) * 1e6}


def _median(values: list[float]) -> float:
    return statistics.median(values)


def speed(args) -> list[dict]:
    reference = Path(args.reference) if args.reference else DEFAULT_REFERENCE
    _subprocess_case("sequential fill", 16, None)  # compile or load the engine once
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        exe, note = _build_reference(reference, tmp)
        # The prefetching loop sits beside the plain one, wherever --reference points.
        exe_pf, note_pf = _build_reference(reference.with_name(PREFETCH_REFERENCE.name), tmp)
        if not args.json:
            print(note, flush=True)
            print(note_pf, flush=True)
        for log2 in args.sizes:
            for name, spare, gc, hot_cold, stored in SPEED_CASES:
                runs = []
                refs = []
                refs_pf = []
                has_c = (spare is not None and hot_cold is None and stored == 1.0
                         and name not in ON_OFF)
                for _ in range(args.repeat):
                    runs.append(_subprocess_case(name, log2, spare, args.victim_order))
                    if exe is not None and has_c:
                        refs.append(_reference_run(exe, log2, spare, gc))
                    if exe_pf is not None and has_c:
                        refs_pf.append(_reference_run(exe_pf, log2, spare, gc))
                row = {
                    "case": name, "user_pages": 1 << log2, "spare": spare,
                    "runs": len(runs),
                    "host_writes_per_second": _median([r["host_writes_per_second"]
                                                       for r in runs]),
                    "min": min(r["host_writes_per_second"] for r in runs),
                    "max": max(r["host_writes_per_second"] for r in runs),
                    "peak_rss_bytes": _median([r["peak_rss_bytes"] for r in runs]),
                    "state_bytes": runs[0]["state_bytes"],
                    "wa": _median([r["wa"] for r in runs]) if spare is not None else None,
                    "c_reference": note,
                    "c_prefetch_reference": note_pf,
                }
                if refs:
                    row["reference_host_writes_per_second"] = _median(
                        [r["host_writes_per_second"] for r in refs])
                    row["reference_wa"] = _median([r["wa"] for r in refs])
                    row["ratio"] = (row["host_writes_per_second"]
                                    / row["reference_host_writes_per_second"])
                plain = next((r for r in rows if r["case"] == "random greedy"
                               and r["spare"] == spare and r["user_pages"] == 1 << log2), None)
                if (stored < 1.0 or name in ON_OFF) and plain is not None:
                    # compression, the cache, placement or wear levelling on beside off:
                    # the same drive, writes and seed
                    row["stored_fraction"] = stored
                    row["uncompressed_host_writes_per_second"] = plain["host_writes_per_second"]
                    on_off = ON_OFF.get(name, "compressed_ratio")
                    row[on_off] = (row["host_writes_per_second"]
                                   / plain["host_writes_per_second"])
                if refs_pf:
                    row["prefetch_reference_host_writes_per_second"] = _median(
                        [r["host_writes_per_second"] for r in refs_pf])
                    row["prefetch_ratio"] = (row["host_writes_per_second"]
                                             / row["prefetch_reference_host_writes_per_second"])
                rows.append(row)
                _print_speed_row(row, args.json)
    return rows


def _print_speed_row(row: dict, as_json: bool) -> None:
    if as_json:
        return
    spare = "" if row["spare"] is None else f" spare {row['spare']:.2f}"
    line = (f"{row['case'] + spare:34s} 2^{row['user_pages'].bit_length() - 1:<3d}"
            f"{row['host_writes_per_second'] / 1e6:8.2f} M/s "
            f"[{row['min'] / 1e6:.2f}-{row['max'] / 1e6:.2f}]"
            f"  peak {row['peak_rss_bytes'] / 2**20:6.0f} MiB"
            f" (state {row['state_bytes'] / 2**20:5.0f} MiB)")
    if row.get("wa") is not None:
        line += f"  WA {row['wa']:.4f}"
    if "ratio" in row:
        line += (f"  | C {row['reference_host_writes_per_second'] / 1e6:6.2f} M/s "
                 f"WA {row['reference_wa']:.4f}  engine/C {row['ratio']:.2f}")
    for on_off in ("compressed_ratio", *ON_OFF.values()):
        if on_off in row:
            line += f"  | on/off {row[on_off]:.2f}"
    if "prefetch_ratio" in row:
        line += (f"  | C+prefetch {row['prefetch_reference_host_writes_per_second'] / 1e6:6.2f}"
                 f" M/s  engine/C+prefetch {row['prefetch_ratio']:.2f}")
    print(line, flush=True)


def check_arguments(args) -> None:
    """Refuse, before any work, a drive the model or memory cannot hold: every speed size
    and every physics case (each of the --jobs workers holds one drive at a time)."""
    from ssdlab.app.cli.args import flagged
    from ssdlab.model.flash.geometry import (
        FtlConfig,
        Geometry,
        available_memory_bytes,
        check_buildable,
    )

    for log2 in args.sizes:
        for name, spare, gc, _, stored in SPEED_CASES:
            geometry = Geometry(user_pages=1 << log2, spare=0.07 if spare is None else spare)
            try:
                check_buildable(geometry, case_config(name, gc, stored, geometry))
            except ValueError as e:
                raise ValueError(f"--sizes {log2}: {e}") from None
    if args.tib:
        check_buildable(Geometry(user_pages=1 << TIB_LOG2_PAGES, spare=0.07),
                        FtlConfig(gc="greedy"))
    if not args.physics:
        return
    try:
        specs = physics_specs(args)
    except ValueError as e:
        raise ValueError(flagged(str(e))) from None
    jobs = min(job_count(args), len(specs))
    share = available_memory_bytes() // jobs
    for _, spec, _ in specs:
        try:
            check_buildable(spec.geometry, spec.config, memory_limit_bytes=share)
        except ValueError as e:
            raise ValueError(f"--user-pages {args.user_pages} with {jobs} jobs: {e}") from None


def main(args) -> int:
    try:
        check_arguments(args)
        against = scenariobench.check_against(args.against)
        if against is not None and not args.scenarios:
            raise ValueError("--against goes with --scenarios")
        if args.scenarios:
            names = scenariobench.scenario_names(args.only)
    except ValueError as e:
        print(f"ssdlab bench: error: {e}", file=sys.stderr)
        return 2
    try:
        if args.scenarios:
            show = sys.stderr.isatty() and not args.json
            rows = scenariobench.scenarios(names, args.repeat, against,
                                           _print_step if show else None)
            if show:
                sys.stderr.write("\r\033[K")
            if not args.json:
                scenariobench.print_table(rows, against)
        elif args.physics:
            rows = physics(args)
        elif args.tib:
            rows = [tib(args)]
        else:
            rows = speed(args)
            rows.append(host_stack(args))
            if not args.json:
                _print_memory_note()
    except scenariobench.AgainstError as e:
        print(f"ssdlab bench: error: --against: {e}", file=sys.stderr)
        return 2
    except (BenchError, scenariobench.ScenarioBenchError) as e:
        print(f"ssdlab bench: error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(rows))
    return 0


def host_stack(args) -> dict:
    runs = [_subprocess_case("host stack", 0, None) for _ in range(args.repeat)]
    row = {"case": runs[0]["case"], "runs": len(runs),
           "workload_s": _median([r["workload_s"] for r in runs]),
           "build_s": _median([r["build_s"] for r in runs]),
           "simulated_s": runs[0]["simulated_s"],
           "peak_rss_bytes": _median([r["peak_rss_bytes"] for r in runs])}
    if not args.json:
        print(f"{row['case']}: {row['workload_s']:.1f} s wall (median of {len(runs)}; "
              f"+{row['build_s']:.1f} s to build the drive), {row['simulated_s']:.1f} s "
              f"simulated, peak {row['peak_rss_bytes'] / 2**20:.0f} MiB", flush=True)
    return row


def _print_memory_note() -> None:
    from ssdlab.model.flash.geometry import Geometry

    g = Geometry(user_pages=1 << 25, spare=0.07)
    print(f"a 2^25-page ({g.user_bytes / 2**30:.0f} GiB) drive at spare 0.07 holds "
          f"{g.state_bytes() / 2**20:.0f} MiB of engine state")
