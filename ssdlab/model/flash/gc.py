"""Compiled garbage collection: victim policies, collecting a victim, foreground and idle GC.

Victim policies (exact tie-breaks, which the reference FTL in `reference.py` repeats):
- greedy: fewest valid pages; among equals, the block that reached that count most recently
  (victim order "newest") or first ("oldest", as Desnoyers' simulator does).
- fifo: the block closed longest ago.
- cost-benefit: largest age * (1 - u) / (2u), u = valid fraction (of the block's slots, on a
  compressing drive), age = NAND page writes (stored pages) since the block closed
  (Kawaguchi, Nishioka and Motoda, "A flash-memory based file system", USENIX Winter 1995:
  one read and one write per live page, hence 2u); an empty block scores
  infinitely high; among equals, the lowest block number.
- random-d: d draws with replacement from the closed list (index = random mod length); the
  first drawn among those with the fewest valid pages (Van Houdt, SIGMETRICS 2013).
"""

from __future__ import annotations

import numpy as np

from .compiled import called, inline, jit
from .prefetch import prefetch, prefetch_write
from .primitives import close_block, emit, erase, fail, gc_regs, pop_free, unclose_block
from .slccache import fold_borrowed
from .state import (
    BLOCK_VICTIM,
    ERR_GC_STUCK,
    ERR_NO_VICTIM,
    EV_COPY,
    EV_VICTIM,
    GC_COST_BENEFIT,
    GC_FIFO,
    GC_GREEDY,
    INVALID_PAGE,
    ORDER_OLDEST,
    R_BLOCK_SLOTS,
    R_BLOCKS,
    R_CLOSED_COUNT,
    R_COPY_BLOCK,
    R_D,
    R_ERROR,
    R_FIFO_COUNT,
    R_FIFO_HEAD,
    R_FREE_COUNT,
    R_GC_BLOCK,
    R_GC_COPIES,
    R_GC_LOW,
    R_GC_OFFSET,
    R_GC_VICTIMS,
    R_HANDLE_GC,
    R_HANDLES,
    R_HOST_BLOCK,
    R_HOST_OFFSET,
    R_LAST_MOVED,
    R_LAST_VICTIM,
    R_MAX_ERASES,
    R_MIN_VALID,
    R_NAND_READS,
    R_NAND_WRITES,
    R_PAGES_PER_BLOCK,
    R_POLICY,
    R_SLC,
    R_STORED_SLOTS,
    R_TRACK_VERSIONS,
    R_VICTIM_ORDER,
    R_WL_COPIES,
    R_WL_GAP,
    R_WL_MIN,
    R_WL_MOVES,
)

# Pages ahead whose l2p entries a GC copy loop keeps loading.
PREFETCH_GC = 32
# int32 p2l entries in one 64-byte cache line.
P2L_PER_LINE = 16

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@inline
def next_random(a):
    """splitmix64 (Steele, Lea and Flood 2014): the engine's own reproducible stream."""
    z = a.rng[0] + _GOLDEN
    a.rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@inline
def _greedy_look(a):
    """(the fewest valid pages any closed block has, the block greedy takes among those), or
    (pages per block + 1, -1) when no block is closed; a look only, nothing is stored."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    v = a.regs[R_MIN_VALID]
    while v <= ppb and a.bucket_head[v] < 0:
        v += 1
    if v > ppb:
        return v, -1
    if a.regs[R_VICTIM_ORDER] == ORDER_OLDEST:
        return v, a.bucket_tail[v]
    return v, a.bucket_head[v]


@inline
def _greedy_victim(a):
    v, b = _greedy_look(a)
    a.regs[R_MIN_VALID] = v  # the buckets below are empty: the next look starts here
    return b


@called
def _cost_benefit_victim(a):
    # u in slots: without compression v * SLOTS_PER_PAGE / (ppb * SLOTS_PER_PAGE), exactly v / ppb
    slots = a.regs[R_STORED_SLOTS]
    block_slots = a.regs[R_BLOCK_SLOTS]
    now = a.regs[R_NAND_WRITES]
    best = -1
    best_score = -1.0
    for i in range(a.regs[R_CLOSED_COUNT]):
        b = a.closed_list[i]
        v = a.valid[b]
        if v == 0:
            score = np.inf
        else:
            u = v * slots / block_slots
            score = (now - a.close_seq[b]) * (1.0 - u) / (2.0 * u)
        if score > best_score or (score == best_score and b < best):
            best = b
            best_score = score
    return best


@called
def _random_d_victim(a):
    n = a.regs[R_CLOSED_COUNT]
    if n == 0:
        return -1
    best = -1
    for _ in range(a.regs[R_D]):
        b = a.closed_list[np.int64(next_random(a) % np.uint64(n))]
        if best < 0 or a.valid[b] < a.valid[best]:
            best = b
    return best


@inline
def pick_victim(a):
    """The block the policy collects next, or -1 if no block is closed."""
    policy = a.regs[R_POLICY]
    if policy == GC_GREEDY:
        return _greedy_victim(a)
    if policy == GC_FIFO:
        if a.regs[R_FIFO_COUNT] == 0:
            return -1
        return a.fifo_ring[a.regs[R_FIFO_HEAD]]
    if policy == GC_COST_BENEFIT:
        return _cost_benefit_victim(a)
    return _random_d_victim(a)


@jit
def collect(a):
    """Collect one victim: copy its valid pages to the GC stream, then erase it.

    Returns the victim's valid page count, or -1 if there was nothing to collect.
    """
    v = pick_victim(a)
    if v < 0:
        fail(a, ERR_NO_VICTIM)
        return -1
    return collect_block(a, v)


@inline
def _count_copies(a, v, b, n):
    """n pages went from victim v to block b: one NAND read and one program each."""
    a.valid[v] -= n
    a.valid[b] += n
    a.regs[R_NAND_WRITES] += n
    a.regs[R_GC_COPIES] += n
    a.regs[R_NAND_READS] += n


@inline
def _prefetch_next_victim(a):
    """Start loading the p2l lines of the block greedy or FIFO would collect next, as things
    stand (a look only: nothing is stored), so its copy loop does not start on a miss."""
    policy = a.regs[R_POLICY]
    ppb = a.regs[R_PAGES_PER_BLOCK]
    nxt = -1
    if policy == GC_GREEDY:
        nxt = _greedy_look(a)[1]
    elif policy == GC_FIFO and a.regs[R_FIFO_COUNT] > 0:
        nxt = a.fifo_ring[a.regs[R_FIFO_HEAD]]
    if nxt >= 0:
        for src in range(nxt * ppb, nxt * ppb + ppb, P2L_PER_LINE):
            prefetch(a.p2l, src)


@jit
def collect_block(a, v):
    """Collect closed block v, which pick_victim just chose (for FIFO, v is the ring's head).

    The copies go to the GC frontier: its own open block, or the host's (FtlConfig.gc_frontier).
    Kept apart from the choice so a caller that inspects the victim first (idle_gc) collects
    that same block: random-d draws fresh random numbers on every pick.
    """
    if a.regs[R_POLICY] == GC_FIFO:
        a.regs[R_FIFO_HEAD] = (a.regs[R_FIFO_HEAD] + 1) % a.regs[R_BLOCKS]
        a.regs[R_FIFO_COUNT] -= 1
    unclose_block(a, v)
    a.bstate[v] = BLOCK_VICTIM
    moved = a.valid[v]
    emit(a, EV_VICTIM, v, moved, 0)
    ppb = a.regs[R_PAGES_PER_BLOCK]
    first = v * ppb
    end = first + ppb
    # The victim's p2l entries are read in order, but a block's few lines are too short a
    # run for the hardware prefetcher: ask for them all now, or every line stalls the loop.
    for src in range(first, end, P2L_PER_LINE):
        prefetch(a.p2l, src)
    prefetch(a.p2l, end - 1)
    # Each copy remaps its page: keep the l2p entries of the next PREFETCH_GC copies loading.
    for src in range(first, min(first + PREFETCH_GC, end)):
        ahead = a.p2l[src]
        if ahead >= 0:
            prefetch_write(a.l2p, ahead)
    r_block = R_HOST_BLOCK if a.regs[R_COPY_BLOCK] == R_HOST_BLOCK else R_GC_BLOCK
    r_offset = R_HOST_OFFSET if r_block == R_HOST_BLOCK else R_GC_OFFSET
    h = 0  # the handle a block the copies open is marked with
    if a.regs[R_HANDLES] > 1 and a.regs[R_HANDLE_GC] != 0:  # isolated: the victim's own
        h = a.bhandle[v]
        r_block, r_offset = gc_regs(h)
    track = a.regs[R_TRACK_VERSIONS] != 0
    # The copies into one destination block run with their counts in locals, written back
    # when the block fills and at the end: the l2p stores miss the cache, x86 commits stores
    # in order, and every counter store queued behind a miss held the loop up (measured at
    # 2^24 pages). Nothing reads these counts before they are written back.
    b = a.regs[r_block]
    off = a.regs[r_offset]
    done = 0  # copies into block b not yet counted
    for src in range(first, end):
        if src + PREFETCH_GC < end:
            ahead = a.p2l[src + PREFETCH_GC]
            if ahead >= 0:
                prefetch_write(a.l2p, ahead)
        lpn = a.p2l[src]
        if lpn < 0:
            continue
        if b < 0:
            # The stream needs a block, taken only when a page is there to copy.
            b = pop_free(a)
            if b < 0:
                return -1
            a.regs[r_block] = b
            a.bhandle[b] = h
            off = 0
        dst = b * ppb + off
        if track:
            a.stamp[dst] = a.stamp[src]
        a.p2l[src] = INVALID_PAGE
        a.p2l[dst] = lpn
        a.l2p[lpn] = dst
        emit(a, EV_COPY, src, dst, lpn)
        off += 1
        done += 1
        if off == ppb:
            _count_copies(a, v, b, done)
            a.regs[r_offset] = off
            close_block(a, b)
            a.regs[r_block] = -1
            b = -1
            done = 0
    if b >= 0:
        _count_copies(a, v, b, done)
        a.regs[r_offset] = off
    erase(a, v)
    _prefetch_next_victim(a)
    a.regs[R_GC_VICTIMS] += 1
    a.victim_valid[moved] += 1
    a.regs[R_LAST_VICTIM] = v  # what a step of one GC or a breakpoint names without events
    a.regs[R_LAST_MOVED] = moved
    return moved


@inline
def _any_stale_closed(a):
    """Whether some closed block holds a stale page (collecting it would gain space)."""
    ppb = a.regs[R_PAGES_PER_BLOCK]
    for i in range(a.regs[R_CLOSED_COUNT]):
        if a.valid[a.closed_list[i]] < ppb:
            return True
    return False


@jit
def foreground_gc(a):
    """Collect until the free pool is above the low watermark (called before a host block
    is taken).

    FIFO and random-d may collect fully valid blocks, which frees nothing; after a drive's
    worth of victims in one call it checks whether any closed block could still gain
    space, and gives up (recording an error) only if none can.
    """
    rounds = 0
    limit = a.regs[R_BLOCKS]
    cache = a.regs[R_SLC] != 0
    while a.regs[R_FREE_COUNT] <= a.regs[R_GC_LOW] and a.regs[R_ERROR] == 0:
        # an SLC cache first folds the blocks it borrowed, oldest first (slccache.py)
        if cache and fold_borrowed(a) >= 0:
            continue
        if collect(a) < 0:
            return
        gap = a.regs[R_WL_GAP]
        if gap > 0 and a.regs[R_MAX_ERASES] - a.regs[R_WL_MIN] > gap:
            wear_level(a)  # the wear may have spread too far: look
        rounds += 1
        if rounds > limit:
            if not _any_stale_closed(a):
                fail(a, ERR_GC_STUCK)
                return
            rounds = 0


@jit
def wear_level(a):
    """Static wear levelling, after a foreground GC victim whenever the most-worn block's
    erase count is more than R_WL_GAP above the least-worn full block's as last seen
    (R_WL_MIN): the least-worn full block (the lowest block number among equals) holds data
    nothing rewrites, so greedy never takes it and it never wears while the blocks taking
    the writes do. The scan of the full blocks finds it again; if the gap is still too wide
    its valid pages are copied to the GC frontier and it is erased, so it takes new writes.
    At most one block per victim: the scan runs only while the wear is spread too far. The
    copies are GC copies (WA counts them) and counted apart; the move is no GC victim (the
    victims' figures and the last GC shown stay the garbage collection's). Only with two
    free blocks in hand, one for the copies. Returns the pages copied, 0 when nothing
    moved, -1 when the copies found no free block."""
    if a.regs[R_FREE_COUNT] < 2:
        return 0
    best = -1
    low = a.regs[R_MAX_ERASES]
    for i in range(a.regs[R_CLOSED_COUNT]):
        b = a.closed_list[i]
        e = a.erases[b]
        if e < low or (e == low and b < best):
            low = e
            best = b
    a.regs[R_WL_MIN] = low
    if best < 0 or a.regs[R_MAX_ERASES] - low <= a.regs[R_WL_GAP]:
        return 0
    victim, last_moved = a.regs[R_LAST_VICTIM], a.regs[R_LAST_MOVED]
    copies = a.regs[R_GC_COPIES]
    moved = collect_block(a, best)
    if moved < 0:
        return -1
    a.regs[R_GC_VICTIMS] -= 1
    a.victim_valid[moved] -= 1
    a.regs[R_LAST_VICTIM], a.regs[R_LAST_MOVED] = victim, last_moved
    a.regs[R_WL_MOVES] += 1
    a.regs[R_WL_COPIES] += a.regs[R_GC_COPIES] - copies
    return moved


@jit
def idle_gc(a, target_free_blocks, max_victims, max_valid_pages):
    """Background GC for idle time: collect victims holding at most max_valid_pages valid
    pages until target_free_blocks are free or max_victims were collected. Returns the
    number collected."""
    done = 0
    while (done < max_victims and a.regs[R_FREE_COUNT] < target_free_blocks
           and a.regs[R_FREE_COUNT] > 0 and a.regs[R_ERROR] == 0):
        v = pick_victim(a)
        if v < 0 or a.valid[v] > max_valid_pages:
            break
        if collect_block(a, v) < 0:
            break
        done += 1
    return done
