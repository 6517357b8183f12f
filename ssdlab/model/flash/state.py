"""The engine's state: preallocated numpy arrays, register indices and code numbers.

Everything the compiled engine touches lives in one `FlashArrays` named tuple, so numba sees
plain arrays and Python sees named fields. Scalars (cursors, counters, settings) live in the
int64 array `regs` at the indices below; numba folds these module constants into the code.

Page states in `p2l`: a logical page number (>= 0) for a valid page, FREE_PAGE for a page not
programmed since its block was erased, INVALID_PAGE for stale data.

Compression (FtlConfig.stored_fraction < 1): every logical page is stored in the same
stored_slots(c) slots of a flash page, so an erase block holds P = stored_pages_per_block of
them, in order. The engine then works on stored pages: R_PAGES_PER_BLOCK is P (not the flash
pages per block), a "ppn" is block * P + the stored page's place in the block, `valid` and the
greedy buckets count stored pages (slots / stored_slots: the same order as slots), and
R_NAND_WRITES counts stored pages programmed, each R_STORED_SLOTS slots of flash. Without
compression P is the flash pages per block and every loop is the one it always was: no
branch, no extra work per page.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .geometry import (
    SLOTS_PER_PAGE,
    FtlConfig,
    Geometry,
    check_buildable,
    slc_share_ppm,
    stored_pages_per_block,
    stored_slots,
    too_big_for_memory,
)
from .memory import memory_budget

FREE_PAGE = -1
INVALID_PAGE = -2
UNMAPPED = -1

# Block states (bstate).
BLOCK_FREE = 0
BLOCK_OPEN = 1  # a write stream is filling it
BLOCK_FULL = 2  # closed: a GC candidate
BLOCK_VICTIM = 3  # being collected (only ever seen inside a batch, or in events)
BLOCK_STATE_NAMES = ("free", "open", "full", "victim")

# GC policies and mappings, as the engine numbers them.
GC_CODES = {"greedy": 0, "fifo": 1, "cost-benefit": 2, "random-d": 3}
GC_GREEDY, GC_FIFO, GC_COST_BENEFIT, GC_RANDOM_D = 0, 1, 2, 3
MAPPING_CODES = {"page": 0, "block": 1, "fast": 2}
MAP_PAGE, MAP_BLOCK, MAP_FAST = 0, 1, 2
FRONTIER_CODES = {"separate": 0, "shared": 1}
VICTIM_ORDER_CODES = {"newest": 0, "oldest": 1}
SLC_CODES = {"none": 0, "static": 1, "dynamic": 2}
SLC_NONE, SLC_STATIC, SLC_DYNAMIC = 0, 1, 2
# how a block is used (mode): dense; borrowed by the dynamic cache until erased; static cache
MODE_DENSE, MODE_SLC, MODE_STATIC = 0, 1, 2
ORDER_NEWEST, ORDER_OLDEST = 0, 1

# Command opcodes.
OP_WRITE, OP_TRIM, OP_READ = 0, 1, 2

# Event kinds; each event is four int64: kind, a, b, c.
EV_PROGRAM = 1  # a=ppn, b=lpn                    host data programmed
EV_INVALIDATE = 2  # a=ppn, b=lpn                 a page became stale
EV_VICTIM = 3  # a=block, b=valid pages           GC chose a victim
EV_COPY = 4  # a=from ppn, b=to ppn, c=lpn        GC moved a valid page
EV_ERASE = 5  # a=block, b=its erase count now    a block was erased
EV_TRIM = 6  # a=first lpn, b=pages               a TRIM command
EV_MERGE = 7  # a=old block, b=new block, c=logical block   block-mapped merge
EVENT_NAMES = {1: "program", 2: "invalidate", 3: "victim", 4: "copy", 5: "erase", 6: "trim",
               7: "merge"}

# Register indices. Settings first, then cursors, then counters.
R_USER_PAGES = 0
R_PAGES_PER_BLOCK = 1
R_BLOCKS = 2
R_POLICY = 3
R_D = 4
R_GC_LOW = 5
R_HONOUR_TRIM = 6
R_TRACK_VERSIONS = 7
R_MAPPING = 8
R_HOST_BLOCK = 9  # open block of the host stream, -1 if none
R_HOST_OFFSET = 10
R_GC_BLOCK = 11  # open block of the GC copy stream, -1 if none
R_GC_OFFSET = 12
R_FREE_HEAD = 13  # ring buffer of free blocks
R_FREE_COUNT = 14
R_FIFO_HEAD = 15  # ring buffer of closed blocks in closing order (FIFO policy)
R_FIFO_COUNT = 16
R_CLOSED_COUNT = 17  # length of closed_list
R_MIN_VALID = 18  # lowest non-empty greedy bucket, or above
R_HOST_WRITES = 19  # counters from here on: pages
R_NAND_WRITES = 20
R_GC_COPIES = 21
R_ERASES = 22
R_TRIM_COMMANDS = 23
R_TRIM_PAGES = 24  # mapped pages a TRIM unmapped
R_HOST_READS = 25
R_NAND_READS = 26
R_GC_VICTIMS = 27
R_MERGES = 28
R_EVENTS = 29  # events written to the buffer
R_EVENTS_DROPPED = 30
R_ERROR = 31  # first error code, 0 if none
R_EVENT_CAPACITY = 32  # rows of the event buffer in use; 0 turns events off
R_LOG_BLOCKS = 33  # mapping "fast": how many log blocks it may use at once
R_FREE_LOW = 34  # fewest free blocks seen since Drive.reset_free_low (breakpoints)
R_WATCH_LPN = 35  # logical page whose host writes are counted, -1 for none (breakpoints)
R_WATCH_WRITES = 36  # host writes of R_WATCH_LPN
R_COPY_BLOCK = 37  # the registers GC copies program through: R_GC_BLOCK and R_GC_OFFSET
R_COPY_OFFSET = 38  # ("separate" frontier) or R_HOST_BLOCK and R_HOST_OFFSET ("shared")
R_VICTIM_ORDER = 39  # greedy, among equally empty blocks: ORDER_NEWEST or ORDER_OLDEST
R_LAST_VICTIM = 40  # the block the last GC collected, -1 before the first (display, no events)
R_LAST_MOVED = 41  # the valid pages that last GC copied out of it
R_STORED_SLOTS = 42  # slots one stored page takes (SLOTS_PER_PAGE without compression)
R_BLOCK_SLOTS = 43  # slots in an erase block: flash pages per block * SLOTS_PER_PAGE
# An SLC cache (FtlConfig.slc_cache; page mapping only, slccache.py): host pages go first to
# blocks used one bit per cell, which hold R_SLC_PAGES pages each.
R_SLC = 44  # SLC_CODES: 0 none, 1 static, 2 dynamic
R_SLC_PAGES = 45  # pages an SLC-mode block holds: pages per block // cell bits
R_SLC_STATIC = 46  # blocks kept in SLC mode for good (the static cache), out of the free ring
R_SLC_SHARE_PPM = 47  # dynamic: millionths of the unwritten user capacity it may borrow
R_SLC_BLOCK = 48  # the cache's open block, -1 if none
R_SLC_OFFSET = 49
R_SLC_BORROWED = 50  # dense blocks the dynamic cache holds now (open or full)
R_MAPPED = 51  # logical pages mapped (kept only with an SLC cache: its dynamic size)
R_SLC_WRITES = 52  # host pages programmed into the cache
R_FOLDED_PAGES = 53  # pages copied out of cache blocks into dense flash (a second program)
R_FOLDS = 54  # cache blocks folded
R_POOL_HEAD = 55  # ring of the static cache's free blocks (slc_pool)
R_POOL_COUNT = 56
R_STATIC_HEAD = 57  # ring of the static cache's full blocks, oldest first (slc_static)
R_STATIC_COUNT = 58
R_BORROWED_HEAD = 59  # ring of the dynamic cache's full blocks, oldest first (slc_borrowed)
R_BORROWED_COUNT = 60
# Static wear levelling (gc.wear_level)
R_WL_GAP = 61  # erase-count gap that triggers a move (0: off)
R_MAX_ERASES = 62  # the most erases any block has had
R_WL_MIN = 63  # the least-worn full block's erases when wear levelling last looked
R_WL_MOVES = 64  # blocks whose cold data was moved
R_WL_COPIES = 65  # pages those moves copied (GC copies too)
# Placement handles (FtlConfig.placement_handles): handle 0 writes through R_HOST_BLOCK /
# R_GC_BLOCK; handle h >= 1 through its four registers from R_STREAMS + 4 (h - 1): host
# block, host offset, GC block, GC offset (primitives.host_regs, gc_regs)
R_HANDLES = 66  # handles in use (1: no placement)
R_HANDLE_GC = 67  # 1: GC copies into the victim's handle's GC block; 0: one GC block
R_STREAMS = 68
N_REGS = R_STREAMS + 4 * 7

COUNTER_NAMES = {
    "host_writes": R_HOST_WRITES,
    "nand_writes": R_NAND_WRITES,
    "gc_copies": R_GC_COPIES,
    "erases": R_ERASES,
    "trims": R_TRIM_COMMANDS,
    "trimmed_pages": R_TRIM_PAGES,
    "host_reads": R_HOST_READS,
    "nand_reads": R_NAND_READS,
    "gc_victims": R_GC_VICTIMS,
    "merges": R_MERGES,
    "slc_writes": R_SLC_WRITES,  # host pages programmed into an SLC cache (slccache.py)
    "wl_moves": R_WL_MOVES,  # blocks static wear levelling moved (gc.wear_level)
    "wl_copies": R_WL_COPIES,  # pages it copied, GC copies too
}

# Error codes in R_ERROR.
ERR_NONE = 0
ERR_NO_VICTIM = 1  # GC found no block it could collect
ERR_NO_FREE_BLOCK = 2  # a stream needed a block and none was free
ERR_ERASE_VALID = 3  # a block with valid data was about to be erased (never happens)
ERR_GC_STUCK = 4  # GC ran a whole drive's worth of victims without freeing space
ERROR_MESSAGES = {
    ERR_NO_VICTIM: "garbage collection found no block to collect",
    ERR_NO_FREE_BLOCK: "a write stream needed a free block and none was left",
    ERR_ERASE_VALID: "a block holding valid data was about to be erased",
    ERR_GC_STUCK: "garbage collection made no progress; the drive has too little spare",
}

FlashArrays = namedtuple(
    "FlashArrays",
    [
        "regs",  # int64[N_REGS]
        "rng",  # uint64[1], splitmix64 state
        "l2p",  # int32[user pages]: physical page, or UNMAPPED
        "p2l",  # int32[physical pages]: logical page, FREE_PAGE or INVALID_PAGE
        "stamp",  # int64[physical pages] (or [1]): host write number that produced the data
        "valid",  # int32[blocks]: valid pages
        "erases",  # int32[blocks]: erase count
        "bstate",  # int8[blocks]: BLOCK_*
        "close_seq",  # int64[blocks]: NAND writes when the block closed (its age origin)
        "free_ring",  # int32[blocks]
        "fifo_ring",  # int32[blocks]; mapping "fast": its log blocks, oldest first
        "bucket_prev",  # int32[blocks]: greedy buckets, doubly linked by valid count
        "bucket_next",  # int32[blocks]
        "bucket_head",  # int32[pages per block + 1]: each bucket's newest arrival
        "bucket_tail",  # int32[pages per block + 1]: each bucket's oldest arrival
        "closed_list",  # int32[blocks]: closed blocks, any order (random-d, cost-benefit)
        "closed_pos",  # int32[blocks]: index of a block in closed_list, -1 if absent
        "lb2pb",  # int32[logical blocks]: block mapping's logical -> physical block
        "events",  # int64[capacity, 4]
        "victim_valid",  # int64[pages per block + 1]: GC victims by their valid pages
        "mode",  # int8[blocks]: MODE_DENSE, MODE_SLC (borrowed by the cache) or MODE_STATIC
        "slc_pool",  # int32[static blocks, at least 1]: ring of the static cache's free blocks
        "slc_static",  # int32[static blocks, at least 1]: ring of its full blocks, oldest first
        "slc_borrowed",  # int32[blocks]: ring of the dynamic cache's full blocks, oldest first
        "tag",  # int8[user pages, or 1]: each logical page's placement handle
        "bhandle",  # int8[blocks]: the handle whose stream opened the block
    ],
)


def allocate(geometry: Geometry, config: FtlConfig, event_capacity: int = 0) -> FlashArrays:
    """Build a fresh, erased drive. Checks the geometry can run and fits in memory first."""
    check_buildable(geometry, config)
    if not (isinstance(event_capacity, int) and 0 <= event_capacity <= 2**26):
        raise ValueError(f"event_capacity must be a whole number from 0 to {2**26}; "
                         f"got {event_capacity}")
    nb = geometry.blocks
    ppb = stored_pages_per_block(geometry.pages_per_block, config.stored_fraction)
    regs = np.zeros(N_REGS, dtype=np.int64)
    regs[R_USER_PAGES] = geometry.user_pages
    regs[R_PAGES_PER_BLOCK] = ppb
    regs[R_BLOCKS] = nb
    regs[R_POLICY] = GC_CODES[config.gc]
    regs[R_D] = config.d
    regs[R_GC_LOW] = config.gc_low_blocks
    regs[R_HONOUR_TRIM] = int(config.honour_trim)
    regs[R_TRACK_VERSIONS] = int(config.track_versions)
    regs[R_MAPPING] = MAPPING_CODES[config.mapping]
    regs[R_VICTIM_ORDER] = VICTIM_ORDER_CODES[config.victim_order]
    shared = FRONTIER_CODES[config.gc_frontier] == 1
    regs[R_COPY_BLOCK] = R_HOST_BLOCK if shared else R_GC_BLOCK
    regs[R_COPY_OFFSET] = R_HOST_OFFSET if shared else R_GC_OFFSET
    regs[R_HOST_BLOCK] = -1
    regs[R_GC_BLOCK] = -1
    # the static SLC cache's blocks are kept out of the free ring (the last ones)
    static = config.slc_blocks if config.slc_cache != "none" else 0
    regs[R_FREE_COUNT] = nb - static
    regs[R_MIN_VALID] = ppb + 1
    regs[R_EVENT_CAPACITY] = event_capacity
    regs[R_FREE_LOW] = nb - static
    regs[R_WATCH_LPN] = -1
    regs[R_LAST_VICTIM] = -1
    regs[R_STORED_SLOTS] = stored_slots(config.stored_fraction)
    regs[R_BLOCK_SLOTS] = geometry.pages_per_block * SLOTS_PER_PAGE
    regs[R_SLC] = SLC_CODES[config.slc_cache]
    regs[R_SLC_PAGES] = geometry.pages_per_block // config.cell_bits
    regs[R_SLC_STATIC] = static
    regs[R_SLC_SHARE_PPM] = slc_share_ppm(config.slc_dynamic_share)
    regs[R_SLC_BLOCK] = -1
    regs[R_POOL_COUNT] = static
    regs[R_WL_GAP] = config.wear_leveling_gap
    regs[R_HANDLES] = config.placement_handles
    regs[R_HANDLE_GC] = int(config.handle_gc == "isolated")
    regs[R_STREAMS:] = -1  # every handle's stream blocks: none open (offsets unused then)
    logical_blocks = -(-geometry.user_pages // ppb)
    if config.mapping == "fast":
        # Every block not needed as a data block is a log block, but one: merges need it.
        regs[R_LOG_BLOCKS] = nb - logical_blocks - 1
    try:
        return _allocate_arrays(geometry, config, regs, event_capacity, logical_blocks)
    except MemoryError:
        # The estimate passed but the allocation did not (fragmented or overcommitted
        # memory, a limit that could not be read): the same message, not numpy's error.
        budget = memory_budget()
        raise ValueError(too_big_for_memory(geometry, config, budget.available_bytes,
                                            budget.limit)) from None


def _allocate_arrays(geometry: Geometry, config: FtlConfig, regs: np.ndarray,
                     event_capacity: int, logical_blocks: int) -> FlashArrays:
    nb, ppb = geometry.blocks, int(regs[R_PAGES_PER_BLOCK])  # stored pages per block
    phys = nb * ppb
    static = int(regs[R_SLC_STATIC])  # the last blocks, kept in SLC mode out of the free ring
    mode = np.zeros(nb, dtype=np.int8)
    mode[nb - static:] = MODE_STATIC
    return FlashArrays(
        regs=regs,
        rng=np.array([config.seed], dtype=np.uint64),
        l2p=np.full(geometry.user_pages, UNMAPPED, dtype=np.int32),
        p2l=np.full(phys, FREE_PAGE, dtype=np.int32),
        stamp=np.zeros(phys if config.track_versions else 1, dtype=np.int64),
        valid=np.zeros(nb, dtype=np.int32),
        erases=np.zeros(nb, dtype=np.int32),
        bstate=np.zeros(nb, dtype=np.int8),
        close_seq=np.full(nb, -1, dtype=np.int64),
        free_ring=np.arange(nb, dtype=np.int32),  # (the last `static` entries unused)
        fifo_ring=np.zeros(nb, dtype=np.int32),
        bucket_prev=np.full(nb, -1, dtype=np.int32),
        bucket_next=np.full(nb, -1, dtype=np.int32),
        bucket_head=np.full(ppb + 1, -1, dtype=np.int32),
        bucket_tail=np.full(ppb + 1, -1, dtype=np.int32),
        closed_list=np.zeros(nb, dtype=np.int32),
        closed_pos=np.full(nb, -1, dtype=np.int32),
        lb2pb=np.full(logical_blocks, -1, dtype=np.int32),
        events=np.zeros((max(event_capacity, 1), 4), dtype=np.int64),
        victim_valid=np.zeros(ppb + 1, dtype=np.int64),
        mode=mode,
        slc_pool=np.arange(nb - static, nb, dtype=np.int32) if static else np.zeros(
            1, dtype=np.int32),
        slc_static=np.zeros(max(static, 1), dtype=np.int32),
        slc_borrowed=np.zeros(nb if config.slc_cache == "dynamic" else 1, dtype=np.int32),
        tag=np.zeros(geometry.user_pages if config.placement_handles > 1 else 1,
                     dtype=np.int8),
        bhandle=np.zeros(nb, dtype=np.int8),
    )
