"""Names for runs shown together: "A: discard", "B: fstrim every 10 min", "ref: spare 7 %".

Two drives side by side (or a run beside a pinned reference) differ in a few settings; the
charts' legends, the maps' titles and the Steps table name each run by exactly those, in
plain words with units. No Qt: the window and any exporter can use it.

A setting that is merely "off" on one run (no discard, no fstrim, no LVM) is left out of
that run's name when the run has something else to be named by, so discard against fstrim
reads "A: discard" / "B: fstrim every 10 min", not "A: discard, no fstrim".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields

from ssdlab.model.host.profiles import load_profile

from .fsjobs import FS_KINDS
from .schema import LVM_OFFSETS, SETTINGS
from .settings import Settings
from .streams import KINDS

# How the window shows these settings, and how long a run went (its x axis shows that),
# never part of a run's name.
VIEW_FIELDS = ("speed", "heatmap", "fill_pct", "amount")
MAPPINGS = {"page": "page mapping", "block": "block mapping", "fast": "hybrid (FAST) mapping"}
GC_NAMES = {"greedy": "greedy GC", "fifo": "FIFO GC", "cost-benefit": "cost-benefit GC",
            "random-d": "random-d GC"}


def _profile(key: str) -> str:
    return load_profile(key).name.split(" (")[0] if key else "no profile"


def _lvm(kib: int) -> str:
    return "no LVM" if not kib else f"LVM offset {dict(LVM_OFFSETS).get(kib, f'{kib} KiB')}"


# Each setting in words (with its unit), and its "off" value where it has one.
WORDS: dict[str, Callable[[object], str]] = {
    "profile": _profile,
    "capacity_mib": lambda v: f"{v:,.0f} MiB",
    "spare_pct": lambda v: f"spare {v:g} %",
    "page_kib": lambda v: f"{v} KiB pages",
    "pages_per_block": lambda v: f"{v} pages per block",
    "mapping": MAPPINGS.get,
    "gc": GC_NAMES.get,
    "d": lambda v: f"d = {v}",
    "gc_low_blocks": lambda v: f"GC at {v} free blocks",
    "gc_frontier": lambda v: f"{v} GC frontier",
    "victim_order": lambda v: f"{v} victim among equals",
    "slc_cache": lambda v: "no SLC cache" if v == "none" else f"{v} SLC cache",
    "wear_leveling_gap": lambda v: (f"wear levelling at {v} erases" if v
                                    else "no wear levelling"),
    "placement": lambda v: "hot/cold tags" if v == "hotcold" else "no placement tags",
    "handle_gc": lambda v: f"{v} handle GC",
    "tag_errors_pct": lambda v: f"{v:g} % wrong tags",
    "seed": lambda v: f"seed {v}",
    "partition_start": lambda v: f"start sector {v}",
    "lvm_kib": _lvm,
    "workload": lambda v: (KINDS | FS_KINDS).get(v, v),
    "fill_pct": lambda v: f"fill to {v:g} %",
    "amount": lambda v: f"{v:g} drive writes",
    "hot_lba_pct": lambda v: f"hot LBAs {v:g} %",
    "hot_write_pct": lambda v: f"hot writes {v:g} %",
    "trim_max_pages": lambda v: f"TRIMs up to {v} pages",
    "journal": lambda v: "journal" if v else "no journal",
    "atime": str,
    "discard": lambda v: "discard" if v else "no discard",
    "kernel": lambda v: f"kernel {v}",
    "fstrim_every_min": lambda v: f"fstrim every {v:g} min" if v else "no fstrim",
    "kernel_scale": lambda v: f"tree scale {v:g}",
    "seq_mb": lambda v: f"{v:g} MB written",
    "trace_path": lambda v: f"trace {str(v).rsplit('/', 1)[-1]}" if v else "no trace",
    "data_compression": lambda v: f"data compresses to {100 * v:g} %" if v else
    "rated compression",
    "extents": lambda v: "extents" if v else "indirect block maps",
    "commit_interval_s": lambda v: f"commit every {v:g} s",
    "stripe_width_blocks": lambda v: f"stripe width {v} blocks" if v else "no stripe",
    "max_request_kib": lambda v: f"requests up to {v} KiB",
}
OFF = {"discard": False, "fstrim_every_min": 0.0, "lvm_kib": 0, "data_compression": 0.0,
       "trace_path": ""}


def words(name: str, value) -> str:
    """One setting in plain words; a setting without a phrase of its own reads as its
    control's label and value."""
    phrase = WORDS.get(name)
    text = phrase(value) if phrase is not None else None
    if text is None:
        label = SETTINGS[name].label if name in SETTINGS else name
        text = f"{label} {value}"
    return text


def differing(runs: Sequence[Settings]) -> list[str]:
    """The settings (field names, in Settings order) not the same on every run."""
    names = [f.name for f in fields(Settings) if f.name not in VIEW_FIELDS]
    return [n for n in names if len({getattr(s, n) for s in runs}) > 1]


def describe(runs: Sequence[Settings]) -> list[str]:
    """For each run, what sets it apart from the others ("" when nothing does)."""
    names = differing(runs)
    out = []
    for s in runs:
        on = [n for n in names if not (n in OFF and getattr(s, n) == OFF[n])]
        out.append(", ".join(words(n, getattr(s, n)) for n in (on or names)))
    return out


def run_labels(tags: Sequence[str], runs: Sequence[Settings]) -> list[str]:
    """"A: spare 7 %", "B: spare 28 %": each tag with what sets its run apart, or the tag
    alone when the runs do not differ."""
    return [f"{tag}: {text}" if text else tag for tag, text in zip(tags, describe(runs),
                                                                     strict=True)]
