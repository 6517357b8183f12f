"""`ssdlab bench`: numbers, never verdicts from timed unit tests.

Speed: each case runs in its own process (so peak memory is that case's alone), `repeat`
times; medians are printed beside the plain C loop in ../shared/reference/ref_ftl.c and the
same loop with software prefetching (ref_ftl_prefetch.c), built with gcc -O2 and run with the
same parameters in the same session, as ratios.
Physics (--physics): simulated WA against model/flash/theory.py over the spare range.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_REFERENCE = REPO.parent / "shared" / "reference" / "ref_ftl.c"
# The same loop with software prefetching: the practical single-core limit to compare with.
PREFETCH_REFERENCE = REPO.parent / "shared" / "reference" / "ref_ftl_prefetch.c"
SPEED_CASES = (("sequential fill", None), ("random greedy", 0.07), ("random greedy", 0.28))
PHYSICS_SPARES = (0.05, 0.07, 0.10, 0.125, 0.20, 0.28, 0.40, 0.50)
# (label, policy, d, workload, run-length factor). Under FIFO with hot/cold traffic the
# cold data written by the sequential fill ages as one cohort and passes through the log in
# waves that damp slowly; over 2 drive writes WA swings by a factor of 3 between windows, so
# those cases warm up and measure 5x and 10x longer to average over many waves.
PHYSICS_POLICIES = (
    ("greedy", "greedy", 2, "random", (1, 1)),
    ("fifo", "fifo", 2, "random", (1, 1)),
    ("random-d d=2", "random-d", 2, "random", (1, 1)),
    ("random-d d=10", "random-d", 10, "random", (1, 1)),
    ("fifo hot/cold 80/20", "fifo", 2, "hotcold:0.2:0.8", (5, 10)),
    ("fifo hot/cold 90/10", "fifo", 2, "hotcold:0.1:0.9", (5, 10)),
)
TOLERANCE = 0.01


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_speed_case(name: str, log2_pages: int, spare: float | None) -> dict:
    """One speed case in this process: host writes per second of the timed part."""
    import numpy as np

    from model.flash.drive import Drive
    from model.flash.geometry import FtlConfig, Geometry
    from model.flash.workloads import sequential_fill

    user = 1 << log2_pages
    rss_before = _peak_rss_bytes()
    drive = Drive(Geometry(user_pages=user, spare=0.07 if spare is None else spare),
                  FtlConfig(gc="greedy"))
    t0 = time.perf_counter()
    drive.run(sequential_fill(user))
    fill_s = time.perf_counter() - t0
    out = {"case": name, "log2_pages": log2_pages, "spare": spare,
           "state_bytes": drive.geometry.state_bytes()}
    if spare is None:
        out.update(host_writes=user, seconds=fill_s)
    else:
        rng = np.random.default_rng(1)
        drive.write_pages(rng.integers(0, user, size=user))  # warm up: one drive write
        lpns = rng.integers(0, user, size=user)
        before = drive.counters()
        t0 = time.perf_counter()
        drive.write_pages(lpns)
        seconds = time.perf_counter() - t0
        after = drive.counters()
        out.update(host_writes=user, seconds=seconds,
                   wa=(after["nand_writes"] - before["nand_writes"]) / user)
    out["host_writes_per_second"] = out["host_writes"] / out["seconds"]
    out["peak_rss_bytes"] = _peak_rss_bytes()
    out["peak_rss_start_bytes"] = rss_before
    return out


def run_host_stack_case() -> dict:
    """Wall-clock seconds to simulate seeds 000/001 on the full 100 GB Vertex LE: unpack the
    kernel tree, sync, rm -rf, sync (with discard), file system and FTL together."""
    from model.host.filesystem import FsOptions
    from model.host.filetree import kernel_tree_on_disk
    from model.host.fsworkloads import remove_tree, unpack
    from model.host.machine import Machine
    from model.host.profiles import load_host_profile, load_profile

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


def _subprocess_case(name: str, log2_pages: int, spare: float | None) -> dict:
    call = ("run_host_stack_case()" if name == "host stack"
            else f"run_speed_case({name!r}, {log2_pages}, {spare!r})")
    code = f"import json, sys; from app.cli.bench import *; print(json.dumps({call}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _build_reference(source: Path, folder: str) -> Path | None:
    if not source.is_file() or shutil.which("gcc") is None:
        return None
    exe = Path(folder) / source.stem
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(source)], check=True)
    return exe


def _reference_run(exe: Path, log2_pages: int, spare: float) -> dict:
    done = subprocess.run([str(exe), str(1 << log2_pages), "256", str(spare), "1", "1",
                           "greedy"], capture_output=True, text=True, check=True)
    fields = dict(re.findall(r"(\w+)=([\d.]+)", done.stdout))
    return {"wa": float(fields["wa"]), "host_writes_per_second": float(fields["mwps"]) * 1e6}


def _median(values: list[float]) -> float:
    return statistics.median(values)


def speed(args) -> list[dict]:
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    reference = Path(args.reference) if args.reference else DEFAULT_REFERENCE
    _subprocess_case("sequential fill", 16, None)  # compile or load the engine once
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        exe = _build_reference(reference, tmp)
        exe_pf = _build_reference(PREFETCH_REFERENCE, tmp)
        for log2 in sizes:
            for name, spare in SPEED_CASES:
                runs = []
                refs = []
                refs_pf = []
                for _ in range(args.repeat):
                    runs.append(_subprocess_case(name, log2, spare))
                    if exe is not None and spare is not None:
                        refs.append(_reference_run(exe, log2, spare))
                    if exe_pf is not None and spare is not None:
                        refs_pf.append(_reference_run(exe_pf, log2, spare))
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
                }
                if refs:
                    row["reference_host_writes_per_second"] = _median(
                        [r["host_writes_per_second"] for r in refs])
                    row["reference_wa"] = _median([r["wa"] for r in refs])
                    row["ratio"] = (row["host_writes_per_second"]
                                    / row["reference_host_writes_per_second"])
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
    line = (f"{row['case'] + spare:26s} 2^{row['user_pages'].bit_length() - 1:<3d}"
            f"{row['host_writes_per_second'] / 1e6:8.2f} M/s "
            f"[{row['min'] / 1e6:.2f}-{row['max'] / 1e6:.2f}]"
            f"  peak {row['peak_rss_bytes'] / 2**20:6.0f} MiB"
            f" (state {row['state_bytes'] / 2**20:5.0f} MiB)")
    if row.get("wa") is not None:
        line += f"  WA {row['wa']:.4f}"
    if "ratio" in row:
        line += (f"  | C {row['reference_host_writes_per_second'] / 1e6:6.2f} M/s "
                 f"WA {row['reference_wa']:.4f}  engine/C {row['ratio']:.2f}")
    if "prefetch_ratio" in row:
        line += (f"  | C+prefetch {row['prefetch_reference_host_writes_per_second'] / 1e6:6.2f}"
                 f" M/s  engine/C+prefetch {row['prefetch_ratio']:.2f}")
    print(line, flush=True)


def _physics_case(case: tuple) -> dict:
    from model.flash.geometry import FtlConfig, Geometry
    from model.flash.runner import RunSpec, run
    from model.flash.workloads import Workload

    label, gc, d, workload, spare, user, warm, measure, active = case
    kind, *fractions = workload.split(":")
    w = Workload(kind=kind, active_fraction=active)
    if fractions:
        w = Workload(kind=kind, hot_lba_fraction=float(fractions[0]),
                     hot_write_fraction=float(fractions[1]), active_fraction=active)
    r = run(RunSpec(Geometry(user_pages=user, pages_per_block=256, spare=spare),
                    FtlConfig(gc=gc, d=d), w, warm, measure))
    error = None if r.theory_wa is None else r.wa / r.theory_wa - 1.0
    return {"policy": label, "spare": spare, "active_fraction": active,
            "effective_spare": r.effective_spare, "wa": r.wa, "theory_wa": r.theory_wa,
            "error": error, "window_min": min(r.wa_windows), "window_max": max(r.wa_windows)}


def physics(args) -> list[dict]:
    cases = [(label, gc, d, w, s, args.user_pages, args.warmup_drive_writes * longer[0],
              args.measure_drive_writes * longer[1], 1.0)
             for label, gc, d, w, longer in PHYSICS_POLICIES for s in PHYSICS_SPARES]
    # TRIMmed free space behaves like spare: a 7 % drive using 90 % / 80 % of its LBAs.
    cases += [("greedy, unused LBAs trimmed", "greedy", 2, "random", 0.07, args.user_pages,
               args.warmup_drive_writes, args.measure_drive_writes, a) for a in (0.9, 0.8)]
    jobs = args.jobs or os.cpu_count() or 1
    if not args.json:
        print(f"{'policy':30s} {'spare':>6s} {'eff.':>6s} {'simulated':>10s} "
              f"{'analytic':>9s} {'error':>8s}  windows")
    rows = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for row in pool.map(_physics_case, cases):
            rows.append(row)
            if not args.json:
                theory = "-" if row["theory_wa"] is None else f"{row['theory_wa']:.4f}"
                err = "-" if row["error"] is None else f"{100 * row['error']:+.2f}%"
                flag = "" if row["error"] is None or abs(row["error"]) <= TOLERANCE else " !"
                print(f"{row['policy']:30s} {row['spare']:6.3f} {row['effective_spare']:6.3f}"
                      f" {row['wa']:10.4f} {theory:>9s} {err:>8s}  "
                      f"[{row['window_min']:.3f}, {row['window_max']:.3f}]{flag}", flush=True)
    errors = [abs(r["error"]) for r in rows if r["error"] is not None]
    if not args.json:
        within = sum(e <= TOLERANCE for e in errors)
        print(f"{within} of {len(errors)} within {100 * TOLERANCE:.0f} % of the analytic "
              f"model; largest error {100 * max(errors):.2f} %")
    return rows


def main(args) -> int:
    if args.repeat < 1 or args.repeat > 100:
        print(f"ssdlab bench: error: --repeat must be from 1 to 100; got {args.repeat}",
              file=sys.stderr)
        return 2
    if args.physics:
        rows = physics(args)
    else:
        rows = speed(args)
        rows.append(host_stack(args))
        if not args.json:
            _print_memory_note()
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
    from model.flash.geometry import Geometry

    g = Geometry(user_pages=1 << 25, spare=0.07)
    print(f"a 2^25-page ({g.user_bytes / 2**30:.0f} GiB) drive at spare 0.07 holds "
          f"{g.state_bytes() / 2**20:.0f} MiB of engine state")
