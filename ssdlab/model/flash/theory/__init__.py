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
model exists). The package holds one family of models a module (lrw: FIFO; greedy: greedy
and d-Choices; hotcold: several traffic classes; pools: hot and cold data kept apart), their
argument checks (checks) and root finders (roots); this module names them all and picks one
for a drive (wa_for).
"""

from __future__ import annotations

from ssdlab.model.flash.theory.checks import (
    D_MAX,
    D_MIN,
    EXTRA_MAX,
    PAGES_PER_BLOCK_MAX,
    PAGES_PER_BLOCK_MIN,
    POLICIES,
    SPARE_MAX,
    SPARE_MIN,
    check_pages_per_block,
    check_spare,
    real,
)
from ssdlab.model.flash.theory.compressed import (
    compressed_blocks,
    compressed_effective_spare,
    compressed_greedy_wa,
)
from ssdlab.model.flash.theory.greedy import (
    greedy_wa,
    greedy_wa_desnoyers,
    random_d_distribution,
    random_d_wa,
)
from ssdlab.model.flash.theory.hotcold import fifo_hotcold_wa, fifo_multiclass_wa, greedy_hotcold_wa
from ssdlab.model.flash.theory.lrw import fifo_wa
from ssdlab.model.flash.theory.pools import best_two_pool_split, pool_spare, two_pool_wa
from ssdlab.model.flash.theory.roots import lambert_w0

__all__ = [
    "D_MAX", "D_MIN", "EXTRA_MAX", "PAGES_PER_BLOCK_MAX", "PAGES_PER_BLOCK_MIN", "POLICIES",
    "SPARE_MAX", "SPARE_MIN", "compressed_blocks", "compressed_effective_spare",
    "best_two_pool_split", "compressed_greedy_wa", "extra_from_spare", "fifo_hotcold_wa",
    "fifo_multiclass_wa", "fifo_wa", "greedy_hotcold_wa", "greedy_wa", "greedy_wa_desnoyers",
    "lambert_w0", "pool_spare", "random_d_distribution", "random_d_wa", "spare_from_extra",
    "two_pool_wa", "wa_for",
]


def spare_from_extra(extra_over_user: float) -> float:
    """Spare as a fraction of physical capacity from extra capacity as a fraction of user.

    extra_over_user: (P - U) / U = P/U - 1, in (0, 9] (dimensionless).
    Returns spare (P - U) / P = extra / (1 + extra), in (0, 0.9].
    """
    e = real("extra_over_user", extra_over_user)
    if not 0.0 < e <= EXTRA_MAX * (1.0 + 1e-12):
        raise ValueError(f"extra_over_user must be in (0, {EXTRA_MAX:g}]; got {extra_over_user!r}")
    return min(e / (1.0 + e), SPARE_MAX)


def extra_from_spare(spare: float) -> float:
    """Extra capacity as a fraction of user capacity from spare as a fraction of physical.

    spare: (P - U) / P, in (0, 0.9] (dimensionless).
    Returns extra_over_user (P - U) / U = spare / (1 - spare), in (0, 9].
    """
    s = check_spare(spare)
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
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
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
