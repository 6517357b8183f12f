"""Bookkeeping checks over a FlashArrays, callable at any time between batches.

Vectorised numpy over the whole state: slow next to the engine, but fast enough to run after
every batch in tests. `check` raises AssertionError listing every rule that does not hold.
"""

from __future__ import annotations

import numpy as np

from .slcinvariants import slc_problems
from .state import (
    BLOCK_FREE,
    BLOCK_FULL,
    BLOCK_OPEN,
    ERROR_MESSAGES,
    FREE_PAGE,
    GC_FIFO,
    GC_GREEDY,
    INVALID_PAGE,
    MAP_BLOCK,
    MAP_FAST,
    MODE_DENSE,
    MODE_STATIC,
    R_BLOCK_SLOTS,
    R_BLOCKS,
    R_CLOSED_COUNT,
    R_ERROR,
    R_FIFO_COUNT,
    R_FIFO_HEAD,
    R_FREE_COUNT,
    R_FREE_HEAD,
    R_GC_BLOCK,
    R_GC_OFFSET,
    R_HANDLES,
    R_HOST_BLOCK,
    R_HOST_OFFSET,
    R_LOG_BLOCKS,
    R_MAPPING,
    R_MIN_VALID,
    R_PAGES_PER_BLOCK,
    R_POLICY,
    R_SLC_BLOCK,
    R_SLC_OFFSET,
    R_STORED_SLOTS,
    R_STREAMS,
    R_USER_PAGES,
)


def _ring(ring: np.ndarray, head: int, count: int) -> np.ndarray:
    return ring[(head + np.arange(count)) % ring.shape[0]]


def problems(a) -> list[str]:
    """Every broken rule, as sentences; empty when the state is sound."""
    out: list[str] = []
    regs = a.regs
    if regs[R_ERROR]:
        out.append(f"engine error: {ERROR_MESSAGES.get(int(regs[R_ERROR]), regs[R_ERROR])}")
    ppb, nb, user = int(regs[R_PAGES_PER_BLOCK]), int(regs[R_BLOCKS]), int(regs[R_USER_PAGES])
    p2l, l2p = a.p2l, a.l2p
    slots, block_slots = int(regs[R_STORED_SLOTS]), int(regs[R_BLOCK_SLOTS])
    if not ppb * slots <= block_slots < (ppb + 1) * slots:
        out.append(f"{ppb} stored pages of {slots} slots per block do not fill a block of "
                   f"{block_slots} slots as far as the next page would fit")

    # Page codes and the two maps.
    bad = (p2l < INVALID_PAGE) | (p2l >= user)
    if bad.any():
        out.append(f"p2l holds {int(bad.sum())} codes that are neither a logical page nor "
                   "free/invalid")
    mapped = np.flatnonzero(l2p >= 0)
    if np.any(l2p < -1) or np.any(l2p >= p2l.shape[0]):
        out.append("l2p holds out-of-range physical pages")
    elif mapped.size and np.any(p2l[l2p[mapped]] != mapped):
        out.append(f"{int(np.sum(p2l[l2p[mapped]] != mapped))} logical pages map to physical "
                   "pages that do not map back")
    if int(np.count_nonzero(p2l >= 0)) != mapped.size:
        out.append(f"{int(np.count_nonzero(p2l >= 0))} valid physical pages but "
                   f"{mapped.size} mapped logical pages: a page is orphaned or duplicated")

    # Per-block counts.
    pages = p2l.reshape(nb, ppb)
    counted = np.count_nonzero(pages >= 0, axis=1)
    if np.any(counted != a.valid):
        out.append(f"valid counts wrong in blocks {np.flatnonzero(counted != a.valid)[:8]}")
    free_pages = np.count_nonzero(pages == FREE_PAGE, axis=1)
    invalid_pages = np.count_nonzero(pages == INVALID_PAGE, axis=1)
    if int(free_pages.sum() + invalid_pages.sum() + counted.sum()) != nb * ppb:
        out.append("free + valid + invalid pages do not add up to the physical pages")

    # Free blocks: fully erased, each in the free ring exactly once (a static SLC cache's in
    # its own ring: slcinvariants.py).
    free_blocks = np.flatnonzero((a.bstate == BLOCK_FREE) & (a.mode != MODE_STATIC))
    ring = _ring(a.free_ring, int(regs[R_FREE_HEAD]), int(regs[R_FREE_COUNT]))
    if sorted(ring.tolist()) != free_blocks.tolist():
        out.append("the free ring does not hold exactly the free blocks")
    if np.any(free_pages[a.bstate == BLOCK_FREE] != ppb):
        out.append("a free block holds programmed pages")
    if np.any(~np.isin(a.bstate, (BLOCK_FREE, BLOCK_OPEN, BLOCK_FULL))):
        out.append("a block is left in the victim state between batches")

    if regs[R_MAPPING] == MAP_BLOCK:
        out += _block_mapping_problems(a, ppb)
    elif regs[R_MAPPING] == MAP_FAST:
        out += _fast_mapping_problems(a, ppb, free_pages)
    else:
        out += _page_mapping_problems(a, ppb, free_pages, mapped.size)
    return out


def _page_mapping_problems(a, ppb: int, free_pages: np.ndarray,
                           mapped_pages: int) -> list[str]:
    out = []
    regs = a.regs
    streams = {}
    pairs = [(R_HOST_BLOCK, R_HOST_OFFSET), (R_GC_BLOCK, R_GC_OFFSET),
             (R_SLC_BLOCK, R_SLC_OFFSET)]
    for h in range(1, int(regs[R_HANDLES])):  # placement handles' host and GC streams
        r = R_STREAMS + 4 * (h - 1)
        pairs += [(r, r + 1), (r + 2, r + 3)]
    for rb, ro in pairs:
        b = int(regs[rb])
        if b >= 0:
            streams[b] = int(regs[ro])
    open_blocks = np.flatnonzero(a.bstate == BLOCK_OPEN)
    if sorted(streams) != open_blocks.tolist():
        out.append("open blocks are not exactly the host, GC and SLC cache stream blocks")
    for b, off in streams.items():
        row = a.p2l[b * ppb:(b + 1) * ppb]
        if np.any(row[:off] == FREE_PAGE) or np.any(row[off:] != FREE_PAGE):
            out.append(f"open block {b} is not programmed exactly up to its write offset")
    # (a full SLC cache block is no GC candidate and holds fewer pages: slcinvariants.py)
    full = np.flatnonzero((a.bstate == BLOCK_FULL) & (a.mode == MODE_DENSE))
    if np.any(free_pages[full] != 0):
        out.append("a full block has unprogrammed pages")
    closed = a.closed_list[: int(regs[R_CLOSED_COUNT])]
    if sorted(closed.tolist()) != full.tolist():
        out.append("the closed list does not hold exactly the full blocks")
    elif np.any(a.closed_pos[closed] != np.arange(closed.size)):
        out.append("closed_pos disagrees with closed_list")
    policy = int(regs[R_POLICY])
    if policy == GC_GREEDY:
        listed = []
        for v in range(ppb + 1):
            b = int(a.bucket_head[v])
            while b >= 0 and len(listed) <= a.valid.shape[0]:
                if a.valid[b] != v:
                    out.append(f"block {b} sits in greedy bucket {v} with {a.valid[b]} valid")
                listed.append(b)
                b = int(a.bucket_next[b])
        if sorted(listed) != full.tolist():
            out.append("greedy buckets do not hold exactly the full blocks")
        for v in range(ppb + 1):
            b, last = int(a.bucket_head[v]), -1
            for _ in range(a.valid.shape[0] + 1):
                if b < 0:
                    break
                b, last = int(a.bucket_next[b]), b
            if int(a.bucket_tail[v]) != last:
                out.append(f"greedy bucket {v}'s tail is {a.bucket_tail[v]}, not its last "
                           f"block {last}")
        if full.size and regs[R_MIN_VALID] > a.valid[full].min():
            out.append("greedy minimum-bucket cursor is above the real minimum")
    elif policy == GC_FIFO:
        ring = _ring(a.fifo_ring, int(regs[R_FIFO_HEAD]), int(regs[R_FIFO_COUNT]))
        if sorted(ring.tolist()) != full.tolist():
            out.append("the FIFO ring does not hold exactly the full blocks")
        elif np.any(np.diff(a.close_seq[ring]) < 0):
            out.append("the FIFO ring is not in closing order")
    return out + slc_problems(a, ppb, free_pages, mapped_pages)


def _block_mapping_problems(a, ppb: int) -> list[str]:
    out = []
    hosts = a.lb2pb[a.lb2pb >= 0]
    if np.unique(hosts).size != hosts.size:
        out.append("two logical blocks share a physical block")
    in_use = np.flatnonzero(a.bstate != BLOCK_FREE)
    if sorted(hosts.tolist()) != in_use.tolist():
        out.append("blocks in use are not exactly the mapped logical blocks' homes")
    for lb in np.flatnonzero(a.lb2pb >= 0):
        row = a.p2l[a.lb2pb[lb] * ppb:(a.lb2pb[lb] + 1) * ppb]
        expect = lb * ppb + np.arange(ppb)
        if np.any((row >= 0) & (row != expect)):
            out.append(f"logical block {lb} holds pages out of place")
    return out


def _fast_mapping_problems(a, ppb: int, free_pages: np.ndarray) -> list[str]:
    """Data blocks as in block mapping; log blocks page-mapped, filled in order, oldest first
    in the FIFO ring, only the newest one open."""
    out = []
    regs = a.regs
    data = a.lb2pb[a.lb2pb >= 0]
    log = _ring(a.fifo_ring, int(regs[R_FIFO_HEAD]), int(regs[R_FIFO_COUNT]))
    if int(regs[R_FIFO_COUNT]) > int(regs[R_LOG_BLOCKS]):
        out.append(f"{int(regs[R_FIFO_COUNT])} log blocks in use, more than the "
                   f"{int(regs[R_LOG_BLOCKS])} allowed")
    both = np.concatenate([data, log])
    if np.unique(both).size != both.size:
        out.append("a physical block serves twice (two logical blocks, twice in the log, or "
                   "both data and log block)")
    in_use = np.flatnonzero(a.bstate != BLOCK_FREE)
    if sorted(both.tolist()) != in_use.tolist():
        out.append("blocks in use are not exactly the data blocks and the log blocks")
    if np.any(a.bstate[data] != BLOCK_FULL):
        out.append("a data block is not in the full state")
    for lb in np.flatnonzero(a.lb2pb >= 0):
        row = a.p2l[a.lb2pb[lb] * ppb:(a.lb2pb[lb] + 1) * ppb]
        if np.any((row >= 0) & (row != lb * ppb + np.arange(ppb))):
            out.append(f"logical block {lb} holds pages out of place in its data block")
    host = int(regs[R_HOST_BLOCK])
    if host >= 0:
        if log.size == 0 or int(log[-1]) != host:
            out.append("the open log block is not the newest log block")
        else:
            off = int(regs[R_HOST_OFFSET])
            row = a.p2l[host * ppb:(host + 1) * ppb]
            if not 0 <= off < ppb or np.any(row[:off] == FREE_PAGE) or np.any(
                    row[off:] != FREE_PAGE):
                out.append(f"log block {host} is not programmed exactly up to its offset")
    closed = log[:-1] if host >= 0 else log
    if closed.size and (np.any(free_pages[closed] != 0) or np.any(a.bstate[closed]
                                                                   != BLOCK_FULL)):
        out.append("a log block other than the open one is not full")
    if host >= 0 and a.bstate[host] != BLOCK_OPEN:
        out.append("the open log block is not in the open state")
    return out


def check(a) -> None:
    found = problems(a)
    if found:
        raise AssertionError("; ".join(found))
