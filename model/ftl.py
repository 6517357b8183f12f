"""The compiled batch loop: host commands (write, trim, read of logical page ranges) through
the page-mapped or block-mapped translation layer.

`run_commands` is the one entry point for both uses: animation (small batches, events on)
and whole-drive runs (big batches, events off). It stops early, before a command, when the
event buffer might not hold that command's events, or on an error; it returns the index of
the first command it did not run.
"""

from __future__ import annotations

from .compiled import inline, jit
from .flash import (
    emit,
    erase,
    invalidate,
    page_stamp,
    pop_free,
    put_page,
    stream_program,
)
from .gc import foreground_gc
from .state import (
    BLOCK_FULL,
    EV_COPY,
    EV_MERGE,
    EV_PROGRAM,
    EV_TRIM,
    FREE_PAGE,
    GC_COST_BENEFIT,
    GC_GREEDY,
    INVALID_PAGE,
    MAP_BLOCK,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    R_BLOCKS,
    R_ERROR,
    R_EVENT_CAPACITY,
    R_EVENTS,
    R_GC_COPIES,
    R_HONOUR_TRIM,
    R_HOST_BLOCK,
    R_HOST_OFFSET,
    R_HOST_READS,
    R_HOST_WRITES,
    R_MAPPING,
    R_MERGES,
    R_NAND_READS,
    R_PAGES_PER_BLOCK,
    R_POLICY,
    R_TRIM_COMMANDS,
    R_TRIM_PAGES,
    UNMAPPED,
)

# --- page mapping --------------------------------------------------------------------------

@inline
def write_page(a, lpn):
    """Host write of one logical page: stale the old copy, GC if a block is needed, program."""
    old = a.l2p[lpn]
    if old >= 0:
        invalidate(a, old)
    if a.regs[R_HOST_BLOCK] < 0:
        foreground_gc(a)
        if a.regs[R_ERROR] != 0:
            # The drive is broken (reported by Drive); do not leave a dangling mapping.
            a.l2p[lpn] = UNMAPPED
            return
    stamp = a.regs[R_HOST_WRITES]
    a.regs[R_HOST_WRITES] += 1
    ppn = stream_program(a, R_HOST_BLOCK, R_HOST_OFFSET, lpn, stamp)
    emit(a, EV_PROGRAM, ppn, lpn, 0)


@inline
def trim_page(a, lpn):
    ppn = a.l2p[lpn]
    if ppn >= 0:
        invalidate(a, ppn)
        a.l2p[lpn] = UNMAPPED
        a.regs[R_TRIM_PAGES] += 1


# --- block mapping -------------------------------------------------------------------------

@inline
def _block_write(a, lpn, count):
    """Write count pages inside one logical block. Free target pages are programmed in
    place; otherwise the block is merged: a fresh block receives the new pages and copies of
    the old block's other valid pages, and the old block is erased."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    lb = lpn // ppb
    first = lpn - lb * ppb
    pb = a.lb2pb[lb]
    in_place = pb >= 0
    if in_place:
        for off in range(first, first + count):
            if a.p2l[pb * ppb + off] != FREE_PAGE:
                in_place = False
                break
    if pb < 0:
        pb = pop_free(a)
        if pb < 0:
            return
        a.bstate[pb] = BLOCK_FULL
        a.lb2pb[lb] = pb
        in_place = True
    if in_place:
        for off in range(first, first + count):
            stamp = a.regs[R_HOST_WRITES]
            a.regs[R_HOST_WRITES] += 1
            put_page(a, pb * ppb + off, lb * ppb + off, stamp)
            emit(a, EV_PROGRAM, pb * ppb + off, lb * ppb + off, 0)
        return
    nb = pop_free(a)
    if nb < 0:
        return
    a.bstate[nb] = BLOCK_FULL
    emit(a, EV_MERGE, pb, nb, lb)
    for off in range(ppb):
        src = pb * ppb + off
        dst = nb * ppb + off
        lpn_off = lb * ppb + off
        if first <= off < first + count:
            if a.p2l[src] >= 0:
                invalidate(a, src)
            stamp = a.regs[R_HOST_WRITES]
            a.regs[R_HOST_WRITES] += 1
            put_page(a, dst, lpn_off, stamp)
            emit(a, EV_PROGRAM, dst, lpn_off, 0)
        elif a.p2l[src] >= 0:
            stamp = page_stamp(a, src)
            a.p2l[src] = INVALID_PAGE
            a.valid[pb] -= 1
            put_page(a, dst, lpn_off, stamp)
            a.regs[R_GC_COPIES] += 1
            a.regs[R_NAND_READS] += 1
            emit(a, EV_COPY, src, dst, lpn_off)
    a.regs[R_MERGES] += 1
    a.lb2pb[lb] = nb
    erase(a, pb)


@inline
def _block_trim(a, lpn, count):
    ppb = a.regs[R_PAGES_PER_BLOCK]
    lb = lpn // ppb
    for page in range(lpn, lpn + count):
        trim_page(a, page)
    pb = a.lb2pb[lb]
    if pb >= 0 and a.valid[pb] == 0:
        # Nothing left in the logical block: give the physical block back.
        a.lb2pb[lb] = -1
        erase(a, pb)


# --- commands ------------------------------------------------------------------------------

@inline
def write_range(a, lpn, count):
    if a.regs[R_MAPPING] == MAP_BLOCK:
        ppb = a.regs[R_PAGES_PER_BLOCK]
        end = lpn + count
        while lpn < end and a.regs[R_ERROR] == 0:
            n = min(end, (lpn // ppb + 1) * ppb) - lpn
            _block_write(a, lpn, n)
            lpn += n
    else:
        for page in range(lpn, lpn + count):
            write_page(a, page)
            if a.regs[R_ERROR] != 0:
                return


@inline
def trim_range(a, lpn, count):
    a.regs[R_TRIM_COMMANDS] += 1
    emit(a, EV_TRIM, lpn, count, 0)
    if a.regs[R_HONOUR_TRIM] == 0:
        return
    if a.regs[R_MAPPING] == MAP_BLOCK:
        ppb = a.regs[R_PAGES_PER_BLOCK]
        end = lpn + count
        while lpn < end:
            n = min(end, (lpn // ppb + 1) * ppb) - lpn
            _block_trim(a, lpn, n)
            lpn += n
    else:
        for page in range(lpn, lpn + count):
            trim_page(a, page)


@inline
def read_range(a, lpn, count):
    a.regs[R_HOST_READS] += count
    for page in range(lpn, lpn + count):
        if a.l2p[page] >= 0:
            a.regs[R_NAND_READS] += 1


@inline
def event_bound(a, op, count):
    """An upper bound on the events one command can emit.

    Each page: an invalidate and a program. Each new host block may need foreground GC to
    free one block net: greedy and cost-benefit always take a block with a stale page if
    one exists, so that takes at most ppb + 1 victims; FIFO and random-d may first pass
    over blocks that hold no stale page, up to the whole drive. Each victim emits at most
    ppb copies, a victim and an erase event.
    """
    if op == OP_READ:
        return 0
    ppb = a.regs[R_PAGES_PER_BLOCK]
    if op == OP_TRIM:
        return 1 + 2 * count + count // ppb + 2
    policy = a.regs[R_POLICY]
    victims = ppb + 1 if policy == GC_GREEDY or policy == GC_COST_BENEFIT else a.regs[R_BLOCKS]
    return 2 * count + (count // ppb + 2) * (victims * (ppb + 2) + ppb + 2)


@jit
def run_commands(a, ops, lpns, counts, start, stop):
    """Run commands start..stop-1; return the index of the first command not run."""
    cap = a.regs[R_EVENT_CAPACITY]
    i = start
    while i < stop:
        if a.regs[R_ERROR] != 0:
            return i
        op = ops[i]
        lpn = lpns[i]
        count = counts[i]
        if cap > 0 and i > start and a.regs[R_EVENTS] + event_bound(a, op, count) > cap:
            return i
        if op == OP_WRITE:
            write_range(a, lpn, count)
        elif op == OP_TRIM:
            trim_range(a, lpn, count)
        elif op == OP_READ:
            read_range(a, lpn, count)
        i += 1
    return i


@jit
def run_single_page_writes(a, lpns):
    """The hot path of whole-drive runs: one host write per entry, no events."""
    for i in range(lpns.shape[0]):
        write_range(a, lpns[i], 1)
        if a.regs[R_ERROR] != 0:
            return i
    return lpns.shape[0]
