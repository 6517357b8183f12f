"""A whole-drive experiment: fill sequentially, warm up, measure.

This is what `ssdlab simulate` and the benchmarks run. Progress goes to an optional callback
and cancellation is asked of an optional callable between chunks; nothing here prints.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from . import theory
from .drive import Drive, window_wa
from .gcwatch import GcWatch
from .geometry import MAX_HANDLES, PLACEMENTS, FtlConfig, Geometry, is_whole
from .heldback import held_back_blocks, usable_spare
from .workloads import CHUNK_PAGES, Workload, hot_pages, sequential_fill, trim_range
from .zoned import MAX_ZONE_BLOCKS
from .zonerun import run_zoned, zoned_figures, zoned_plan

Progress = Callable[[str, float], None]  # (phase, fraction done of that phase)


class Cancelled(Exception):
    """The caller asked long work to stop: a run here, or a preparation in the host layer
    (a trace being read, a file tree being built), which raise this same class so that one
    handler covers every kind of cancelled work."""


@dataclass(frozen=True)
class RunSpec:
    """One experiment. Drive writes are multiples of the user capacity in pages."""

    geometry: Geometry
    config: FtlConfig = field(default_factory=FtlConfig)
    workload: Workload = field(default_factory=Workload)
    warmup_drive_writes: float = 2.0
    measure_drive_writes: float = 2.0
    seed: int = 1
    windows: int = 10
    # an SLC cache (FtlConfig.slc_cache): the host pauses after every this many pages
    # written, and the drive folds its full cache blocks in the pause; 0: never idle, the
    # cache folds only when garbage collection needs its blocks
    fold_every_pages: int = 0
    # placement handles (FtlConfig.placement_handles): "hotcold" tags the workload's hot
    # pages with handle 1 and the rest with 0, a tag_errors share of the pages (drawn from
    # the seed) the other way round; "none" tags nothing
    placement: str = "none"
    tag_errors: float = 0.0
    # a zoned drive (zonerun.py: how the other fields read then): zones of zone_blocks
    # erase blocks, at most open_zones of them open at once; the host does the GC
    zoned: bool = False
    zone_blocks: int = 1
    open_zones: int = 2

    def __post_init__(self) -> None:
        for name in ("warmup_drive_writes", "measure_drive_writes"):
            value = getattr(self, name)
            if not (0.0 <= value <= 1000.0):
                raise ValueError(f"{name.replace('_', '-')} must be between 0 and 1000; "
                                 f"got {value}")
        if self.measure_drive_writes <= 0:
            raise ValueError("measure-drive-writes must be above 0 and at most 1000; got "
                             f"{self.measure_drive_writes}")
        if not (1 <= self.windows <= 10000):
            raise ValueError(f"windows must be from 1 to 10000; got {self.windows}")
        if self.placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}; got "
                             f"{self.placement!r}")
        if self.placement == "hotcold" and (self.workload.kind != "hotcold" or (
                self.config.placement_handles < 2 and not self.zoned)):
            raise ValueError("placement 'hotcold' tags the hot pages of a hotcold workload: "
                             "it needs workload hotcold and placement_handles of 2 or more "
                             "(or a zoned drive, whose host keeps them in zones apart); "
                             f"got workload {self.workload.kind!r}, placement_handles "
                             f"{self.config.placement_handles}")
        if not (0.0 <= self.tag_errors <= 1.0):
            raise ValueError(f"tag_errors must be from 0 to 1; got {self.tag_errors}")
        if not (isinstance(self.fold_every_pages, int) and 0 <= self.fold_every_pages < 2**31):
            raise ValueError(f"fold_every_pages must be a whole number from 0 to {2**31 - 1}; "
                             f"got {self.fold_every_pages}")
        if not (is_whole(self.zone_blocks) and 1 <= self.zone_blocks <= MAX_ZONE_BLOCKS):
            raise ValueError(f"zone_blocks must be a whole number from 1 to {MAX_ZONE_BLOCKS}; "
                             f"got {self.zone_blocks}")
        if not (is_whole(self.open_zones) and 1 <= self.open_zones <= MAX_HANDLES):
            raise ValueError(f"open_zones must be a whole number from 1 to {MAX_HANDLES}; got "
                             f"{self.open_zones}")
        if self.zoned:
            zoned_plan(self)  # refuses what cannot work on a zoned drive, naming the field


@dataclass
class RunResult:
    """Counters of the measured phase (pages) and what was simulated."""

    wa: float
    host_writes: int
    nand_writes: int
    gc_copies: int
    erases: int
    trims: int
    seconds: float  # wall-clock seconds of the measured phase
    host_writes_per_second: float
    user_pages: int
    physical_pages: int
    pages_per_block: int
    blocks: int
    spare: float  # actual (physical - user) / physical after rounding to whole blocks
    effective_spare: float  # counting trimmed, never-rewritten pages as spare
    extra_of_user: float
    gc: str
    d: int
    gc_frontier: str  # "separate" or "shared": where GC copies are written
    victim_order: str  # greedy among equally empty blocks: "newest" or "oldest"
    mapping: str
    workload: str
    theory_wa: float | None  # the published model, for a drive with no blocks held back
    usable_spare: float  # effective spare less the blocks the FTL holds back (reserve_blocks)
    reserve_blocks: int
    theory_wa_usable: float | None  # the model at usable_spare: closer on small drives
    wa_windows: list[float]
    erase_count_max: int
    erase_count_mean: float
    erase_count_min: int  # the least-erased block: max - min is how uneven the wear is
    lifetime_wa: float  # flash pages / host pages since the drive was built (fill included)
    # the share of a flash page each page is stored in (1: no compression), as the engine
    # uses it (hundredths of a page); nand_writes counts stored pages, flash_pages the
    # flash pages they took (nand_writes x stored_fraction), measured phase
    stored_fraction: float = 1.0
    flash_pages: float = 0.0
    # an SLC cache (slccache.py), measured phase: host pages programmed into it, pages
    # folded out of it into dense flash (GC copies too), and the host's idle pauses
    slc_cache: str = "none"
    slc_writes: int = 0
    folded_pages: int = 0
    fold_every_pages: int = 0
    # static wear levelling (FtlConfig.wear_leveling_gap), measured phase: blocks whose
    # cold data it moved and the pages it copied (GC copies too)
    wear_leveling_gap: int = 0
    wl_moves: int = 0
    wl_copies: int = 0
    # placement (RunSpec.placement): the handles, GC's way with them, and the tags' errors
    placement: str = "none"
    placement_handles: int = 1
    handle_gc: str = "mixed"
    tag_errors: float = 0.0
    # a zoned drive (RunSpec.zoned), measured phase: the host's own GC copies and zone
    # resets; pages the host sent the drive (application writes + host copies); the host's
    # WA (sent / application pages, 1 on a conventional drive) and the drive's (NAND / sent),
    # whose product is wa; and the zones. user_pages, spare and host_writes are then the
    # application's, gc_copies the drive's own
    zoned: bool = False
    zone_blocks: int = 0
    zone_pages: int = 0
    zones: int = 0
    open_zones: int = 0
    host_copies: int = 0
    zone_resets: int = 0
    drive_writes: int = 0
    host_wa: float = 1.0
    drive_wa: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def theory_for(spec: RunSpec, spare: float, stored_fraction: float = 1.0,
               pages_per_block: int | None = None) -> float | None:
    """The analytic WA for this experiment, where a model exists (uniform or hot/cold).
    stored_fraction below 1 (a compressing drive, the engine's own stored size): greedy
    under uniform traffic only (theory.compressed_greedy_wa); spare is then the physical one.
    pages_per_block: the GC's unit if not the geometry's erase block (a zone's pages)."""
    w = spec.workload
    ppb = spec.geometry.pages_per_block if pages_per_block is None else pages_per_block
    if spec.zoned and spec.placement != "none":
        return None  # no model here of the host's hot and cold zones
    if spec.config.placement_handles > 1:
        return _placement_theory(spec, spare)
    if spec.config.mapping != "page" or w.kind == "sequential" \
            or spec.config.slc_cache != "none":
        return None  # no published model of a cache
    if stored_fraction < 1.0:
        if spec.config.gc != "greedy" or w.kind != "random" or w.active_fraction < 1.0:
            return None
        return theory.compressed_greedy_wa(spare, spec.geometry.pages_per_block,
                                           stored_fraction)
    if not spec.config.honour_trim and w.active_fraction < 1.0:
        # The untouched pages stay valid cold data: traffic no published model describes.
        return None
    kwargs = {}
    if w.kind == "hotcold":
        kwargs = {"hot_lba_fraction": w.hot_lba_fraction,
                  "hot_write_fraction": w.hot_write_fraction}
    try:
        return theory.wa_for(spec.config.gc, spare, ppb, d=spec.config.d,
                             frontier=spec.config.gc_frontier, **kwargs)
    except ValueError:
        return None


def _placement_theory(spec: RunSpec, spare: float) -> float | None:
    """Hot and cold data kept apart (theory.two_pool_wa, its pools split as the data is):
    only for greedy, perfect tags of a hotcold workload over the whole drive, and each
    handle's copies kept in its own blocks; no model of mixed GC or of wrong tags."""
    w, c = spec.workload, spec.config
    if (spec.placement != "hotcold" or spec.tag_errors > 0 or c.handle_gc != "isolated"
            or c.gc != "greedy" or w.active_fraction < 1.0):
        return None
    try:
        return theory.two_pool_wa(spare, spec.geometry.pages_per_block, w.hot_lba_fraction,
                                  w.hot_write_fraction)
    except ValueError:
        return None


def hotcold_tags(spec: RunSpec) -> np.ndarray:
    """Handle 1 for the hot pages of spec's hotcold workload (the first hot_lba_fraction of
    the active pages, as workloads.hot_cold_pages draws them), 0 for the rest; a tag_errors
    share of the pages, drawn from the seed apart from the workload's own draws, tagged the
    other way round (a host that guesses wrong)."""
    user = spec.geometry.user_pages
    tags = np.zeros(user, dtype=np.int8)
    tags[:hot_pages(spec.workload.active_pages(user), spec.workload.hot_lba_fraction)] = 1
    if spec.tag_errors > 0:
        wrong = np.random.default_rng([spec.seed, 1]).random(user) < spec.tag_errors
        tags[wrong] = 1 - tags[wrong]
    return tags


def idle_fold(drive: Drive) -> None:
    """A pause long enough to fold every full SLC-cache block, collecting a victim to make
    room whenever folding stalls (Drive.fold_step), as a drive's background work does."""
    while drive.slc_counters()["slc_full"] and drive.fold_step(2**31 - 1, True):
        pass


def _write(drive: Drive, spec: RunSpec, pages: int, rng: np.random.Generator, phase: str,
           progress: Progress | None, cancel: Callable[[], bool] | None, start_page: int,
           on_chunk: Callable[[], None] | None = None, watch: GcWatch | None = None) -> None:
    user = spec.geometry.user_pages
    done = 0
    chunk = min(CHUNK_PAGES, max(1, pages // max(1, spec.windows * 4)))
    every = spec.fold_every_pages if spec.config.slc_cache != "none" else 0
    if every:
        chunk = min(chunk, every)
    for lpns in spec.workload.page_chunks(user, pages, rng, chunk, start_page):
        if cancel is not None and cancel():
            raise Cancelled(phase)
        parts = [lpns]
        cut = every - (start_page + done) % every if every else lpns.size
        if cut < lpns.size:  # the host pauses inside this chunk
            parts = [lpns[:cut], lpns[cut:]]
        for part in parts:
            if watch is not None and watch.wants():
                watch.write(drive, part)
            else:
                drive.write_pages(part)
            done += part.size
            if every and (start_page + done) % every == 0:
                idle_fold(drive)
        if on_chunk is not None:
            on_chunk()
        if progress is not None:
            progress(phase, done / pages)


def run(spec: RunSpec, progress: Progress | None = None,
        cancel: Callable[[], bool] | None = None,
        observe: Callable[[Drive], None] | None = None,
        watch: GcWatch | None = None) -> RunResult:
    """Fill the drive in order, TRIM the inactive pages, warm up, then measure. observe, if
    given, sees the drive after every chunk of work (a window draws its blocks from it; it
    must only read). watch, if given, is shown the run's first GCs as they happen
    (ssdlab/model/flash/gcwatch.py); the figures are the same with or without it. A zoned
    spec runs the host's store on a zoned drive (zonerun.py), shown to neither."""
    if spec.zoned:
        def stop(phase: str) -> None:
            if cancel is not None and cancel():
                raise Cancelled(phase)

        classes = hotcold_tags(spec) if spec.placement == "hotcold" else None
        z = run_zoned(spec, progress, stop, classes)
        return RunResult(**zoned_figures(spec, z, lambda spare, zone_pages: theory_for(
            spec, spare, pages_per_block=zone_pages)))
    g = spec.geometry
    drive = Drive(g, spec.config) if watch is None else watch.drive(g, spec.config)
    look = (lambda: observe(drive)) if observe is not None else None
    rng = np.random.default_rng(spec.seed)
    if spec.placement == "hotcold":
        drive.set_tags(hotcold_tags(spec))
    fill = sequential_fill(g.user_pages)
    for i in range(len(fill)):
        if cancel is not None and cancel():
            raise Cancelled("fill")
        drive.run(fill.slice(i, i + 1))
        if look is not None:
            look()
        if progress is not None:
            progress("fill", (i + 1) / len(fill))
    active = spec.workload.active_pages(g.user_pages)
    if active < g.user_pages:
        drive.run(trim_range(active, g.user_pages - active))

    warm = int(round(spec.warmup_drive_writes * g.user_pages))
    _write(drive, spec, warm, rng, "warmup", progress, cancel, 0, look, watch)

    measure = max(1, int(round(spec.measure_drive_writes * g.user_pages)))
    before = drive.counters()
    folded_before = drive.slc_counters()["folded_pages"]
    marks = [before]
    window_pages = measure / spec.windows

    def mark_windows() -> None:
        if look is not None:
            look()
        written = drive.counters()["host_writes"] - before["host_writes"]
        while len(marks) <= spec.windows and written >= len(marks) * window_pages - 0.5:
            marks.append(drive.counters())

    t0 = time.perf_counter()
    _write(drive, spec, measure, rng, "measure", progress, cancel, warm, mark_windows, watch)
    seconds = time.perf_counter() - t0
    after = drive.counters()
    while len(marks) <= spec.windows:
        marks.append(after)

    spare = g.spare_of_physical
    # Trimmed pages are spare only to firmware that honours TRIM; old firmware keeps them.
    effective = 1.0 - active / g.physical_pages if spec.config.honour_trim else spare
    # The models assume every spare page can hold data; the FTL holds some blocks back
    # (ssdlab/model/flash/heldback.py), several per cent of the spare on a drive of few blocks.
    reserve = held_back_blocks(spec.config.gc_low_blocks)
    usable = usable_spare(effective, spec.config.gc_low_blocks, g.pages_per_block,
                          g.physical_pages)
    host = after["host_writes"] - before["host_writes"]
    erases = drive.arrays.erases
    stored = drive.stored_fraction  # flash per page programmed: below 1 if it compresses
    return RunResult(
        wa=window_wa(before, after, stored),
        host_writes=host,
        nand_writes=after["nand_writes"] - before["nand_writes"],
        gc_copies=after["gc_copies"] - before["gc_copies"],
        erases=after["erases"] - before["erases"],
        trims=after["trims"] - before["trims"],
        seconds=seconds,
        host_writes_per_second=host / seconds if seconds > 0 else float("inf"),
        user_pages=g.user_pages,
        physical_pages=g.physical_pages,
        pages_per_block=g.pages_per_block,
        blocks=g.blocks,
        spare=spare,
        effective_spare=effective,
        extra_of_user=g.extra_of_user,
        gc=spec.config.gc,
        d=spec.config.d,
        gc_frontier=spec.config.gc_frontier,
        victim_order=spec.config.victim_order,
        mapping=spec.config.mapping,
        workload=spec.workload.kind,
        theory_wa=theory_for(spec, effective, stored),
        usable_spare=usable,
        reserve_blocks=reserve,
        theory_wa_usable=theory_for(spec, usable, stored) if usable > 0 else None,
        wa_windows=[window_wa(a, b, stored) for a, b in zip(marks[:-1], marks[1:],
                                                            strict=True)],
        erase_count_max=int(erases.max()),
        erase_count_mean=float(erases.mean()),
        erase_count_min=int(erases.min()),
        lifetime_wa=window_wa(dict.fromkeys(after, 0), after, stored),
        stored_fraction=stored,
        flash_pages=(after["nand_writes"] - before["nand_writes"]) * stored,
        slc_cache=spec.config.slc_cache,
        slc_writes=after["slc_writes"] - before["slc_writes"],
        folded_pages=drive.slc_counters()["folded_pages"] - folded_before,
        fold_every_pages=spec.fold_every_pages if spec.config.slc_cache != "none" else 0,
        wear_leveling_gap=spec.config.wear_leveling_gap,
        wl_moves=after["wl_moves"] - before["wl_moves"],
        wl_copies=after["wl_copies"] - before["wl_copies"],
        placement=spec.placement,
        placement_handles=spec.config.placement_handles,
        handle_gc=spec.config.handle_gc,
        tag_errors=spec.tag_errors,
        drive_wa=window_wa(before, after, stored),
    )

