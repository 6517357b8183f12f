"""Speed of the workbench, measured: numbers, not verdicts.

    python -m ssdlab.app.devtools.guibench [--log2-pages 24] [--seconds 5] [--only two]

Prints
- animation: frames shown per second on a 4,096-block drive with the event buffer on
  (random writes at "normal" speed), and the block map's paint time per frame;
- flat out: host page writes per second of random writes on a 2^N-page drive inside the
  workbench, beside the same engine driven headless (Drive.write_pages in 2^20-page chunks);
- responsiveness: the gaps between ticks of a 5 ms GUI timer during that flat-out run
  (maximum and 99th percentile) and how long a pause takes to show;
- two drives (compare mode), both flat out on 2^N pages in lockstep: each one's host page
  writes per second, the GUI timer gaps, and how far one led the other when paused.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ssdlab.model.lab.entrypoint import run_to_reader


def _wait(app, seconds, until=None):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        if until is not None and until():
            return True
        time.sleep(0.002)
    return False


def _fill(app, w):
    w.request(workload="fill", fill_pct=100.0, speed="fast")
    w.run_workload()
    _wait(app, 600, lambda: w.snapshot.counters["host_writes"] > 0)
    _wait(app, 600, lambda: not w.snapshot.running and not w.snapshot.segment)


def animation(app, seconds: float) -> dict:
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.show()
    _wait(app, 10, lambda: w.snapshot is not None)
    w.request(capacity_mib=960.0, spare_pct=6.25, pages_per_block=64)
    _wait(app, 10, lambda: w.snapshot.blocks == 4096)
    _fill(app, w)
    w.request(workload="random", amount=0.0, speed="normal")
    w.run_workload()
    _wait(app, 1.0)
    seq0, t0 = w.snapshot.seq, time.perf_counter()
    paints = []
    last = w.snapshot.seq

    def frame():
        nonlocal last
        if w.snapshot.seq != last:
            last = w.snapshot.seq
            paints.append(w.blockmap.paint_ms)
        return False

    _wait(app, seconds, frame)
    frames = w.snapshot.seq - seq0
    out = {"blocks": w.snapshot.blocks, "fps": frames / (time.perf_counter() - t0),
           "paint_ms_median": float(np.median(paints)) if paints else float("nan"),
           "page_level": w.blockmap.page_level, "events_dropped": w.snapshot.events_dropped}
    w.close()
    return out


def _timer_gaps(app, seconds: float) -> dict:
    """Run a 5 ms GUI timer for `seconds` while the window works: the largest and 99th
    percentile gap between its ticks (ms)."""
    from PySide6.QtCore import QTimer

    ticks = []
    timer = QTimer()
    timer.setTimerType(timer.timerType().PreciseTimer)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(5)
    _wait(app, seconds)
    timer.stop()
    gaps = np.diff(ticks) * 1000
    return {"gap_max_ms": float(gaps.max()), "gap_p99_ms": float(np.percentile(gaps, 99))}


def flat_out(app, log2_pages: int, seconds: float) -> dict:
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.show()
    _wait(app, 10, lambda: w.snapshot is not None)
    w.request(capacity_mib=float((1 << log2_pages) * 4 / 1024), pages_per_block=256,
              spare_pct=7.0)
    _wait(app, 60, lambda: w.snapshot.user_pages == 1 << log2_pages)
    _fill(app, w)
    w.request(workload="random", amount=0.0, speed="fast")
    w.run_workload()
    _wait(app, 1.0)
    h0, t0 = w.snapshot.counters["host_writes"], time.perf_counter()
    gaps = _timer_gaps(app, seconds)
    h1, t1 = w.snapshot.counters["host_writes"], time.perf_counter()
    p0 = time.perf_counter()
    w.worker.send("pause")
    _wait(app, 5, lambda: not w.snapshot.running)
    pause_ms = 1000 * (time.perf_counter() - p0)
    w.close()
    return {"gui_writes_per_s": (h1 - h0) / (t1 - t0), **gaps, "pause_ms": pause_ms}


def two_drives(app, log2_pages: int, seconds: float) -> dict:
    """Compare mode, both drives flat out on 2^N pages (B with more spare, so the two
    differ in speed and the lockstep gate has work): GUI timer gaps and each drive's host
    writes per second."""
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.confirm = lambda text: True
    w.show()
    _wait(app, 10, lambda: w.snapshot is not None)
    w.request(capacity_mib=float((1 << log2_pages) * 4 / 1024), pages_per_block=256,
              spare_pct=7.0, speed="fast")
    _wait(app, 60, lambda: w.snapshot.user_pages == 1 << log2_pages)
    w.set_compare(True)
    _wait(app, 60, lambda: len(w.views) == 2 and w.views[1].snapshot is not None
          and w.views[1].snapshot.user_pages == 1 << log2_pages)
    w.edit_drive(1)
    w.request(spare_pct=20.0)
    _wait(app, 60, lambda: w.views[1].snapshot.blocks > w.views[0].snapshot.blocks)
    w.request(workload="fill", fill_pct=100.0)
    w.run_workload()
    _wait(app, 600, lambda: all(v.snapshot.counters["host_writes"] > 0 for v in w.views))
    _wait(app, 600, lambda: not w.is_running() and not w.snapshot.segment)
    w.request(workload="random", amount=0.0)
    w.run_workload()
    _wait(app, 1.0)
    start = [(v.snapshot.counters["host_writes"], time.perf_counter()) for v in w.views]
    gaps = _timer_gaps(app, seconds)
    rates = [(v.snapshot.counters["host_writes"] - h0) / (time.perf_counter() - t0)
             for v, (h0, t0) in zip(w.views, start, strict=True)]
    w.settle()
    gap = abs(w.views[0].snapshot.counters["host_writes"]
              - w.views[1].snapshot.counters["host_writes"])
    largest = w.lockstep.largest_batch
    w.close()
    return {"writes_per_s": rates, **gaps, "lead": gap, "batch": largest}


def headless(log2_pages: int, seconds: float) -> float:
    from ssdlab.model.flash.drive import Drive
    from ssdlab.model.flash.geometry import FtlConfig, Geometry
    from ssdlab.model.flash.workloads import sequential_fill

    user = 1 << log2_pages
    drive = Drive(Geometry(user_pages=user, pages_per_block=256, spare=0.07), FtlConfig())
    drive.run(sequential_fill(user))
    rng = np.random.default_rng(1)
    drive.write_pages(rng.integers(0, user, size=1 << 20))
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        drive.write_pages(rng.integers(0, user, size=1 << 20))
        done += 1 << 20
    return done / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ssdlab.app.devtools.guibench",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2-pages", type=int, default=24)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--only", choices=("two",), default=None,
                        help="two: only the two-drive case")
    args = parser.parse_args(argv)
    from ssdlab.app.devtools.qtapp import application

    app = application()
    if args.only == "two":
        report_two(two_drives(app, args.log2_pages, args.seconds), args.log2_pages)
        return 0
    a = animation(app, args.seconds)
    print(f"animation, {a['blocks']} blocks with events: {a['fps']:.1f} frames/s, block map "
          f"{a['paint_ms_median']:.1f} ms per frame (page level: {a['page_level']}, "
          f"events dropped: {a['events_dropped']})", flush=True)
    f = flat_out(app, args.log2_pages, args.seconds)
    h = headless(args.log2_pages, args.seconds)
    print(f"flat out, 2^{args.log2_pages} pages, random writes: workbench "
          f"{f['gui_writes_per_s'] / 1e6:.2f} M/s, headless {h / 1e6:.2f} M/s "
          f"({100 * f['gui_writes_per_s'] / h:.0f} %)")
    print(f"GUI timer gaps during the run (5 ms timer): max {f['gap_max_ms']:.1f} ms, "
          f"99th percentile {f['gap_p99_ms']:.1f} ms; pause shown after {f['pause_ms']:.0f} ms",
          flush=True)
    report_two(two_drives(app, args.log2_pages, args.seconds), args.log2_pages)
    return 0


def report_two(d: dict, log2_pages: int) -> None:
    a, b = d["writes_per_s"]
    print(f"two drives flat out, 2^{log2_pages} pages each (A spare 7 %, B 20 %), random "
          f"writes in lockstep: A {a / 1e6:.2f} M/s, B {b / 1e6:.2f} M/s; GUI timer gaps: max "
          f"{d['gap_max_ms']:.1f} ms, 99th percentile {d['gap_p99_ms']:.1f} ms; paused, one "
          f"drive led by {d['lead']:,} host writes (largest batch {d['batch']:,})")


if __name__ == "__main__":
    sys.exit(run_to_reader(main))
