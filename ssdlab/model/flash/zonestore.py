"""The host's side of a zoned drive: a log-structured store of application pages on zones,
doing its own garbage collection (greedy over zones), as a file system or key-value store on
NVMe ZNS does. Its loop is compiled (zonecore.py); this class owns its arrays, hands the
drive the zone commands the loop logged (ZonedDrive.apply), and counts three things apart:
application writes, the host's copies, and the drive's own GC copies.

Over-provisioning is the host's here: the store holds app_pages, below the zones' pages, and
the zones it does not need are its spare. Spare s = 1 - app_pages / (zones * zone_pages).
"""

from __future__ import annotations

import numpy as np

from . import zonecore as core
from .geometry import is_whole
from .zoned import ZonedDrive

LOG_ROWS = 1 << 16
TRACE_PAGES = 1 << 16


class ZonedStore:
    """app_pages application pages on zoned's zones. separate_copies: the host writes its
    copies to a zone of their own (two open zones) rather than to the zone taking new
    application writes. classes: None, or each application page's class, 0 (cold) or 1
    (hot), which the host keeps in zones apart (a frontier each, copies included).
    reserve_zones: free zones kept in hand (default store_reserve).
    trace: remember each page sent to the drive (app page, app write number), so a test can
    ask what the drive reads back (read_back); costs 16 bytes per drive write."""

    def __init__(self, zoned: ZonedDrive, app_pages: int, separate_copies: bool = False,
                 reserve_zones: int | None = None, trace: bool = False, classes=None):
        layout = zoned.layout
        n_classes = 1 if classes is None else 2
        frontiers = store_frontiers(separate_copies, n_classes)
        reserve = store_reserve(frontiers) if reserve_zones is None else reserve_zones
        if frontiers > layout.max_open_zones:
            raise ValueError(f"max_open_zones must be at least {frontiers} for the host's "
                             f"{frontiers} write frontiers; got {layout.max_open_zones}")
        if not (is_whole(reserve) and frontiers <= reserve <= layout.zones):
            raise ValueError(f"reserve_zones must be a whole number from {frontiers} to "
                             f"{layout.zones}; got {reserve}")
        zp = layout.zone_pages
        # GC needs a victim that is not wholly valid with every frontier and reserve zone
        # empty: one more zone than those beyond the data
        most = (layout.zones - frontiers - reserve - 1) * zp
        if classes is not None:
            classes = np.ascontiguousarray(classes, dtype=np.int64)
            if classes.shape != (app_pages,) or classes.min(initial=0) < 0 \
                    or classes.max(initial=0) > 1:
                raise ValueError(f"classes must be {app_pages} numbers, 0 (cold) or 1 (hot), "
                                 "one an application page")
        if not (is_whole(app_pages) and 1 <= app_pages <= most):
            raise ValueError(f"app_pages must be a whole number from 1 to {most} (the zones' "
                             f"pages less {frontiers + reserve + 1} zones the host's GC "
                             f"needs free); got {app_pages}")
        self.zoned = zoned
        self.app_pages = app_pages
        self.regs = np.zeros(core.N_REGS, dtype=np.int64)
        r = self.regs
        r[core.S_ZONE_PAGES], r[core.S_ZONES], r[core.S_RESERVE] = zp, layout.zones, reserve
        r[core.S_SEPARATE] = int(separate_copies)
        r[core.S_CLASSES] = n_classes
        r[core.S_FREE_COUNT] = layout.zones
        r[core.S_FRONTS:] = -1  # no frontier has a zone yet
        r[core.S_MIN_VALID] = zp + 1
        r[core.S_TRACE] = int(trace)
        zones = layout.zones
        # int32 maps (both numbers stay below 2^31: Geometry's bound): at 2^20 pages half the
        # bytes kept the loop's random accesses in cache more often
        self.arrays = (np.full(app_pages, -1, dtype=np.int32),  # loc: app page -> drive LBA
                       np.full(zones * zp, -1, dtype=np.int32),  # rev: drive LBA -> app page
                       np.zeros(zones, dtype=np.int64),  # valid pages per zone
                       np.zeros(zones, dtype=np.int64),  # state: EMPTY, OPEN, FULL
                       np.full(zp + 1, -1, dtype=np.int64),  # bucket heads by valid count
                       np.full(zp + 1, -1, dtype=np.int64),  # bucket tails
                       np.full(zones, -1, dtype=np.int64),  # next in bucket
                       np.full(zones, -1, dtype=np.int64),  # previous in bucket
                       np.zeros(1, dtype=np.int64) if classes is None else classes)
        self.free_ring = np.arange(zones, dtype=np.int64)
        # each page's last application write number, kept only for the trace
        self.versions = np.full(app_pages if trace else 1, -1, dtype=np.int64)
        self.log = np.zeros((LOG_ROWS, 3), dtype=np.int64)
        size = TRACE_PAGES if trace else 1
        self._trace_lpn = np.zeros(size, dtype=np.int64)
        self._trace_ver = np.zeros(size, dtype=np.int64)
        self._traced: list[tuple[np.ndarray, np.ndarray]] = []

    def write(self, lpns) -> None:
        """Application writes of single pages, in order."""
        lpns = np.ascontiguousarray(lpns, dtype=np.int64)
        if lpns.size and (lpns.min() < 0 or lpns.max() >= self.app_pages):
            raise ValueError(f"lpn must be from 0 to {self.app_pages - 1}")
        r = self.regs
        i = 0
        while i < lpns.size:
            i = int(core.store_write_pages(r, self.arrays, self.free_ring, self.versions, lpns, i,
                                     self.log, self._trace_lpn, self._trace_ver))
            self._drain()
            if r[core.S_ERROR] == core.ERR_STUCK:
                raise RuntimeError("the host's GC found every full zone wholly valid: "
                                   "app_pages leaves it no spare")
            if r[core.S_ERROR]:
                raise RuntimeError(f"the host store stopped (error {int(r[core.S_ERROR])})")

    def _drain(self) -> None:
        """Hand the logged zone commands to the drive and empty the log (and the trace)."""
        r = self.regs
        self.zoned.apply(self.log[:int(r[core.S_LOG])])
        r[core.S_LOG] = 0
        if r[core.S_TRACE]:
            n = int(r[core.S_TRACED])
            self._traced.append((self._trace_lpn[:n].copy(), self._trace_ver[:n].copy()))
            r[core.S_TRACED] = 0

    def location(self, lpn: int) -> int:
        """The drive LBA holding app page lpn, -1 if never written."""
        return int(self.arrays[0][lpn])

    def read_back(self, lpn: int) -> tuple[int, int] | None:
        """(app page, app write number) of the data the drive returns for app page lpn: read
        from the drive's own version stamps (track_versions), through the trace of what was
        sent to it. None if never written. Needs trace=True and a drive tracking versions."""
        if not self.regs[core.S_TRACE]:
            raise ValueError("read_back needs ZonedStore(trace=True)")
        lba = self.location(lpn)
        if lba < 0:
            return None
        stamp = self.zoned.drive.version_of(lba)
        if stamp is None:
            return None
        lpns = np.concatenate([t[0] for t in self._traced])
        vers = np.concatenate([t[1] for t in self._traced])
        return int(lpns[stamp]), int(vers[stamp])

    def valid_per_zone(self) -> np.ndarray:
        """Valid app pages in each zone (a copy)."""
        return self.arrays[2].copy()

    def counters(self) -> dict[str, int]:
        """Pages: app_writes (the application's), host_copies (the store's GC), zone_resets;
        and the drive's: drive_writes (pages the host sent it), nand_writes, gc_copies (the
        drive's own GC), erases."""
        r = self.regs
        c = self.zoned.drive.counters()
        return {"app_writes": int(r[core.S_APP_WRITES]),
                "host_copies": int(r[core.S_HOST_COPIES]),
                "zone_resets": int(r[core.S_RESETS]),
                "drive_writes": c["host_writes"], "nand_writes": c["nand_writes"],
                "gc_copies": c["gc_copies"], "erases": c["erases"]}


def store_frontiers(separate_copies: bool, classes: int) -> int:
    """Zones the store keeps open: an application frontier per class of pages, and a copy
    frontier beside each when the copies are kept apart."""
    return classes * (2 if separate_copies else 1)


def store_reserve(frontiers: int) -> int:
    """Free zones the store keeps in hand: one per frontier (each may need a fresh zone while
    one victim's pages are copied), and one more with several application frontiers, whose
    GC starts when one of them fills while another may still have to take a zone."""
    return frontiers + (1 if frontiers > 2 else 0)


def amplification(before: dict, after: dict) -> tuple[float, float, float]:
    """(host WA, drive WA, total) between two counters() readings: (app + host copies) / app,
    NAND writes / pages sent to the drive, and their product, flash pages programmed per
    application page (nan where nothing was written)."""
    app = after["app_writes"] - before["app_writes"]
    sent = after["drive_writes"] - before["drive_writes"]
    nand = after["nand_writes"] - before["nand_writes"]
    host = sent / app if app else float("nan")
    drive = nand / sent if sent else float("nan")
    return host, drive, host * drive
