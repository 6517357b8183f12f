"""The reference FTL's SLC cache rules, written out plainly (the engine's are in slccache.py;
the page-mapped rules and the shared bookkeeping are in `reference.py`).

* The static cache is the drive's last slc_blocks blocks, taken out of the free queue at the
  start and kept in SLC mode for good, with a queue of their own free blocks.
* A dynamic cache may borrow a free block while it holds fewer borrowed blocks than
  share_ppm * (user pages - pages mapped before the write) // (1,000,000 * pages per block)
  and more than gc_low_blocks + 1 blocks are free; the block is dense again once erased.
* A host page goes into the cache's open block; with none, a new one: the static queue's
  first block, else a borrowed one; with neither, the page takes the dense host path. A cache
  block holds pages_per_block // cell_bits pages; when full it joins the queue of full
  blocks of its kind and is never a GC victim.
* Folding a full cache block copies its valid pages, in page order, to the GC stream (a GC
  copy each, and a folded page) and erases it: a static block back to its own queue.
  fold(n): up to n blocks, the one that filled first (either kind) first, while more than
  gc_low_blocks blocks are free. Foreground GC first folds borrowed blocks, the first
  filled first, while it needs blocks; only then does it collect victims.

`SlcCacheRules` is mixed into `ReferenceFtl`, whose pages, blocks, free queue, streams,
counters, `_program`, `_erase`, `_copy_out` and `_take_free_block` it uses.
"""

from __future__ import annotations

from collections import deque

from .state import BLOCK_FREE, BLOCK_FULL, BLOCK_OPEN

SLC = "slc"  # the cache's write stream
DENSE, BORROWED, STATIC = "dense", "borrowed", "static"  # how a block is used


class SlcCacheRules:
    """The SLC cache for ReferenceFtl."""

    def _init_cache(self) -> None:
        c = self.config
        self.cache = c.slc_cache if c.slc_cache != "none" else None
        self.use = [DENSE] * self.n_blocks
        self.pool: deque[int] = deque()  # the static cache's free blocks
        self.full_static: deque[int] = deque()
        self.full_borrowed: deque[int] = deque()
        self.slc_count = dict.fromkeys(("slc_writes", "folded_pages", "folds"), 0)
        self.open[SLC] = None
        if self.cache is None:
            return
        self.slc_pages = self.ppb // c.cell_bits
        static = list(range(self.n_blocks - c.slc_blocks, self.n_blocks))
        for b in static:
            self.free.remove(b)
            self.use[b] = STATIC
            self.pool.append(b)
        self.share_ppm = round(c.slc_dynamic_share * 1_000_000)

    def _borrowed(self) -> int:
        return sum(1 for u in self.use if u == BORROWED)

    def _cache_takes(self, mapped: int) -> bool:
        """Whether a host page goes into the cache, mapped pages counted before the write."""
        if self.open[SLC] is not None or self.pool:
            return True
        if self.cache != "dynamic" or len(self.free) <= self.config.gc_low_blocks + 1:
            return False
        limit = self.share_ppm * (self.user_pages - mapped) // (1_000_000 * self.ppb)
        return self._borrowed() < limit

    def _cache_write(self, lpn: int) -> None:
        if self.open[SLC] is None:
            if self.pool:
                b = self.pool.popleft()
            else:
                b = self._take_free_block()
                self.use[b] = BORROWED
            self.blocks[b].state = BLOCK_OPEN
            self.open[SLC] = [b, 0]
        b, off = self.open[SLC]
        self._program(b * self.ppb + off, lpn)
        self.slc_count["slc_writes"] += 1
        self.count["slc_writes"] += 1
        self.open[SLC][1] = off + 1
        if off + 1 == self.slc_pages:
            blk = self.blocks[b]
            blk.state = BLOCK_FULL
            blk.closed_at = self.count["nand_writes"]
            (self.full_static if self.use[b] == STATIC else self.full_borrowed).append(b)
            self.open[SLC] = None

    def _released(self, b: int) -> bool:
        """An erased block b: True when it went back to the static queue (not the free
        queue); a borrowed block is dense again."""
        if self.use[b] == STATIC:
            self.pool.append(b)
            return True
        self.use[b] = DENSE
        return False

    def _fold_block(self, v: int) -> None:
        moved = self._copy_out(v, self.slc_pages)
        self.slc_count["folded_pages"] += moved
        self.slc_count["folds"] += 1
        self._erase(v)

    def fold(self, max_blocks: int) -> int:
        """Fold up to max_blocks full cache blocks, the first filled first, while more than
        gc_low_blocks blocks are free; returns the number folded."""
        if self.cache is None:
            return 0
        done = 0
        while done < max_blocks and len(self.free) > self.config.gc_low_blocks and (
                self.full_static or self.full_borrowed):
            s = self.full_static[0] if self.full_static else None
            d = self.full_borrowed[0] if self.full_borrowed else None
            if d is None or (s is not None
                             and self.blocks[s].closed_at < self.blocks[d].closed_at):
                v = self.full_static.popleft()
            else:
                v = self.full_borrowed.popleft()
            self._fold_block(v)
            done += 1
        return done

    def _fold_under_pressure(self) -> bool:
        """Foreground GC with a cache, first: fold the first-filled borrowed block (False
        when none is full)."""
        if self.cache is None or not self.full_borrowed:
            return False
        self._fold_block(self.full_borrowed.popleft())
        return True

    def slc_counters(self) -> dict[str, int]:
        """As Drive.slc_counters."""
        keys = ("slc_writes", "folded_pages", "folds", "slc_blocks", "slc_full",
                "slc_may_borrow")
        if self.cache is None:
            return dict.fromkeys(keys, 0)
        borrowed = self._borrowed()
        static_held = sum(1 for b in range(self.n_blocks) if self.use[b] == STATIC
                          and self.blocks[b].state != BLOCK_FREE)
        limit = 0
        if self.cache == "dynamic":
            limit = self.share_ppm * (self.user_pages - len(self.where)) // (
                1_000_000 * self.ppb)
        return {**self.slc_count, "slc_blocks": static_held + borrowed,
                "slc_full": len(self.full_static) + len(self.full_borrowed),
                "slc_may_borrow": max(0, limit - borrowed)}
