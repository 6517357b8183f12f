"""A drive and its charts in the sentences a screen reader speaks, from a snapshot's figures
(the GUI computes no physics: counts of blocks by state, the counters' ratio, the analytic
level the session already has). No Qt: ssdlab/app/gui/frame/speech.py hands them to the
accessibility tree, ssdlab/app/gui/frame/announcer.py decides when."""

from __future__ import annotations

import math

import numpy as np

from ssdlab.model.flash.amplification import page_wa
from ssdlab.model.flash.state import BLOCK_FREE, BLOCK_OPEN
from ssdlab.model.lab.charts import Table

from .snapshot import Snapshot, block_capacity, tagged_blocks


def wa_now(snap: Snapshot) -> float:
    """The write amplification the window shows for snap: its WA series' last point, else
    the counters' flash ÷ host (a lesson's run carries no series; a compressing drive's
    stored pages times the share of a flash page each takes); nan before any write."""
    series = snap.series.get("wa")
    if series is not None and series.size:
        return float(series[-1])
    c = snap.counters
    return page_wa(c["nand_writes"] * snap.stored, c["host_writes"])


def wa_words(wa: float, theory: float | None) -> str:
    """"write amplification since the drive was new 2.31 (simulated), analytic level 2.25"
    (the level only when the session has one): since new, as the status bar and tally
    count it, not the share of a run a lesson measures."""
    said = (f"write amplification since the drive was new {wa:.2f} (simulated)"
            if math.isfinite(wa)
            else "write amplification not yet known: nothing written")
    if theory is not None and math.isfinite(theory):
        said += f", analytic level {theory:.2f}"
    return said


def map_description(snap: Snapshot | None) -> str:
    """What the block map shows: blocks free, open and full, the share of the flash holding
    valid data (of the places for pages a block has: on a compressing drive the stored
    pages it holds, not flash pages), and the garbage collection's victim when there is
    one."""
    if snap is None:
        return "No drive yet."
    free = int(np.count_nonzero(snap.state == BLOCK_FREE))
    open_ = int(np.count_nonzero(snap.state == BLOCK_OPEN))
    full = snap.blocks - free - open_
    pages = int(np.sum(np.broadcast_to(block_capacity(snap), (snap.blocks,))))
    valid = 100 * float(snap.valid.sum()) / pages if pages else 0.0
    said = (f"{snap.blocks:,} blocks: {free:,} free, {open_:,} open, {full:,} full; "
            f"{valid:.0f} % of the flash holds valid data.")
    if snap.slc_counts is not None:  # a drive with an SLC cache: its blocks are marked
        c = snap.slc_counts
        marked = int(np.count_nonzero(snap.slc))  # as the map marks them, free ones too
        said += (f" SLC cache: {marked:,} blocks in SLC mode, of {snap.slc_pages:,} pages, "
                 f"{c['slc_full']:,} full and waiting to be folded; {c['slc_writes']:,} "
                 f"pages written into it, {c['folded_pages']:,} folded into dense flash.")
    if snap.handles is not None:  # a host that tags its data: those blocks are marked
        tagged = tagged_blocks(snap)
        said += (f" Placement: {tagged.size:,} blocks hold data tagged hot (handle 1), "
                 f"{int(snap.valid[tagged].sum()):,} valid pages in them.")
    if snap.gc_victim >= 0:
        n = snap.gc_valid
        said += (f" Garbage collection victim: block {snap.gc_victim}, "
                 f"{n} valid page{'s' if n != 1 else ''}.")
    return said


def figure(value: float, whole: bool = False) -> str:
    """A chart's value as said: a count whole, with thousands separated, else 2 decimals
    (3 significant figures below 1)."""
    if whole or float(value).is_integer() and abs(value) >= 10:
        return f"{value:,.0f}"
    return f"{value:,.2f}" if abs(value) >= 1 else f"{value:.3g}"


def chart_description(title: str, table: Table | None) -> str:
    """A chart in words, from the data it draws (its table, ssdlab/model/lab/charts.py): a
    line chart's lines at their last point, a histogram's bars by where they pile up, the
    steps chart's last step. Every figure is the simulation's."""
    if table is None:
        return f"{title}. No run yet."
    if table.note:
        return f"{title}. {table.note}."
    x_axis, y_axis = table.chart.axes(table.timed)
    if table.chart.histogram:
        counts = np.nan_to_num(table.ys["hist"])
        if counts.size == 0 or counts.sum() <= 0:
            return f"{title}. Nothing counted yet."
        top = int(np.argmax(counts))
        seen = np.flatnonzero(counts)
        return (f"{title} (simulated): {counts.sum():,.0f} {y_axis.label} over {x_axis.label} "
                f"{seen[0]:,} to {seen[-1]:,}; the most, {counts[top]:,.0f}, at {top:,}.")
    if table.chart.name == "steps":
        if not table.labels:
            return f"{title}. No file-system steps yet."
        last = len(table.labels) - 1
        said = ", ".join(f"{line.label} {figure(table.ys[line.key][last])} {y_axis.unit}"
                         for line in table.chart.lines
                         if np.isfinite(table.ys[line.key][last]))
        return (f"{title} (simulated): {len(table.labels)} steps; the last, "
                f"{table.labels[last]}: {said}.")
    lines = []
    for line in table.chart.lines:
        y = np.asarray(table.ys.get(line.key, ()), dtype=float)
        known = np.flatnonzero(np.isfinite(y))
        if known.size:
            lines.append(f"{line.label} {figure(y[known[-1]], y_axis.whole)}")
    known = np.flatnonzero(np.isfinite(table.x))
    if not lines or not known.size:
        return f"{title}. Nothing drawn yet."
    at = f"at {figure(table.x[known[-1]], x_axis.whole)} {x_axis.unit or x_axis.label}"
    return f"{title} (simulated), {at}: {', '.join(lines)} ({y_axis.title})."


def gc_summary(first: int, last: int, copied: int, block: int = -1) -> str:
    """The garbage collections numbered first..last (since the drive was new) in one
    sentence: "GC 12: block 40 cleaned, 26 valid pages moved", or for several "GC 13 to 40:
    28 blocks cleaned, 1,204 valid pages moved"."""
    pages = f"{copied:,} valid page{'s' if copied != 1 else ''} moved"
    if first == last:
        which = f"block {block}" if block >= 0 else "a block"
        return f"GC {last}: {which} cleaned, {pages}."
    return f"GC {first} to {last}: {last - first + 1:,} blocks cleaned, {pages}."


def run_end(snap: Snapshot, theory: float | None) -> str:
    """A run that stopped: paused part way, or finished, with its WA."""
    wa = wa_words(wa_now(snap), theory)
    part = snap.progress == snap.progress and snap.progress < 1
    if snap.segment and part:
        return f"Paused, {snap.segment} {100 * snap.progress:.0f} % done: {wa}."
    return f"Run finished{f' ({snap.segment})' if snap.segment else ''}: {wa}."
