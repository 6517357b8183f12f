"""Compiled SLC cache: host pages written first into blocks used one bit per cell, in front
of TLC or QLC flash (FtlConfig.slc_cache), and folded into the dense flash later.

Most drives sold today program part of their flash one bit per cell: fast, but a block then
holds only pages_per_block // cell_bits pages. The rules, which the reference FTL in
`reference.py` repeats:

- The static cache is slc_blocks blocks kept in SLC mode for good, out of the free ring (the
  drive's last blocks): a ring of their own free blocks, taken and given back in turn.
- A dynamic cache may also borrow free dense blocks: while it holds fewer than
  slc_dynamic_share of the blocks the user pages not yet written would take in dense flash
  (integer millionths, geometry.slc_share_ppm; counted before the write), and more than
  gc_low_blocks + 1 blocks are free (never the blocks GC keeps). A fuller drive has a
  smaller dynamic cache. An erased borrowed block is dense again, back in the free ring.
- A host page goes into the cache's open block; with none, into a new one taken from the
  static cache's free blocks first, else borrowed; with neither, it goes to the dense host
  stream as without a cache (the "write cliff" of a full cache).
- A full cache block is not a GC candidate: it waits, oldest first in a ring of its kind,
  until it is folded: its valid pages copied in page order to the GC stream (each a second
  program, counted as a GC copy and as folded) and the block erased.
- Folding: Drive.fold (idle time) takes the cache block that filled longest ago, of either
  kind, while more than gc_low_blocks blocks are free (a static block's pages take room in
  the dense flash and give none back there; idle GC makes room). Under pressure,
  foreground GC first folds borrowed blocks, the first filled first (each frees a block
  for the dense flash; two folds gain at least one block, since a cache block holds at
  most half a block's pages), and collects victims as usual only when none is left.
"""

from __future__ import annotations

from .compiled import called, inline, jit
from .primitives import emit, erase, page_stamp, pop_free, program_in, stream_program
from .state import (
    BLOCK_FULL,
    BLOCK_OPEN,
    BLOCK_VICTIM,
    EV_COPY,
    EV_VICTIM,
    INVALID_PAGE,
    MODE_SLC,
    R_BLOCKS,
    R_BORROWED_COUNT,
    R_BORROWED_HEAD,
    R_COPY_BLOCK,
    R_COPY_OFFSET,
    R_ERROR,
    R_FOLDED_PAGES,
    R_FOLDS,
    R_FREE_COUNT,
    R_GC_COPIES,
    R_GC_LOW,
    R_MAPPED,
    R_NAND_READS,
    R_NAND_WRITES,
    R_PAGES_PER_BLOCK,
    R_POOL_COUNT,
    R_POOL_HEAD,
    R_SLC,
    R_SLC_BLOCK,
    R_SLC_BORROWED,
    R_SLC_OFFSET,
    R_SLC_PAGES,
    R_SLC_SHARE_PPM,
    R_SLC_STATIC,
    R_SLC_WRITES,
    R_STATIC_COUNT,
    R_STATIC_HEAD,
    R_USER_PAGES,
    SLC_DYNAMIC,
)


@inline
def may_borrow(a):
    """Whether the dynamic cache may borrow one more free dense block now."""
    if a.regs[R_SLC] != SLC_DYNAMIC or a.regs[R_FREE_COUNT] <= a.regs[R_GC_LOW] + 1:
        return False
    unmapped = a.regs[R_USER_PAGES] - a.regs[R_MAPPED]
    limit = a.regs[R_SLC_SHARE_PPM] * unmapped // (1_000_000 * a.regs[R_PAGES_PER_BLOCK])
    return a.regs[R_SLC_BORROWED] < limit


@inline
def has_room(a):
    """Whether the next host page goes into the cache (before the write changes anything)."""
    return a.regs[R_SLC_BLOCK] >= 0 or a.regs[R_POOL_COUNT] > 0 or may_borrow(a)


@inline
def _take_block(a):
    """A block for the cache's stream: the static cache's next free one, else borrowed."""
    if a.regs[R_POOL_COUNT] > 0:
        head = a.regs[R_POOL_HEAD]
        b = a.slc_pool[head]
        a.regs[R_POOL_HEAD] = (head + 1) % a.regs[R_SLC_STATIC]
        a.regs[R_POOL_COUNT] -= 1
        a.bstate[b] = BLOCK_OPEN
        return b
    b = pop_free(a)  # more than gc_low_blocks + 1 are free: may_borrow checked
    a.mode[b] = MODE_SLC
    a.regs[R_SLC_BORROWED] += 1
    return b


@inline
def _close(a, b):
    """A cache block filled: it waits in its kind's ring to be folded (not a GC candidate)."""
    a.bstate[b] = BLOCK_FULL
    a.close_seq[b] = a.regs[R_NAND_WRITES]
    if a.mode[b] == MODE_SLC:
        ring, r_head, r_count, size = a.slc_borrowed, R_BORROWED_HEAD, R_BORROWED_COUNT, \
            a.regs[R_BLOCKS]
    else:
        ring, r_head, r_count, size = a.slc_static, R_STATIC_HEAD, R_STATIC_COUNT, \
            a.regs[R_SLC_STATIC]
    ring[(a.regs[r_head] + a.regs[r_count]) % size] = b
    a.regs[r_count] += 1


@inline
def program(a, lpn, stamp):
    """Program lpn at the cache's next page (has_room said there is one); returns the ppn."""
    b = a.regs[R_SLC_BLOCK]
    if b < 0:
        b = _take_block(a)
        a.regs[R_SLC_BLOCK] = b
        a.regs[R_SLC_OFFSET] = 0
    off = a.regs[R_SLC_OFFSET]
    ppn = b * a.regs[R_PAGES_PER_BLOCK] + off
    program_in(a, ppn, b, lpn, stamp)
    a.regs[R_SLC_WRITES] += 1
    off += 1
    a.regs[R_SLC_OFFSET] = off
    if off == a.regs[R_SLC_PAGES]:
        _close(a, b)
        a.regs[R_SLC_BLOCK] = -1
    return ppn


@called
def fold_block(a, v):
    """Copy full cache block v's valid pages, in page order, to the GC stream and erase it
    (erase() returns a static block to its ring, a borrowed one to the free ring). v was
    just taken off its ring. Returns the pages copied, or -1 if no block was free."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    r_block, r_offset = a.regs[R_COPY_BLOCK], a.regs[R_COPY_OFFSET]
    moved = a.valid[v]
    a.bstate[v] = BLOCK_VICTIM
    emit(a, EV_VICTIM, v, moved, 0)
    for src in range(v * ppb, v * ppb + a.regs[R_SLC_PAGES]):
        lpn = a.p2l[src]
        if lpn < 0:
            continue
        # a GC copy through the copy stream (primitives.copy_page's counts, the stream's block)
        stamp = page_stamp(a, src)
        a.p2l[src] = INVALID_PAGE
        a.valid[v] -= 1
        dst = stream_program(a, r_block, r_offset, lpn, stamp)
        if dst < 0:
            return -1
        a.regs[R_GC_COPIES] += 1
        a.regs[R_NAND_READS] += 1
        emit(a, EV_COPY, src, dst, lpn)
    a.regs[R_FOLDED_PAGES] += moved
    a.regs[R_FOLDS] += 1
    erase(a, v)
    return moved


@inline
def _pop(a, ring, r_head, r_count, size):
    head = a.regs[r_head]
    b = ring[head]
    a.regs[r_head] = (head + 1) % size
    a.regs[r_count] -= 1
    return b


@inline
def fold_borrowed(a):
    """Under pressure: fold the borrowed block that filled first; -1 if none is full (or no
    block was free for its copies)."""
    if a.regs[R_BORROWED_COUNT] == 0:
        return -1
    return fold_block(a, _pop(a, a.slc_borrowed, R_BORROWED_HEAD, R_BORROWED_COUNT,
                              a.regs[R_BLOCKS]))


@jit
def fold(a, max_blocks):
    """Fold up to max_blocks full cache blocks into dense flash, the one that filled first
    (of either kind) first, while more than gc_low_blocks blocks are free (the dense flash
    must hold the copies: folding never takes GC's own blocks); returns the number folded."""
    done = 0
    while (done < max_blocks and a.regs[R_FREE_COUNT] > a.regs[R_GC_LOW]
           and a.regs[R_ERROR] == 0):
        ns, nd = a.regs[R_STATIC_COUNT], a.regs[R_BORROWED_COUNT]
        if ns == 0 and nd == 0:
            break
        s = a.slc_static[a.regs[R_STATIC_HEAD]] if ns else -1
        d = a.slc_borrowed[a.regs[R_BORROWED_HEAD]] if nd else -1
        if d < 0 or (s >= 0 and a.close_seq[s] < a.close_seq[d]):
            v = _pop(a, a.slc_static, R_STATIC_HEAD, R_STATIC_COUNT, a.regs[R_SLC_STATIC])
        else:
            v = _pop(a, a.slc_borrowed, R_BORROWED_HEAD, R_BORROWED_COUNT, a.regs[R_BLOCKS])
        if fold_block(a, v) < 0:
            break
        done += 1
    return done
