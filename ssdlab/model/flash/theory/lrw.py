"""FIFO (least recently written) cleaning under uniform writes: Hu et al. 2009 and
Desnoyers' Eq. 4."""

from __future__ import annotations

import math

from ssdlab.model.flash.theory.checks import check_spare
from ssdlab.model.flash.theory.roots import lambert_w0


def lrw_wa_from_alpha(alpha: float) -> float:
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
    s = check_spare(spare)
    return lrw_wa_from_alpha(1.0 / (1.0 - s))
