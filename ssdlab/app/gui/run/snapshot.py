"""What a drive looks like to the window, taken between chunks of work: a Snapshot of its
blocks, pages and counters (copies the GUI may keep), each block's colour code and each
page's state, marked with what happened since the previous frame. Taken by the worker
(ssdlab/app/gui/run/worker.py) and by a lesson's run (ssdlab/app/gui/lessons/lessonrun.py). No Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ssdlab.model.flash.drive import Drive, window_wa
from ssdlab.model.flash.gcepisodes import GcPhase
from ssdlab.model.flash.state import BLOCK_FREE, BLOCK_OPEN, BLOCK_VICTIM, FREE_PAGE, INVALID_PAGE

PAGE_LEVEL_PAGES = 1 << 18  # physical pages up to which snapshots carry page states
# physical pages up to which a GC played at teaching pace carries every page's state: a few
# frames, not fifteen a second, so a bigger drive than PAGE_LEVEL_PAGES can show its pages
TEACH_PAGES = 1 << 23
VIEW_PAGES = 1 << 20  # pages of the blocks a zoomed map shows that a snapshot may carry
# Marks for blocks and pages in a snapshot (what happened since the previous snapshot).
MARK_VICTIM, MARK_ERASED = 1, 2
PAGE_FREE, PAGE_VALID, PAGE_INVALID, PAGE_COPIED = 0, 1, 2, 3
# Colour codes per block (uint16), theme-free: 0..255 a full block's valid fraction (the
# block map looks them up in viridis), then the block states and marks.
CODE_FREE, CODE_OPEN, CODE_VICTIM, CODE_ERASED = 256, 257, 258, 259
CODES = 260


def block_codes(state: np.ndarray, valid: np.ndarray, marks: np.ndarray,
                pages_per_block: int | np.ndarray) -> np.ndarray:
    """uint16 per block: what colour the block map paints it (see CODE_*). Computed in the
    worker, so the GUI thread only looks colours up. pages_per_block: what a block holds,
    or per block (block_capacity): a block in SLC mode holds fewer, and full is full."""
    codes = (valid.astype(np.int32) * 255 // pages_per_block).astype(np.uint16)
    np.minimum(codes, 255, out=codes)
    codes[state == BLOCK_FREE] = CODE_FREE
    codes[state == BLOCK_OPEN] = CODE_OPEN
    codes[state == BLOCK_VICTIM] = CODE_VICTIM
    if marks.any():
        codes[marks == MARK_ERASED] = CODE_ERASED
        codes[marks == MARK_VICTIM] = CODE_VICTIM
    return codes


@dataclass
class Snapshot:
    """Copies of what the display needs; the GUI may keep it as long as it likes."""

    seq: int
    blocks: int
    pages_per_block: int
    user_pages: int
    state: np.ndarray  # int8 per block (model BLOCK_*)
    valid: np.ndarray  # int32 per block
    erases: np.ndarray  # int32 per block
    close_seq: np.ndarray  # int64 per block: NAND writes when it closed, -1 if open/free
    marks: np.ndarray  # int8 per block: MARK_VICTIM / MARK_ERASED since the last frame
    codes: np.ndarray  # uint16 per block: colour code (block_codes)
    pages: np.ndarray | None  # int8 per page (PAGE_*) of the blocks page_blocks names
    counters: dict
    free_blocks: int
    series: dict[str, np.ndarray]
    running: bool
    segment: str
    progress: float  # of the current segment, 0..1 (nan when endless)
    engine_pages_per_s: float
    sim_s: float
    animated: bool
    events_dropped: int = 0
    log: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)  # file-system steps run (StepResult)
    mounted: bool = False  # the drive holds the file system (a Machine drives it)
    mount: tuple[str, bool] | None = None  # its mount options now: (atime, discard)
    run_remounts: int = 0  # mount changes the run itself made (scenario remount steps)
    message: str = ""  # what the last file-system step reported (trace summary)
    handled: int = 0  # the ticket (Worker.send) of the last command handled before it
    # the blocks whose pages `pages` holds, in that order (None: every block)
    page_blocks: np.ndarray | None = None
    victim_valid: np.ndarray | None = None  # int64[ppb + 1]: GC victims by valid pages
    breakpoint: str = ""  # what the last breakpoint that fired said
    breakpoint_hits: int = 0  # breakpoints fired since the worker started
    # A garbage collection the map marks (victim outlined and labelled, its destinations
    # too): gc_phase says which moment this is ("mark", "move", "erase" at teaching pace,
    # "breakpoint" when one paused the run on it, "stepped" after one GC step).
    gc_phase: str = ""
    gc_victim: int = -1  # block
    gc_valid: int = 0  # valid pages it held when chosen: the pages GC moved out of it
    gc_destinations: tuple[int, ...] = ()  # blocks the moved pages went to
    gc_kind: str = "gc"  # or "merge": a block-mapped drive rewrote a block whole
    # a GC step after a breakpoint on a GC: (GCs, host pages) the paused batch ran after
    # the moment the breakpoint showed, which the counters now count too
    gc_rest: tuple[int, int] = (0, 0)
    # teaching pace: the GC's phases to play, in order, before this snapshot (each a
    # Snapshot of the drive at that phase); gc_serial numbers the GC they show
    gc_frames: tuple = ()
    gc_serial: int = 0
    # The write amplification of this moment, the one figure the tally and the status bar
    # both show (each computing its own from different moments disagreed by 0.01-0.02):
    # from this snapshot's counters, compression counted (stored: the share of a flash page
    # programmed per page); a mounted file system's is the recorder's, in bytes.
    wa: float = math.nan
    stored: float = 1.0
    # The figures the tally shows (host_writes, nand_writes, gc_copies) where they are not
    # the drive's own counters since it was new: a lesson's file system counts from when it
    # was made, its host writes in pages' worth of the bytes sent (a 4 KiB write across two
    # flash pages is one page's worth, as its WA counts it); None: the drive's counters
    tally_counts: dict | None = None
    # An SLC cache (model/flash/slccache.py): each block's mode (MODE_DENSE, MODE_SLC
    # borrowed, MODE_STATIC), the pages a block holds in SLC mode, and the cache's figures
    # (Drive.slc_counters); None / 0 without a cache
    slc: np.ndarray | None = None
    slc_pages: int = 0
    slc_counts: dict | None = None
    # Placement handles (model/flash/placement.py): the handle whose stream opened each
    # block; None on a drive without them
    handles: np.ndarray | None = None


def tagged_blocks(snap) -> np.ndarray:
    """The blocks holding data a placement handle other than 0 wrote (a free block, whatever
    handle last opened it, holds none); empty on a drive without handles."""
    if snap.handles is None:
        return np.empty(0, dtype=np.int64)
    n = snap.blocks
    return np.flatnonzero((snap.handles[:n] != 0) & (snap.state[:n] != BLOCK_FREE))


def block_capacity(snap) -> int | np.ndarray:
    """Pages each block holds: pages_per_block, or per block on a drive with an SLC cache."""
    return _capacity(snap.slc, snap.slc_pages, snap.pages_per_block)


def _capacity(slc: np.ndarray | None, slc_pages: int, ppb: int) -> int | np.ndarray:
    return ppb if slc is None else np.where(slc != 0, slc_pages, ppb)


def counters_wa(counters: dict, stored: float = 1.0) -> float:
    """The drive's write amplification since it was new at these counters (nan before any
    host write): ssdlab/model/flash/drive.window_wa from zero."""
    return window_wa(dict.fromkeys(counters, 0), counters, stored)


def page_states(p2l: np.ndarray) -> np.ndarray:
    """int8 PAGE_* per entry of an engine p2l array (or a slice of one)."""
    pages = np.full(p2l.shape, PAGE_VALID, dtype=np.int8)
    pages[p2l == FREE_PAGE] = PAGE_FREE
    pages[p2l == INVALID_PAGE] = PAGE_INVALID
    return pages


def drive_snapshot(drive: Drive, seq: int, marks: np.ndarray | None = None,
                   **fields) -> Snapshot:
    """A Snapshot of a drive's blocks and counters, taken by the thread that runs it between
    chunks of work (the worker, or a lesson's run); marks: MARK_* per block since the last
    frame (none by default); fields sets the rest (series, segment, progress, pages, ...).
    Without pages in fields, a drive small enough gets every page's state."""
    g = drive.geometry
    views = drive.block_views()
    marks = np.zeros(g.blocks, dtype=np.int8) if marks is None else marks.copy()
    ppb = drive.pages_per_block  # the engine's places: stored pages on a compressing drive
    if "pages" not in fields and g.blocks * ppb <= PAGE_LEVEL_PAGES:
        fields["pages"] = page_states(drive.arrays.p2l)
    slc = {}
    if drive.config.slc_cache != "none":
        slc = dict(slc=drive.arrays.mode.copy(), slc_pages=ppb // drive.config.cell_bits,
                   slc_counts=drive.slc_counters())
    if drive.config.placement_handles > 1:
        slc["handles"] = drive.arrays.bhandle[:g.blocks].copy()
    capacity = _capacity(slc.get("slc"), slc.get("slc_pages", 0), ppb)
    base = dict(seq=seq, blocks=g.blocks, pages_per_block=ppb,
                user_pages=g.user_pages, state=views["state"].copy(),
                valid=views["valid"].copy(), erases=views["erases"].copy(),
                close_seq=drive.arrays.close_seq.copy(), marks=marks, pages=None,
                codes=block_codes(views["state"], views["valid"], marks, capacity),
                counters=drive.counters(), free_blocks=drive.free_blocks, series={},
                running=True, segment="", progress=float("nan"), engine_pages_per_s=0.0,
                sim_s=0.0, animated=False, events_dropped=drive.events_dropped,
                victim_valid=drive.victim_valid(),
                stored=drive.stored_fraction,  # the engine's own: a compressing drive's < 1
                **slc)
    snap = base | fields
    if "wa" not in fields:
        snap["wa"] = counters_wa(snap["counters"], snap.get("stored", 1.0))
    return Snapshot(**snap)


def page_view(drive: Drive, view_blocks: np.ndarray | None, copied: list[np.ndarray]
              ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Page states for the snapshot: every page of a small drive; of a bigger one, the
    pages of the blocks the zoomed map shows (never the whole page map), as (pages,
    the blocks they belong to; None: all). view_blocks: the blocks the map shows (sorted);
    copied: the pages GC copied since the last frame, marked PAGE_COPIED where shown."""
    g = drive.geometry
    ppb = drive.pages_per_block  # the engine's places: stored pages on a compressing drive
    blocks = None
    if g.blocks * ppb <= PAGE_LEVEL_PAGES:
        pages = page_states(drive.arrays.p2l)
    else:
        blocks = view_blocks
        if blocks is None or not 0 < blocks.size * ppb <= VIEW_PAGES:
            return None, None
        blocks = blocks[blocks < g.blocks]
        pages = page_states(drive.arrays.p2l.reshape(g.blocks, ppb)[blocks]).ravel()
    if copied:  # pages GC copied since the last frame, where they are shown
        ppn = np.concatenate(copied)
        if blocks is not None:
            row = np.searchsorted(blocks, ppn // ppb)
            shown = row < blocks.size
            shown[shown] &= blocks[row[shown]] == ppn[shown] // ppb
            ppn = row[shown] * ppb + ppn[shown] % ppb
        pages[ppn[pages[ppn] == PAGE_VALID]] = PAGE_COPIED
    return pages, blocks


def phase_snapshot(base: Snapshot, phase: GcPhase, name: str | None = None) -> Snapshot:
    """The drive as it stood at one phase of a GC (ssdlab/model/flash/gcepisodes.py), on the lines
    of snapshot `base` (series, segment, ...): blocks, pages and counters from the phase,
    the victim marked, the moved pages marked as copied once they are in their new block.
    name: what the map calls the moment (default: the phase's own name)."""
    ep = phase.episode
    marks = np.zeros(base.blocks, dtype=np.int8)
    marks[ep.victim] = MARK_ERASED if phase.name == "erase" else MARK_VICTIM
    pages = None
    if base.pages is not None and base.page_blocks is None:
        pages = page_states(phase.p2l)
        if phase.name != "mark" and ep.targets:
            pages[np.asarray(ep.targets)] = PAGE_COPIED
    counters = base.counters | phase.counters
    return replace(
        base, wa=base.wa if base.mounted else counters_wa(counters, base.stored),
        state=phase.bstate.copy(), valid=phase.valid.copy(), marks=marks, pages=pages,
        codes=block_codes(phase.bstate, phase.valid, marks, block_capacity(base)),
        counters=counters, free_blocks=int(
            np.count_nonzero(phase.bstate == BLOCK_FREE)),
        gc_phase=name or phase.name, gc_victim=ep.victim, gc_valid=ep.valid_pages,
        gc_destinations=ep.destinations, gc_kind=ep.kind, gc_frames=())
