"""Regenerate the README screenshot, or a tour of screenshots for a look-over.

    python -m ssdlab.app.devtools.screenshot ssdlab/assets/workbench.png     the README picture
                                                                             (1280 x 800)
    python -m ssdlab.app.devtools.screenshot --tour /tmp/shots        empty state, small and large
                                                                      drives,
                                                      every chart, projector mode, 1024 x 768
    python -m ssdlab.app.devtools.screenshot --compare /tmp/shots     two drives and a kept
                                                                      reference in
                                                      presentation mode at the screen's size

Works offscreen (QT_QPA_PLATFORM=offscreen is set when no DISPLAY is present). The picture
is a window grab, so it shows exactly what the window paints.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ssdlab.model.lab.entrypoint import run_to_reader


def _wait(app, seconds: float, until=None) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        if until is not None and until():
            return
        time.sleep(0.005)


def _run(app, w, workload: str, amount: float | None = None, speed: str = "fast",
         timeout: float = 120.0) -> None:
    """Run one workload to its end (or for `amount`=0: leave it running)."""
    changes = {"workload": workload, "speed": speed}
    if amount is not None:
        changes["amount"] = amount
    w.request(**changes)
    before = w.snapshot.counters["host_writes"]
    w.run_workload()
    _wait(app, timeout, lambda: w.snapshot.counters["host_writes"] > before)
    if amount != 0:
        _wait(app, timeout, lambda: not w.snapshot.running and not w.snapshot.segment)


def _grab(app, w, path: Path, width: int | None = None) -> None:
    _wait(app, 0.3)
    image = w.grab().toImage()
    if width is not None and image.width() > width:
        from PySide6.QtCore import Qt

        image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(str(path))
    print(path)


def readme(app, path: Path) -> None:
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.resize(1280, 800)
    w.show()
    _wait(app, 120, lambda: w.snapshot is not None)
    w.request(gc="greedy", spare_pct=10.0)
    _wait(app, 120, lambda: w.snapshot is not None and w.snapshot.blocks > 0)
    _run(app, w, "fill")
    _run(app, w, "random", 1.5)
    _run(app, w, "random", 0, speed="normal")  # a run in progress: victims and copies show
    _wait(app, 1.0)
    _grab(app, w, path, width=1024)
    w.close()


def tour(app, folder: Path) -> None:
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.resize(1280, 800)
    w.show()
    _wait(app, 120, lambda: w.snapshot is not None)
    _grab(app, w, folder / "01-empty.png")
    _run(app, w, "fill", speed="normal", timeout=0.0)
    _wait(app, 4)
    _grab(app, w, folder / "02-small-filling.png")
    _run(app, w, "fill")
    _run(app, w, "random", 1.5)
    _run(app, w, "random", 0, speed="normal")
    _wait(app, 1.0)
    _grab(app, w, folder / "03-small-random-running.png")
    w.toggle_play()
    for i, name in enumerate(("wa", "throughput", "gc", "free", "wear")):
        w.charts.setCurrentIndex(i)
        _grab(app, w.charts, folder / f"04-chart-{name}.png")
    w.confirm = lambda text: True  # the tour changes drives without asking
    w.request(profile="intel_320_120")
    _run(app, w, "fill")
    _run(app, w, "random", 1.0)
    w.charts.setCurrentIndex(1)
    _grab(app, w, folder / "05-profile-throughput.png")
    w.request(profile="", capacity_mib=65536.0, pages_per_block=256, spare_pct=7.0)
    _run(app, w, "fill")
    _run(app, w, "random", 0)
    _wait(app, 3)
    w.charts.setCurrentIndex(0)
    _grab(app, w, folder / "06-large-running.png")
    w.toggle_play()
    w.toggle_presentation(True)
    w.showNormal()  # the grab is of the window at the tour's size
    w.controls.set_expert(True)
    _grab(app, w, folder / "07-projector.png")
    w.toggle_presentation(False)
    w.resize(1024, 768)
    _grab(app, w, folder / "08-1024x768-expert.png")
    w.controls.widgets["spare_pct"].setValue(95)
    _grab(app, w, folder / "09-bad-input.png")
    w.resize(1280, 800)
    file_system(app, w, folder)
    w.close()


def file_system(app, w, folder: Path) -> None:
    """The file-system section, a few steps in the step table, a bad trace file."""
    w.confirm = lambda text: True
    w.controls.set_expert(False)
    w.request(profile="ocz_vertex_le_100", capacity_mib=512.0, discard=True)
    w.controls.set_fs_shown(True)
    for changes in ({"workload": "unpack", "kernel_scale": 0.2}, {"workload": "rmrf"},
                    {"workload": "seqwrite", "seq_mb": 150.0}):
        w.request(**changes)
        n = len(w.snapshot.steps)
        w.run_workload()
        _wait(app, 60, lambda n=n: len(w.snapshot.steps) > n and not w.snapshot.running)
    w.fstrim_now()
    _wait(app, 30, lambda: len(w.snapshot.steps) > 3 and not w.snapshot.running)
    trace = Path(__file__).resolve().parents[2] / "assets" / "traces" / "mixed.tracefs.txt"
    w.request(workload="trace")
    w.choose_trace(str(trace))
    n = len(w.snapshot.steps)
    w.run_workload()
    _wait(app, 30, lambda: len(w.snapshot.steps) > n and not w.snapshot.running)
    _grab(app, w, folder / "10-file-system-steps.png")
    bad = folder / "bad-trace.log"
    bad.write_text("fio version 3 iolog\n0 /dev/sda add\n12 /dev/sda write banana 4096\n")
    w.choose_trace(str(bad))
    _grab(app, w, folder / "11-bad-trace-file.png")


def compare_tour(app, folder: Path) -> None:
    """Two drives (spare 7 % against 28 %) and a kept reference, in presentation mode with the
    control panel shown, at the screen's size: every chart tab, and B's differing fields."""
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.confirm = lambda text: True
    w.show()
    _wait(app, 120, lambda: w.snapshot is not None)
    w.request(spare_pct=7.0, capacity_mib=256.0)
    _run(app, w, "fill")
    _run(app, w, "random", 1.0)
    w.pin_reference()  # the run at 7 % stays on the charts
    assert w.set_compare(True)
    _wait(app, 10, lambda: len(w.views) == 2 and w.views[1].snapshot is not None)
    w.edit_drive(1)
    w.request(spare_pct=28.0)
    w.edit_drive(0)
    w.request(spare_pct=12.0)
    for v in w.views:
        _wait(app, 10, lambda v=v: v.snapshot is not None and v.snapshot.blocks > 0)
    w.request(workload="fill", speed="fast")
    w.run_workload()
    _wait(app, 120, lambda: all(not v.snapshot.running and not v.snapshot.segment
                                and v.snapshot.counters["host_writes"] > 0 for v in w.views))
    w.request(workload="random", amount=1.0)
    w.run_workload()
    _wait(app, 120, lambda: all(not v.snapshot.running and not v.snapshot.segment
                                and v.snapshot.counters["host_writes"]
                                > 1.5 * v.settings.user_pages for v in w.views))
    w.toggle_presentation(True)
    w.edit_drive(1)
    _wait(app, 1.0)
    for i in range(w.charts.count()):
        w.charts.setCurrentIndex(i)
        _grab(app, w, folder / f"c{i + 1:02d}-present-{w.charts.tabText(i).lower()}.png")
    spare = w.controls.widgets["spare_pct"]
    _grab(app, spare.parentWidget(), folder / "c20-differing-field.png")
    w.toggle_presentation(False)
    w.charts.setCurrentIndex(0)
    _grab(app, w, folder / "c21-normal-wa.png")
    w.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ssdlab.app.devtools.screenshot",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", help="PNG to write (with --tour: a folder)")
    parser.add_argument("--tour", action="store_true")
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args(argv)
    from ssdlab.app.devtools.qtapp import application

    app = application()
    show = compare_tour if args.compare else tour if args.tour else readme
    show(app, Path(args.path))
    return 0


if __name__ == "__main__":
    sys.exit(run_to_reader(main))
