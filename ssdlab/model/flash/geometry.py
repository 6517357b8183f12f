"""Drive geometry and FTL settings: the parameters a simulated drive is built from.

Both are frozen dataclasses that check themselves on construction, so an impossible drive is
refused with a message naming the field and its allowed range before any array is allocated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .memory import MemoryBudget, memory_budget

MAPPINGS = ("page", "block", "fast")
GC_POLICIES = ("greedy", "fifo", "cost-benefit", "random-d")
SLC_CACHES = ("none", "static", "dynamic")
HANDLE_GCS = ("mixed", "isolated")
# how a host tags its pages for placement handles: not at all, or its hot data apart
PLACEMENTS = ("none", "hotcold")
MAX_HANDLES = 8
GC_FRONTIERS = ("separate", "shared")
VICTIM_ORDERS = ("newest", "oldest")

# A compressing drive (SandForce) stores a logical page in part of a flash page. The model
# divides each flash page into this many slots: a page stored at fraction c takes
# stored_slots(c) = max(1, round(c * SLOTS_PER_PAGE)) of them, so a fraction given in whole
# percent (the lessons' 0.3, 0.45, ...) is kept exactly. See stored_pages_per_block.
SLOTS_PER_PAGE = 100

# GC keeps this many free blocks in hand beyond the watermark so that the copy stream always
# has somewhere to go; below about four spare blocks a GC loop can find no victim with an
# invalid page and would never end.
MIN_SPARE_BLOCKS_BEYOND_WATERMARK = 4

# Bytes of engine state per page and per block (see ssdlab/model/flash/state.py): l2p and p2l are
# int32, per-block arrays total well under 64 bytes.
_BYTES_PER_USER_PAGE = 4
_BYTES_PER_PHYSICAL_PAGE = 4
_BYTES_PER_BLOCK = 64
_BYTES_PER_PHYSICAL_PAGE_STAMPED = 8


def is_whole(value) -> bool:
    """A whole number, and not true/false (Python's bool is an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_real(value) -> bool:
    """A number (whole or not), and not true/false."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


@dataclass(frozen=True)
class Geometry:
    """Physical layout of a simulated drive.

    user_pages: logical capacity the host sees, in pages.
    pages_per_block: pages in one erase block.
    spare: (physical - user) / physical, the fraction of flash the host never sees.
    page_bytes: bytes in one flash page (4096 by default).
    channels, dies_per_channel: parallel units, used by the timing model.

    The number of erase blocks is the smallest that holds user_pages / (1 - spare) pages.
    """

    user_pages: int
    pages_per_block: int = 256
    spare: float = 0.07
    page_bytes: int = 4096
    channels: int = 8
    dies_per_channel: int = 4

    def __post_init__(self) -> None:
        _require(
            is_whole(self.user_pages) and 16 <= self.user_pages <= 2**31 - 1,
            f"user_pages must be a whole number from 16 to {2**31 - 1}; got {self.user_pages}",
        )
        _require(
            is_whole(self.pages_per_block) and 2 <= self.pages_per_block <= 4096,
            f"pages_per_block must be a whole number from 2 to 4096; got {self.pages_per_block}",
        )
        _require(
            is_real(self.spare) and 0.0 <= self.spare <= 0.9,
            f"spare must be between 0 and 0.9 (fraction of physical capacity); got {self.spare}",
        )
        _require(
            is_whole(self.page_bytes) and self.page_bytes in (512, 1024, 2048, 4096, 8192, 16384),
            f"page_bytes must be one of 512, 1024, 2048, 4096, 8192, 16384; got {self.page_bytes}",
        )
        _require(
            is_whole(self.channels) and 1 <= self.channels <= 64,
            f"channels must be a whole number from 1 to 64; got {self.channels}",
        )
        _require(
            is_whole(self.dies_per_channel) and 1 <= self.dies_per_channel <= 64,
            f"dies_per_channel must be a whole number from 1 to 64; got {self.dies_per_channel}",
        )
        _require(
            self.physical_pages <= 2**31 - 1,
            f"user_pages / (1 - spare) must stay below 2^31 physical pages; got "
            f"{self.physical_pages} (user_pages={self.user_pages}, spare={self.spare})",
        )

    @property
    def blocks(self) -> int:
        """Erase blocks on the drive."""
        return math.ceil(self.user_pages / (1.0 - self.spare) / self.pages_per_block - 1e-9)

    @property
    def physical_pages(self) -> int:
        return self.blocks * self.pages_per_block

    @property
    def spare_pages(self) -> int:
        return self.physical_pages - self.user_pages

    @property
    def spare_blocks(self) -> float:
        """Spare capacity measured in whole erase blocks (may be fractional)."""
        return self.spare_pages / self.pages_per_block

    @property
    def spare_of_physical(self) -> float:
        """Over-provisioning as a fraction of physical capacity, after rounding to blocks."""
        return self.spare_pages / self.physical_pages

    @property
    def extra_of_user(self) -> float:
        """Over-provisioning as a fraction of user capacity (the everyday "7 %" figure)."""
        return self.spare_pages / self.user_pages

    @property
    def user_bytes(self) -> int:
        return self.user_pages * self.page_bytes

    @property
    def physical_bytes(self) -> int:
        return self.physical_pages * self.page_bytes

    def state_bytes(self, track_versions: bool = False, stored_fraction: float = 1.0) -> int:
        """Estimated bytes of engine state for this geometry (maps and per-block arrays);
        a compressing drive keeps a map entry per stored page a block can hold."""
        per_physical = _BYTES_PER_PHYSICAL_PAGE + (
            _BYTES_PER_PHYSICAL_PAGE_STAMPED if track_versions else 0
        )
        positions = self.blocks * stored_pages_per_block(self.pages_per_block, stored_fraction)
        return (
            self.user_pages * _BYTES_PER_USER_PAGE
            + positions * per_physical
            + self.blocks * _BYTES_PER_BLOCK
        )


@dataclass(frozen=True)
class FtlConfig:
    """How the flash translation layer manages the flash.

    mapping: "page" (any logical page anywhere) or "block" (first generation: a logical erase
        block lives in one physical block; a partial rewrite merges the whole block) or
        "fast" (hybrid log-block FTL after Lee et al., "A log buffer-based flash translation
        layer using fully-associative sector translation", ACM TECS 2007: block-mapped data
        blocks plus a few page-mapped log blocks shared by all logical blocks; see ftl.py).
    gc: victim policy, one of greedy, fifo, cost-benefit, random-d.
    d: blocks sampled per choice for random-d.
    gc_low_blocks: foreground GC runs while free blocks are at or below this watermark.
    honour_trim: False models old firmware that ignores TRIM.
    seed: seeds the engine's own random stream (random-d sampling).
    track_versions: keep a write stamp per physical page so tests can check that every page
        reads back the version last written (costs 8 bytes per physical page).
    gc_frontier: where page-mapped GC puts the pages it copies. "separate": an open block of
        their own, apart from new host data (copied pages are colder than fresh writes, so
        under skewed traffic blocks stay sorted by temperature); "shared": the host's open
        block, one write frontier for both, as Desnoyers' analytic models assume. Block and
        fast mappings have no GC stream and ignore it.
    victim_order: which block greedy GC takes among closed blocks with the same fewest valid
        pages: "oldest", the one that reached that count first (the default, as Desnoyers'
        simulator does; it agrees better with his models), or "newest", the one that
        reached it last. Other policies ignore it.
    stored_fraction: a compressing drive (SandForce) stores each logical page in this
        fraction of a flash page (1.0: no compression; page mapping only). The flash then
        holds more logical pages per erase block (stored_pages_per_block), so the same data
        leaves more of it free and GC has more effective spare; WA counts the slots
        programmed (Drive.stored_fraction), so it can fall below 1.
    slc_cache: "none"; "static" or "dynamic": host pages are written first into blocks used
        one bit per cell (an SLC cache in front of TLC or QLC flash), each holding
        pages_per_block // cell_bits pages; when the cache may take no more blocks, host
        pages go straight to the dense flash. Folding (Drive.fold, in idle time; under
        pressure, foreground GC folds a borrowed block first) copies a full cache block's
        valid pages into dense flash, programming them a second time, and erases it
        (slccache.py). Page mapping, greedy GC and no compression only.
    cell_bits: bits per cell of the dense flash: 2 (MLC), 3 (TLC) or 4 (QLC).
    slc_blocks: erase blocks kept in SLC mode for good, out of the spare (the static cache;
        a dynamic one may have none).
    slc_dynamic_share: "dynamic" only: the cache may also borrow free dense blocks, up to
        this share (0 to 1) of the blocks the unwritten user pages would take in dense
        flash, so a fuller drive has a smaller cache.
    wear_leveling_gap: static wear levelling (gc.wear_level): when the most-worn block has
        been erased more than this many times more often than the least-worn full block,
        that block's data (cold: nothing rewrote it) is moved and the block erased, so it
        takes writes again; 0 turns it off. Its copies are GC copies. Page mapping, greedy
        GC and no SLC cache only.
    placement_handles: how many placement handles (streams, FDP's reclaim unit handles) the
        host may tag its writes with, 1 (no placement) to MAX_HANDLES; the drive keeps an
        open block for each, and a host write goes to the block of its page's tag
        (Drive.set_tags). Page mapping, a separate GC frontier and no SLC cache only.
    handle_gc: where GC copies a victim's pages with several handles: "mixed" (one GC block
        for all, as FDP's initially isolated handles) or "isolated" (a GC block per handle,
        the victim's: FDP's persistently isolated handles, a multi-stream drive's streams).
    """

    mapping: str = "page"
    gc: str = "greedy"
    d: int = 2
    gc_low_blocks: int = 2
    honour_trim: bool = True
    seed: int = 1
    track_versions: bool = False
    gc_frontier: str = "separate"
    victim_order: str = "oldest"
    stored_fraction: float = 1.0
    slc_cache: str = "none"
    cell_bits: int = 3
    slc_blocks: int = 0
    slc_dynamic_share: float = 0.0
    wear_leveling_gap: int = 0
    placement_handles: int = 1
    handle_gc: str = "mixed"

    def __post_init__(self) -> None:
        _require(self.mapping in MAPPINGS, f"mapping must be one of {', '.join(MAPPINGS)}; "
                 f"got {self.mapping!r}")
        _require(self.gc in GC_POLICIES, f"gc must be one of {', '.join(GC_POLICIES)}; "
                 f"got {self.gc!r}")
        _require(self.gc_frontier in GC_FRONTIERS, "gc_frontier must be one of "
                 f"{', '.join(GC_FRONTIERS)}; got {self.gc_frontier!r}")
        _require(self.victim_order in VICTIM_ORDERS, "victim_order must be one of "
                 f"{', '.join(VICTIM_ORDERS)}; got {self.victim_order!r}")
        _require(is_whole(self.d) and 1 <= self.d <= 1024,
                 f"d must be a whole number from 1 to 1024; got {self.d}")
        _require(is_whole(self.gc_low_blocks) and 1 <= self.gc_low_blocks <= 64,
                 f"gc_low_blocks must be a whole number from 1 to 64; got {self.gc_low_blocks}")
        _require(is_real(self.stored_fraction) and 0.01 <= self.stored_fraction <= 1.0,
                 f"stored_fraction must be from 0.01 to 1; got {self.stored_fraction}")
        _require(self.stored_fraction == 1.0 or self.mapping == "page",
                 f"stored_fraction below 1 (a compressing drive) needs mapping 'page'; got "
                 f"mapping {self.mapping!r}")
        _slc_rules(self)
        _require(is_whole(self.wear_leveling_gap) and 0 <= self.wear_leveling_gap <= 10**6,
                 f"wear_leveling_gap must be a whole number from 0 (off) to 1000000 erases; "
                 f"got {self.wear_leveling_gap}")
        _require(self.wear_leveling_gap == 0 or (self.mapping == "page" and self.gc == "greedy"
                                                 and self.slc_cache == "none"),
                 f"wear levelling (wear_leveling_gap {self.wear_leveling_gap}) needs mapping "
                 f"'page', gc 'greedy' and no SLC cache; got mapping {self.mapping!r}, gc "
                 f"{self.gc!r}, slc_cache {self.slc_cache!r}")
        _require(is_whole(self.placement_handles) and 1 <= self.placement_handles <= MAX_HANDLES,
                 f"placement_handles must be a whole number from 1 to {MAX_HANDLES}; got "
                 f"{self.placement_handles}")
        _require(self.handle_gc in HANDLE_GCS, f"handle_gc must be one of "
                 f"{', '.join(HANDLE_GCS)}; got {self.handle_gc!r}")
        _require(self.placement_handles == 1 or (
            self.mapping == "page" and self.gc_frontier == "separate"
            and self.slc_cache == "none"),
            f"placement handles ({self.placement_handles}) need mapping 'page', gc_frontier "
            f"'separate' and no SLC cache; got mapping {self.mapping!r}, gc_frontier "
            f"{self.gc_frontier!r}, slc_cache {self.slc_cache!r}")
        _require(is_whole(self.seed) and 0 <= self.seed < 2**63,
                 f"seed must be a whole number from 0 to 2^63-1; got {self.seed}")



def _slc_rules(config: FtlConfig) -> None:
    """FtlConfig's SLC cache fields: each in its range, and the cache only where it is
    modelled (page mapping, greedy GC, no compression)."""
    _require(config.slc_cache in SLC_CACHES, f"slc_cache must be one of "
             f"{', '.join(SLC_CACHES)}; got {config.slc_cache!r}")
    _require(is_whole(config.cell_bits) and 2 <= config.cell_bits <= 4,
             f"cell_bits must be a whole number from 2 to 4 (MLC, TLC, QLC); got "
             f"{config.cell_bits}")
    _require(is_whole(config.slc_blocks) and 0 <= config.slc_blocks <= 2**31 - 1,
             f"slc_blocks must be a whole number from 0 to {2**31 - 1}; got "
             f"{config.slc_blocks}")
    _require(is_real(config.slc_dynamic_share) and 0.0 <= config.slc_dynamic_share <= 1.0,
             f"slc_dynamic_share must be from 0 to 1; got {config.slc_dynamic_share}")
    if config.slc_cache == "none":
        return
    _require(config.mapping == "page" and config.gc == "greedy"
             and config.stored_fraction == 1.0,
             f"an SLC cache (slc_cache {config.slc_cache!r}) needs mapping 'page', gc "
             f"'greedy' and stored_fraction 1; got mapping {config.mapping!r}, gc "
             f"{config.gc!r}, stored_fraction {config.stored_fraction}")
    _require(config.slc_blocks >= 1 or config.slc_cache == "dynamic",
             f"a static SLC cache needs slc_blocks of at least 1; got {config.slc_blocks}")
    _require(config.slc_dynamic_share > 0 or config.slc_cache == "static",
             "a dynamic SLC cache needs slc_dynamic_share above 0; got "
             f"{config.slc_dynamic_share}")


def slc_share_ppm(share: float) -> int:
    """A dynamic SLC cache's share of the unwritten user capacity in millionths: whole, so
    the engine and the reference FTL size the cache in the same integer arithmetic."""
    return round(share * 1_000_000)


def stored_slots(stored_fraction: float) -> int:
    """Slots (of SLOTS_PER_PAGE in a flash page) one logical page takes when stored at
    stored_fraction of its size: at least one, however well it compresses."""
    return max(1, round(stored_fraction * SLOTS_PER_PAGE))


def stored_pages_per_block(pages_per_block: int, stored_fraction: float) -> int:
    """Logical pages an erase block holds when each is stored at stored_fraction: the block
    has pages_per_block * SLOTS_PER_PAGE slots and is full when the next page does not fit
    (so up to stored_slots - 1 slots of it stay unused). pages_per_block at fraction 1."""
    return pages_per_block * SLOTS_PER_PAGE // stored_slots(stored_fraction)


def available_memory_bytes() -> int:
    """Bytes this process may still allocate: the tightest of MemAvailable, ulimit -v / -d and
    the memory cgroup's limit (see memory.py)."""
    return memory_budget().available_bytes


def too_big_for_memory(geometry: Geometry, config: FtlConfig, available_bytes: int,
                       limit: str) -> str:
    """The one message for a drive whose state does not fit, whether the estimate refused it
    or the allocation itself failed."""
    need = geometry.state_bytes(config.track_versions, config.stored_fraction)
    return (f"user_pages={geometry.user_pages} needs about {need / 2**20:.0f} MiB of state but "
            f"only {available_bytes / 2**20:.0f} MiB is available ({limit}); the drive must "
            "fit in 80 % of it")


def check_buildable(geometry: Geometry, config: FtlConfig,
                    memory_limit_bytes: int | None = None) -> None:
    """Refuse, with a clear message, a drive that GC cannot run or memory cannot hold."""
    # each placement handle beyond the first keeps a host and a GC block open
    page_mapped_needs = (config.gc_low_blocks + MIN_SPARE_BLOCKS_BEYOND_WATERMARK
                         + 2 * (config.placement_handles - 1))
    if config.mapping == "page":
        _require(
            geometry.spare_blocks >= page_mapped_needs,
            f"spare must leave at least {page_mapped_needs} spare erase blocks for garbage "
            f"collection; got {geometry.spare_blocks:.1f} blocks (spare={geometry.spare}, "
            f"{geometry.blocks} blocks of {geometry.pages_per_block} pages): raise spare or "
            "user_pages",
        )
    elif config.mapping == "fast":
        _require(
            geometry.spare_blocks >= 3,
            f"spare must leave at least 3 spare erase blocks for the fast mapping (2 log "
            f"blocks and 1 for merges); got {geometry.spare_blocks:.1f} blocks "
            f"(spare={geometry.spare}, {geometry.blocks} blocks of "
            f"{geometry.pages_per_block} pages): raise spare or user_pages",
        )
    else:
        _require(
            geometry.spare_blocks >= 1,
            f"spare must leave at least 1 spare erase block for block-mapped merges; got "
            f"{geometry.spare_blocks:.1f} blocks",
        )
    if config.slc_cache != "none":
        _require(
            geometry.spare_blocks - config.slc_blocks >= page_mapped_needs,
            f"spare must leave at least {page_mapped_needs} spare erase blocks for garbage "
            f"collection besides the static SLC cache's {config.slc_blocks} (slc_blocks); got "
            f"{geometry.spare_blocks:.1f} spare blocks: raise spare or lower slc_blocks")
        _require(geometry.pages_per_block >= config.cell_bits,
                 f"pages_per_block must be at least cell_bits ({config.cell_bits}) for an SLC "
                 f"cache (a block in SLC mode holds pages_per_block // cell_bits pages); got "
                 f"{geometry.pages_per_block}")
    budget = (memory_budget() if memory_limit_bytes is None
              else MemoryBudget(memory_limit_bytes, "the limit given"))
    need = geometry.state_bytes(config.track_versions, config.stored_fraction)
    _require(need <= 0.8 * budget.available_bytes,
             too_big_for_memory(geometry, config, budget.available_bytes, budget.limit))
