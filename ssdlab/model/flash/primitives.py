"""Compiled primitives on flash pages and blocks: program, invalidate, erase, and the block
pools (free ring, closed list, FIFO ring, greedy buckets).

Every function takes the `FlashArrays` tuple `a` and updates it in place. They are small so
that LLVM inlines them into the batch loop in `ftl.py`.
"""

from __future__ import annotations

import numpy as np

from .compiled import inline
from .state import (
    BLOCK_FREE,
    BLOCK_FULL,
    BLOCK_OPEN,
    ERR_ERASE_VALID,
    ERR_NO_FREE_BLOCK,
    EV_COPY,
    EV_ERASE,
    EV_INVALIDATE,
    FREE_PAGE,
    GC_FIFO,
    GC_GREEDY,
    INVALID_PAGE,
    MODE_DENSE,
    MODE_STATIC,
    R_BLOCKS,
    R_CLOSED_COUNT,
    R_ERASES,
    R_ERROR,
    R_EVENT_CAPACITY,
    R_EVENTS,
    R_EVENTS_DROPPED,
    R_FIFO_COUNT,
    R_FIFO_HEAD,
    R_FREE_COUNT,
    R_FREE_HEAD,
    R_FREE_LOW,
    R_GC_BLOCK,
    R_GC_COPIES,
    R_GC_OFFSET,
    R_HOST_BLOCK,
    R_HOST_OFFSET,
    R_HOST_WRITES,
    R_MAX_ERASES,
    R_MIN_VALID,
    R_NAND_READS,
    R_NAND_WRITES,
    R_PAGES_PER_BLOCK,
    R_POLICY,
    R_POOL_COUNT,
    R_POOL_HEAD,
    R_SLC_BORROWED,
    R_SLC_STATIC,
    R_STREAMS,
    R_TRACK_VERSIONS,
    R_WATCH_LPN,
    R_WATCH_WRITES,
)


@inline
def emit(a, kind, x, y, z):
    """Append one event if events are on; count it as dropped if the buffer is full."""
    cap = a.regs[R_EVENT_CAPACITY]
    if cap == 0:
        return
    n = a.regs[R_EVENTS]
    if n >= cap:
        a.regs[R_EVENTS_DROPPED] += 1
        return
    a.events[n, 0] = kind
    a.events[n, 1] = x
    a.events[n, 2] = y
    a.events[n, 3] = z
    a.regs[R_EVENTS] = n + 1


@inline
def fail(a, code):
    """Record the first error; the batch loop stops when it sees one."""
    if a.regs[R_ERROR] == 0:
        a.regs[R_ERROR] = code


# --- greedy buckets: closed blocks linked by valid count, newest arrival at the head, oldest
# at the tail (a block arrives when it closes and each time a page of it goes stale) -------

@inline
def bucket_add(a, b):
    v = a.valid[b]
    head = a.bucket_head[v]
    a.bucket_prev[b] = -1
    a.bucket_next[b] = head
    if head >= 0:
        a.bucket_prev[head] = b
    else:
        a.bucket_tail[v] = b
    a.bucket_head[v] = b
    if v < a.regs[R_MIN_VALID]:
        a.regs[R_MIN_VALID] = v


@inline
def bucket_remove(a, b):
    v = a.valid[b]
    p = a.bucket_prev[b]
    n = a.bucket_next[b]
    if p >= 0:
        a.bucket_next[p] = n
    else:
        a.bucket_head[v] = n
    if n >= 0:
        a.bucket_prev[n] = p
    else:
        a.bucket_tail[v] = p
    a.bucket_prev[b] = -1
    a.bucket_next[b] = -1


@inline
def in_bucket(a, b):
    """Whether block b is in a greedy bucket (a closed block under greedy). Asked of the bucket
    links, not closed_pos: a host write already loads these lines, and closed_pos would be
    one more cache miss on every write."""
    return a.bucket_prev[b] >= 0 or a.bucket_head[a.valid[b]] == b


# --- closed blocks -------------------------------------------------------------------------

@inline
def close_block(a, b):
    """A stream filled block b: it becomes a GC candidate aged from now."""
    a.bstate[b] = BLOCK_FULL
    a.close_seq[b] = a.regs[R_NAND_WRITES]
    n = a.regs[R_CLOSED_COUNT]
    a.closed_list[n] = b
    a.closed_pos[b] = n
    a.regs[R_CLOSED_COUNT] = n + 1
    policy = a.regs[R_POLICY]
    if policy == GC_GREEDY:
        bucket_add(a, b)
    elif policy == GC_FIFO:
        nb = a.regs[R_BLOCKS]
        tail = (a.regs[R_FIFO_HEAD] + a.regs[R_FIFO_COUNT]) % nb
        a.fifo_ring[tail] = b
        a.regs[R_FIFO_COUNT] += 1


@inline
def unclose_block(a, b):
    """Take closed block b out of every candidate structure (it was chosen as a victim).

    The FIFO ring only ever gives up its head, so the caller pops it there.
    """
    i = a.closed_pos[b]
    last = a.regs[R_CLOSED_COUNT] - 1
    moved = a.closed_list[last]
    a.closed_list[i] = moved
    a.closed_pos[moved] = i
    a.closed_pos[b] = -1
    a.regs[R_CLOSED_COUNT] = last
    if a.regs[R_POLICY] == GC_GREEDY:
        bucket_remove(a, b)


# --- pages ---------------------------------------------------------------------------------

@inline
def invalidate(a, ppn):
    """Mark physical page ppn stale and keep its block's valid count (and bucket) right."""
    invalidate_in(a, ppn, ppn // a.regs[R_PAGES_PER_BLOCK])


@inline
def invalidate_in(a, ppn, b):
    """invalidate, given ppn's block b (the host loop finds it by a shift, not a division)."""
    emit(a, EV_INVALIDATE, ppn, a.p2l[ppn], 0)
    a.p2l[ppn] = INVALID_PAGE
    if a.regs[R_POLICY] == GC_GREEDY and in_bucket(a, b):
        bucket_remove(a, b)
        a.valid[b] -= 1
        bucket_add(a, b)
    else:
        a.valid[b] -= 1


@inline
def pop_free(a):
    """Take the oldest free block (free blocks rotate, which spreads erases); -1 if none."""
    if a.regs[R_FREE_COUNT] == 0:
        fail(a, ERR_NO_FREE_BLOCK)
        return -1
    head = a.regs[R_FREE_HEAD]
    b = a.free_ring[head]
    a.regs[R_FREE_HEAD] = (head + 1) % a.regs[R_BLOCKS]
    a.regs[R_FREE_COUNT] -= 1
    if a.regs[R_FREE_COUNT] < a.regs[R_FREE_LOW]:
        a.regs[R_FREE_LOW] = a.regs[R_FREE_COUNT]
    a.bstate[b] = BLOCK_OPEN
    return b


@inline
def erase(a, b):
    """Erase block b and return it to the free ring."""
    if a.valid[b] != 0:
        fail(a, ERR_ERASE_VALID)
        return
    ppb = a.regs[R_PAGES_PER_BLOCK]
    a.p2l[b * ppb:(b + 1) * ppb] = FREE_PAGE
    a.erases[b] += 1
    a.regs[R_ERASES] += 1
    if a.erases[b] > a.regs[R_MAX_ERASES]:  # the most-worn block wore further
        a.regs[R_MAX_ERASES] = a.erases[b]
    a.bstate[b] = BLOCK_FREE
    a.close_seq[b] = -1
    mode = a.mode[b]
    if mode == MODE_STATIC:  # the static SLC cache's: back to its own free ring
        pool = a.regs[R_SLC_STATIC]
        a.slc_pool[(a.regs[R_POOL_HEAD] + a.regs[R_POOL_COUNT]) % pool] = b
        a.regs[R_POOL_COUNT] += 1
        emit(a, EV_ERASE, b, a.erases[b], 0)
        return
    if mode != MODE_DENSE:  # borrowed by the dynamic cache: dense again
        a.mode[b] = MODE_DENSE
        a.regs[R_SLC_BORROWED] -= 1
    nb = a.regs[R_BLOCKS]
    tail = (a.regs[R_FREE_HEAD] + a.regs[R_FREE_COUNT]) % nb
    a.free_ring[tail] = b
    a.regs[R_FREE_COUNT] += 1
    emit(a, EV_ERASE, b, a.erases[b], 0)


@inline
def host_stamp(a, lpn):
    """Count one host write of logical page lpn; returns its write number (the page's stamp).
    Writes of the watched page are counted too, so a breakpoint on it is exact."""
    stamp = a.regs[R_HOST_WRITES]
    a.regs[R_HOST_WRITES] = stamp + 1
    if lpn == a.regs[R_WATCH_LPN]:
        a.regs[R_WATCH_WRITES] += 1
    return stamp


@inline
def put_page(a, ppn, lpn, stamp):
    """Program physical page ppn with logical page lpn and map it."""
    program_in(a, ppn, ppn // a.regs[R_PAGES_PER_BLOCK], lpn, stamp)


@inline
def host_regs(h):
    """The (block, offset) registers of placement handle h's host stream."""
    if h == 0:
        return R_HOST_BLOCK, R_HOST_OFFSET
    r = R_STREAMS + 4 * (h - 1)
    return r, r + 1


@inline
def gc_regs(h):
    """The (block, offset) registers of placement handle h's GC stream."""
    if h == 0:
        return R_GC_BLOCK, R_GC_OFFSET
    r = R_STREAMS + 4 * (h - 1) + 2
    return r, r + 1


@inline
def program_in(a, ppn, b, lpn, stamp):
    """put_page, given ppn's block b (a write stream knows it: no division)."""
    a.p2l[ppn] = lpn
    a.l2p[lpn] = ppn
    a.valid[b] += 1
    a.regs[R_NAND_WRITES] += 1
    if a.regs[R_TRACK_VERSIONS]:
        a.stamp[ppn] = stamp


@inline
def copy_page(a, src, dst, lpn):
    """Move valid page src (holding lpn) to the free page dst, as a merge does: one NAND
    read, one program, the old copy made stale."""
    stamp = page_stamp(a, src)
    a.p2l[src] = INVALID_PAGE
    a.valid[src // a.regs[R_PAGES_PER_BLOCK]] -= 1
    put_page(a, dst, lpn, stamp)
    a.regs[R_GC_COPIES] += 1
    a.regs[R_NAND_READS] += 1
    emit(a, EV_COPY, src, dst, lpn)


@inline
def page_stamp(a, ppn):
    if a.regs[R_TRACK_VERSIONS]:
        return a.stamp[ppn]
    return np.int64(0)


@inline
def stream_program(a, r_block, r_offset, lpn, stamp):
    """Program lpn at the next page of a write stream (host or GC); returns the ppn, or -1.

    A stream with no open block takes a free one; a stream that fills its block closes it.
    Separate host and GC streams keep copied (older, colder) data apart from fresh writes.
    """
    ppb = a.regs[R_PAGES_PER_BLOCK]
    b = a.regs[r_block]
    if b < 0:
        b = pop_free(a)
        if b < 0:
            return -1
        a.regs[r_block] = b
        a.regs[r_offset] = 0
    off = a.regs[r_offset]
    ppn = b * ppb + off
    program_in(a, ppn, b, lpn, stamp)
    off += 1
    a.regs[r_offset] = off
    if off == ppb:
        close_block(a, b)
        a.regs[r_block] = -1
    return ppn
