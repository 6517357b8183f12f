"""Hot and cold data kept apart: two pools of blocks, each cleaned on its own.

Setting: U logical pages, a share l of them hot, taking a share w of the host writes
(uniform within each class), on P physical pages. A host that tags every write with its
class, on a drive that keeps the classes in separate blocks and cleans each class's blocks
only into its own, splits the drive into two pools. Pool k holds l_k U logical pages in a
share p_k of the P physical pages, so its own spare is

    s_k = 1 - l_k (1 - s) / p_k,      s = (P - U) / P the drive's spare,

and, the traffic inside a pool being uniform, it cleans as a drive of uniform traffic at
that spare. The drive's write amplification is the writes' mix of the two:

    WA = w * WA_greedy(s_hot) + (1 - w) * WA_greedy(s_cold).

With the physical space split as the logical space is (p_k = l_k) both pools have the
drive's spare, and WA is that of uniform traffic whatever the skew: this is the argument
of Desnoyers (SYSTOR 2012 and TOS 2014, their abstracts) that separating hot and cold data
removes the loss that skew costs greedy cleaning, and that moving free space from the cold
pool to the hot one gains more. best_two_pool_split finds the split of the least WA. Each
pool uses Desnoyers' greedy approximation (greedy.greedy_wa_desnoyers, his Eq. 12); the
pool equations are written here from the model's assumptions, not taken from his text.
"""

from __future__ import annotations

import math

from ssdlab.model.flash.theory.checks import SPARE_MAX, check_pages_per_block, check_spare, real
from ssdlab.model.flash.theory.greedy import greedy_wa_desnoyers
from ssdlab.model.flash.theory.hotcold import _check_hotcold

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def pool_spare(spare: float, lba_fraction: float, physical_fraction: float) -> float:
    """A pool's own spare, 1 - l (1 - s) / p (dimensionless): the share of its physical
    pages its logical pages leave free. spare: the drive's, (P - U) / P; lba_fraction l:
    the pool's share of the logical pages; physical_fraction p: its share of the physical
    pages."""
    return 1.0 - lba_fraction * (1.0 - spare) / physical_fraction


def two_pool_wa(spare: float, pages_per_block: int, hot_lba_fraction: float,
                hot_write_fraction: float, hot_physical_fraction: float | None = None
                ) -> float:
    """Write amplification of hot and cold data kept in two pools, each cleaned greedily.

    spare: (P - U) / P, the drive's spare, in (0, 0.9].
    pages_per_block: b, pages in one erase block, an integer in [2, 16384].
    hot_lba_fraction: share of logical pages that are hot, in (0, 1).
    hot_write_fraction: share of host writes that go to hot pages, in [0, 1].
    hot_physical_fraction: the hot pool's share of the physical pages; None: the same as
        its share of the logical pages (both pools at the drive's spare). Each pool's own
        spare (pool_spare) must come out in (0, 0.9].
    Returns WA in NAND page writes per host page write (see the module's docstring).
    """
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    lba, write = _check_hotcold(hot_lba_fraction, hot_write_fraction)
    if hot_physical_fraction is None:
        return greedy_wa_desnoyers(s, b)  # both pools at the drive's spare
    p = real("hot_physical_fraction", hot_physical_fraction)
    lo, hi = _split_range(s, lba)
    if not lo <= p <= hi:
        raise ValueError(f"hot_physical_fraction must be from {lo:.6g} to {hi:.6g} here "
                         f"(each pool's own spare in (0, {SPARE_MAX}]); got "
                         f"{hot_physical_fraction!r}")
    return _mix(s, b, lba, write, p)


def best_two_pool_split(spare: float, pages_per_block: int, hot_lba_fraction: float,
                        hot_write_fraction: float) -> tuple[float, float]:
    """The split of the physical pages between the hot and the cold pool that gives the
    least two_pool_wa: (that WA, the hot pool's share of the physical pages). Arguments as
    two_pool_wa's. Found by golden-section search (the mix is convex in the split: each
    pool's WA falls, ever more slowly, as it is given more space), to about 1e-9."""
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    lba, write = _check_hotcold(hot_lba_fraction, hot_write_fraction)
    lo, hi = _split_range(s, lba)
    a, c = lo, hi
    x1, x2 = c - _GOLDEN * (c - a), a + _GOLDEN * (c - a)
    f1, f2 = _mix(s, b, lba, write, x1), _mix(s, b, lba, write, x2)
    while c - a > 1e-10:
        if f1 <= f2:
            c, x2, f2 = x2, x1, f1
            x1 = c - _GOLDEN * (c - a)
            f1 = _mix(s, b, lba, write, x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + _GOLDEN * (c - a)
            f2 = _mix(s, b, lba, write, x2)
    best = 0.5 * (a + c)
    return _mix(s, b, lba, write, best), best


def _split_range(s: float, lba: float) -> tuple[float, float]:
    """The hot pool's physical shares that leave both pools a spare in (0, 0.9]: a pool of
    logical share l and physical share p has spare 1 - l (1 - s) / p, which is above 0 when
    p > l (1 - s) and at most 0.9 when p <= l (1 - s) / 0.1; the cold pool has 1 - p."""
    used = 1.0 - s
    top = 1.0 - SPARE_MAX
    lo = max(lba * used * (1.0 + 1e-12), 1.0 - (1.0 - lba) * used / top)
    hi = min(lba * used / top, 1.0 - (1.0 - lba) * used * (1.0 + 1e-12))
    return lo, hi


def _mix(s: float, b: int, lba: float, write: float, p: float) -> float:
    hot = greedy_wa_desnoyers(pool_spare(s, lba, p), b)
    cold = greedy_wa_desnoyers(pool_spare(s, 1.0 - lba, 1.0 - p), b)
    return write * hot + (1.0 - write) * cold
