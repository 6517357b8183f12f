"""A simulated drive: the readable Python face of the compiled engine.

Drive owns a `FlashArrays`, checks every command before it reaches compiled code (which does
no bound checks), turns engine error codes into exceptions, and offers counters, read-only
views of the per-block arrays for display, and the event buffer for animation.

A drive run by something that knows nothing of watching (a file system's block device, the
timing model's idle time) can still show its first GCs: a GcWatch (gcwatch.py) set as its
`watcher` is handed run_all's commands and idle_gc's calls while it wants GCs, and runs
them itself, with the same physics.
"""

from __future__ import annotations

import numpy as np

from . import ftl, gc, invariants, slccache
from .amplification import write_amplification
from .commands import Commands
from .geometry import SLOTS_PER_PAGE, FtlConfig, Geometry, is_whole, stored_pages_per_block
from .state import (
    COUNTER_NAMES,
    ERROR_MESSAGES,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    R_BORROWED_COUNT,
    R_ERROR,
    R_EVENT_CAPACITY,
    R_EVENTS,
    R_EVENTS_DROPPED,
    R_FOLDED_PAGES,
    R_FOLDS,
    R_FREE_COUNT,
    R_FREE_LOW,
    R_LAST_MOVED,
    R_LAST_VICTIM,
    R_MAPPED,
    R_PAGES_PER_BLOCK,
    R_POOL_COUNT,
    R_SLC,
    R_SLC_BORROWED,
    R_SLC_SHARE_PPM,
    R_SLC_STATIC,
    R_SLC_WRITES,
    R_STATIC_COUNT,
    R_STORED_SLOTS,
    R_TRACK_VERSIONS,
    R_USER_PAGES,
    R_WATCH_LPN,
    R_WATCH_WRITES,
    SLC_DYNAMIC,
    allocate,
)


class DriveError(RuntimeError):
    """The engine reached a state it cannot continue from (see state.ERROR_MESSAGES)."""


def window_wa(before: dict, after: dict, stored_fraction: float = 1.0) -> float:
    """Write amplification (amplification.write_amplification) between two counter readings
    of a bare drive, whose host writes are whole pages: the host wrote host_writes pages'
    worth of bytes (nan if none in between). stored_fraction: the share of a flash page a
    compressing drive (SandForce) programs per page, which can bring WA below 1."""
    host = after["host_writes"] - before["host_writes"]
    return write_amplification(after["nand_writes"] - before["nand_writes"], 1, host,
                               stored_fraction)


def event_capacity_for(geometry: Geometry, config: FtlConfig, pages_per_command: int = 1) -> int:
    """Event rows that always hold one write command of pages_per_command pages (the bound
    ftl.event_bound uses): give a drive at least this so no event is ever dropped."""
    ppb = stored_pages_per_block(geometry.pages_per_block, config.stored_fraction)
    victims = ppb + 1 if config.gc in ("greedy", "cost-benefit") else geometry.blocks
    if config.wear_leveling_gap > 0:  # a wear-levelling move may follow each victim
        victims *= 2
    fold = 4 * (geometry.pages_per_block // config.cell_bits + 2) \
        if config.slc_cache != "none" else 0
    opens = pages_per_command // ppb + 2 + config.placement_handles - 1
    return 2 * pages_per_command + opens * (victims * (ppb + 2) + ppb + 2 + fold)


class Drive:
    """A drive built from a Geometry and an FtlConfig, erased and empty.

    event_capacity: rows of the event buffer (0 = no events, the fast setting).
    """

    def __init__(self, geometry: Geometry, config: FtlConfig | None = None,
                 event_capacity: int = 0):
        self.geometry = geometry
        self.config = config or FtlConfig()
        self.arrays = allocate(geometry, self.config, event_capacity)
        self.watcher = None  # a gcwatch.GcWatch shown the first GCs (see the docstring)

    # --- commands ---------------------------------------------------------------------------

    def run(self, commands: Commands, start: int = 0, checked: bool = False) -> int:
        """Run commands from index start; returns the index reached (len(commands) unless the
        event buffer filled first: take the events and call again from there). checked: the
        caller made every command within bounds, as C-contiguous int8/int64 arrays, itself
        (the block device checks each request as it is queued and builds its arrays so), so
        they are neither checked nor converted again."""
        if checked:
            ops, lpns, counts = commands.ops, commands.lpns, commands.counts
        else:
            if start == 0:
                commands.check(self.geometry.user_pages)
            # Contiguous int8/int64 arrays always (no copy when they are already): one
            # compiled specialisation, the one `python -m ssdlab.model.flash.warm` prepares.
            ops = np.ascontiguousarray(commands.ops, np.int8)
            lpns = np.ascontiguousarray(commands.lpns, np.int64)
            counts = np.ascontiguousarray(commands.counts, np.int64)
        reached = ftl.run_commands(self.arrays, ops, lpns, counts, start, ops.shape[0])
        self._raise_if_broken()
        return int(reached)

    def run_all(self, commands: Commands, checked: bool = False) -> None:
        """Run every command; only for drives without events (or with room for them all)."""
        if self.watcher is not None and self.watcher.wants():
            self.watcher.run_all(self, commands)
            return
        if self.event_capacity:
            raise ValueError("run_all is for drives without events; use run() and take events")
        self.run(commands, checked=checked)

    def write_pages(self, lpns: np.ndarray) -> None:
        """Host writes of single pages, the whole-drive hot path (no events)."""
        if self.event_capacity:
            raise ValueError("write_pages is for drives without events; use run()")
        lpns = np.ascontiguousarray(lpns, dtype=np.int64)
        if lpns.size and (lpns.min() < 0 or lpns.max() >= self.geometry.user_pages):
            raise ValueError(f"lpn must be from 0 to {self.geometry.user_pages - 1}")
        if self.config.mapping == "page":
            ftl.run_single_page_writes(self.arrays, lpns)
            self._raise_if_broken()
        else:
            self.run(Commands.single_page(OP_WRITE, lpns))

    def _one(self, op: int, lpn: int, count: int) -> None:
        cmd = Commands(np.array([op], dtype=np.int8), np.array([lpn], dtype=np.int64),
                       np.array([count], dtype=np.int64))
        if self.run(cmd) != 1:
            raise DriveError("the event buffer is full: take_events() first")

    def write(self, lpn: int, count: int = 1) -> None:
        self._one(OP_WRITE, lpn, count)

    def trim(self, lpn: int, count: int = 1) -> None:
        self._one(OP_TRIM, lpn, count)

    def read(self, lpn: int, count: int = 1) -> None:
        self._one(OP_READ, lpn, count)

    def collect_one(self) -> int:
        """Run one GC step now; returns the pages it copied, or -1 if nothing was closed."""
        if self.config.mapping != "page":
            return -1
        before = int(self.arrays.regs[R_ERROR])
        moved = int(gc.collect(self.arrays))
        if moved < 0 and before == 0:
            self.arrays.regs[R_ERROR] = 0  # nothing to collect is not a fault here
            return -1
        self._raise_if_broken()
        return moved

    def idle_gc(self, target_free_blocks: int, max_victims: int,
                max_valid_fraction: float = 1.0) -> int:
        """Background GC in idle time (the timing model calls it); returns victims taken."""
        if self.watcher is not None and self.watcher.wants():
            return self.watcher.idle_gc(self, target_free_blocks, max_victims,
                                        max_valid_fraction)
        return self.idle_gc_now(target_free_blocks, max_victims, max_valid_fraction)

    def idle_gc_now(self, target_free_blocks: int, max_victims: int,
                    max_valid_fraction: float = 1.0) -> int:
        """idle_gc, never handed to the watcher."""
        if self.config.mapping != "page":
            return 0
        max_valid = int(max_valid_fraction * self.pages_per_block)
        n = int(gc.idle_gc(self.arrays, target_free_blocks, max_victims, max_valid))
        self._raise_if_broken()
        return n

    def fold(self, max_blocks: int) -> int:
        """Fold up to max_blocks full SLC-cache blocks into dense flash, the oldest first, as
        a drive does in idle time, while more than gc_low_blocks blocks are free (idle GC
        makes room: slccache.py); returns the blocks folded (0 without a cache)."""
        if not (is_whole(max_blocks) and 0 <= max_blocks <= 2**31 - 1):
            raise ValueError(f"max_blocks must be a whole number from 0 to {2**31 - 1}; "
                             f"got {max_blocks}")
        if self.config.slc_cache == "none":
            return 0
        n = int(slccache.fold(self.arrays, max_blocks))
        self._raise_if_broken()
        return n

    def fold_step(self, max_blocks: int, make_room: bool) -> bool:
        """One step of idle-time folding: fold up to max_blocks full cache blocks; when none
        could be folded (the dense flash has no room beyond GC's reserve), collect one GC
        victim to make room if make_room. False when neither happened: folding is stuck
        until the host writes again."""
        return self.fold(max_blocks) > 0 or (
            make_room and self.idle_gc(self.free_blocks + 1, 1) > 0)

    def set_tags(self, tags) -> None:
        """The placement handle of every logical page (an array of user_pages whole numbers
        from 0 to placement_handles - 1): the host's say of which data belongs together.
        Writes from now on go to their page's handle's open block."""
        n = self.config.placement_handles
        tags = np.asarray(tags)
        if n == 1:
            raise ValueError("set_tags needs placement_handles of 2 or more; this drive has 1")
        if tags.shape != (self.geometry.user_pages,) or tags.dtype.kind not in "iu":
            raise ValueError(f"tags must be {self.geometry.user_pages} whole numbers, one a "
                             f"logical page; got shape {tags.shape}, type {tags.dtype}")
        if tags.size and (tags.min() < 0 or tags.max() >= n):
            raise ValueError(f"tags must be from 0 to {n - 1} (placement_handles - 1); got "
                             f"{int(tags.min())} to {int(tags.max())}")
        self.arrays.tag[:] = tags

    def tag_pages(self, lpns, tags) -> None:
        """Set the placement handle of some logical pages (lpns: whole numbers below
        user_pages; tags: one handle for all, or one a page), as a host does between its
        writes: those pages' later writes go to their new handle's open block."""
        n = self.config.placement_handles
        lpns, tags = np.asarray(lpns), np.asarray(tags)
        if n == 1:
            raise ValueError("tag_pages needs placement_handles of 2 or more; this drive has 1")
        if lpns.dtype.kind not in "iu" or tags.dtype.kind not in "iu" or tags.shape not in (
                (), lpns.shape):
            raise ValueError(f"lpns and tags must be whole numbers, tags one or one a page; "
                             f"got {lpns.dtype} {lpns.shape} and {tags.dtype} {tags.shape}")
        if lpns.size and (lpns.min() < 0 or lpns.max() >= self.geometry.user_pages):
            raise ValueError(f"lpns must be from 0 to {self.geometry.user_pages - 1}; got "
                             f"{int(lpns.min())} to {int(lpns.max())}")
        if tags.size and (tags.min() < 0 or tags.max() >= n):
            raise ValueError(f"tags must be from 0 to {n - 1} (placement_handles - 1); got "
                             f"{int(tags.min())} to {int(tags.max())}")
        self.arrays.tag[lpns] = tags

    def slc_counters(self) -> dict[str, int]:
        """The SLC cache's figures (slccache.py), in pages and blocks: host pages programmed
        into it (slc_writes); pages copied out of its blocks into dense flash by folding
        (folded_pages: programmed a second time, counted in gc_copies too); blocks folded
        (folds); blocks it holds now, static and borrowed, each open or full
        (slc_blocks), and how many of those are full, waiting to be folded (slc_full);
        the dense blocks a dynamic cache may still borrow now (slc_may_borrow: fewer on a
        fuller drive). Zeros without a cache."""
        r = self.arrays.regs
        if not int(r[R_SLC]):
            return dict.fromkeys(("slc_writes", "folded_pages", "folds", "slc_blocks",
                                  "slc_full", "slc_may_borrow"), 0)
        limit = 0
        if int(r[R_SLC]) == SLC_DYNAMIC:
            unmapped = int(r[R_USER_PAGES]) - int(r[R_MAPPED])
            limit = int(r[R_SLC_SHARE_PPM]) * unmapped // (1_000_000 * int(r[R_PAGES_PER_BLOCK]))
        held = int(r[R_SLC_STATIC]) - int(r[R_POOL_COUNT]) + int(r[R_SLC_BORROWED])
        return {"slc_writes": int(r[R_SLC_WRITES]), "folded_pages": int(r[R_FOLDED_PAGES]),
                "folds": int(r[R_FOLDS]), "slc_blocks": held,
                "slc_full": int(r[R_STATIC_COUNT]) + int(r[R_BORROWED_COUNT]),
                "slc_may_borrow": max(0, limit - int(r[R_SLC_BORROWED]))}

    def _raise_if_broken(self) -> None:
        code = int(self.arrays.regs[R_ERROR])
        if code:
            raise DriveError(ERROR_MESSAGES.get(code, f"engine error {code}"))

    # --- reading ----------------------------------------------------------------------------

    def counters(self) -> dict[str, int]:
        regs = self.arrays.regs
        return {name: int(regs[i]) for name, i in COUNTER_NAMES.items()}

    @property
    def stored_fraction(self) -> float:
        """The share of a flash page each page the engine programs takes (its slots over a
        page's): 1.0 without compression. The nand_writes counter counts such stored pages,
        so flash pages programmed = nand_writes * stored_fraction."""
        return int(self.arrays.regs[R_STORED_SLOTS]) / SLOTS_PER_PAGE

    @property
    def pages_per_block(self) -> int:
        """Pages the engine places in one erase block: the geometry's flash pages per block,
        or, on a compressing drive, the stored pages a block holds (stored_pages_per_block).
        Physical page numbers in l2p, p2l and events run block * this + place in block."""
        return int(self.arrays.regs[R_PAGES_PER_BLOCK])

    def flash_pages(self, counters: dict | None = None) -> float:
        """Flash pages programmed (host data and GC copies), in whole-page units: what the
        engine counted in stored pages times the slots each took. counters: a reading of
        counters() (default: now)."""
        c = self.counters() if counters is None else counters
        return c["nand_writes"] * self.stored_fraction

    @property
    def wa(self) -> float:
        """Cumulative write amplification since the drive was built."""
        return window_wa(dict.fromkeys(COUNTER_NAMES, 0), self.counters(), self.stored_fraction)

    @property
    def free_blocks(self) -> int:
        return int(self.arrays.regs[R_FREE_COUNT])

    @property
    def mapped_pages(self) -> int:
        return int(np.count_nonzero(self.arrays.l2p >= 0))

    def victim_valid(self) -> np.ndarray:
        """int64[pages per block + 1] (a copy): how many GC victims held k valid pages when
        collected, for k = 0 .. pages per block; sums to the gc_victims counter."""
        return self.arrays.victim_valid.copy()

    @property
    def last_victim(self) -> tuple[int, int] | None:
        """(block, valid pages it held) of the last garbage collection, None before any:
        recorded by the engine with or without events."""
        b = int(self.arrays.regs[R_LAST_VICTIM])
        return None if b < 0 else (b, int(self.arrays.regs[R_LAST_MOVED]))

    @property
    def free_low(self) -> int:
        """The fewest free blocks there were at any moment since reset_free_low()."""
        return int(self.arrays.regs[R_FREE_LOW])

    def reset_free_low(self) -> None:
        """Start watching the free-block low point again from now."""
        self.arrays.regs[R_FREE_LOW] = self.arrays.regs[R_FREE_COUNT]

    def watch(self, lpn: int | None) -> None:
        """Count host writes of logical page lpn from now on (None: watch nothing)."""
        if lpn is not None and not (isinstance(lpn, int) and 0 <= lpn < self.geometry.user_pages):
            raise ValueError(f"logical page must be from 0 to {self.geometry.user_pages - 1}; "
                             f"got {lpn}")
        self.arrays.regs[R_WATCH_LPN] = -1 if lpn is None else lpn
        self.arrays.regs[R_WATCH_WRITES] = 0

    @property
    def watched_writes(self) -> int:
        """Host writes of the watched logical page since watch() was called."""
        return int(self.arrays.regs[R_WATCH_WRITES])

    def block_views(self) -> dict[str, np.ndarray]:
        """Read-only views (no copies) of per-block arrays: valid, erases, state."""
        out = {}
        for name, arr in (("valid", self.arrays.valid), ("erases", self.arrays.erases),
                          ("state", self.arrays.bstate)):
            v = arr.view()
            v.flags.writeable = False
            out[name] = v
        return out

    def version_of(self, lpn: int) -> int | None:
        """The host write number whose data lpn reads back, or None if unmapped.
        Needs FtlConfig(track_versions=True)."""
        if not self.arrays.regs[R_TRACK_VERSIONS]:
            raise ValueError("version_of needs FtlConfig(track_versions=True)")
        ppn = int(self.arrays.l2p[lpn])
        return None if ppn < 0 else int(self.arrays.stamp[ppn])

    @property
    def event_capacity(self) -> int:
        return int(self.arrays.regs[R_EVENT_CAPACITY])

    def record_events(self, on: bool) -> None:
        """Turn the event log on (every row allocated) or off (the fast setting), so a run
        can record only the stretch a display watches (ssdlab/model/flash/gcwatch.py)."""
        self.arrays.regs[R_EVENT_CAPACITY] = len(self.arrays.events) if on else 0

    def take_events(self) -> np.ndarray:
        """Copy out the events recorded since the last call (rows of kind, a, b, c) and empty
        the buffer."""
        regs = self.arrays.regs
        n = int(regs[R_EVENTS])
        out = self.arrays.events[:n].copy()
        regs[R_EVENTS] = 0
        return out

    @property
    def events_dropped(self) -> int:
        return int(self.arrays.regs[R_EVENTS_DROPPED])

    def check_invariants(self) -> None:
        """Raise AssertionError naming every broken bookkeeping rule."""
        invariants.check(self.arrays)
