"""Argument checks for the analytic models: each raises ValueError naming the argument and
its allowed range, so a bad call from the command line or a scenario reads as one line."""

from __future__ import annotations

import math

import numpy as np

SPARE_MIN = 0.0  # exclusive
SPARE_MAX = 0.9  # inclusive
EXTRA_MAX = SPARE_MAX / (1.0 - SPARE_MAX)  # extra-over-user that matches SPARE_MAX (9.0)
PAGES_PER_BLOCK_MIN = 2
PAGES_PER_BLOCK_MAX = 16384
D_MIN = 1
D_MAX = 100_000
POLICIES = ("greedy", "fifo", "random-d", "cost-benefit")


def real(name: str, value: object) -> float:
    """Return value as a finite float, or raise ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a real number; got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be finite; got {value!r}")
    return out


def integer(name: str, value: object, lo: int, hi: int) -> int:
    """Return value as an int in [lo, hi], or raise ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {value!r}")
    out = int(value)
    if not lo <= out <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {out}")
    return out


def check_spare(spare: object) -> float:
    s = real("spare", spare)
    if not SPARE_MIN < s <= SPARE_MAX:
        raise ValueError(f"spare must be in (0, {SPARE_MAX}]; got {spare!r}")
    return s


def check_pages_per_block(pages_per_block: object) -> int:
    return integer("pages_per_block", pages_per_block, PAGES_PER_BLOCK_MIN, PAGES_PER_BLOCK_MAX)


def check_d(d: object) -> int:
    return integer("d", d, D_MIN, D_MAX)
