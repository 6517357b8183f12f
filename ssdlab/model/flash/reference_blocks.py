"""The reference FTL's block-mapped and hybrid log-block ("fast") rules, written out plainly
(the page-mapped rules and the shared bookkeeping are in `reference.py`).

* Block mapping keeps each logical block in one physical block at the same offsets. A write
  whose target pages are all unprogrammed goes in place; otherwise a fresh block receives the
  new pages and copies of the old block's other valid pages, and the old block is erased. A
  TRIM that leaves a physical block with no valid page erases it.
* Mapping "fast" (hybrid log-block, after Lee et al., ACM TECS 2007) keeps data blocks as in
  block mapping, plus up to (blocks - logical blocks - 1) page-mapped log blocks in a FIFO.
  A host page write makes the old copy stale; if the page's slot in its data block (taken
  from the free queue if the logical block has none) is unprogrammed, the page goes there,
  otherwise it is appended to the open log block. A full open log block stays in the log;
  the next log page needs a new one: a free block while the log has room, else the oldest
  log block is reclaimed. If it holds one logical block's pages, all valid, in order from
  offset 0, it simply becomes that block's data block (switch merge; the old data block is
  erased) and a free block becomes the log block. Otherwise each logical block with valid
  pages in it, in order of first appearance, is fully merged (a free block receives the
  newest valid copy of each of its pages at its offset, as copies; the old data block is
  erased), and the reclaimed block is erased and reused at once as the new log block.
  TRIM works as in block mapping.

`BlockMappedRules` is mixed into `ReferenceFtl`: it uses that class's pages, blocks, free
queue, open streams, counters and `_program`, `_make_stale`, `_erase`, `_page_trim`,
`_take_free_block`.
"""

from __future__ import annotations

from .state import BLOCK_FULL, BLOCK_OPEN, FREE_PAGE, INVALID_PAGE

HOST = "host"  # the host write stream (and the fast mapping's open log block)


class BlockMappedRules:
    """Block and fast mapping for ReferenceFtl."""

    # --- block mapping ----------------------------------------------------------------------

    def _block_write(self, first_lpn: int, n: int) -> None:
        """Write n pages that all lie in one logical block."""
        lb = first_lpn // self.ppb
        targets = range(first_lpn - lb * self.ppb, first_lpn - lb * self.ppb + n)
        old = self.home.get(lb)
        if old is None or all(self.page[old * self.ppb + off] == FREE_PAGE for off in targets):
            if old is None:
                old = self._take_free_block()
                self.blocks[old].state = BLOCK_FULL
                self.home[lb] = old
            for off in targets:
                self._host_program_at(old * self.ppb + off, lb * self.ppb + off)
            return
        new = self._take_free_block()
        self.blocks[new].state = BLOCK_FULL
        for off in range(self.ppb):
            src, dst, lpn = old * self.ppb + off, new * self.ppb + off, lb * self.ppb + off
            if off in targets:
                if self.page[src] >= 0:
                    self._make_stale(src)
                self._host_program_at(dst, lpn)
            elif self.page[src] >= 0:
                self.page[src] = INVALID_PAGE
                self.blocks[old].valid -= self.page_slots
                self._program(dst, lpn)
                self.count["gc_copies"] += 1
                self.count["nand_reads"] += 1
        self.count["merges"] += 1
        self.home[lb] = new
        self._erase(old)

    def _host_program_at(self, ppn: int, lpn: int) -> None:
        self.version[lpn] = self.count["host_writes"]
        self.count["host_writes"] += 1
        self._program(ppn, lpn)

    def _block_trim(self, first_lpn: int, n: int) -> None:
        lb = first_lpn // self.ppb
        for lpn in range(first_lpn, first_lpn + n):
            self._page_trim(lpn)
        pb = self.home.get(lb)
        if pb is not None and self.blocks[pb].valid == 0:
            del self.home[lb]
            self._erase(pb)

    # --- hybrid log-block mapping ("fast") ---------------------------------------------------

    def _fast_write(self, lpn: int) -> None:
        old = self.where.pop(lpn, None)
        if old is not None:
            self._make_stale(old)
        lb, off = divmod(lpn, self.ppb)
        if lb not in self.home:
            self.home[lb] = self._take_free_block()
            self.blocks[self.home[lb]].state = BLOCK_FULL
        ppn = self.home[lb] * self.ppb + off
        if self.page[ppn] != FREE_PAGE:
            if self.open[HOST] is None:
                self._fast_new_log_block()
            b, offset = self.open[HOST]
            ppn = b * self.ppb + offset
            self.open[HOST][1] += 1
            if offset + 1 == self.ppb:
                self.blocks[b].state = BLOCK_FULL
                self.open[HOST] = None
        self._host_program_at(ppn, lpn)

    def _fast_new_log_block(self) -> None:
        if len(self.log) < self.log_limit:
            b = self._take_free_block()
        else:
            victim = self.log.popleft()
            lpns = self.page[victim * self.ppb:(victim + 1) * self.ppb]
            lb = lpns[0] // self.ppb
            if lpns[0] >= 0 and lpns == list(range(lb * self.ppb, (lb + 1) * self.ppb)):
                old = self.home.get(lb)
                self.home[lb] = victim
                self.count["merges"] += 1
                if old is not None:
                    self._erase(old)
                b = self._take_free_block()
            else:
                for ppn in range(victim * self.ppb, (victim + 1) * self.ppb):
                    if self.page[ppn] >= 0:  # not yet moved by an earlier merge
                        self._fast_merge(self.page[ppn] // self.ppb)
                self._erase(victim)
                b = self.free.pop()  # the block just erased
        self.blocks[b].state = BLOCK_OPEN
        self.log.append(b)
        self.open[HOST] = [b, 0]

    def _fast_merge(self, lb: int) -> None:
        """Full merge: newest valid copy of each page of lb into a fresh data block."""
        new = self._take_free_block()
        self.blocks[new].state = BLOCK_FULL
        for off in range(self.ppb):
            lpn = lb * self.ppb + off
            src = self.where.get(lpn)
            if src is None:
                continue
            self.page[src] = INVALID_PAGE
            self.blocks[self._block_of(src)].valid -= self.page_slots
            self._program(new * self.ppb + off, lpn)
            self.count["gc_copies"] += 1
            self.count["nand_reads"] += 1
        self.count["merges"] += 1
        old = self.home.get(lb)
        self.home[lb] = new
        if old is not None:
            self._erase(old)

    def _split_by_logical_block(self, lpn: int, count: int):
        end = lpn + count
        while lpn < end:
            n = min(end, (lpn // self.ppb + 1) * self.ppb) - lpn
            yield lpn, n
            lpn += n
