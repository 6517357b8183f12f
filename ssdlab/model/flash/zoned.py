"""A zoned drive (the zoned namespaces of NVMe, ZNS): the logical pages come in zones, each
written only in order at its write pointer and emptied only as a whole by a zone reset; the
host, not the drive, decides what to copy (zonestore.py).

It sits on the page-mapped engine: each open zone writes through a placement handle of its
own (placement.py), so a zone's pages fill erase blocks no other zone touches, and a zone is a
whole number of blocks, so when it is full its last block is closed exactly. A reset unmaps
the zone (TRIM) and leaves its blocks wholly invalid: the drive's GC erases them without
copying a page (its gc_copies stay 0: tests/test_zoned.py). A zone reset while still open
gives up the rest of its open block (placement.close_stream), so the next zone on that
handle starts in a fresh block too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .commands import Commands
from .compiled import jit
from .drive import Drive
from .geometry import (
    MAX_HANDLES,
    MIN_SPARE_BLOCKS_BEYOND_WATERMARK,
    FtlConfig,
    Geometry,
    is_whole,
)
from .placement import close_stream
from .state import OP_TRIM, OP_WRITE

MAX_ZONE_BLOCKS = 4096


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


@dataclass(frozen=True)
class ZoneLayout:
    """The zones of a zoned drive.

    zones: how many zones the drive exposes.
    zone_blocks: erase blocks in one zone (a zone holds zone_blocks * pages_per_block pages).
    pages_per_block: pages in one erase block.
    max_open_zones: zones that may be open (written but not full) at once, 1 to MAX_HANDLES:
        each writes through a placement handle of its own.
    gc_low_blocks: the drive's own GC watermark, in erase blocks (FtlConfig.gc_low_blocks).

    The drive's flash is the zones' blocks and the few the engine needs beyond them for its
    own GC (internal_spare_blocks); the host's over-provisioning is the zones it leaves unused
    (zonestore.py).
    """

    zones: int
    zone_blocks: int = 1
    pages_per_block: int = 256
    max_open_zones: int = 2
    gc_low_blocks: int = 2

    def __post_init__(self) -> None:
        _require(is_whole(self.zones) and 2 <= self.zones <= 2**26,
                 f"zones must be a whole number from 2 to {2**26}; got {self.zones}")
        _require(is_whole(self.zone_blocks) and 1 <= self.zone_blocks <= MAX_ZONE_BLOCKS,
                 f"zone_blocks must be a whole number from 1 to {MAX_ZONE_BLOCKS}; got "
                 f"{self.zone_blocks}")
        _require(is_whole(self.max_open_zones) and 1 <= self.max_open_zones <= MAX_HANDLES,
                 f"max_open_zones must be a whole number from 1 to {MAX_HANDLES} (one "
                 f"placement handle each); got {self.max_open_zones}")
        # pages_per_block and gc_low_blocks are checked by Geometry and FtlConfig
        self.geometry()
        self.config()

    @property
    def zone_pages(self) -> int:
        return self.zone_blocks * self.pages_per_block

    @property
    def user_pages(self) -> int:
        """Logical pages of all the zones together."""
        return self.zones * self.zone_pages

    @property
    def internal_spare_blocks(self) -> int:
        """Blocks beyond the zones': what the engine's GC needs (check_buildable), each open
        zone's handle counted."""
        return (self.gc_low_blocks + MIN_SPARE_BLOCKS_BEYOND_WATERMARK
                + 2 * (self.max_open_zones - 1))

    def geometry(self) -> Geometry:
        zone_total = self.zones * self.zone_blocks
        extra = self.internal_spare_blocks
        g = Geometry(user_pages=self.user_pages, pages_per_block=self.pages_per_block,
                     spare=extra / (zone_total + extra))
        _require(g.blocks == zone_total + extra,
                 f"the zones' {zone_total} blocks and {extra} spare blocks round to "
                 f"{g.blocks} blocks")
        return g

    def config(self, track_versions: bool = False) -> FtlConfig:
        # isolated: were the drive ever to copy a page, it would stay with its zone's handle
        return FtlConfig(mapping="page", gc="greedy", gc_low_blocks=self.gc_low_blocks,
                         placement_handles=self.max_open_zones, handle_gc="isolated",
                         track_versions=track_versions)


class ZonedDrive:
    """A drive of ZoneLayout's zones: writes at each zone's write pointer, zone resets, at
    most max_open_zones zones open. Anything else is refused with a ValueError naming the
    zone; the engine's Drive (self.drive) counts the flash work."""

    def __init__(self, layout: ZoneLayout, track_versions: bool = False):
        self.layout = layout
        self.drive = Drive(layout.geometry(), layout.config(track_versions))
        self.zone_pages = layout.zone_pages
        self.write_pointer = np.zeros(layout.zones, dtype=np.int64)  # pages written per zone
        self._handle = np.full(layout.zones, -1, dtype=np.int64)  # an open zone's handle
        # the free handles, a stack (plan_log pops and pushes them too); hregs: how many,
        # whether pages carry tags (one handle: none), zone resets so far
        self._handles = np.arange(layout.max_open_zones - 1, -1, -1, dtype=np.int64)
        self._hregs = np.array([layout.max_open_zones, int(layout.max_open_zones > 1), 0, 0],
                               dtype=np.int64)
        self._touched = np.full(layout.zones, -1, dtype=np.int64)

    @property
    def resets(self) -> int:
        """Zone resets so far."""
        return int(self._hregs[2])

    @property
    def open_zones(self) -> int:
        return self.layout.max_open_zones - int(self._hregs[0])

    def state(self, zone: int) -> str:
        """"empty", "open" (written, not full) or "full"."""
        self._check_zone(zone)
        wp = int(self.write_pointer[zone])
        return "empty" if wp == 0 else "full" if wp == self.zone_pages else "open"

    def _check_zone(self, zone: int) -> None:
        _require(is_whole(zone) and 0 <= zone < self.layout.zones,
                 f"zone must be a whole number from 0 to {self.layout.zones - 1}; got {zone}")

    def _check_write(self, lba: int, count: int) -> tuple[int, int]:
        """The zone a write lands in and its write pointer; refused unless it is at it."""
        user = self.layout.user_pages
        _require(is_whole(lba) and 0 <= lba < user,
                 f"lba must be a whole number from 0 to {user - 1}; got {lba}")
        z, offset = divmod(int(lba), self.zone_pages)
        wp = int(self.write_pointer[z])
        _require(wp < self.zone_pages, f"zone {z} is full (write pointer {wp} of "
                 f"{self.zone_pages} pages): reset it before writing to it again")
        _require(offset == wp, f"zone {z}: a write must start at its write pointer, LBA "
                 f"{z * self.zone_pages + wp} (page {wp} of the zone); got LBA {lba}")
        _require(is_whole(count) and 1 <= count <= self.zone_pages - wp,
                 f"zone {z}: count must be from 1 to {self.zone_pages - wp} (the pages left "
                 f"from its write pointer {wp}); got {count}")
        return z, wp

    def _opened(self, z: int) -> None:
        """Zone z takes its first write: it needs a free handle, and its pages that tag."""
        if self._hregs[0] == 0:
            raise ValueError(f"zone {z} cannot be opened: {self.layout.max_open_zones} zones "
                             "are open already (max_open_zones); fill or reset one first")
        self._hregs[0] -= 1
        h = int(self._handles[self._hregs[0]])
        self._handle[z] = h
        if self._hregs[1]:
            start = z * self.zone_pages
            self.drive.arrays.tag[start:start + self.zone_pages] = h

    def _advanced(self, z: int, wp: int, count: int) -> None:
        self.write_pointer[z] = wp + count
        if wp + count == self.zone_pages:  # full: its last block closed with its last page
            self._release(z)

    def write(self, lba: int, count: int = 1) -> None:
        """Write count pages from lba, which must be its zone's write pointer, within the
        zone; the zone's first write opens it."""
        z, wp = self._check_write(lba, count)
        if wp == 0:
            self._opened(z)
        self.drive.run_all(Commands(np.array([OP_WRITE], dtype=np.int8),
                                    np.array([lba], dtype=np.int64),
                                    np.array([count], dtype=np.int64)))
        self._advanced(z, wp, count)

    def reset(self, zone: int) -> None:
        """Empty the zone: unmap all its pages (TRIM) and put its write pointer back to 0."""
        self._check_zone(zone)
        wp = int(self.write_pointer[zone])
        if 0 < wp < self.zone_pages:  # open: give up the rest of its open block
            close_stream(self.drive.arrays, int(self._handle[zone]))
            self._release(zone)
        if wp > 0:
            self.drive.run_all(Commands(np.array([OP_TRIM], dtype=np.int8),
                                        np.array([zone * self.zone_pages], dtype=np.int64),
                                        np.array([self.zone_pages], dtype=np.int64)))
        self.write_pointer[zone] = 0
        self._hregs[2] += 1

    def _release(self, z: int) -> None:
        """Zone z is no longer open: its handle goes back on the stack."""
        self._handles[self._hregs[0]] = self._handle[z]
        self._hregs[0] += 1
        self._handle[z] = -1

    def apply(self, log: np.ndarray) -> None:
        """Carry out a host's log of zone commands in order, in as few engine batches as
        possible: rows (0, zone, count) write count pages at the zone's write pointer,
        rows (1, zone, 0) reset the zone. Checked row by row as write() and reset() are (a
        row plan_log leaves is done by them, which refuse it or reset an open zone)."""
        log = np.ascontiguousarray(log, dtype=np.int64).reshape(-1, 3)
        ops = np.empty(len(log), dtype=np.int8)
        lbas = np.empty(len(log), dtype=np.int64)
        counts = np.empty(len(log), dtype=np.int64)
        i = 0
        while i < len(log):
            done, k = plan_log(log[i:], self.write_pointer, self._handle, self._handles,
                               self._hregs, self._touched, self.drive.arrays.tag,
                               self.zone_pages, ops, lbas, counts)
            if k:
                self.drive.run_all(Commands(ops[:k], lbas[:k], counts[:k]), checked=True)
            i += done
            if i < len(log) and done == 0:  # a row plan_log cannot do at a batch's start
                op, z, n = (int(x) for x in log[i])
                if op == 0:
                    self._check_zone(z)
                    self.write(z * self.zone_pages + int(self.write_pointer[z]), n)
                elif op == 1:
                    self.reset(z)
                else:
                    raise ValueError(f"a zone log row's op must be 0 (write) or 1 (reset); "
                                     f"got {op}")
                i += 1


@jit
def plan_log(log, wp, handle, handles, hregs, touched, tag, zone_pages, ops, lbas, counts):
    """The engine commands for log's rows, up to the first row it leaves to ZonedDrive's
    own checks (a bad row, or the reset of an open zone, whose block must be closed between
    two batches); updates the write pointers and open zones' handles as it goes. Returns
    (rows planned, commands written). hregs: [free handles on the stack `handles`, whether
    pages carry tags, zone resets, this batch's number]; touched: the number of the last
    batch that wrote each zone. The tags of a batch's zones are all set before the engine
    runs it, so a zone this batch wrote and then reset may not open again under another
    handle in the same batch."""
    hregs[3] += 1
    zones = wp.shape[0]
    k = 0
    for i in range(log.shape[0]):
        op, z, c = log[i, 0], log[i, 1], log[i, 2]
        if z < 0 or z >= zones:
            return i, k
        w = wp[z]
        if op == 0:
            if w >= zone_pages or c < 1 or c > zone_pages - w or (w == 0 and hregs[0] == 0):
                return i, k
            if w == 0:  # the zone opens: a handle of its own, its pages tagged with it
                h = handles[hregs[0] - 1]
                if hregs[1] and tag[z * zone_pages] != h and touched[z] == hregs[3]:
                    # this batch wrote the zone before its reset, under the old tag: the
                    # engine must write those pages before the tag changes
                    return i, k
                hregs[0] -= 1
                handle[z] = h
                if hregs[1]:
                    tag[z * zone_pages:(z + 1) * zone_pages] = h
            touched[z] = hregs[3]
            ops[k], lbas[k], counts[k] = OP_WRITE, z * zone_pages + w, c
            k += 1
            wp[z] = w + c
            if w + c == zone_pages:  # full: its handle's block closed with its last page
                handles[hregs[0]] = handle[z]
                hregs[0] += 1
                handle[z] = -1
        elif op == 1:
            if 0 < w < zone_pages:
                return i, k
            if w > 0:
                ops[k], lbas[k], counts[k] = OP_TRIM, z * zone_pages, zone_pages
                k += 1
            wp[z] = 0
            hregs[2] += 1
        else:
            return i, k
    return log.shape[0], k
