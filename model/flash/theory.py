"""Analytic write-amplification (WA) models for uniform random single-page writes.

Setting shared by every function here: the host writes single pages, chosen uniformly at random,
to U logical pages; the drive holds P physical pages in erase blocks of b pages.

* spare ``s = (P - U) / P``: over-provisioning as a fraction of physical flash (dimensionless).
* ``alpha = P / U = 1 / (1 - s)`` and ``rho = U / P = 1 - s`` (dimensionless).
* WA = NAND page writes / host page writes (dimensionless, >= 1).

Every model ignores the free-block pool and the open (partly written) blocks: all P pages are
taken to sit in closed blocks. A simulator that keeps k free blocks in reserve therefore sees an
effective spare of roughly ``s - k * b / P``, which matters when the drive has few blocks.

Sources (each function names the equation it implements):

* P. Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012; extended as
  "Analytic models of SSD write performance", ACM TOS 10(2), 2014. Equation numbers below
  are those of the SYSTOR 2012 paper (Eq. 4 LRW, Eq. 12 greedy, Eq. 14 hot/cold LRW,
  Eq. 16 hot/cold greedy), checked against his released code: the simulator
  github.com/pjd-nu/sssl-ftlsim and his MATLAB lru_hc.m / greedy_hc.m (copies kept in
  github.com/ZiyangJiao/FTLSim-WL, ftlsim-0.4). The TOS version's numbering was not checked.
* X.-Y. Hu, E. Eleftheriou, R. Haas, I. Iliadis, R. Pletka, "Write amplification analysis in
  flash-based solid state drives", SYSTOR 2009 (the FIFO / LRW cleaning model).
* B. Van Houdt, "A mean field model for a class of garbage collection algorithms in
  flash-based solid state drives", SIGMETRICS 2013 (journal version: Queueing Systems 77(2),
  2014). Used for the d-Choices fixed point and for greedy as its d -> infinity limit. The
  derivations below were redone here from the model's assumptions; section numbers of that
  paper were not checked.

All functions are pure: they read only their arguments and return floats (or None where no
model exists).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

SPARE_MIN = 0.0  # exclusive
SPARE_MAX = 0.9  # inclusive
EXTRA_MAX = SPARE_MAX / (1.0 - SPARE_MAX)  # extra-over-user that matches SPARE_MAX (9.0)
PAGES_PER_BLOCK_MIN = 2
PAGES_PER_BLOCK_MAX = 16384
D_MIN = 1
D_MAX = 100_000
POLICIES = ("greedy", "fifo", "random-d", "cost-benefit")

_INV_E = math.exp(-1.0)
_FRACTION_SUM_TOL = 1e-9


# --------------------------------------------------------------------------------------------
# Argument checks. Each raises ValueError naming the argument and its allowed range.
# --------------------------------------------------------------------------------------------


def _real(name: str, value: object) -> float:
    """Return value as a finite float, or raise ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a real number; got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be finite; got {value!r}")
    return out


def _integer(name: str, value: object, lo: int, hi: int) -> int:
    """Return value as an int in [lo, hi], or raise ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {value!r}")
    out = int(value)
    if not lo <= out <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {out}")
    return out


def _check_spare(spare: object) -> float:
    s = _real("spare", spare)
    if not SPARE_MIN < s <= SPARE_MAX:
        raise ValueError(f"spare must be in (0, {SPARE_MAX}]; got {spare!r}")
    return s


def _check_pages_per_block(pages_per_block: object) -> int:
    return _integer("pages_per_block", pages_per_block, PAGES_PER_BLOCK_MIN, PAGES_PER_BLOCK_MAX)


def _check_d(d: object) -> int:
    return _integer("d", d, D_MIN, D_MAX)


# --------------------------------------------------------------------------------------------
# Small numerical helpers.
# --------------------------------------------------------------------------------------------


def _bisect_decreasing(fn: Callable[[float], float], lo: float, hi: float) -> float:
    """Root of a decreasing function with fn(lo) > 0 >= fn(hi), to float precision."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if fn(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def lambert_w0(x: float) -> float:
    """Principal branch W0 of the Lambert W function: the w >= -1 with w * exp(w) = x.

    x: any real number in [-1/e, inf) (dimensionless). Returns w (dimensionless).
    Halley iteration from a branch-point series (x near -1/e), log1p(x) (moderate x) or the
    asymptotic log x - log log x (large x); the residual w*exp(w) - x ends near rounding level
    and w is accurate to about 1e-12 away from the branch point (at x = -1/e + eps the
    function itself has an infinite slope, so only the residual can be that small).
    """
    x = _real("x", x)
    if x < -_INV_E:
        # Accept a rounding-level undershoot of the branch point, refuse anything further.
        if x < -_INV_E * (1.0 + 4e-16):
            raise ValueError(f"x must be in [-1/e, inf) = [{-_INV_E!r}, inf); got {x!r}")
        return -1.0
    if x == 0.0:
        return 0.0
    w = _w0_initial_guess(x)
    for _ in range(100):
        step = _halley_step(w, x)
        w -= step
        if abs(step) <= 1e-15 * (1.0 + abs(w)):
            break
    return w


def _w0_initial_guess(x: float) -> float:
    """Starting point for the Halley iteration of lambert_w0 (dimensionless)."""
    if x < -0.3:
        p = math.sqrt(max(2.0 * (math.e * x + 1.0), 0.0))
        return -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p**3
    if x < math.e:
        return math.log1p(x)
    l1 = math.log(x)
    l2 = math.log(l1)
    return l1 - l2 + l2 / l1


def _halley_step(w: float, x: float) -> float:
    """Halley correction for f(w) = w*exp(w) - x; returns the amount to subtract from w."""
    ew = math.exp(w)
    f = w * ew - x
    wp1 = w + 1.0
    if wp1 == 0.0:
        return 0.0
    denom = ew * wp1 - (w + 2.0) * f / (2.0 * wp1)
    if denom == 0.0:
        return 0.0
    return f / denom


# --------------------------------------------------------------------------------------------
# FIFO / LRW cleaning (uniform traffic).
# --------------------------------------------------------------------------------------------


def _lrw_wa_from_alpha(alpha: float) -> float:
    """LRW write amplification for a physical/user ratio alpha > 1 (dimensionless).

    Desnoyers SYSTOR 2012, Eq. 4: WA = alpha / (alpha + W0(-alpha * exp(-alpha))).
    For spare near 0 the argument of W0 sits at the branch point and alpha + W0 cancels, so
    the closed form only seeds Newton's method on the freed fraction y = 1/WA, the non-zero
    root of g(y) = 1 - exp(-alpha*y) - y (computed with expm1, free of cancellation). g is
    concave, so Newton started right of the root (g <= 0) descends to it monotonically.
    Relative accuracy is about 1e-16 / spare, limited by rounding in alpha - 1.
    """
    y = (alpha + lambert_w0(-alpha * math.exp(-alpha))) / alpha
    if not 0.0 < y <= 1.0 or -math.expm1(-alpha * y) - y > 0.0:
        y = 1.0
    for _ in range(200):
        slope = alpha * math.exp(-alpha * y) - 1.0
        if slope >= 0.0:
            break
        step = (-math.expm1(-alpha * y) - y) / slope
        if step <= 0.0 or step <= 1e-16 * y:
            break
        y -= step
    return 1.0 / y


def fifo_wa(spare: float) -> float:
    """Write amplification of FIFO (least-recently-written) cleaning under uniform writes.

    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    Returns WA in NAND page writes per host page write.

    Model (Hu et al., SYSTOR 2009; Desnoyers, SYSTOR 2012 Eq. 4 / TOS 2014, LRW model):
    a page waits one full trip round the log before its block is cleaned; the fraction u of
    pages still valid then solves u = exp(-alpha * (1 - u)). The non-trivial root is
    u = -W0(-alpha e^-alpha) / alpha, so WA = 1 / (1 - u) = alpha / (alpha + W0(...)).

    Finite b: in this model WA does not depend on pages_per_block. In a real FIFO log the
    pages of one block wait slightly different times (by at most one block's worth of
    writes out of P), and the free-block reserve eats about (reserve blocks * b) / P of the
    spare; both corrections shrink as the number of blocks P/b grows, not as b grows.
    """
    s = _check_spare(spare)
    return _lrw_wa_from_alpha(1.0 / (1.0 - s))


# --------------------------------------------------------------------------------------------
# Greedy cleaning.
# --------------------------------------------------------------------------------------------


def _harmonic_tails(b: int) -> list[float]:
    """tails[j] = H_b - H_(j+1) = sum of 1/i for i = j+2 .. b, for j = 0 .. b-1."""
    tails = [0.0] * b
    acc = 0.0
    for j in range(b - 2, -1, -1):
        acc += 1.0 / (j + 2)
        tails[j] = acc
    return tails


def _greedy_victim_level(rho: float, b: int) -> tuple[int, float]:
    """Victim level (j, p) of the greedy mean-field model; see greedy_wa for the equation.

    rho: U / P (dimensionless). b: pages per block. Victims hold j valid pages with probability
    p and j + 1 with probability 1 - p, so the mean victim level is v = j + 1 - p.
    f(v) = rho*b*(H_b - H_(j+1) + p/(j+1)) - (b - v) is piecewise linear in v, falls from
    v = 0 to v ~ rho*b and climbs back to the trivial root f(b) = 0; the wanted root is its
    first zero, found by scanning the integer levels and solving the linear piece exactly.
    """
    harmonic_b = math.fsum(1.0 / i for i in range(1, b + 1))
    if rho * b * harmonic_b <= b:
        # Blocks die completely before greedy needs them: victims are empty, WA = 1.
        return 0, 1.0
    tails = _harmonic_tails(b)
    for j in range(b):
        f_at_p0 = rho * b * tails[j] - (b - j - 1)
        if f_at_p0 <= 0.0:
            slope = rho * b / (j + 1) - 1.0
            p = min(max(-f_at_p0 / slope, 0.0), 1.0) if slope > 0.0 else 0.0
            return j, p
    return b - 1, 0.0  # unreachable for rho < 1: f dips below zero before v = b


def greedy_wa(spare: float, pages_per_block: int) -> float:
    """Write amplification of greedy cleaning: exact mean-field model for finite block size.

    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    pages_per_block: b, pages in one erase block, an integer in [2, 16384]. b = 1 is refused:
    with one-page blocks a block is either fully valid or empty, so cleaning never copies
    anything and the mean-field equation degenerates (0 / 0).
    Returns WA in NAND page writes per host page write.

    Model (Van Houdt, SIGMETRICS 2013, greedy as the d -> infinity limit of d-Choices;
    derivation redone here). Blocks close with b valid pages; each valid page dies at rate
    1/U per host write; greedy takes victims at level j with probability p and at level j+1
    with probability 1-p. With g = 1/(b - j - 1 + p) cleanings per host write, the block
    counts are n_i = g*U/i for i = j+2..b and n_(j+1) = p*g*U/(j+1). Requiring the blocks to
    fill the drive (sum n_i = P/b) gives

        rho * b * (H_b - H_(j+1) + p/(j+1)) = b - j - 1 + p,      H_n = harmonic numbers,

    and WA = b / (b - j - 1 + p). When rho * H_b <= 1 the victims are empty and WA = 1.
    """
    s = _check_spare(spare)
    b = _check_pages_per_block(pages_per_block)
    j, p = _greedy_victim_level(1.0 - s, b)
    return b / (b - j - 1 + p)


def greedy_wa_desnoyers(spare: float, pages_per_block: int) -> float:
    """Desnoyers' closed-form approximation of greedy write amplification.

    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    pages_per_block: b, pages in one erase block, an integer in [2, 16384].
    Returns WA in NAND page writes per host page write.

    Model (Desnoyers, SYSTOR 2012 Eq. 12; TOS 2014 greedy model): the number of valid pages
    in a block is treated as decaying continuously, which replaces the harmonic difference
    H_b - H_v of greedy_wa by ln((b + 1/2) / (v + 1/2)). The balance then has the LRW form
    with alpha scaled by k = 1 + 1/(2b): WA = WA_LRW(k * alpha) / k.

    This is an approximation: it agrees with greedy_wa to well within 1 % at b = 256 but
    drifts for small blocks and small spare (about 11 % low at b = 4, spare 0.1), where the
    continuous decay is a poor stand-in for whole pages dying one at a time; the gap is not
    monotone in spare, because the exact model bends each time the victim level crosses a
    whole page (at b = 8 it is about 4 % at spare 0.1 but near 0 at 0.07). At very large
    spare the raw formula dips just below 1; the result is clamped to 1, the physical floor.
    """
    s = _check_spare(spare)
    b = _check_pages_per_block(pages_per_block)
    k = 1.0 + 1.0 / (2.0 * b)
    return max(_lrw_wa_from_alpha(k / (1.0 - s)) / k, 1.0)


# --------------------------------------------------------------------------------------------
# d-Choices (random-d) cleaning.
# --------------------------------------------------------------------------------------------


def _solve_level(a: float, f_above: float, d: int) -> float:
    """The x in [0, 1 - f_above] with a*x = 1 - (f_above + x)**d (all dimensionless).

    q(x) = a*x + (f_above + x)**d - 1 is increasing and convex, so Newton's method started to
    the right of the root (where q >= 0) walks down to it monotonically.
    """
    room = 1.0 - f_above
    if room <= 0.0:
        return 0.0
    x = min(room, 1.0 / a) if a > 0.0 else room
    for _ in range(200):
        y = f_above + x
        q = a * x + y**d - 1.0
        dq = a + d * y ** (d - 1)
        new_x = max(x - q / dq, 0.0)
        if new_x >= x or x - new_x <= 1e-15 * x:
            return new_x if new_x < x else x
        x = new_x
    return x


def _d_choices_tail(h: float, rho: float, b: int, d: int) -> list[float]:
    """F_i = fraction of blocks with at least i valid pages, for i = 0 .. b (dimensionless).

    h: host writes per cleaning (pages). Solves (h/(rho*b)) * i * x_i = 1 - F_i**d downward
    from i = b, with F_(b+1) = 0 and F_0 = 1.
    """
    c = h / (rho * b)
    tail = [0.0] * (b + 1)
    f_above = 0.0
    for i in range(b, 0, -1):
        f_above = min(f_above + _solve_level(c * i, f_above, d), 1.0)
        tail[i] = f_above
    tail[0] = 1.0
    return tail


def _d_choices_host_writes(rho: float, b: int, d: int) -> float:
    """Host writes per cleaning h (pages) at the d-Choices mean-field fixed point.

    The balance equations alone hold for any h; the valid-page count picks h out. Summing the
    balance over i gives b - sum F_i**d = (h/(rho b)) * sum F_i, so the consistency condition
    h = b - sum F_i**d is the same as sum_{i>=1} F_i = rho * b (every valid page is somewhere).
    sum F_i falls as h grows and is below rho*b at h = b, so bisection on (0, b] finds it.
    """

    def excess_valid(h: float) -> float:
        return math.fsum(_d_choices_tail(h, rho, b, d)[1:]) - rho * b

    return _bisect_decreasing(excess_valid, 0.0, float(b))


def random_d_wa(spare: float, pages_per_block: int, d: int) -> float:
    """Write amplification of d-Choices cleaning (victim = emptiest of d random blocks).

    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    pages_per_block: b, pages in one erase block, an integer in [2, 16384].
    d: blocks sampled uniformly at random with replacement per cleaning, integer in [1, 1e5].
    Returns WA in NAND page writes per host page write.

    Model (Van Houdt, SIGMETRICS 2013, d-Choices mean-field fixed point; derivation redone
    here). With x_i the fraction of blocks holding i valid pages, F_i = sum_{k>=i} x_k and
    h host writes per cleaning, counting blocks at level >= i over one cleaning gives
    (h/(rho*b)) * i * x_i = 1 - F_i**d for i = 1..b; conservation of valid pages fixes h, and
    WA = b / h.

    d = 1 (a uniformly random victim): the victim holds on average the drive-wide mean,
    rho*b valid pages, so h = b*(1 - rho) and WA = 1/spare exactly, for every b.
    As d grows the result falls towards greedy_wa(spare, b).
    """
    s = _check_spare(spare)
    b = _check_pages_per_block(pages_per_block)
    dd = _check_d(d)
    return b / _d_choices_host_writes(1.0 - s, b, dd)


def random_d_distribution(spare: float, pages_per_block: int, d: int) -> np.ndarray:
    """Fractions x_0 .. x_b of blocks holding 0 .. b valid pages under d-Choices cleaning.

    Arguments as in random_d_wa (spare: fraction of physical pages; pages_per_block: pages;
    d: sample size). Returns a float array of length b + 1 (dimensionless, sums to 1) from
    the same mean-field fixed point (Van Houdt, SIGMETRICS 2013).
    """
    s = _check_spare(spare)
    b = _check_pages_per_block(pages_per_block)
    dd = _check_d(d)
    rho = 1.0 - s
    tail = np.array(_d_choices_tail(_d_choices_host_writes(rho, b, dd), rho, b, dd) + [0.0])
    return np.clip(tail[:-1] - tail[1:], 0.0, 1.0)


# --------------------------------------------------------------------------------------------
# FIFO / LRW cleaning with several traffic classes.
# --------------------------------------------------------------------------------------------


def _check_classes(
    lba_fractions: Sequence[float], write_fractions: Sequence[float]
) -> tuple[list[float], list[float]]:
    """Validate per-class LBA and write fractions; return them as float lists."""
    lbas = [_real("lba_fractions", v) for v in lba_fractions]
    writes = [_real("write_fractions", v) for v in write_fractions]
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
    return _bisect_decreasing(excess, 1.0, alpha / (alpha - 1.0))


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
    s = _check_spare(spare)
    lbas, writes = _check_classes(lba_fractions, write_fractions)
    return _lrw_multiclass_wa(1.0 / (1.0 - s), lbas, writes)


def _check_hotcold(hot_lba_fraction: object, hot_write_fraction: object) -> tuple[float, float]:
    lba = _real("hot_lba_fraction", hot_lba_fraction)
    write = _real("hot_write_fraction", hot_write_fraction)
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

    Measured (`ssdlab bench --physics`, 2^22 pages of 256-page blocks): this engine at the
    shared frontier is within 2 % of it at 80/20, 90/10 and 90/5, spare 0.07 to 0.28
    (largest +1.2 %, at 90/5 and spare 0.07). This engine breaks greedy ties the other way
    (newest at its count first), which costs more under skew as blocks get smaller and spare
    scarcer: at 90/5, b = 64, spare 0.07 it is 4 % above the model, at b = 32, spare 0.03
    12 %, where an independent simulator with Desnoyers' tie order is within 1.2-1.6 %.
    GC copies at a separate frontier have no model here; they write 0.5-18 % less than the
    shared frontier at the skews and spares above, more with sharper skew and more spare.
    With r == f the traffic is uniform and this equals greedy_wa_desnoyers(spare, b).
    """
    s = _check_spare(spare)
    b = _check_pages_per_block(pages_per_block)
    lba, write = _check_hotcold(hot_lba_fraction, hot_write_fraction)
    k = 1.0 + 1.0 / (2.0 * b)
    wa = _lrw_multiclass_wa(k / (1.0 - s), [lba, 1.0 - lba], [write, 1.0 - write]) / k
    return max(wa, 1.0)


# --------------------------------------------------------------------------------------------
# Over-provisioning conversions and the dispatcher.
# --------------------------------------------------------------------------------------------


def spare_from_extra(extra_over_user: float) -> float:
    """Spare as a fraction of physical capacity from extra capacity as a fraction of user.

    extra_over_user: (P - U) / U = P/U - 1, in (0, 9] (dimensionless).
    Returns spare (P - U) / P = extra / (1 + extra), in (0, 0.9].
    """
    e = _real("extra_over_user", extra_over_user)
    if not 0.0 < e <= EXTRA_MAX * (1.0 + 1e-12):
        raise ValueError(f"extra_over_user must be in (0, {EXTRA_MAX:g}]; got {extra_over_user!r}")
    return min(e / (1.0 + e), SPARE_MAX)


def extra_from_spare(spare: float) -> float:
    """Extra capacity as a fraction of user capacity from spare as a fraction of physical.

    spare: (P - U) / P, in (0, 0.9] (dimensionless).
    Returns extra_over_user (P - U) / U = spare / (1 - spare), in (0, 9].
    """
    s = _check_spare(spare)
    return s / (1.0 - s)


def wa_for(
    policy: str,
    spare: float,
    pages_per_block: int,
    d: int | None = None,
    hot_lba_fraction: float | None = None,
    hot_write_fraction: float | None = None,
    frontier: str = "separate",
) -> float | None:
    """Predicted write amplification for a GC policy, or None where no model is implemented.

    policy: one of "greedy", "fifo", "random-d", "cost-benefit".
    spare: (P - U) / P, a fraction of physical pages in (0, 0.9].
    pages_per_block: pages in one erase block, an integer in [2, 16384] (checked for every
    policy, though FIFO's model does not use it).
    d: sample size for "random-d" (required there, ignored elsewhere).
    hot_lba_fraction, hot_write_fraction: give both for hot/cold traffic, or neither.
    frontier: "separate" or "shared", where GC copies go (FtlConfig.gc_frontier); only the
    greedy hot/cold model depends on it.
    Returns WA in NAND page writes per host page write, or None:

    * "greedy": greedy_wa (finite-b mean field); with hot/cold traffic greedy_hotcold_wa at
      the shared frontier, None at separate ones (no model: the measured gap is the
      benefit of separating).
    * "fifo": fifo_wa, or fifo_hotcold_wa with hot/cold traffic.
    * "random-d": random_d_wa; None with hot/cold traffic.
    * "cost-benefit": always None; there is no closed or mean-field model for it here.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    s = _check_spare(spare)
    b = _check_pages_per_block(pages_per_block)
    if (hot_lba_fraction is None) != (hot_write_fraction is None):
        raise ValueError(
            "hot_lba_fraction and hot_write_fraction must be given together or not at all; "
            f"got {hot_lba_fraction!r} and {hot_write_fraction!r}"
        )
    hot_cold = hot_lba_fraction is not None
    if policy == "random-d" and d is None:
        raise ValueError(f"d must be an integer in [{D_MIN}, {D_MAX}] for random-d; got None")
    if frontier not in ("separate", "shared"):
        raise ValueError(f"frontier must be separate or shared; got {frontier!r}")
    if policy == "greedy" and hot_cold:
        if frontier != "shared":
            return None
        return greedy_hotcold_wa(s, b, hot_lba_fraction, hot_write_fraction)
    if policy == "cost-benefit" or (hot_cold and policy != "fifo"):
        return None
    if policy == "fifo":
        if hot_cold:
            return fifo_hotcold_wa(s, hot_lba_fraction, hot_write_fraction)
        return fifo_wa(s)
    if policy == "greedy":
        return greedy_wa(s, b)
    return random_d_wa(s, b, d)

