"""`ssdlab bench --physics`: simulated write amplification against ssdlab/model/flash/theory/.

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
# Greedy under hot/cold skew: the spares of the published comparison (0.07 to 0.20) and one
# above; each at both write frontiers.
HOTCOLD_GREEDY_SPARES = (0.07, 0.10, 0.20, 0.28)
TOLERANCE = 0.01
# Desnoyers reports his greedy hot/cold model (SYSTOR 2012 Eq. 16) within 2 % of his
# simulator, which has one write frontier: the shared rows are held to that; the separate
# rows are printed beside it, their gap being what keeping GC copies apart changes.
HOTCOLD_GREEDY_TOLERANCE = 0.02
# (label, policy, d, workload, run-length factor, GC frontier, spares, tolerance or None
# when the row is printed beside a model it is not expected to match). Under FIFO with
# hot/cold traffic the cold data written by the sequential fill ages as one cohort and
# passes through the log in waves that damp slowly; over 2 drive writes WA swings by a
# factor of 3 between windows, so those cases warm up and measure 5x and 10x longer to
# average over many waves. Under greedy the cold pages are rewritten about once in ten drive
# writes at 90/5, so those warm up 10x longer too.
PHYSICS_POLICIES = (
    ("greedy", "greedy", 2, "random", (1, 1), "separate", PHYSICS_SPARES, TOLERANCE),
    ("fifo", "fifo", 2, "random", (1, 1), "separate", PHYSICS_SPARES, TOLERANCE),
    ("random-d d=2", "random-d", 2, "random", (1, 1), "separate", PHYSICS_SPARES, TOLERANCE),
    ("random-d d=10", "random-d", 10, "random", (1, 1), "separate", PHYSICS_SPARES,
     TOLERANCE),
    ("fifo hot/cold 80/20", "fifo", 2, "hotcold:0.2:0.8", (5, 10), "separate",
     PHYSICS_SPARES, TOLERANCE),
    ("fifo hot/cold 90/10", "fifo", 2, "hotcold:0.1:0.9", (5, 10), "separate",
     PHYSICS_SPARES, TOLERANCE),
) + tuple(
    (f"greedy hot/cold {skew} {frontier}", "greedy", 2, workload, (10, 5), frontier,
     HOTCOLD_GREEDY_SPARES, HOTCOLD_GREEDY_TOLERANCE if frontier == "shared" else None)
    for skew, workload in (("80/20", "hotcold:0.2:0.8"), ("90/10", "hotcold:0.1:0.9"),
                           ("90/5", "hotcold:0.05:0.9"))
    for frontier in ("shared", "separate"))
# Greedy on a compressing drive (each page stored in c of a flash page, FtlConfig.
# stored_fraction) under uniform random writes, beside the compressed greedy model
# (ssdlab/model/flash/theory/compressed.py: c x greedy at the effective spare); c = 1 is the
# plain drive, the same model. Run alone with --only "greedy stored".
COMPRESSED_FRACTIONS = (0.3, 0.5, 0.7, 1.0)
COMPRESSED_SPARES = (0.07, 0.15, 0.28)


def physics_specs(args) -> list[tuple[str, object]]:
    """(label, RunSpec) of every physics case. Building them checks --user-pages and the
    drive-write counts against the model's own ranges before any work starts."""
    from ssdlab.model.flash.geometry import FtlConfig, Geometry
    from ssdlab.model.flash.runner import RunSpec
    from ssdlab.model.flash.workloads import Workload

    def spec(gc: str, d: int, workload: str, spare: float, longer: tuple, active: float,
             frontier: str = "separate", stored: float = 1.0):
        kind, *fractions = workload.split(":")
        w = Workload(kind=kind, active_fraction=active)
        if fractions:
            w = Workload(kind=kind, hot_lba_fraction=float(fractions[0]),
                         hot_write_fraction=float(fractions[1]), active_fraction=active)
        return RunSpec(Geometry(user_pages=args.user_pages, pages_per_block=256, spare=spare),
                       FtlConfig(gc=gc, d=d, gc_frontier=frontier,
                                 victim_order=getattr(args, "victim_order", "oldest"),
                                 stored_fraction=stored), w,
                       args.warmup_drive_writes * longer[0],
                       args.measure_drive_writes * longer[1])

    cases = [(label, spec(gc, d, w, s, longer, 1.0, frontier), tolerance)
             for label, gc, d, w, longer, frontier, spares, tolerance in PHYSICS_POLICIES
             for s in spares]
    # TRIMmed free space behaves like spare: a 7 % drive using 90 % / 80 % of its LBAs.
    cases += [("greedy, unused LBAs trimmed", spec("greedy", 2, "random", 0.07, (1, 1), a),
               TOLERANCE) for a in (0.9, 0.8)]
    cases += [(f"greedy stored {c:g}", spec("greedy", 2, "random", s, (1, 1), 1.0,
                                            stored=c), TOLERANCE)
              for c in COMPRESSED_FRACTIONS for s in COMPRESSED_SPARES]
    only = getattr(args, "only", None)
    if only:
        cases = [c for c in cases if only in c[0]]
        if not cases:
            labels = dict.fromkeys([*(label for label, *_ in PHYSICS_POLICIES),
                                    "greedy stored"])
            raise ValueError(f"--only must be part of a case's name, such as "
                             f"{', '.join(map(repr, labels))}; got {only!r}")
    return cases


def _reference_model(spec, effective_spare: float) -> float | None:
    """The model a row is put beside: the runner's, or for greedy hot/cold at separate
    frontiers (which has none) the shared frontier's, so the gap is the measured benefit
    of separating."""
    from ssdlab.model.flash import theory

    w, config = spec.workload, spec.config
    if config.gc == "greedy" and w.kind == "hotcold" and config.gc_frontier == "separate":
        return theory.greedy_hotcold_wa(effective_spare, spec.geometry.pages_per_block,
                                        w.hot_lba_fraction, w.hot_write_fraction)
    return None


def _physics_case(case: tuple) -> dict:
    from ssdlab.model.flash.runner import run

    label, spec, tolerance = case
    r = run(spec)
    model = r.theory_wa if r.theory_wa is not None else _reference_model(spec,
                                                                         r.effective_spare)
    error = None if model is None else r.wa / model - 1.0
    effective = r.effective_spare
    if r.stored_fraction < 1.0:  # the spare the compressed model puts greedy at
        from ssdlab.model.flash import theory

        effective = theory.compressed_effective_spare(effective, r.pages_per_block,
                                                      r.stored_fraction)
    return {"policy": label, "spare": spec.geometry.spare,
            "active_fraction": spec.workload.active_fraction,
            "gc_frontier": spec.config.gc_frontier,
            "victim_order": spec.config.victim_order, "stored_fraction": r.stored_fraction,
            "effective_spare": effective, "wa": r.wa, "theory_wa": model,
            "error": error, "tolerance": tolerance,
            "window_min": min(r.wa_windows), "window_max": max(r.wa_windows)}


def _worker_ignores_ctrl_c() -> None:
    # A Ctrl-C at the terminal reaches the whole process group: the parent alone handles it
    # (terminating the pool), so the workers print no tracebacks of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def job_count(args) -> int:
    return args.jobs or os.cpu_count() or 1


def physics(args) -> list[dict]:
    cases = physics_specs(args)
    if not args.json:
        print(f"{'policy':34s} {'spare':>6s} {'eff.':>6s} {'simulated':>10s} "
              f"{'analytic':>9s} {'error':>8s}  windows", flush=True)
    rows = []
    pool = multiprocessing.Pool(job_count(args), initializer=_worker_ignores_ctrl_c)
    try:
        for row in pool.imap(_physics_case, cases):
            rows.append(row)
            if not args.json:
                print(_physics_line(row), flush=True)
        pool.close()
    finally:
        # On Ctrl-C or a failed case: stop the workers now rather than after their cases.
        pool.terminate()
        pool.join()
    if not args.json:
        for line in _physics_summary(rows):
            print(line)
    return rows


def _physics_line(row: dict) -> str:
    theory = "-" if row["theory_wa"] is None else f"{row['theory_wa']:.4f}"
    err = "-" if row["error"] is None else f"{100 * row['error']:+.2f}%"
    tol = row["tolerance"]
    if row["error"] is not None and tol is None:
        note = "  separate GC copies, beside the shared-frontier model"
    elif row["error"] is not None and abs(row["error"]) > tol:
        note = f" ! beyond {100 * tol:.0f} %"
    else:
        note = ""
    return (f"{row['policy']:34s} {row['spare']:6.3f} {row['effective_spare']:6.3f}"
            f" {row['wa']:10.4f} {theory:>9s} {err:>8s}  "
            f"[{row['window_min']:.3f}, {row['window_max']:.3f}]{note}")


def _physics_summary(rows: list[dict]) -> list[str]:
    """One line per tolerance: how many checked rows lie within it, and the worst."""
    out = []
    for tol in sorted({r["tolerance"] for r in rows if r["tolerance"] is not None}):
        errors = [abs(r["error"]) for r in rows
                  if r["tolerance"] == tol and r["error"] is not None]
        if errors:
            within = sum(e <= tol for e in errors)
            out.append(f"{within} of {len(errors)} within {100 * tol:.0f} % of the analytic "
                       f"model; largest error {100 * max(errors):.2f} %")
    pairs = {(r["policy"].rsplit(" ", 1)[0], r["spare"]): r for r in rows
             if r["policy"].startswith("greedy hot/cold") and r["gc_frontier"] == "shared"}
    for r in rows:
        key = (r["policy"].rsplit(" ", 1)[0], r["spare"])
        if r["gc_frontier"] == "separate" and key in pairs:
            shared = pairs[key]["wa"]
            change = 100 * (r["wa"] / shared - 1)
            out.append(f"{key[0]} spare {key[1]:.3f}: separate GC frontier WA {r['wa']:.4f} "
                       f"vs shared {shared:.4f}: {change:+.2f} % "
                       f"({'less' if change < 0 else 'more'} flash written when separate)")
    return out
