"""Root finders the models share: bisection of a decreasing function, and the principal
branch of the Lambert W function (Desnoyers' LRW model is written with it)."""

from __future__ import annotations

import math
from collections.abc import Callable

from ssdlab.model.flash.theory.checks import real

INV_E = math.exp(-1.0)


def bisect_decreasing(fn: Callable[[float], float], lo: float, hi: float) -> float:
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
    x = real("x", x)
    if x < -INV_E:
        # Accept a rounding-level undershoot of the branch point, refuse anything further.
        if x < -INV_E * (1.0 + 4e-16):
            raise ValueError(f"x must be in [-1/e, inf) = [{-INV_E!r}, inf); got {x!r}")
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
