"""The compiled loop of the host's log-structured store on a zoned drive (zonestore.py).

The store maps each application page to a (zone, offset) and appends every write at a write
frontier, an open zone: the frontier of the page's class (hot or cold when the host keeps
them apart, else one class). When a frontier fills it takes a free zone; when fewer free
zones are left than the reserve, it collects a victim: the full zone with the fewest valid
pages (greedy, the oldest of equals), whose valid pages it copies, each to its class's copy
frontier (its own, or the class's application frontier), before it resets the zone. It
works on its own arrays only and writes what the drive must do into a log of zone commands,
(0, zone, pages) a write at the zone's write pointer and (1, zone, 0) a reset, which
ZonedDrive.apply carries out. Nothing here touches the drive.

Per page the loop is a few array reads; per victim a walk of one zone. Greedy's victims come
from buckets of full zones linked by valid count, as the engine's (primitives.py).
"""

from __future__ import annotations

from .compiled import inline, jit
from .prefetch import prefetch, prefetch_write

# How many pages ahead the loops ask for the map entries they will touch (a random access
# each: at 2^20 pages the maps are bigger than the cache)
AHEAD = 8

# Registers of the store (int64 regs).
S_ZONE_PAGES = 0
S_ZONES = 1
S_RESERVE = 2  # the fewest free zones the store keeps after taking a new frontier
S_SEPARATE = 3  # 1: host copies go to a frontier of their own; 0: the app frontier
S_FREE_HEAD = 4  # ring of free (reset) zones
S_FREE_COUNT = 5
S_CLASSES = 6  # classes of pages kept apart (1, or 2: cold and hot)
S_MIN_VALID = 10  # the lowest non-empty bucket, or above
S_APP_WRITES = 11  # counters: pages
S_HOST_COPIES = 12
S_RESETS = 13
S_LOG = 14  # rows used in the log
S_ERROR = 15  # 0, or ERR_* below
S_TRACE = 16  # 1: record each page the drive is sent (lpn, app version) for the tests
S_TRACED = 17
# Frontier f (class c's application frontier f = c * (1 + separate), its copy frontier the
# next when separate): its zone (-1 none) at S_FRONTS + 2 f, pages written in it after.
S_FRONTS = 18
MAX_FRONTIERS = 4
N_REGS = S_FRONTS + 2 * MAX_FRONTIERS

ERR_NO_FREE_ZONE = 1
ERR_STUCK = 2  # the emptiest full zone is wholly valid: the host has no spare to collect

FULL, OPEN, EMPTY = 2, 1, 0  # zone states, as the store sees them


@inline
def _log(r, log, op, zone, n):
    """Append a zone command; a write right after a write to the same zone extends it."""
    k = r[S_LOG]
    if op == 0 and k > 0 and log[k - 1, 0] == 0 and log[k - 1, 1] == zone:
        log[k - 1, 2] += n
        return
    log[k, 0] = op
    log[k, 1] = zone
    log[k, 2] = n
    r[S_LOG] = k + 1


@inline
def _bucket_add(r, z, valid, head, tail, nxt, prv):
    v = valid[z]
    h = head[v]
    prv[z] = -1
    nxt[z] = h
    if h >= 0:
        prv[h] = z
    else:
        tail[v] = z
    head[v] = z
    if v < r[S_MIN_VALID]:
        r[S_MIN_VALID] = v


@inline
def _bucket_remove(z, valid, head, tail, nxt, prv):
    v = valid[z]
    p = prv[z]
    n = nxt[z]
    if p >= 0:
        nxt[p] = n
    else:
        head[v] = n
    if n >= 0:
        prv[n] = p
    else:
        tail[v] = p
    prv[z] = -1
    nxt[z] = -1


@inline
def _take_free(r, free_ring, state):
    if r[S_FREE_COUNT] == 0:
        r[S_ERROR] = ERR_NO_FREE_ZONE
        return -1
    h = r[S_FREE_HEAD]
    z = free_ring[h]
    r[S_FREE_HEAD] = (h + 1) % r[S_ZONES]
    r[S_FREE_COUNT] -= 1
    state[z] = OPEN
    return z


@inline
def _front(r, a, lpn, copy):
    """The register of the frontier app page lpn goes to: its class's, for a copy the
    class's copy frontier when copies are kept apart."""
    c = a[8][lpn] if r[S_CLASSES] > 1 else 0
    return S_FRONTS + 2 * (c * (1 + r[S_SEPARATE]) + (r[S_SEPARATE] if copy else 0))


@inline
def _put(r, a, f, lpn, version, log, trace_lpn, trace_ver):
    """Append app page lpn at the frontier whose zone register is f, whose zone has room:
    the old copy's zone loses a valid page, the new one gains it."""
    loc, rev, valid, state, head, tail, nxt, prv, cls = a
    zp = r[S_ZONE_PAGES]
    old = loc[lpn]
    if old >= 0:
        oz = old // zp
        if state[oz] == FULL:
            _bucket_remove(oz, valid, head, tail, nxt, prv)
            valid[oz] -= 1
            _bucket_add(r, oz, valid, head, tail, nxt, prv)
        else:
            valid[oz] -= 1
    z = r[f]
    pos = z * zp + r[f + 1]
    loc[lpn] = pos
    rev[pos] = lpn
    valid[z] += 1
    r[f + 1] += 1
    _log(r, log, 0, z, 1)
    if r[S_TRACE]:
        k = r[S_TRACED]
        trace_lpn[k] = lpn
        trace_ver[k] = version
        r[S_TRACED] = k + 1


@inline
def _close(r, a, f):
    """Frontier f's zone is full: it becomes a greedy candidate."""
    loc, rev, valid, state, head, tail, nxt, prv, cls = a
    z = r[f]
    if z >= 0:
        state[z] = FULL
        _bucket_add(r, z, valid, head, tail, nxt, prv)
    r[f] = -1


@jit
def store_collect(r, a, free_ring, versions, log, trace_lpn, trace_ver):
    """Collect one victim: copy its valid pages to their copy frontiers, reset it."""
    loc, rev, valid, state, head, tail, nxt, prv, cls = a
    zp = r[S_ZONE_PAGES]
    v = r[S_MIN_VALID]
    while v <= zp and head[v] < 0:
        v += 1
    r[S_MIN_VALID] = v
    if v > zp:
        r[S_ERROR] = ERR_NO_FREE_ZONE
        return
    if v == zp:
        r[S_ERROR] = ERR_STUCK
        return
    z = tail[v]  # the oldest arrival among the emptiest
    _bucket_remove(z, valid, head, tail, nxt, prv)
    state[z] = OPEN  # a victim: no bucket while its pages leave
    end = (z + 1) * zp
    for pos in range(z * zp, end):
        if pos + AHEAD < end and rev[pos + AHEAD] >= 0:
            prefetch(loc, rev[pos + AHEAD])
        lpn = rev[pos]
        if lpn >= 0 and loc[lpn] == pos:
            f = _front(r, a, lpn, True)
            if r[f] < 0 or r[f + 1] == zp:
                _close(r, a, f)
                r[f] = _take_free(r, free_ring, state)
                r[f + 1] = 0
                if r[f] < 0:
                    return
            _put(r, a, f, lpn, versions[lpn] if r[S_TRACE] else 0, log, trace_lpn,
                 trace_ver)
            r[S_HOST_COPIES] += 1
        rev[pos] = -1
    valid[z] = 0
    state[z] = EMPTY
    _log(r, log, 1, z, 0)
    r[S_RESETS] += 1
    tail_at = (r[S_FREE_HEAD] + r[S_FREE_COUNT]) % r[S_ZONES]
    free_ring[tail_at] = z
    r[S_FREE_COUNT] += 1


@jit
def store_write_pages(r, a, free_ring, versions, lpns, start, log, trace_lpn, trace_ver):
    """Application writes lpns[start:] until the log has too few rows left for one more
    write's worth; returns the index reached (len(lpns) when all were written)."""
    zp = r[S_ZONE_PAGES]
    room = log.shape[0] - 8 * (r[S_RESERVE] + 2)  # rows one write (and its GC) may add
    i = start
    while i < lpns.shape[0] and r[S_ERROR] == 0:
        if r[S_LOG] >= room or (r[S_TRACE] and r[S_TRACED] + 2 * zp * (r[S_RESERVE] + 2)
                                 > trace_lpn.shape[0]):
            break
        if i + AHEAD < lpns.shape[0]:
            prefetch_write(a[0], lpns[i + AHEAD])
        lpn = lpns[i]
        f = _front(r, a, lpn, False)
        # a full frontier takes a free zone, and GC restores the reserve; the copies may
        # fill that zone too (they go to the class's application frontier when shared)
        while (r[f] < 0 or r[f + 1] == zp) and r[S_ERROR] == 0:
            _close(r, a, f)
            r[f] = _take_free(r, free_ring, a[3])
            r[f + 1] = 0
            while r[S_FREE_COUNT] < r[S_RESERVE] and r[S_ERROR] == 0:
                store_collect(r, a, free_ring, versions, log, trace_lpn, trace_ver)
        if r[S_ERROR] != 0:
            break
        version = r[S_APP_WRITES]
        if r[S_TRACE]:  # only a trace reads them: a random access per page saved
            versions[lpn] = version
        r[S_APP_WRITES] = version + 1
        _put(r, a, f, lpn, version, log, trace_lpn, trace_ver)
        i += 1
    return i
