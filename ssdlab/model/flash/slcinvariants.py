"""Bookkeeping checks of an SLC cache (slccache.py), part of invariants.problems."""

from __future__ import annotations

import numpy as np

from .state import (
    BLOCK_FREE,
    BLOCK_FULL,
    FREE_PAGE,
    MODE_DENSE,
    MODE_SLC,
    MODE_STATIC,
    R_BLOCKS,
    R_BORROWED_COUNT,
    R_BORROWED_HEAD,
    R_MAPPED,
    R_POOL_COUNT,
    R_POOL_HEAD,
    R_SLC,
    R_SLC_BORROWED,
    R_SLC_PAGES,
    R_SLC_STATIC,
    R_STATIC_COUNT,
    R_STATIC_HEAD,
)


def _ring(ring: np.ndarray, head: int, count: int, size: int) -> np.ndarray:
    return ring[(head + np.arange(count)) % max(size, 1)]


def slc_problems(a, ppb: int, free_pages: np.ndarray, mapped_pages: int) -> list[str]:
    """Every broken rule of the cache, as sentences (none without a cache)."""
    regs = a.regs
    if not regs[R_SLC]:
        return [] if not np.any(a.mode != MODE_DENSE) else ["a block is in SLC mode with "
                                                              "no SLC cache"]
    out = []
    nb, static, slc_pages = int(regs[R_BLOCKS]), int(regs[R_SLC_STATIC]), int(regs[R_SLC_PAGES])
    if np.any(a.mode[nb - static:] != MODE_STATIC) or np.any(a.mode[:nb - static]
                                                              == MODE_STATIC):
        out.append("the static SLC cache is not exactly the drive's last blocks")
    pool = _ring(a.slc_pool, int(regs[R_POOL_HEAD]), int(regs[R_POOL_COUNT]), static)
    free_static = np.flatnonzero((a.bstate == BLOCK_FREE) & (a.mode == MODE_STATIC))
    if sorted(pool.tolist()) != free_static.tolist():
        out.append("the static cache's free ring does not hold exactly its free blocks")
    if int(regs[R_SLC_BORROWED]) != int(np.count_nonzero(a.mode == MODE_SLC)):
        out.append("the count of borrowed blocks disagrees with the blocks in SLC mode")
    if np.any(a.bstate[a.mode == MODE_SLC] == BLOCK_FREE):
        out.append("a free block is still marked borrowed by the cache")
    for kind, ring, head, count, size in (
            (MODE_STATIC, a.slc_static, R_STATIC_HEAD, R_STATIC_COUNT, static),
            (MODE_SLC, a.slc_borrowed, R_BORROWED_HEAD, R_BORROWED_COUNT, nb)):
        held = _ring(ring, int(regs[head]), int(regs[count]), size)
        full = np.flatnonzero((a.bstate == BLOCK_FULL) & (a.mode == kind))
        name = "static" if kind == MODE_STATIC else "borrowed"
        if sorted(held.tolist()) != full.tolist():
            out.append(f"the ring of full {name} cache blocks does not hold exactly them")
        elif np.any(np.diff(a.close_seq[held]) <= 0):
            out.append(f"the ring of full {name} cache blocks is not in filling order")
        if np.any(free_pages[full] != ppb - slc_pages):
            out.append(f"a full {name} cache block does not hold exactly {slc_pages} pages")
    cache = np.flatnonzero(a.mode != MODE_DENSE)
    beyond = a.p2l.reshape(nb, ppb)[cache, slc_pages:]
    if beyond.size and np.any(beyond != FREE_PAGE):
        out.append(f"a cache block holds pages past its first {slc_pages}")
    if int(regs[R_MAPPED]) != mapped_pages:
        out.append(f"the mapped-page count is {int(regs[R_MAPPED])}, not {mapped_pages}")
    return out
