"""Placement handles (FtlConfig.placement_handles): the host tags each logical page with a
handle (streams, NVMe Flexible Data Placement), and a host write goes to the open block of
its tag's stream. Handle 0 writes through the host stream's own registers, handle h >= 1
through four of its own (primitives.host_regs, gc_regs). Each block remembers the handle
whose stream opened it, so an isolated GC copies a victim's pages to that handle's GC
stream (gc.collect_block).
"""

from __future__ import annotations

from .compiled import inline, jit
from .gc import foreground_gc
from .primitives import close_block, emit, host_regs, host_stamp, stream_program
from .state import EV_PROGRAM, INVALID_PAGE, R_ERROR, R_PAGES_PER_BLOCK, UNMAPPED


@inline
def handle_write(a, lpn):
    """write_page's program on a drive with placement handles: the page goes to the open
    block of its tag's host stream, which records the handle when it opens a block (an
    isolated GC copies a victim's pages to its handle's GC stream)."""
    h = a.tag[lpn]
    rb, ro = host_regs(h)
    opening = a.regs[rb] < 0
    if opening:
        foreground_gc(a)
        if a.regs[R_ERROR] != 0:
            a.l2p[lpn] = UNMAPPED
            return
    stamp = host_stamp(a, lpn)
    ppn = stream_program(a, rb, ro, lpn, stamp)
    if opening and ppn >= 0:
        a.bhandle[ppn // a.regs[R_PAGES_PER_BLOCK]] = h
    emit(a, EV_PROGRAM, ppn, lpn, 0)


@jit
def close_stream(a, h):
    """Close handle h's open host block now, its unwritten rest given up (marked invalid, as
    never to be programmed before the erase): a zoned drive's zone reset while the zone was
    open (zoned.py), so the handle's next zone starts in a block of its own and no block ever
    holds two zones' pages. Nothing happens if the handle has no open block."""
    rb, ro = host_regs(h)
    b = a.regs[rb]
    if b < 0:
        return
    ppb = a.regs[R_PAGES_PER_BLOCK]
    a.p2l[b * ppb + a.regs[ro]:(b + 1) * ppb] = INVALID_PAGE
    close_block(a, b)
    a.regs[rb] = -1
