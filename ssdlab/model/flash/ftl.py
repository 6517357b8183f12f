"""The compiled batch loop: host commands (write, trim, read of logical page ranges) through
the page-mapped, block-mapped or hybrid log-block ("fast") translation layer.

`run_commands` is the one entry point for both uses: animation (small batches, events on)
and whole-drive runs (big batches, events off). It stops early, before a command, when the
event buffer might not hold that command's events, or on an error; it returns the index of
the first command it did not run.
"""

from __future__ import annotations

from .compiled import called, inline, jit
from .gc import foreground_gc
from .placement import handle_write
from .prefetch import prefetch, prefetch_write
from .primitives import (
    copy_page,
    emit,
    erase,
    fail,
    host_stamp,
    invalidate,
    invalidate_in,
    pop_free,
    put_page,
    stream_program,
)
from .slccache import has_room as cache_has_room
from .slccache import program as cache_program
from .state import (
    BLOCK_FULL,
    BLOCK_OPEN,
    ERR_NO_FREE_BLOCK,
    EV_MERGE,
    EV_PROGRAM,
    EV_TRIM,
    FREE_PAGE,
    GC_COST_BENEFIT,
    GC_GREEDY,
    MAP_BLOCK,
    MAP_FAST,
    MAP_PAGE,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    R_BLOCKS,
    R_COPY_BLOCK,
    R_ERROR,
    R_EVENT_CAPACITY,
    R_EVENTS,
    R_FIFO_COUNT,
    R_FIFO_HEAD,
    R_FREE_COUNT,
    R_HANDLES,
    R_HONOUR_TRIM,
    R_HOST_BLOCK,
    R_HOST_OFFSET,
    R_HOST_READS,
    R_LOG_BLOCKS,
    R_MAPPED,
    R_MAPPING,
    R_MERGES,
    R_NAND_READS,
    R_PAGES_PER_BLOCK,
    R_POLICY,
    R_SLC,
    R_SLC_PAGES,
    R_TRIM_COMMANDS,
    R_TRIM_PAGES,
    R_USER_PAGES,
    R_WL_GAP,
    UNMAPPED,
)

# --- page mapping --------------------------------------------------------------------------

@inline
def write_page(a, lpn, shift):
    """Host write of one logical page: stale the old copy, GC if a block is needed, program.
    shift: log2 of pages per block when that is a power of two (a page's block is then a
    shift, the same value as the division for a page number >= 0), else -1."""
    old = a.l2p[lpn]
    cached = False
    if a.regs[R_SLC] != 0:  # an SLC cache: decided on the drive as it was (slccache.py)
        cached = cache_has_room(a)
        if old < 0:
            a.regs[R_MAPPED] += 1
    if old >= 0:
        if shift >= 0:
            invalidate_in(a, old, old >> shift)
        else:
            invalidate(a, old)
    if cached:
        stamp = host_stamp(a, lpn)
        emit(a, EV_PROGRAM, cache_program(a, lpn, stamp), lpn, 0)
        return
    if a.regs[R_HANDLES] > 1:  # the host tags its pages: each handle's own open block
        handle_write(a, lpn)
        return
    if a.regs[R_HOST_BLOCK] < 0:
        if a.regs[R_COPY_BLOCK] == R_HOST_BLOCK:
            # One frontier, in Desnoyers' order: the host takes its next block first, so
            # GC copies one victim to its start and host writes fill the rest. Collecting
            # first would need a second victim to pay for the block the copies take, and
            # two victims' copies together make a block of cold data: half a separate
            # frontier, not the mixed stream his model and simulator have.
            b = pop_free(a)
            if b >= 0:
                a.regs[R_HOST_BLOCK] = b
                a.regs[R_HOST_OFFSET] = 0
        foreground_gc(a)
        if a.regs[R_ERROR] != 0:
            # The drive is broken (reported by Drive); do not leave a dangling mapping.
            a.l2p[lpn] = UNMAPPED
            return
    stamp = host_stamp(a, lpn)
    ppn = stream_program(a, R_HOST_BLOCK, R_HOST_OFFSET, lpn, stamp)
    emit(a, EV_PROGRAM, ppn, lpn, 0)


@inline
def trim_page(a, lpn):
    ppn = a.l2p[lpn]
    if ppn >= 0:
        invalidate(a, ppn)
        a.l2p[lpn] = UNMAPPED
        a.regs[R_TRIM_PAGES] += 1
        if a.regs[R_SLC] != 0:
            a.regs[R_MAPPED] -= 1


# --- block mapping -------------------------------------------------------------------------

@inline
def _data_block(a, lb):
    """The physical block of logical block lb (block and fast mappings), taking a free one
    if it has none; -1 if none is free."""
    pb = a.lb2pb[lb]
    if pb < 0:
        pb = pop_free(a)
        if pb >= 0:
            a.bstate[pb] = BLOCK_FULL
            a.lb2pb[lb] = pb
    return pb


@jit
def block_write(a, lpn, count):
    """Write count pages inside one logical block. Free target pages are programmed in
    place; otherwise the block is merged: a fresh block receives the new pages and copies of
    the old block's other valid pages, and the old block is erased."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    lb = lpn // ppb
    first = lpn - lb * ppb
    pb = _data_block(a, lb)
    if pb < 0:
        return
    in_place = True  # a block just taken is all free
    for off in range(first, first + count):
        if a.p2l[pb * ppb + off] != FREE_PAGE:
            in_place = False
            break
    if in_place:
        for off in range(first, first + count):
            stamp = host_stamp(a, lb * ppb + off)
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
            stamp = host_stamp(a, lpn_off)
            put_page(a, dst, lpn_off, stamp)
            emit(a, EV_PROGRAM, dst, lpn_off, 0)
        elif a.p2l[src] >= 0:
            copy_page(a, src, dst, lpn_off)
    a.regs[R_MERGES] += 1
    a.lb2pb[lb] = nb
    erase(a, pb)


@jit
def block_trim(a, lpn, count):
    ppb = a.regs[R_PAGES_PER_BLOCK]
    lb = lpn // ppb
    for page in range(lpn, lpn + count):
        trim_page(a, page)
    pb = a.lb2pb[lb]
    if pb >= 0 and a.valid[pb] == 0:
        # Nothing left in the logical block: give the physical block back.
        a.lb2pb[lb] = -1
        erase(a, pb)


# --- hybrid log-block mapping ("fast") -----------------------------------------------------
#
# After Lee et al., "A log buffer-based flash translation layer using fully-associative sector
# translation" (FAST), ACM TECS 2007, with one shared (fully associative) log:
# * Data blocks are block-mapped as in mapping "block": logical block lb lives in physical
#   block lb2pb[lb], each page at its fixed offset. A write to an unmapped logical block takes
#   the oldest free block as its data block.
# * The log blocks (R_LOG_BLOCKS of them: the blocks beyond one per logical block, but one
#   kept free for merges) are page-mapped: l2p points into them, p2l records the lpn.
# * A host page write first makes the page's old copy (data or log block) stale. If the
#   page's slot in its data block was never programmed, it is programmed there; otherwise it
#   is appended to the current log block (R_HOST_BLOCK / R_HOST_OFFSET, state open); that
#   choice is made before any reclaim the append triggers.
#   A multi-page write is that, page by page.
# * When the current log block is full (it becomes state full and stays in the log) and a log
#   page is needed, a free block becomes the new log block while fewer than R_LOG_BLOCKS are
#   in use; otherwise the oldest log block (FIFO, kept in fifo_ring) is reclaimed:
#   - switch merge: if it holds exactly one logical block's pages, all valid, in order from
#     offset 0, it becomes that logical block's data block (a merge event whose new block is
#     the log block; the old data block, now all stale, is erased) and a free block becomes
#     the new log block;
#   - otherwise, for each logical block with a valid page in it (in order of their first
#     valid page there), a full merge: a free block receives, at each offset, the newest
#     valid copy (wherever it is: the data block or any log block) as a copy, and the old
#     data block is erased. Then the reclaimed log block, now all stale, is erased and
#     becomes the new log block at once.
#   Both kinds count as merges; each page moved counts a GC copy and a NAND read.
# * TRIM unmaps pages wherever they are; a data block left without valid pages is erased
#   and unmapped, as in "block". A log block is reclaimed only at its FIFO turn.
# There is no GC: collect_one and idle_gc do nothing, as for "block".

@inline
def _fast_full_merge(a, lb):
    """Gather logical block lb's newest valid pages into a fresh data block."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    nb = pop_free(a)
    if nb < 0:
        return
    a.bstate[nb] = BLOCK_FULL
    old = a.lb2pb[lb]
    emit(a, EV_MERGE, old, nb, lb)
    end = min(ppb, a.regs[R_USER_PAGES] - lb * ppb)  # the last logical block may be short
    for off in range(end):
        lpn = lb * ppb + off
        src = a.l2p[lpn]
        if src < 0:
            continue
        copy_page(a, src, nb * ppb + off, lpn)
    a.regs[R_MERGES] += 1
    a.lb2pb[lb] = nb
    if old >= 0:
        erase(a, old)


@called
def _fast_new_log_block(a):
    """A fresh log block at the back of the log (free, or by reclaiming the oldest); -1 if
    none could be had."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    nblocks = a.regs[R_BLOCKS]
    if a.regs[R_FIFO_COUNT] < a.regs[R_LOG_BLOCKS]:
        b = pop_free(a)
        if b < 0:
            return -1
    else:
        head = a.regs[R_FIFO_HEAD]
        v = a.fifo_ring[head]
        a.regs[R_FIFO_HEAD] = (head + 1) % nblocks
        a.regs[R_FIFO_COUNT] -= 1
        first = a.p2l[v * ppb]
        switch = first >= 0 and first % ppb == 0
        if switch:
            for off in range(1, ppb):
                if a.p2l[v * ppb + off] != first + off:
                    switch = False
                    break
        if switch:
            lb = first // ppb
            old = a.lb2pb[lb]
            emit(a, EV_MERGE, old, v, lb)
            a.lb2pb[lb] = v
            a.regs[R_MERGES] += 1
            if old >= 0:
                erase(a, old)
            b = pop_free(a)
            if b < 0:
                return -1
        else:
            for off in range(ppb):
                lpn = a.p2l[v * ppb + off]
                if lpn >= 0:
                    _fast_full_merge(a, lpn // ppb)
                    if a.regs[R_ERROR] != 0:
                        return -1
            erase(a, v)
            if a.regs[R_ERROR] != 0:
                return -1
            # The erased block is the free ring's newest entry: take it straight back.
            if a.regs[R_FREE_COUNT] == 0:
                fail(a, ERR_NO_FREE_BLOCK)
                return -1
            a.regs[R_FREE_COUNT] -= 1
            b = v
    a.bstate[b] = BLOCK_OPEN
    tail = (a.regs[R_FIFO_HEAD] + a.regs[R_FIFO_COUNT]) % nblocks
    a.fifo_ring[tail] = b
    a.regs[R_FIFO_COUNT] += 1
    a.regs[R_HOST_BLOCK] = b
    a.regs[R_HOST_OFFSET] = 0
    return b


@jit
def fast_write_page(a, lpn):
    """Host write of one logical page under the "fast" mapping (rules above)."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    old = a.l2p[lpn]
    if old >= 0:
        invalidate(a, old)
        a.l2p[lpn] = UNMAPPED
    lb = lpn // ppb
    pb = _data_block(a, lb)
    if pb < 0:
        return
    ppn = pb * ppb + lpn - lb * ppb
    if a.p2l[ppn] != FREE_PAGE:
        b = a.regs[R_HOST_BLOCK]
        if b < 0:
            b = _fast_new_log_block(a)
            if b < 0:
                return
        off = a.regs[R_HOST_OFFSET]
        ppn = b * ppb + off
        off += 1
        a.regs[R_HOST_OFFSET] = off
        if off == ppb:
            a.bstate[b] = BLOCK_FULL
            a.regs[R_HOST_BLOCK] = -1
    stamp = host_stamp(a, lpn)
    put_page(a, ppn, lpn, stamp)
    emit(a, EV_PROGRAM, ppn, lpn, 0)


# --- commands ------------------------------------------------------------------------------

@inline
def write_range(a, lpn, count):
    mapping = a.regs[R_MAPPING]
    if mapping == MAP_PAGE:
        for page in range(lpn, lpn + count):
            write_page(a, page, -1)
            if a.regs[R_ERROR] != 0:
                return
    elif mapping == MAP_BLOCK:
        ppb = a.regs[R_PAGES_PER_BLOCK]
        end = lpn + count
        while lpn < end and a.regs[R_ERROR] == 0:
            n = min(end, (lpn // ppb + 1) * ppb) - lpn
            block_write(a, lpn, n)
            lpn += n
    else:
        for page in range(lpn, lpn + count):
            fast_write_page(a, page)
            if a.regs[R_ERROR] != 0:
                return


@inline
def trim_range(a, lpn, count):
    a.regs[R_TRIM_COMMANDS] += 1
    emit(a, EV_TRIM, lpn, count, 0)
    if a.regs[R_HONOUR_TRIM] == 0:
        return
    if a.regs[R_MAPPING] == MAP_BLOCK or a.regs[R_MAPPING] == MAP_FAST:
        ppb = a.regs[R_PAGES_PER_BLOCK]
        end = lpn + count
        while lpn < end:
            n = min(end, (lpn // ppb + 1) * ppb) - lpn
            block_trim(a, lpn, n)
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
    ppb copies, a victim and an erase event. Under "fast", each new log block may reclaim
    one, which merges at most ppb logical blocks (a merge, ppb copies and an erase each)
    and erases it.
    """
    if op == OP_READ:
        return 0
    ppb = a.regs[R_PAGES_PER_BLOCK]
    if op == OP_TRIM:
        return 1 + 2 * count + count // ppb + 2
    if a.regs[R_MAPPING] == MAP_FAST:
        return 2 * count + (count // ppb + 2) * (ppb * (ppb + 2) + 2)
    policy = a.regs[R_POLICY]
    victims = ppb + 1 if policy == GC_GREEDY or policy == GC_COST_BENEFIT else a.regs[R_BLOCKS]
    # an SLC cache's foreground GC first folds borrowed blocks: two gain a block, and it may
    # need two (the shared frontier takes the host's block first); copies, victim, erase
    fold = 4 * (a.regs[R_SLC_PAGES] + 2) if a.regs[R_SLC] != 0 else 0
    if a.regs[R_WL_GAP] > 0:  # wear levelling may move one block after each victim
        victims *= 2
    # each placement handle's stream may open a block of its own
    opens = count // ppb + 2 + a.regs[R_HANDLES] - 1
    return 2 * count + opens * (victims * (ppb + 2) + ppb + 2 + fold)


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


# How far ahead the whole-drive loop starts loading: the l2p entry of the write PREFETCH_L2P
# writes ahead, and the old copy's p2l entry of the write PREFETCH_OLD writes ahead (by then
# its l2p entry has arrived), with, under greedy, that block's valid count and bucket links:
# at 2^24 pages they no longer stay cached (the profile showed writes stalled on them).
# Tuned at 2^24 pages (bench).
PREFETCH_L2P = 64
PREFETCH_OLD = 32


@jit
def run_single_page_writes(a, lpns):
    """The hot path of whole-drive runs under page mapping: one host write per entry, no
    events, prefetching ahead (results identical: a prefetch changes no value). Block and
    fast mappings run single-page writes through run_commands (Drive.write_pages), so this
    loop compiles only the page-mapped write."""
    n = lpns.shape[0]
    ppb = a.regs[R_PAGES_PER_BLOCK]
    greedy = a.regs[R_POLICY] == GC_GREEDY
    tagged = a.regs[R_HANDLES] > 1  # each write reads its page's placement tag too
    shift = -1
    if ppb & (ppb - 1) == 0:
        shift = 0
        while (1 << shift) < ppb:
            shift += 1
    for i in range(n):
        if i + PREFETCH_L2P < n:
            prefetch_write(a.l2p, lpns[i + PREFETCH_L2P])
            if tagged:
                prefetch(a.tag, lpns[i + PREFETCH_L2P])
        if i + PREFETCH_OLD < n:
            old = a.l2p[lpns[i + PREFETCH_OLD]]
            if old >= 0:
                prefetch_write(a.p2l, old)
                if greedy:
                    # The old page's block moves down a bucket: its count and links.
                    b = old >> shift if shift >= 0 else old // ppb
                    prefetch_write(a.valid, b)
                    prefetch_write(a.bucket_prev, b)
                    prefetch_write(a.bucket_next, b)
        write_page(a, lpns[i], shift)
        if a.regs[R_ERROR] != 0:
            return i
    return n
