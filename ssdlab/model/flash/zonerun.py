"""A whole-drive experiment on a zoned drive (RunSpec.zoned): the host's store (zonestore.py)
on a ZonedDrive (zoned.py), filled in order, warmed up, measured, as runner.run does for a
conventional drive; runner.run hands a zoned spec here and builds its RunResult from the
figures this returns.

How a RunSpec reads on a zoned drive: geometry.user_pages is the application's pages (the
store's logical capacity), geometry.spare the host's over-provisioning (the share of the
zones' pages the store leaves unused), geometry.pages_per_block the drive's erase block;
config.gc must be greedy (the host's victim policy, over zones), config.gc_frontier says
where the host writes its copies (shared: with the application's writes, one open zone;
separate: a zone of their own, a second open zone), config.gc_low_blocks is the drive's own
watermark. spec.zone_blocks and spec.open_zones make the zones.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .geometry import check_buildable
from .memory import memory_budget
from .workloads import CHUNK_PAGES
from .zoned import ZonedDrive, ZoneLayout
from .zonestore import ZonedStore, amplification, store_frontiers, store_reserve

# Bytes of the host store's state per application page (its map) and per zone page (the
# reverse map): int32 each (zonestore.py)
_STORE_BYTES_PER_APP_PAGE = 4
_STORE_BYTES_PER_ZONE_PAGE = 4


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


@dataclass(frozen=True)
class ZonedPlan:
    """What a zoned spec builds: the drive's zones, the store's size and its frontiers."""

    layout: ZoneLayout
    app_pages: int
    separate_copies: bool
    reserve_zones: int
    classes: int = 1  # 2: the host keeps hot and cold pages in zones apart

    @property
    def frontiers(self) -> int:
        return store_frontiers(self.separate_copies, self.classes)

    @property
    def spare(self) -> float:
        """The host's over-provisioning: unused share of the zones' pages."""
        return 1.0 - self.app_pages / self.layout.user_pages

    @property
    def usable_spare(self) -> float:
        """The spare less the free zones the store keeps in reserve, which hold no data (the
        analytic models count every spare page as able to)."""
        usable = (self.layout.zones - self.reserve_zones) * self.layout.zone_pages
        return 1.0 - self.app_pages / usable


def zoned_plan(spec, memory_limit_bytes: int | None = None) -> ZonedPlan:
    """The zones and store for a zoned RunSpec, or a ValueError naming the field that cannot
    work on a zoned drive."""
    c, g, w = spec.config, spec.geometry, spec.workload
    for ok, field, value, rule in (
            (c.mapping == "page", "mapping", c.mapping, "'page' (a zone's pages are mapped "
             "by the drive's page-mapped engine)"),
            (c.gc == "greedy", "gc", c.gc, "'greedy' (the host's victim policy over zones)"),
            (c.victim_order == "oldest", "victim_order", c.victim_order, "'oldest' (the "
             "host takes the oldest of the emptiest zones)"),
            (c.slc_cache == "none", "slc_cache", c.slc_cache, "'none'"),
            (c.wear_leveling_gap == 0, "wear_leveling_gap", c.wear_leveling_gap, "0"),
            (c.stored_fraction == 1.0, "stored_fraction", c.stored_fraction, "1"),
            (c.placement_handles == 1, "placement_handles", c.placement_handles,
             "1 (the zones use the handles)"),
            (c.honour_trim, "honour_trim", c.honour_trim, "true"),
            (w.active_fraction == 1.0, "active_fraction", w.active_fraction,
             "1 (the host's store trims nothing)")):
        _require(ok, f"{field} must be {rule} on a zoned drive; got {value!r}")
    zone_pages = spec.zone_blocks * g.pages_per_block
    zones = math.ceil(g.user_pages / (1.0 - g.spare) / zone_pages - 1e-9)
    separate = c.gc_frontier == "separate"
    classes = 2 if spec.placement == "hotcold" else 1
    frontiers = store_frontiers(separate, classes)
    _require(spec.open_zones >= frontiers,
             f"open_zones must be from {frontiers} to 8 when the host writes to {frontiers} "
             f"zones at once (gc_frontier {c.gc_frontier!r}: "
             + ("its copies in zones of their own" if separate else "its copies with its "
                "writes") + (", hot and cold apart" if classes > 1 else "")
             + f"); got {spec.open_zones}")
    reserve = store_reserve(frontiers)
    need = frontiers + reserve + 1  # the open and reserve zones, and one not wholly valid
    _require(zones * zone_pages - g.user_pages >= need * zone_pages,
             f"spare must leave at least {need} zones of {zone_pages} pages beyond user_pages "
             f"for the host's garbage collection (its open zones, its reserve and one to "
             f"collect); got {(zones * zone_pages - g.user_pages) / zone_pages:.1f} zones "
             f"(spare={g.spare}, {zones} zones): raise spare or user_pages, or lower "
             "zone_blocks")
    _require(zones <= 2**26, f"zone_blocks makes {zones} zones, more than {2**26}: raise "
             "zone_blocks or lower user_pages")
    layout = ZoneLayout(zones=zones, zone_blocks=spec.zone_blocks,
                        pages_per_block=g.pages_per_block, max_open_zones=spec.open_zones,
                        gc_low_blocks=c.gc_low_blocks)
    check_buildable(layout.geometry(), layout.config(), memory_limit_bytes)
    store = (g.user_pages * _STORE_BYTES_PER_APP_PAGE
             + layout.user_pages * _STORE_BYTES_PER_ZONE_PAGE)
    drive = layout.geometry().state_bytes()
    budget = memory_budget().available_bytes if memory_limit_bytes is None \
        else memory_limit_bytes
    _require(store + drive <= 0.8 * budget,
             f"user_pages={g.user_pages} needs about {(store + drive) / 2**20:.0f} MiB for a "
             f"zoned drive and its host's store but only {budget / 2**20:.0f} MiB is "
             "available; the run must fit in 80 % of it")
    return ZonedPlan(layout, g.user_pages, separate, reserve, classes)


@dataclass
class ZonedRun:
    """The counters (ZonedStore.counters) before and after the measured phase, at each
    window's end, and what was built."""

    plan: ZonedPlan
    before: dict
    after: dict
    marks: list
    seconds: float
    erases: np.ndarray  # per erase block of the drive, at the end


def _write(store: ZonedStore, spec, pages: int, rng: np.random.Generator, phase: str,
           progress, stop: Callable[[str], None], on_chunk=None, start_page: int = 0) -> None:
    done = 0
    chunk = min(CHUNK_PAGES, max(1, pages // max(1, spec.windows * 4)))
    for lpns in spec.workload.page_chunks(store.app_pages, pages, rng, chunk, start_page):
        stop(phase)
        store.write(lpns)
        done += lpns.size
        if on_chunk is not None:
            on_chunk()
        if progress is not None:
            progress(phase, done / pages)


def run_zoned(spec, progress=None, stop: Callable[[str], None] = lambda phase: None,
              classes: np.ndarray | None = None) -> ZonedRun:
    """Fill the store in order, warm up, measure (spec's drive writes count application
    pages). stop(phase) is called between chunks and raises to cancel. classes: each
    application page's class (0 cold, 1 hot) when spec.placement keeps them apart."""
    plan = zoned_plan(spec)
    zoned = ZonedDrive(plan.layout)
    store = ZonedStore(zoned, plan.app_pages, plan.separate_copies, plan.reserve_zones,
                       classes=classes if plan.classes > 1 else None)
    n = plan.app_pages
    for first in range(0, n, CHUNK_PAGES):
        stop("fill")
        store.write(np.arange(first, min(n, first + CHUNK_PAGES), dtype=np.int64))
        if progress is not None:
            progress("fill", min(n, first + CHUNK_PAGES) / n)
    rng = np.random.default_rng(spec.seed)
    warm = int(round(spec.warmup_drive_writes * n))
    _write(store, spec, warm, rng, "warmup", progress, stop)
    measure = max(1, int(round(spec.measure_drive_writes * n)))
    before = store.counters()
    marks = [before]
    window_pages = measure / spec.windows

    def mark() -> None:
        now = store.counters()
        while len(marks) <= spec.windows and \
                now["app_writes"] - before["app_writes"] >= len(marks) * window_pages - 0.5:
            marks.append(now)

    t0 = time.perf_counter()
    _write(store, spec, measure, rng, "measure", progress, stop, mark, warm)
    seconds = time.perf_counter() - t0
    after = store.counters()
    while len(marks) <= spec.windows:
        marks.append(after)
    return ZonedRun(plan, before, after, marks, seconds, zoned.drive.arrays.erases.copy())


def zoned_figures(spec, z: ZonedRun, theory: Callable[[float, int], float | None]) -> dict:
    """A zoned run's figures under runner.RunResult's field names: the application's pages
    and writes where a conventional run has the host's, WA counted from them to the flash
    (host WA x drive WA), gc_copies the drive's own. theory(spare, zone pages): the analytic
    WA with a zone as GC's block (runner.theory_for)."""
    plan, b, a = z.plan, z.before, z.after
    layout, g = plan.layout, plan.layout.geometry()
    host_wa, drive_wa, total = amplification(b, a)
    app = a["app_writes"] - b["app_writes"]
    nand = a["nand_writes"] - b["nand_writes"]
    return dict(
        wa=total, host_writes=app, nand_writes=nand,
        gc_copies=a["gc_copies"] - b["gc_copies"], erases=a["erases"] - b["erases"],
        trims=a["zone_resets"] - b["zone_resets"], seconds=z.seconds,
        host_writes_per_second=app / z.seconds if z.seconds > 0 else float("inf"),
        user_pages=plan.app_pages, physical_pages=g.physical_pages,
        pages_per_block=g.pages_per_block, blocks=g.blocks, spare=plan.spare,
        effective_spare=plan.spare, extra_of_user=layout.user_pages / plan.app_pages - 1.0,
        gc=spec.config.gc, d=spec.config.d, gc_frontier=spec.config.gc_frontier,
        victim_order="oldest", mapping="page", workload=spec.workload.kind,
        theory_wa=theory(plan.spare, layout.zone_pages),
        usable_spare=plan.usable_spare, reserve_blocks=plan.reserve_zones * layout.zone_blocks,
        theory_wa_usable=theory(plan.usable_spare, layout.zone_pages),
        wa_windows=[amplification(x, y)[2] for x, y in zip(z.marks[:-1], z.marks[1:],
                                                           strict=True)],
        erase_count_max=int(z.erases.max()), erase_count_mean=float(z.erases.mean()),
        erase_count_min=int(z.erases.min()),
        lifetime_wa=a["nand_writes"] / a["app_writes"] if a["app_writes"] else float("nan"),
        flash_pages=float(nand), zoned=True, zone_blocks=layout.zone_blocks,
        zone_pages=layout.zone_pages, zones=layout.zones, open_zones=layout.max_open_zones,
        host_copies=a["host_copies"] - b["host_copies"],
        zone_resets=a["zone_resets"] - b["zone_resets"],
        drive_writes=a["drive_writes"] - b["drive_writes"], host_wa=host_wa, drive_wa=drive_wa,
        placement=spec.placement, tag_errors=spec.tag_errors)
