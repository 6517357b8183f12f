"""A plain-Python reference FTL: the engine's rules written out for clarity, not speed.

The tests drive this class and the compiled engine (`Drive`) with the same commands and
compare their whole state after every batch. It shares no code with the engine beyond its
input types (Geometry, FtlConfig, Commands) and the code numbers in `state.py`, and it keeps
its bookkeeping in ordinary Python containers (lists, dicts, a deque), so a mistake in the
engine's ring buffers, bucket lists or register arithmetic shows up as a disagreement
instead of being repeated here.

The rules, as the engine documents them:

* Free blocks are handed out first-in first-out; a freshly erased block joins the back of the
  queue. At the start every block is free, in block-number order.
* Page mapping has two write streams, one for host data and one for pages copied by garbage
  collection (GC). Each fills its own open block page by page and closes the block the moment
  its last page is programmed; the block's close time is the NAND page-write count then.
  With `gc_frontier = "shared"` there is one stream: GC copies are appended to the host's
  open block (taking a free block as the host's if it has none), and no GC block is opened.
* A host page write first marks the old copy of that logical page stale. Then, only if the
  host stream has no open block, foreground GC collects victims while the number of free
  blocks is at or below `gc_low_blocks`; with the shared frontier the host first takes a
  free block as its open block, so GC's copies go to its start (as in Desnoyers'
  simulator). Then the page is programmed.
* Collecting a victim copies its valid pages, in page order, to the GC stream and erases it.
* Victim choice among closed (full) blocks:
  greedy -- fewest valid pages; among equals, the block that reached that count last
  (`victim_order = "newest"`) or first ("oldest") (a block reaches its count when it closes
  and whenever one of its pages goes stale while closed);
  fifo -- the earliest closed; cost-benefit -- the highest age * (1 - u) / (2u) with u the
  valid fraction and age the NAND writes since closing (an empty block scores infinity),
  ties to the lowest block number; random-d -- d draws with replacement from the "closed
  list" (closing appends; removal moves the last entry into the hole), index = splitmix64
  output mod list length, keeping the first drawn with the fewest valid pages.
* Block and "fast" mapping: see `reference_blocks.py`.
* A drive that ignores TRIM still counts the command.
* Compression (page mapping only): each flash page has SLOTS_PER_PAGE slots and every
  logical page is stored in max(1, round(stored_fraction * SLOTS_PER_PAGE)) of them. A write
  stream fills its open block slot by slot and closes it when the next page would not fit.
  Blocks count their valid data in slots; greedy takes the fewest valid slots, cost-benefit's
  u is valid slots over the block's slots; GC copies what is stored. Pages are numbered by
  their place in the block (block * places per block + place), and the counters count pages
  programmed; `slots_programmed` counts the flash they took.

`state()` returns numpy arrays laid out like the engine's, for comparison only.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .commands import Commands
from .geometry import SLOTS_PER_PAGE, FtlConfig, Geometry
from .reference_blocks import HOST, BlockMappedRules
from .reference_slc import BORROWED, DENSE, STATIC, SlcCacheRules
from .state import (
    BLOCK_FREE,
    BLOCK_FULL,
    BLOCK_OPEN,
    BLOCK_VICTIM,
    COUNTER_NAMES,
    FREE_PAGE,
    INVALID_PAGE,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    UNMAPPED,
)

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

GC = "gc"  # the GC copy stream (HOST, the host stream, is in reference_blocks.py)


class ReferenceDriveError(RuntimeError):
    """The reference drive cannot go on (no free block, no victim, GC without progress)."""


class _Block:
    """What the reference knows about one erase block."""

    __slots__ = ("valid", "erases", "state", "closed_at", "reached_count_at")

    def __init__(self) -> None:
        self.valid = 0  # in slots: each valid page adds the slots it is stored in
        self.erases = 0
        self.state = BLOCK_FREE
        self.closed_at: int | None = None  # NAND writes when it closed
        self.reached_count_at = -1  # event clock when its valid count last changed while closed


class ReferenceFtl(BlockMappedRules, SlcCacheRules):
    """A slow, obviously-correct FTL with the same interface and decisions as `Drive`."""

    def __init__(self, geometry: Geometry, config: FtlConfig | None = None):
        self.geometry = geometry
        self.config = config or FtlConfig()
        # Slots: a flash page has SLOTS_PER_PAGE, a stored page takes page_slots of them, and
        # a block has room for ppb stored pages (the flash pages per block, uncompressed).
        self.page_slots = max(1, round(self.config.stored_fraction * SLOTS_PER_PAGE))
        self.block_slots = geometry.pages_per_block * SLOTS_PER_PAGE
        self.ppb = self.block_slots // self.page_slots
        self.slots_programmed = 0
        self.user_pages = geometry.user_pages
        self.n_blocks = geometry.blocks
        # Each physical page holds a logical page number, FREE_PAGE or INVALID_PAGE.
        self.page = [FREE_PAGE] * (self.n_blocks * self.ppb)
        self.where: dict[int, int] = {}  # logical page -> physical page
        self.version: dict[int, int] = {}  # logical page -> host write number last written
        self.blocks = [_Block() for _ in range(self.n_blocks)]
        self.free: deque[int] = deque(range(self.n_blocks))
        # [block, next offset]: in slots for page mapping's streams, in pages for "fast".
        self.open: dict[str, list[int] | None] = {HOST: None, GC: None}
        # placement handles: handle h >= 1 writes through streams "host<h>" and "gc<h>"
        self.handles = self.config.placement_handles
        for h in range(1, self.handles):
            self.open[f"{HOST}{h}"] = self.open[f"{GC}{h}"] = None
        self.tag = [0] * self.user_pages  # each logical page's handle (set_tags)
        self.bhandle = [0] * self.n_blocks  # the handle whose stream opened each block
        self.closed_list: list[int] = []
        self.home: dict[int, int] = {}  # block mapping: logical block -> physical block
        # fast mapping: log blocks, oldest first (the last one may be open), and their limit.
        self.log: deque[int] = deque()
        self.log_limit = self.n_blocks - -(-self.user_pages // self.ppb) - 1
        self.rng_state = self.config.seed & _MASK64
        self.clock = 0
        self.count = dict.fromkeys(COUNTER_NAMES, 0)
        self.max_erases = 0  # the most erases any block has had (wear levelling)
        self.wl_min = 0  # the least-worn full block's erases when wear levelling last looked
        self._init_cache()  # an SLC cache's blocks, queues and counts (reference_slc.py)

    # --- helpers ----------------------------------------------------------------------------

    def _tick(self) -> int:
        self.clock += 1
        return self.clock

    def _random(self) -> int:
        """splitmix64, in 64-bit arithmetic spelled out with masks."""
        self.rng_state = (self.rng_state + _GOLDEN) & _MASK64
        z = self.rng_state
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
        return z ^ (z >> 31)

    def _block_of(self, ppn: int) -> int:
        return ppn // self.ppb

    def _take_free_block(self) -> int:
        if not self.free:
            raise ReferenceDriveError("no free block left")
        return self.free.popleft()

    def _program(self, ppn: int, lpn: int) -> None:
        assert self.page[ppn] == FREE_PAGE, f"programming page {ppn}, which is not erased"
        self.page[ppn] = lpn
        self.where[lpn] = ppn
        self.blocks[self._block_of(ppn)].valid += self.page_slots
        self.count["nand_writes"] += 1
        self.slots_programmed += self.page_slots

    def _make_stale(self, ppn: int) -> None:
        b = self._block_of(ppn)
        self.page[ppn] = INVALID_PAGE
        self.blocks[b].valid -= self.page_slots
        if self.blocks[b].state == BLOCK_FULL:
            self.blocks[b].reached_count_at = self._tick()

    def _erase(self, b: int) -> None:
        blk = self.blocks[b]
        if blk.valid:
            raise ReferenceDriveError(f"erasing block {b}, which holds {blk.valid} valid slots")
        for ppn in range(b * self.ppb, (b + 1) * self.ppb):
            self.page[ppn] = FREE_PAGE
        blk.erases += 1
        self.max_erases = max(self.max_erases, blk.erases)
        blk.state = BLOCK_FREE
        blk.closed_at = None
        self.count["erases"] += 1
        if not self._released(b):  # (a static SLC cache block goes back to its own queue)
            self.free.append(b)

    def _append_to_stream(self, stream: str, lpn: int, handle: int = 0) -> int:
        """Program lpn in the next free slots of a write stream's open block, marking a block
        it opens with its placement handle; close the block when the next page would not
        fit."""
        if self.open[stream] is None:
            b = self._take_free_block()
            self.blocks[b].state = BLOCK_OPEN
            self.open[stream] = [b, 0]
            self.bhandle[b] = handle
        b, slot = self.open[stream]
        ppn = b * self.ppb + slot // self.page_slots
        self._program(ppn, lpn)
        slot += self.page_slots
        self.open[stream][1] = slot
        if slot + self.page_slots > self.block_slots:
            self._close(b)
            self.open[stream] = None
        return ppn

    def _close(self, b: int) -> None:
        blk = self.blocks[b]
        blk.state = BLOCK_FULL
        blk.closed_at = self.count["nand_writes"]
        blk.reached_count_at = self._tick()
        self.closed_list.append(b)

    def _unclose(self, b: int) -> None:
        i = self.closed_list.index(b)
        last = self.closed_list.pop()
        if i < len(self.closed_list):
            self.closed_list[i] = last

    # --- garbage collection -----------------------------------------------------------------

    def _closed_blocks(self) -> list[int]:
        """Full blocks GC may take (a full SLC cache block waits to be folded instead)."""
        return [b for b in range(self.n_blocks)
                if self.blocks[b].state == BLOCK_FULL and self.use[b] == DENSE]

    def pick_victim(self) -> int | None:
        """The closed block the policy would collect now, or None if none is closed."""
        policy = self.config.gc
        if policy == "random-d":
            if not self.closed_list:
                return None
            best = None
            for _ in range(self.config.d):
                b = self.closed_list[self._random() % len(self.closed_list)]
                if best is None or self.blocks[b].valid < self.blocks[best].valid:
                    best = b
            return best
        closed = self._closed_blocks()
        if not closed:
            return None
        if policy == "greedy":
            sign = -1 if self.config.victim_order == "newest" else 1
            return min(closed, key=lambda b: (self.blocks[b].valid,
                                              sign * self.blocks[b].reached_count_at))
        if policy == "fifo":
            return min(closed, key=lambda b: self.blocks[b].closed_at)
        # cost-benefit: scan in block order, keep strictly better scores.
        now = self.count["nand_writes"]
        best, best_score = None, -1.0
        for b in closed:
            valid = self.blocks[b].valid
            if valid == 0:
                score = float("inf")
            else:
                u = valid / self.block_slots
                score = (now - self.blocks[b].closed_at) * (1.0 - u) / (2.0 * u)
            if score > best_score:
                best, best_score = b, score
        return best

    def _collect(self, victim: int) -> int:
        """Copy the victim's valid pages to the GC stream (or the host's, when the frontier
        is shared), erase it; returns pages copied."""
        self._unclose(victim)
        moved = self._copy_out(victim, self.ppb)
        self._erase(victim)
        self.count["gc_victims"] += 1
        return moved

    def _copy_out(self, victim: int, pages: int) -> int:
        """Copy the valid pages among the first `pages` of victim, in page order, to the GC
        stream (the host's when the frontier is shared); returns how many."""
        stream = HOST if self.config.gc_frontier == "shared" else GC
        handle = 0  # isolated placement handles: the victim's handle's own GC stream
        if self.handles > 1 and self.config.handle_gc == "isolated":
            handle = self.bhandle[victim]
            stream = f"{GC}{handle}" if handle else GC
        blk = self.blocks[victim]
        blk.state = BLOCK_VICTIM
        moved = blk.valid // self.page_slots
        for src in range(victim * self.ppb, victim * self.ppb + pages):
            lpn = self.page[src]
            if lpn < 0:
                continue
            self.page[src] = INVALID_PAGE
            blk.valid -= self.page_slots
            self._append_to_stream(stream, lpn, handle)
            self.count["gc_copies"] += 1
            self.count["nand_reads"] += 1
        return moved

    def _foreground_gc(self) -> None:
        rounds = 0
        while len(self.free) <= self.config.gc_low_blocks:
            if self._fold_under_pressure():  # an SLC cache first folds what it borrowed
                continue
            victim = self.pick_victim()
            if victim is None:
                raise ReferenceDriveError("garbage collection found no block to collect")
            self._collect(victim)
            gap = self.config.wear_leveling_gap
            if gap and self.max_erases - self.wl_min > gap:
                self._wear_level()
            rounds += 1
            if rounds > self.n_blocks:
                # Give up only if no closed block holds a stale page; otherwise keep going.
                full = self.ppb * self.page_slots
                if not any(self.blocks[b].valid < full for b in self.closed_list):
                    raise ReferenceDriveError("garbage collection made no progress")
                rounds = 0

    def _wear_level(self) -> None:
        """Static wear levelling: with two free blocks in hand, the least-worn closed block
        (lowest number among equals) is moved when the most-worn block has had more than
        wear_leveling_gap more erases; its copies count as GC copies and as wl_copies, and
        it is no GC victim."""
        if len(self.free) < 2:
            return
        if not self.closed_list:
            self.wl_min = self.max_erases
            return
        b = min(self.closed_list, key=lambda x: (self.blocks[x].erases, x))
        self.wl_min = self.blocks[b].erases
        if self.max_erases - self.blocks[b].erases <= self.config.wear_leveling_gap:
            return
        self._unclose(b)
        moved = self._copy_out(b, self.ppb)
        self._erase(b)
        self.count["wl_moves"] += 1
        self.count["wl_copies"] += moved

    def set_tags(self, tags) -> None:
        """Each logical page's placement handle (Drive.set_tags, checked there)."""
        self.tag = [int(t) for t in tags]

    def collect_one(self) -> int:
        """One GC step now: pages copied, or -1 if nothing is closed (or block-mapped)."""
        if self.config.mapping != "page":
            return -1
        victim = self.pick_victim()
        if victim is None:
            return -1
        return self._collect(victim)

    def idle_gc(self, target_free_blocks: int, max_victims: int,
                max_valid_fraction: float = 1.0) -> int:
        """Collect victims holding at most max_valid_fraction of a block in valid pages until
        target_free_blocks are free or max_victims were taken; returns victims taken."""
        if self.config.mapping != "page":
            return 0
        max_valid = int(max_valid_fraction * self.ppb)
        done = 0
        while done < max_victims and 0 < len(self.free) < target_free_blocks:
            victim = self.pick_victim()
            if victim is None or self.blocks[victim].valid > max_valid * self.page_slots:
                break
            self._collect(victim)
            done += 1
        return done

    # --- page mapping -----------------------------------------------------------------------

    def _page_write(self, lpn: int) -> None:
        cached = self.cache is not None and self._cache_takes(len(self.where))
        old = self.where.pop(lpn, None)
        if old is not None:
            self._make_stale(old)
        if cached:
            self.version[lpn] = self.count["host_writes"]
            self.count["host_writes"] += 1
            self._cache_write(lpn)
            return
        if self.handles > 1:  # the page goes to its tag's stream
            h = self.tag[lpn]
            stream = f"{HOST}{h}" if h else HOST
            if self.open[stream] is None:
                self._foreground_gc()
            self.version[lpn] = self.count["host_writes"]
            self.count["host_writes"] += 1
            self._append_to_stream(stream, lpn, h)
            return
        if self.open[HOST] is None:
            if self.config.gc_frontier == "shared":
                b = self._take_free_block()
                self.blocks[b].state = BLOCK_OPEN
                self.open[HOST] = [b, 0]
            self._foreground_gc()
        self.version[lpn] = self.count["host_writes"]
        self.count["host_writes"] += 1
        self._append_to_stream(HOST, lpn)

    def _page_trim(self, lpn: int) -> None:
        ppn = self.where.pop(lpn, None)
        self.version.pop(lpn, None)
        if ppn is not None:
            self._make_stale(ppn)
            self.count["trimmed_pages"] += 1

    # --- commands ---------------------------------------------------------------------------

    def write(self, lpn: int, count: int = 1) -> None:
        if self.config.mapping == "block":
            for first, n in self._split_by_logical_block(lpn, count):
                self._block_write(first, n)
        elif self.config.mapping == "fast":
            for page in range(lpn, lpn + count):
                self._fast_write(page)
        else:
            for page in range(lpn, lpn + count):
                self._page_write(page)

    def trim(self, lpn: int, count: int = 1) -> None:
        self.count["trims"] += 1
        if not self.config.honour_trim:
            return
        if self.config.mapping in ("block", "fast"):
            for first, n in self._split_by_logical_block(lpn, count):
                self._block_trim(first, n)
        else:
            for page in range(lpn, lpn + count):
                self._page_trim(page)

    def read(self, lpn: int, count: int = 1) -> None:
        self.count["host_reads"] += count
        self.count["nand_reads"] += sum(1 for p in range(lpn, lpn + count) if p in self.where)

    def run(self, commands: Commands) -> None:
        commands.check(self.user_pages)
        actions = {OP_WRITE: self.write, OP_TRIM: self.trim, OP_READ: self.read}
        for op, lpn, count in zip(commands.ops.tolist(), commands.lpns.tolist(),
                                  commands.counts.tolist(), strict=True):
            actions[op](lpn, count)

    # --- reading ----------------------------------------------------------------------------

    def counters(self) -> dict[str, int]:
        return dict(self.count)

    def version_of(self, lpn: int) -> int | None:
        """The host write number lpn should read back, or None if it is unmapped."""
        return self.version.get(lpn)

    def state(self) -> dict[str, np.ndarray]:
        """The state as numpy arrays shaped and typed like the engine's FlashArrays fields
        (valid in stored pages: slots / page_slots), plus `versions` (int64 per logical page,
        -1 where unmapped)."""
        l2p = np.full(self.user_pages, UNMAPPED, dtype=np.int32)
        versions = np.full(self.user_pages, -1, dtype=np.int64)
        for lpn, ppn in self.where.items():
            l2p[lpn] = ppn
        for lpn, v in self.version.items():
            versions[lpn] = v
        return {
            "l2p": l2p,
            "p2l": np.array(self.page, dtype=np.int32),
            "valid": np.array([b.valid // self.page_slots for b in self.blocks], dtype=np.int32),
            "erases": np.array([b.erases for b in self.blocks], dtype=np.int32),
            "bstate": np.array([b.state for b in self.blocks], dtype=np.int8),
            "mode": np.array([{DENSE: 0, BORROWED: 1, STATIC: 2}[u] for u in self.use],
                             dtype=np.int8),
            "versions": versions,
        }
