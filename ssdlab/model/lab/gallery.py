"""The figure gallery, as data: each reference figure `ssdlab figures` draws, what it shows,
where it comes from (a lesson, a documented experiment, a seed article's words or figures)
and the runs behind it, at two scales (full, and small enough for CI).

Every figure is a chart Table (ssdlab/model/lab/charts.py) drawn and written by the same exporter
as `ssdlab chart` (ssdlab/app/chartexport.py); the runs go through the same machinery as `ssdlab
sweep` (sweep points run by ssdlab/model/lab/sweeprun.run_task, read back by sweep_table) and the
documented experiments (the shipped scenarios, varied as ssdlab/model/lab/experiments.py varies
them). Every number in a figure is simulated; a fact attributed to an article is a Cite,
checked against the article's text by tests/test_gallery.py. The runs are in galleryrun.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from .charts import Axis, Chart, Line
from .documented import Cite


@dataclass(frozen=True)
class Scale:
    """How big the runs are: the drive sweeps' user pages, pages per block, drive writes
    before and while measuring, and the spares (fractions of physical); the scenarios'
    drive size for the compression runs (GiB)."""

    user_pages: int
    pages_per_block: int
    warmup_drive_writes: float
    measure_drive_writes: float
    spares: tuple[float, ...]
    compression_user_gib: float
    compression_drive_writes: float


SCALES = {
    "full": Scale(1 << 20, 256, 2.0, 2.0, (0.05, 0.07, 0.10, 0.125, 0.20, 0.28, 0.40),
                  1.0, 2.0),
    "small": Scale(1 << 15, 64, 1.5, 1.5, (0.07, 0.12, 0.20, 0.28), 0.25, 1.5),
}


@dataclass(frozen=True)
class Figure:
    """One gallery figure: its file stem, what it shows (a sentence for the index), the
    lesson or experiment it comes from, and the article's words or figures it draws on,
    each with what the article says by it (claims, one per cite: who says it, and what)."""

    name: str
    shows: str
    comes_from: str
    cites: tuple[Cite, ...] = ()
    claims: tuple[str, ...] = ()


_SPARE = Axis("spare", "% of physical", "spare_pct")
_WA = Axis("write amplification", "NAND/host", "wa")

# hot and cold data: (key, legend, colour token, GC policy, workload kind) of each run
HOT_COLD_RUNS = (("uniform_greedy", "greedy, uniform", "theory", "greedy", "random"),
                 ("hotcold_greedy", "greedy, hot/cold", "greedy", "greedy", "hotcold"),
                 ("hotcold_cb", "cost-benefit, hot/cold", "cost-benefit", "cost-benefit",
                  "hotcold"))
HOT_LBA_FRACTION = 0.1  # lesson 03's skew: 10 % of the pages get 90 % of the writes
HOT_WRITE_FRACTION = 0.9

HOT_COLD = Chart(
    "hot-cold", "", "Hot and cold data", "", _SPARE, _WA,
    tuple(line for key, label, token, _, _ in HOT_COLD_RUNS for line in (
        Line(key, f"{label} (simulated)", token, f"wa_{key}", marker=True),
        Line(f"{key}_theory", f"{label} (analytic)", token, f"wa_analytic_{key}",
             dashed=True))),
    source="gallery")

# discard against fstrim: the kernel tree's steps, then an fstrim where discard is off
DISCARD_STEPS = ("unpack", "sync", "rm -rf", "sync", "fstrim")
DISCARD = Chart(
    "discard-fstrim", "", "When deleting costs: discard or fstrim", "",
    Axis("step", "", "step_number"), Axis("simulated time", "s", "seconds"),
    (Line("discard", "mount -o discard", "nand", "seconds_discard", marker=True),
     Line("fstrim", "no discard, fstrim after", "host", "seconds_fstrim", marker=True)),
    source="gallery", log_y=True)

# alignment: a 64 MiB file in 4 KiB direct writes at each partition start, on each drive
ALIGN_STARTS = (63, 64, 2048)  # sectors of 512 bytes: DOS, 32 KiB, 1 MiB
ALIGN_PROFILES = (("firstgen_block_64", "block-mapped, first generation", "nand"),
                  ("intel_x25m_g1_80", "page-mapped, Intel X25-M", "host"))
ALIGNMENT = Chart(
    "alignment", "", "4 KiB writes by partition start", "",
    Axis("partition start", "sector", "position"), _WA,
    tuple(Line(p, f"{label} (simulated)", token, f"wa_{p}", marker=True)
          for p, label, token in ALIGN_PROFILES),
    source="gallery")

# compression: ordinary use (new files, deletes, 4 KiB rewrites in place; user_mix) of a
# nearly full file system on a compressing (SandForce) drive
COMPRESSIBILITY = (0.3, 0.45, 0.6, 0.8, 1.0)  # stored fraction of the host's data
COMPRESSION_FILL_PCT = 85.0
COMPRESSION = Chart(
    "compression", "", "Compressible data on a SandForce drive", "",
    Axis("data stored after compression", "fraction", "stored_fraction"), _WA,
    (Line("wa", "file mix (simulated)", "wa", "wa", marker=True),
     Line("stored", "compression alone", "theory", "wa_compression_alone", dashed=True)),
    source="gallery")

FIGURES = (
    Figure("wa-vs-spare",
           "write amplification against spare for greedy, FIFO, random-d (d = 2) and "
           "cost-benefit GC under uniform random single-page writes, each beside its "
           "analytic model where one exists",
           "lesson 02 (spare space) and lesson 03 (GC policies); ssdlab/assets/sweeps/"
           "wa_vs_spare.toml",
           (Cite("004", quote="heavy over-provisioning"),),
           ("a reader of article 004 guesses that SandForce drives' heavy "
            "over-provisioning helps them",)),
    Figure("hot-cold",
           "write amplification against spare when 10 % of the pages take 90 % of the "
           "writes, for greedy and cost-benefit, beside greedy under uniform writes "
           "and its analytic model",
           "lesson 03 (GC policies and hot data)"),
    Figure("discard-fstrim",
           "simulated seconds of each step of unpacking, syncing and deleting a kernel "
           "tree on an OCZ Vertex LE: mounted with discard the final sync pays for every "
           "TRIM; without it deleting is cheap and an fstrim later pays for the free space",
           "documented experiments 000 (discard on the Vertex LE, fstrim of a 60 %-full "
           "file system); ssdlab/assets/scenarios/discard_vertex_le.toml, lesson 04 (TRIM)",
           (Cite("000", "40.41", "s"), Cite("000", "0.17", "s"),
            Cite("000", "six", "minutes")),
           ("article 000: the final sync with discard on the Vertex LE",
            "article 000: the same sync without discard",
            "article 000: fstrim of the 60 %-full 95 GB file system")),
    Figure("alignment",
           "write amplification of a 64 MiB file written in 4 KiB direct writes into a "
           "partition starting at sector 63, 64 or 2048, on a block-mapped and a "
           "page-mapped drive",
           "documented experiment 002 (alignment); "
           "ssdlab/assets/scenarios/alignment_firstgen.toml, "
           "lesson 08 (alignment)",
           (Cite("002", quote="critical on first generation SSD's"),),
           ("article 002: aligning on an erase block boundary matters on first-generation "
            "drives (said in words; no figure)",)),
    Figure("compression",
           "write amplification (flash bytes per host byte) of ordinary use (new files, "
           "deletes and 4 KiB rewrites in place) of an 85 %-full file system on a "
           "compressing OCZ Vertex LE, against how small the data compresses; the dashed "
           "line is what compression alone would give, with no GC",
           "lesson 10 (compression)",
           (Cite("004", quote="Sandforce controller based SSDs with the combination of "
                 "TRIM, heavy over-provisioning and data compression"),),
           ("a reader of article 004: SandForce-based drives compress data",)),
)
