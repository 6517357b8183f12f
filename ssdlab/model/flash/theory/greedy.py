"""Greedy and d-Choices (random-d) cleaning under uniform writes: the finite-b mean field
(Van Houdt 2013), Desnoyers' Eq. 12, and the d-Choices fixed point."""

from __future__ import annotations

import functools
import math

import numpy as np

from ssdlab.model.flash.theory.checks import check_d, check_pages_per_block, check_spare
from ssdlab.model.flash.theory.lrw import lrw_wa_from_alpha
from ssdlab.model.flash.theory.roots import bisect_decreasing


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
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
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
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    k = 1.0 + 1.0 / (2.0 * b)
    return max(lrw_wa_from_alpha(k / (1.0 - s)) / k, 1.0)


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


@functools.lru_cache(maxsize=1024)  # a bisection of b Newton solves: windows ask often
def _d_choices_host_writes(rho: float, b: int, d: int) -> float:
    """Host writes per cleaning h (pages) at the d-Choices mean-field fixed point.

    The balance equations alone hold for any h; the valid-page count picks h out. Summing the
    balance over i gives b - sum F_i**d = (h/(rho b)) * sum F_i, so the consistency condition
    h = b - sum F_i**d is the same as sum_{i>=1} F_i = rho * b (every valid page is somewhere).
    sum F_i falls as h grows and is below rho*b at h = b, so bisection on (0, b] finds it.
    """

    def excess_valid(h: float) -> float:
        return math.fsum(_d_choices_tail(h, rho, b, d)[1:]) - rho * b

    return bisect_decreasing(excess_valid, 0.0, float(b))


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
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    dd = check_d(d)
    return b / _d_choices_host_writes(1.0 - s, b, dd)


def random_d_distribution(spare: float, pages_per_block: int, d: int) -> np.ndarray:
    """Fractions x_0 .. x_b of blocks holding 0 .. b valid pages under d-Choices cleaning.

    Arguments as in random_d_wa (spare: fraction of physical pages; pages_per_block: pages;
    d: sample size). Returns a float array of length b + 1 (dimensionless, sums to 1) from
    the same mean-field fixed point (Van Houdt, SIGMETRICS 2013).
    """
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    dd = check_d(d)
    rho = 1.0 - s
    tail = np.array(_d_choices_tail(_d_choices_host_writes(rho, b, dd), rho, b, dd) + [0.0])
    return np.clip(tail[:-1] - tail[1:], 0.0, 1.0)
