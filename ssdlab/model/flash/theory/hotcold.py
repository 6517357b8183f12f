"""Cleaning under traffic of several classes (hot and cold pages): FIFO's multiclass LRW
model (Desnoyers' Eq. 14) and greedy at one shared frontier (his Eq. 16)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ssdlab.model.flash.theory.checks import check_pages_per_block, check_spare, real
from ssdlab.model.flash.theory.roots import bisect_decreasing

_FRACTION_SUM_TOL = 1e-9


def _check_classes(
    lba_fractions: Sequence[float], write_fractions: Sequence[float]
) -> tuple[list[float], list[float]]:
    """Validate per-class LBA and write fractions; return them as float lists."""
    lbas = [real("lba_fractions", v) for v in lba_fractions]
    writes = [real("write_fractions", v) for v in write_fractions]
    if not lbas or len(lbas) != len(writes):
        raise ValueError(
            "lba_fractions and write_fractions must be non-empty and of equal length; "
            f"got {len(lbas)} and {len(writes)}"
        )
    if any(not 0.0 < v <= 1.0 for v in lbas):
        raise ValueError(f"lba_fractions must each be in (0, 1]; got {lbas}")
    if any(not 0.0 <= v <= 1.0 for v in writes):
        raise ValueError(f"write_fractions must each be in [0, 1]; got {writes}")
    for name, values in (("lba_fractions", lbas), ("write_fractions", writes)):
        if abs(math.fsum(values) - 1.0) > _FRACTION_SUM_TOL:
            raise ValueError(f"{name} must sum to 1; got sum {math.fsum(values)!r}")
    return lbas, writes


def _class_copies(alpha: float, lba: float, write: float, wa: float) -> float:
    """NAND writes of one class per host write, w / (1 - exp(-alpha*w/(l*WA))) (dimensionless).

    A class that is never written (w = 0) takes its limit l*WA/alpha: its pages are copied
    once per trip round the log and never freed. For a tiny exponent z the two-term series
    l*WA/alpha + w/2 is used, which also avoids 0/0 when z underflows.
    """
    z = alpha * write / (lba * wa)
    if z < 1e-8:
        return lba * wa / alpha + 0.5 * write
    return write / -math.expm1(-z)


def _lrw_multiclass_wa(alpha: float, lbas: list[float], writes: list[float]) -> float:
    """Root of WA = sum_k w_k / (1 - exp(-alpha * w_k / (l_k * WA))) for alpha = P/U > 1
    (dimensionless), the LRW balance of several traffic classes; see fifo_multiclass_wa."""
    classes = list(zip(lbas, writes, strict=True))

    def excess(wa: float) -> float:
        return math.fsum(_class_copies(alpha, lo, w, wa) for lo, w in classes) - wa

    # Between 1 and a random victim's 1/spare = alpha / (alpha - 1).
    return bisect_decreasing(excess, 1.0, alpha / (alpha - 1.0))


def fifo_multiclass_wa(
    spare: float, lba_fractions: Sequence[float], write_fractions: Sequence[float]
) -> float:
    """Write amplification of FIFO (LRW) cleaning for several independent uniform classes.

    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    lba_fractions: l_k, share of the U logical pages in class k; each in (0, 1], sum 1.
    write_fractions: w_k, share of host writes aimed at class k; each in [0, 1], sum 1.
    Returns WA in NAND page writes per host page write.

    Model (Desnoyers, SYSTOR 2012 Eq. 14 and its many-class extension; TOS 2014). Each page
    spends H = P/WA host writes on one trip round the log; a class-k page survives the trip
    with u_k = exp(-alpha * w_k / (l_k * WA)) and is written 1/(1 - u_k) times in all, so

        WA = sum_k w_k / (1 - exp(-alpha * w_k / (l_k * WA))).

    The right side divided by WA falls as WA grows, so the root is unique; it lies in
    [1, 1/spare] (skewed FIFO is never worse than a random victim) and is found by bisection.
    """
    s = check_spare(spare)
    lbas, writes = _check_classes(lba_fractions, write_fractions)
    return _lrw_multiclass_wa(1.0 / (1.0 - s), lbas, writes)


def _check_hotcold(hot_lba_fraction: object, hot_write_fraction: object) -> tuple[float, float]:
    lba = real("hot_lba_fraction", hot_lba_fraction)
    write = real("hot_write_fraction", hot_write_fraction)
    if not 0.0 < lba < 1.0:
        raise ValueError(f"hot_lba_fraction must be in (0, 1); got {hot_lba_fraction!r}")
    if not 0.0 <= write <= 1.0:
        raise ValueError(f"hot_write_fraction must be in [0, 1]; got {hot_write_fraction!r}")
    return lba, write


def fifo_hotcold_wa(spare: float, hot_lba_fraction: float, hot_write_fraction: float) -> float:
    """Write amplification of FIFO (LRW) cleaning with one hot and one cold class.

    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    hot_lba_fraction: share of logical pages that are hot, in (0, 1).
    hot_write_fraction: share of host writes that go to hot pages, in [0, 1].
    Returns WA in NAND page writes per host page write.

    Desnoyers, SYSTOR 2012 Eq. 14 (TOS 2014 hot/cold LRW model); see fifo_multiclass_wa.
    With hot_write_fraction == hot_lba_fraction the traffic is uniform and this equals
    fifo_wa(spare).
    """
    lba, write = _check_hotcold(hot_lba_fraction, hot_write_fraction)
    return fifo_multiclass_wa(spare, [lba, 1.0 - lba], [write, 1.0 - write])


def greedy_hotcold_wa(spare: float, pages_per_block: int, hot_lba_fraction: float,
                      hot_write_fraction: float) -> float:
    """Write amplification of greedy cleaning with one hot and one cold class, host writes
    and GC copies sharing one write frontier (FtlConfig(gc_frontier="shared")).

    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    pages_per_block: b, pages in one erase block, an integer in [2, 16384].
    hot_lba_fraction: f, share of logical pages that are hot, in (0, 1).
    hot_write_fraction: r, share of host writes that go to hot pages, in [0, 1].
    Returns WA in NAND page writes per host page write.

    Model: Desnoyers, SYSTOR 2012 Eq. 16 (also in TOS 10(2), 2014), as his own released code
    computes it (greedy_hc.m and lru_hc.m, "see SYSTOR '12 Eq. 14", 2012):

        greedy_hc(alpha, b, r, f) = lru_hc(k * alpha, r, f) / k,   k = 1 + 1/(2b),
        lru_hc(alpha, r, f) = the A with
            A = 1 + r / (exp((r/f) (alpha/A)) - 1) + (1-r) / (exp(((1-r)/(1-f)) (alpha/A)) - 1),

    alpha = T/U = 1 / (1 - spare). The form solved here, A = sum_k w_k / (1 - exp(-x w_k /
    (l_k A))), is the same equation term by term (w / (1 - e^-z) = w + w / (e^z - 1)).
    r and f split writes and logical pages; traffic is uniform within each class, one page
    a write. Eq. 14 is the exact LRW balance of the two classes; Eq. 16 gives greedy the
    extra spare k of its uniform-traffic model (Eq. 12), an approximation. His simulator,
    which it was checked against: one write frontier; when it fills it takes a free block
    and, if free blocks then fall below a small reserve (kept outside alpha), greedy cleans
    one victim at a time, copying its valid pages to the frontier before host writes go on;
    among blocks with equally few valid pages, the one longest at that count.

    Measured (`ssdlab bench --physics`, 2^20 pages of 256-page blocks): this engine at the
    shared frontier, breaking greedy ties as his simulator does (victim order "oldest", the
    default), is within 2 % of it at 80/20, 90/10 and 90/5, spare 0.07 to 0.28 (largest
    +1.62 %, at 90/5 and spare 0.07; +1.79 % with the other order, "newest"). The newest
    order costs more under skew as blocks get smaller and spare scarcer: at 90/5, b = 64,
    spare 0.07 it is 4 % above the model, at b = 32, spare 0.03 12 %, where an independent
    simulator with Desnoyers' tie order is within 1.2-1.6 %. GC copies at a separate
    frontier have no model here; they write 1-19 % less than the shared frontier at the
    skews and spares above, more with sharper skew and more spare.
    With r == f the traffic is uniform and this equals greedy_wa_desnoyers(spare, b).
    """
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    lba, write = _check_hotcold(hot_lba_fraction, hot_write_fraction)
    k = 1.0 + 1.0 / (2.0 * b)
    wa = _lrw_multiclass_wa(k / (1.0 - s), [lba, 1.0 - lba], [write, 1.0 - write]) / k
    return max(wa, 1.0)
