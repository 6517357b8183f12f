"""The gallery's runs: each figure of ssdlab/model/lab/gallery.py as a chart Table and what
reproduces it (its provenance, copied into the CSV's JSON sidecar).

Drive figures are sweeps: points as `ssdlab sweep` builds them (the sweep file's fields and
defaults, ssdlab/model/lab/sweep.py), each run by sweeprun.run_task into a sweep result record.
Scenario figures play the shipped scenarios varied only where the figure says, as the
documented experiments do (ssdlab/model/lab/experiments.py). progress(done, total) is called after
every run; nothing here writes files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from . import gallery as g
from .charts import Table
from .experiments import SCENARIOS, scenario
from .plottable import sweep_table
from .provenance import drive_settings, file_sha256, shown_path
from .scenario import Step, build_machine, parse_scenario, run_scenario
from .sweep import DRIVE_FIELDS, NAMED_ONLY, Task, point_key
from .sweeprun import run_task
from .sweepsettings import point_settings

Progress = Callable[[int, int], None]
MEASURE = ("wa", "theory_wa", "spare", "effective_spare", "gc_copies")


def _point(scale: g.Scale, **fields) -> dict:
    base = {k: f.default for k, f in DRIVE_FIELDS.items() if k not in NAMED_ONLY
            or k == "data_compression"}  # (the fields added later stay unnamed)
    return {**base, "user_pages": scale.user_pages, "pages_per_block": scale.pages_per_block,
            "warmup_drive_writes": scale.warmup_drive_writes,
            "measure_drive_writes": scale.measure_drive_writes, **fields}


def _sweep(points: list[dict], progress: Progress | None) -> list[dict]:
    records = []
    for i, point in enumerate(points):
        rec = run_task(Task(point_key(point), point, MEASURE))
        if rec["status"] != "ok":
            raise RuntimeError(f"sweep point {point_key(point)} failed: {rec['error']}")
        records.append(rec)
        if progress:
            progress(i + 1, len(points))
    return records


def _drive_provenance(scale: g.Scale, records: list[dict]) -> dict:
    """Every point as `ssdlab sweep` would run it, the settings they share and vary, and
    the engine's fixed values a point does not name (gc_frontier, victim_order)."""
    return {"simulated": True, "scale": _scale_dict(scale),
            "points": [r["point"] for r in records], **point_settings(records),
            "seed": sorted({r["point"]["seed"] for r in records})}


def _scenario_file(name: str, base, drives: dict) -> dict:
    """A shipped scenario named as provenance names files (project-relative), its hash,
    and every setting of the drives it built (drives: label -> the machine's drive)."""
    path = str(SCENARIOS / f"{name}.toml")
    return {"name": base.name, "file": shown_path(path), "sha256": file_sha256(path),
            "drives": {k: drive_settings(d) for k, d in drives.items()}}


def _scale_dict(scale: g.Scale) -> dict:
    return {k: getattr(scale, k) for k in scale.__dataclass_fields__}


def wa_vs_spare(scale: g.Scale, progress: Progress | None = None) -> tuple[Table, dict]:
    points = [_point(scale, gc=gc, spare=s) for gc in ("greedy", "fifo", "random-d",
                                                       "cost-benefit") for s in scale.spares]
    records = _sweep(points, progress)
    return sweep_table("wa-vs-spare", records), _drive_provenance(scale, records)


def hot_cold(scale: g.Scale, progress: Progress | None = None) -> tuple[Table, dict]:
    points = [_point(scale, gc=gc, workload=kind, spare=s,
                     hot_lba_fraction=g.HOT_LBA_FRACTION,
                     hot_write_fraction=g.HOT_WRITE_FRACTION)
              for _, _, _, gc, kind in g.HOT_COLD_RUNS for s in scale.spares]
    records = _sweep(points, progress)
    n = len(scale.spares)
    ys = {}
    for i, (key, *_rest) in enumerate(g.HOT_COLD_RUNS):
        got = [r["result"] for r in records[i * n:(i + 1) * n]]
        ys[key] = np.array([r["wa"] for r in got], dtype=float)
        ys[f"{key}_theory"] = np.array([np.nan if r.get("theory_wa") is None
                                        else r["theory_wa"] for r in got], dtype=float)
    spare = np.array([100 * r["result"]["spare"] for r in records[:n]], dtype=float)
    return Table(g.HOT_COLD, False, spare, ys), _drive_provenance(scale, records)


def discard_fstrim(scale: g.Scale, progress: Progress | None = None) -> tuple[Table, dict]:
    """The kernel tree on the Vertex LE with discard, and without it followed by fstrim
    (the full drive at either scale: the small one is already seconds)."""
    base = scenario("discard_vertex_le")
    machine = build_machine(base)
    with_discard = run_scenario(base, machine=machine)
    if progress:
        progress(1, 2)
    later = replace(base, fs=replace(base.fs, discard=False),
                    steps=(*base.steps, Step("fstrim", {}, 0)))
    without = run_scenario(later)
    if progress:
        progress(2, 2)
    on = [r.seconds for r in with_discard] + [np.nan]  # with discard no fstrim is needed
    off = [r.seconds for r in without]
    table = Table(g.DISCARD, True, np.arange(1.0, len(g.DISCARD_STEPS) + 1),
                  {"discard": np.array(on, float), "fstrim": np.array(off, float)},
                  g.DISCARD_STEPS)
    return table, {"simulated": True, "scenario": {
        **_scenario_file("discard_vertex_le", base, {"discard": machine.drive}),
        "varied": "filesystem.discard; without discard an fstrim step follows"}}


def alignment(scale: g.Scale, progress: Progress | None = None) -> tuple[Table, dict]:
    from ssdlab.model.host.partition import Partition

    base = scenario("alignment_firstgen")
    ys, drives = {}, {}
    total, done = len(g.ALIGN_PROFILES) * len(g.ALIGN_STARTS), 0
    for profile, _, _ in g.ALIGN_PROFILES:
        was = []
        for start in g.ALIGN_STARTS:
            run = replace(base, profile=profile, partition=Partition(start))
            machine = build_machine(run)
            drives[profile] = machine.drive
            r = run_scenario(run, machine=machine)[0]
            was.append(r.wa)
            done += 1
            if progress:
                progress(done, total)
        ys[profile] = np.array(was, dtype=float)
    labels = tuple(str(s) for s in g.ALIGN_STARTS)
    table = Table(g.ALIGNMENT, False, np.arange(1.0, len(labels) + 1), ys, labels)
    return table, {"simulated": True, "scenario": {
        **_scenario_file("alignment_firstgen", base, drives),
        "varied": "drive.profile, partition.start_sector"},
        "profiles": [p for p, _, _ in g.ALIGN_PROFILES],
        "start_sectors": list(g.ALIGN_STARTS)}


COMPRESSION_SCENARIO = """version = 1
name = "ordinary use of a {fill:g} %-full file system, data stored at {stored:g}"
[drive]
profile = "ocz_vertex_le_100"
user_gib = {gib:g}
[host]
profile = "host_phenom2_x4_965"
data_compression = {stored:g}
[[steps]]
do = "restore_image"
[[steps]]
do = "user_mix"
drive_writes = {dw:g}
fill = {fill:g}
"""


def compression(scale: g.Scale, progress: Progress | None = None) -> tuple[Table, dict]:
    was, texts = [], []
    for i, stored in enumerate(g.COMPRESSIBILITY):
        text = COMPRESSION_SCENARIO.format(fill=g.COMPRESSION_FILL_PCT, stored=stored,
                                           gib=scale.compression_user_gib,
                                           dw=scale.compression_drive_writes)
        texts.append(text)
        was.append(run_scenario(parse_scenario(text, "gallery:compression"))[1].wa)
        if progress:
            progress(i + 1, len(g.COMPRESSIBILITY))
    x = np.array(g.COMPRESSIBILITY, dtype=float)
    table = Table(g.COMPRESSION, False, x, {"wa": np.array(was, float), "stored": x.copy()})
    return table, {"simulated": True, "scenario_texts": texts,
                   "varied": "host.data_compression", "values": list(g.COMPRESSIBILITY)}


BUILDERS = {"wa-vs-spare": wa_vs_spare, "hot-cold": hot_cold,
            "discard-fstrim": discard_fstrim, "alignment": alignment,
            "compression": compression}
