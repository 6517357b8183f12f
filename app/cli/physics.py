"""`ssdlab bench --physics`: simulated write amplification against model/flash/theory.py.

Every case is built (and so checked) in this process, then run in a pool of worker
processes, one drive each, results printed in order as they come back. Ctrl-C stops the
pool at once: the workers ignore SIGINT themselves, so the terminal's Ctrl-C, which reaches
the whole process group, is handled once, here.
"""

from __future__ import annotations

import multiprocessing
import os
import signal

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


def physics_specs(args) -> list[tuple[str, object]]:
    """(label, RunSpec) of every physics case. Building them checks --user-pages and the
    drive-write counts against the model's own ranges before any work starts."""
    from model.flash.geometry import FtlConfig, Geometry
    from model.flash.runner import RunSpec
    from model.flash.workloads import Workload

    def spec(gc: str, d: int, workload: str, spare: float, longer: tuple, active: float):
        kind, *fractions = workload.split(":")
        w = Workload(kind=kind, active_fraction=active)
        if fractions:
            w = Workload(kind=kind, hot_lba_fraction=float(fractions[0]),
                         hot_write_fraction=float(fractions[1]), active_fraction=active)
        return RunSpec(Geometry(user_pages=args.user_pages, pages_per_block=256, spare=spare),
                       FtlConfig(gc=gc, d=d), w, args.warmup_drive_writes * longer[0],
                       args.measure_drive_writes * longer[1])

    cases = [(label, spec(gc, d, w, s, longer, 1.0))
             for label, gc, d, w, longer in PHYSICS_POLICIES for s in PHYSICS_SPARES]
    # TRIMmed free space behaves like spare: a 7 % drive using 90 % / 80 % of its LBAs.
    cases += [("greedy, unused LBAs trimmed", spec("greedy", 2, "random", 0.07, (1, 1), a))
              for a in (0.9, 0.8)]
    return cases


def _physics_case(case: tuple) -> dict:
    from model.flash.runner import run

    label, spec = case
    r = run(spec)
    error = None if r.theory_wa is None else r.wa / r.theory_wa - 1.0
    return {"policy": label, "spare": spec.geometry.spare,
            "active_fraction": spec.workload.active_fraction,
            "effective_spare": r.effective_spare, "wa": r.wa, "theory_wa": r.theory_wa,
            "error": error, "window_min": min(r.wa_windows), "window_max": max(r.wa_windows)}


def _worker_ignores_ctrl_c() -> None:
    # A Ctrl-C at the terminal reaches the whole process group: the parent alone handles it
    # (terminating the pool), so the workers print no tracebacks of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def job_count(args) -> int:
    return args.jobs or os.cpu_count() or 1


def physics(args) -> list[dict]:
    cases = physics_specs(args)
    if not args.json:
        print(f"{'policy':30s} {'spare':>6s} {'eff.':>6s} {'simulated':>10s} "
              f"{'analytic':>9s} {'error':>8s}  windows", flush=True)
    rows = []
    pool = multiprocessing.Pool(job_count(args), initializer=_worker_ignores_ctrl_c)
    try:
        for row in pool.imap(_physics_case, cases):
            rows.append(row)
            if not args.json:
                theory = "-" if row["theory_wa"] is None else f"{row['theory_wa']:.4f}"
                err = "-" if row["error"] is None else f"{100 * row['error']:+.2f}%"
                flag = "" if row["error"] is None or abs(row["error"]) <= TOLERANCE else " !"
                print(f"{row['policy']:30s} {row['spare']:6.3f} {row['effective_spare']:6.3f}"
                      f" {row['wa']:10.4f} {theory:>9s} {err:>8s}  "
                      f"[{row['window_min']:.3f}, {row['window_max']:.3f}]{flag}", flush=True)
        pool.close()
    finally:
        # On Ctrl-C or a failed case: stop the workers now rather than after their cases.
        pool.terminate()
        pool.join()
    errors = [abs(r["error"]) for r in rows if r["error"] is not None]
    if not args.json:
        within = sum(e <= TOLERANCE for e in errors)
        print(f"{within} of {len(errors)} within {100 * TOLERANCE:.0f} % of the analytic "
              f"model; largest error {100 * max(errors):.2f} %")
    return rows
