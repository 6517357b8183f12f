"""Tests for ssdlab/model/flash/theory/: the analytic write-amplification models.

Independent checks used here: direct fixed-point iteration for FIFO, a hand-solved greedy
case (b = 2), a forward-Euler integration of the d-Choices mean-field ODE, the exact
d = 1 result (WA = 1/spare), and a Jensen bound for skewed FIFO traffic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.flash.theory import (
    extra_from_spare,
    fifo_hotcold_wa,
    fifo_multiclass_wa,
    fifo_wa,
    greedy_hotcold_wa,
    greedy_wa,
    greedy_wa_desnoyers,
    lambert_w0,
    random_d_distribution,
    random_d_wa,
    spare_from_extra,
    wa_for,
)

FAST = settings(max_examples=40, deadline=None)
SPARES = st.floats(min_value=0.01, max_value=0.9, allow_nan=False)
SMALL_BLOCKS = st.sampled_from([2, 3, 4, 8, 16, 32])


# ---------------------------------------------------------------------------- Lambert W ----


@FAST
@given(st.floats(min_value=-1.0 / math.e, max_value=1e6, allow_nan=False))
def test_lambert_w0_satisfies_its_defining_identity(x):
    w = lambert_w0(x)
    assert w >= -1.0
    assert w * math.exp(w) == pytest.approx(x, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (0.0, 0.0),
        (math.e, 1.0),
        (-1.0 / math.e, -1.0),
        (1.0, 0.5671432904097838),  # the omega constant
        (-math.log(2.0) / 2.0, -math.log(2.0)),
        (2.0 * math.exp(2.0), 2.0),
    ],
)
def test_lambert_w0_known_values(x, expected):
    assert lambert_w0(x) == pytest.approx(expected, abs=1e-12)


def test_lambert_w0_refuses_points_below_the_branch():
    with pytest.raises(ValueError, match=r"x must be in \[-1/e, inf\)"):
        lambert_w0(-0.5)
    with pytest.raises(ValueError, match="x must be finite"):
        lambert_w0(math.inf)


# --------------------------------------------------------------------------------- FIFO ----


def _fifo_by_iteration(spare):
    """Iterate u <- exp(-alpha(1 - u)) from u = 0; the map is increasing, so it climbs to the
    smallest fixed point, which is the non-trivial one."""
    alpha = 1.0 / (1.0 - spare)
    u = 0.0
    for _ in range(20000):
        new_u = math.exp(-alpha * (1.0 - u))
        if abs(new_u - u) < 1e-16:
            break
        u = new_u
    return 1.0 / (1.0 - u)


@pytest.mark.parametrize("spare", [0.05, 0.07, 0.1, 0.2, 0.28, 0.5, 0.9])
def test_fifo_matches_direct_fixed_point_iteration(spare):
    assert fifo_wa(spare) == pytest.approx(_fifo_by_iteration(spare), rel=1e-9)


def test_fifo_known_value_at_ten_percent_spare():
    assert fifo_wa(0.1) == pytest.approx(5.178659422149822, rel=1e-12)


def test_fifo_stays_accurate_for_tiny_spare():
    # Small-spare expansion of 1 - exp(-alpha y) = y: 1/y = 1/(2s) + 1/6 + O(s).
    assert fifo_wa(1e-6) == pytest.approx(1.0 / 2e-6 + 1.0 / 6.0, rel=1e-9)


def test_fifo_is_below_random_victim_bound():
    for spare in (0.05, 0.2, 0.6):
        assert 1.0 < fifo_wa(spare) < 1.0 / spare


# ------------------------------------------------------------------------------- Greedy ----


def test_greedy_hand_solved_two_page_blocks():
    # b = 2, rho = 0.9: j = 0 and 1.8 * (1/2 + p) = 1 + p gives p = 1/8, WA = 2 / (9/8).
    assert greedy_wa(0.1, 2) == pytest.approx(16.0 / 9.0, rel=1e-14)


@FAST
@given(SPARES, st.sampled_from([2, 3, 5, 16, 64, 256]))
def test_greedy_satisfies_its_balance_equation(spare, b):
    wa = greedy_wa(spare, b)
    rho = 1.0 - spare
    v = b - b / wa  # mean valid pages in a victim
    if wa == 1.0:
        assert rho * sum(1.0 / i for i in range(1, b + 1)) <= 1.0
        return
    j = min(int(math.floor(v)), b - 1)
    p = j + 1 - v
    tail = sum(1.0 / i for i in range(j + 2, b + 1))
    assert rho * b * (tail + p / (j + 1)) == pytest.approx(b - v, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("b", [16, 64, 256])
def test_greedy_never_worse_than_fifo(b):
    for spare in np.linspace(0.05, 0.5, 19):
        assert greedy_wa(spare, b) <= fifo_wa(spare) * (1.0 + 1e-12)


def test_greedy_rises_towards_fifo_as_blocks_grow():
    values = [greedy_wa(0.1, b) for b in (2, 4, 16, 64, 256, 1024)]
    assert values == sorted(values)
    assert values[-1] == pytest.approx(fifo_wa(0.1), rel=0.01)


def test_greedy_is_one_when_blocks_die_before_collection():
    # rho * H_256 = 0.1 * 6.12 < 1: every victim is already empty.
    assert greedy_wa(0.9, 256) == 1.0


def test_desnoyers_close_to_mean_field_for_big_blocks():
    for spare in (0.05, 0.07, 0.1, 0.125, 0.2, 0.28, 0.4, 0.5):
        assert greedy_wa_desnoyers(spare, 256) == pytest.approx(greedy_wa(spare, 256), rel=0.01)


@pytest.mark.parametrize("b", [4, 8])
@pytest.mark.parametrize("spare", [0.05, 0.1])
def test_desnoyers_drifts_for_small_blocks(spare, b):
    # The continuous-decay approximation undershoots the whole-page model for tiny blocks.
    gap = greedy_wa(spare, b) / greedy_wa_desnoyers(spare, b) - 1.0
    assert gap > 0.03


def test_desnoyers_never_below_one():
    assert greedy_wa_desnoyers(0.9, 256) == 1.0


# ----------------------------------------------------------------------------- Random-d ----


@FAST
@given(SPARES, SMALL_BLOCKS)
def test_random_one_choice_is_one_over_spare(spare, b):
    # A uniformly random victim holds the drive-wide mean of rho*b valid pages.
    assert random_d_wa(spare, b, 1) == pytest.approx(1.0 / spare, rel=1e-9)


@pytest.mark.parametrize("spare", [0.07, 0.3])
def test_random_d_falls_with_d(spare):
    values = [random_d_wa(spare, 32, d) for d in (1, 2, 3, 5, 10, 20, 50)]
    assert all(a > b for a, b in zip(values, values[1:], strict=False))


@pytest.mark.parametrize("b", [16, 64])
@pytest.mark.parametrize("spare", [0.07, 0.2])
def test_random_d_approaches_greedy(spare, b):
    greedy = greedy_wa(spare, b)
    assert greedy <= random_d_wa(spare, b, 100) <= greedy * 1.005


@FAST
@given(SPARES, SMALL_BLOCKS, st.integers(min_value=1, max_value=30))
def test_random_d_distribution_is_a_consistent_profile(spare, b, d):
    x = random_d_distribution(spare, b, d)
    tail = np.cumsum(x[::-1])[::-1]
    assert x.shape == (b + 1,)
    assert np.all(x >= 0.0) and np.all(tail <= 1.0 + 1e-12)
    assert x.sum() == pytest.approx(1.0, abs=1e-12)
    # Valid pages: sum of i * x_i is rho * b.
    assert float(np.arange(b + 1) @ x) == pytest.approx((1.0 - spare) * b, rel=1e-9)
    # Consistency: host writes per cleaning h = b - sum_{i>=1} F_i^d = b / WA.
    h = b - float(np.sum(tail[1:] ** d))
    assert b / h == pytest.approx(random_d_wa(spare, b, d), rel=1e-8)


def _d_choices_ode_wa(spare, b, d, dt=0.02, span=400.0):
    """Forward-Euler integration of the d-Choices mean-field ODE (time in host writes per
    block), started with a fraction rho of blocks full and the rest empty; returns
    b / (host writes per cleaning) at the end."""
    rho = 1.0 - spare
    levels = np.arange(b + 1)
    x = np.zeros(b + 1)
    x[b] = rho
    x[0] = 1.0 - rho
    for _ in range(int(span / dt)):
        tail = np.cumsum(x[::-1])[::-1]
        tail_d = np.append(tail**d, 0.0)
        victim = tail_d[:-1] - tail_d[1:]  # probability the victim sits at each level
        g = 1.0 / (b - tail_d[1:-1].sum())  # cleanings per host write
        decay = levels * x / (rho * b)
        dx = -decay + np.append(decay[1:], 0.0) - g * victim
        dx[b] += g
        x = x + dt * dx
    tail_d = np.cumsum(x[::-1])[::-1] ** d
    return b / (b - tail_d[1:].sum())


@pytest.mark.parametrize(("spare", "b", "d"), [(0.1, 4, 2), (0.25, 6, 3), (0.15, 4, 1)])
def test_random_d_matches_mean_field_ode(spare, b, d):
    assert random_d_wa(spare, b, d) == pytest.approx(_d_choices_ode_wa(spare, b, d), rel=1e-6)


# ---------------------------------------------------------------------- Hot/cold FIFO ----


@FAST
@given(SPARES, st.floats(min_value=0.01, max_value=0.99))
def test_hotcold_with_even_traffic_is_uniform(spare, fraction):
    assert fifo_hotcold_wa(spare, fraction, fraction) == pytest.approx(fifo_wa(spare), rel=1e-10)


def test_multiclass_even_split_is_uniform():
    lbas = [0.5, 0.3, 0.2]
    assert fifo_multiclass_wa(0.1, lbas, lbas) == pytest.approx(fifo_wa(0.1), rel=1e-10)


@FAST
@given(SPARES, st.floats(min_value=0.01, max_value=0.99), st.floats(min_value=0.0, max_value=1.0))
def test_skewed_traffic_never_helps_fifo(spare, lba, write):
    # Jensen: w/(1 - exp(-a w / l)) summed with weights l is convex in w/l.
    wa = fifo_hotcold_wa(spare, lba, write)
    assert fifo_wa(spare) * (1.0 - 1e-10) <= wa <= 1.0 / spare * (1.0 + 1e-10)


def test_hotcold_root_satisfies_its_equation():
    spare, lba, write = 0.1, 0.2, 0.8
    wa = fifo_hotcold_wa(spare, lba, write)
    alpha = 1.0 / (1.0 - spare)
    rhs = sum(
        w / (1.0 - math.exp(-alpha * w / (lo * wa)))
        for lo, w in ((lba, write), (1.0 - lba, 1.0 - write))
    )
    assert rhs == pytest.approx(wa, rel=1e-12)


def test_static_class_is_copied_once_per_trip():
    # A never-written class still occupies space; the solver must take its limit, not 0/0.
    wa = fifo_multiclass_wa(0.2, [0.5, 0.5], [1.0, 0.0])
    assert math.isfinite(wa) and wa > fifo_wa(0.2)


# -------------------------------------------------------------------- Hot/cold greedy ----


@FAST
@given(SPARES, SMALL_BLOCKS, st.floats(min_value=0.01, max_value=0.99))
def test_greedy_hotcold_with_even_traffic_is_desnoyers_uniform(spare, b, fraction):
    assert greedy_hotcold_wa(spare, b, fraction, fraction) == pytest.approx(
        greedy_wa_desnoyers(spare, b), rel=1e-9)


@FAST
@given(SPARES, SMALL_BLOCKS, st.floats(min_value=0.01, max_value=0.99),
       st.floats(min_value=0.0, max_value=1.0))
def test_greedy_hotcold_between_uniform_greedy_and_hotcold_fifo(spare, b, lba, write):
    """Skew never helps one frontier in this model (the LRW balance is convex, as for FIFO),
    and greedy's extra spare k = 1 + 1/(2b) never makes it worse than FIFO."""
    wa = greedy_hotcold_wa(spare, b, lba, write)
    assert greedy_wa_desnoyers(spare, b) * (1 - 1e-9) <= wa
    assert wa <= fifo_hotcold_wa(spare, lba, write) * (1 + 1e-9)


def test_greedy_hotcold_root_satisfies_equation_16():
    """Desnoyers SYSTOR 2012 Eq. 16, checked by plain fixed-point iteration of Eq. 14 at
    the scaled alpha."""
    spare, b, f, r = 0.07, 64, 0.05, 0.9
    k = 1 + 1 / (2 * b)
    x = k / (1 - spare)
    a = 2.0
    for _ in range(20000):
        a = r / (1 - math.exp(-x * r / (f * a))) + (1 - r) / (1 - math.exp(-x * (1 - r) / (
            (1 - f) * a)))
    assert greedy_hotcold_wa(spare, b, f, r) == pytest.approx(a / k, rel=1e-9)


def _desnoyers_lru_hc(alpha: float, r: float, f: float) -> float:
    """Eq. 14 in the form of Desnoyers' own lru_hc.m: the A in (1, 1e4) with
    1 + r/(e^((r/f) alpha/A) - 1) + (1-r)/(e^(((1-r)/(1-f)) alpha/A) - 1) - A = 0."""

    def g(a: float) -> float:
        return (1 + r / math.expm1(r / f * alpha / a)
                + (1 - r) / math.expm1((1 - r) / (1 - f) * alpha / a) - a)

    lo, hi = 1.00001, 1e4
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


@pytest.mark.parametrize(("spare", "b", "r", "f"), [
    (0.03, 32, 0.9, 0.05), (0.07, 64, 0.9, 0.05), (0.07, 128, 0.8, 0.2),
    (0.11, 64, 0.9, 0.05), (0.11, 32, 0.8, 0.2), (0.20, 64, 0.9, 0.05), (0.20, 128, 0.8, 0.2)])
def test_greedy_hotcold_is_desnoyers_greedy_hc_at_his_points(spare, b, r, f):
    """greedy_hc.m: lru_hc(k alpha, r, f) / k with k = 1 + 1/(2b), alpha = 1/(1 - spare), at
    the parameter sets that a Python port of his MATLAB (Y. Oh, 2012) checks for Eq. 16."""
    k = 1 + 1 / (2 * b)
    expected = _desnoyers_lru_hc(k / (1 - spare), r, f) / k
    assert greedy_hotcold_wa(spare, b, f, r) == pytest.approx(expected, rel=1e-9)


# ------------------------------------------------------------------ Monotone in spare ----

_MODELS = {
    "fifo": fifo_wa,
    "greedy-16": lambda s: greedy_wa(s, 16),
    "greedy-256": lambda s: greedy_wa(s, 256),
    "desnoyers-8": lambda s: greedy_wa_desnoyers(s, 8),
    "random-2": lambda s: random_d_wa(s, 16, 2),
    "random-10": lambda s: random_d_wa(s, 16, 10),
    "hotcold": lambda s: fifo_hotcold_wa(s, 0.1, 0.9),
    "greedy-hotcold": lambda s: greedy_hotcold_wa(s, 64, 0.05, 0.9),
}


@pytest.mark.parametrize("name", sorted(_MODELS))
def test_wa_falls_as_spare_grows(name):
    model = _MODELS[name]
    values = [model(s) for s in np.linspace(0.02, 0.9, 23)]
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))
    assert values[0] > values[-1] >= 1.0


# ---------------------------------------------------------------- Conversions, dispatch ----


@FAST
@given(st.floats(min_value=1e-6, max_value=0.9))
def test_spare_extra_round_trip(spare):
    assert spare_from_extra(extra_from_spare(spare)) == pytest.approx(spare, rel=1e-12)


def test_spare_extra_known_values():
    assert extra_from_spare(0.2) == pytest.approx(0.25)
    assert spare_from_extra(0.28) == pytest.approx(0.21875)
    assert spare_from_extra(9.0) == pytest.approx(0.9)


def test_dispatcher_routes_to_models():
    assert wa_for("fifo", 0.1, 64) == fifo_wa(0.1)
    assert wa_for("greedy", 0.1, 64) == greedy_wa(0.1, 64)
    assert wa_for("random-d", 0.1, 64, d=4) == random_d_wa(0.1, 64, 4)
    assert wa_for("fifo", 0.1, 64, hot_lba_fraction=0.2, hot_write_fraction=0.8) == (
        fifo_hotcold_wa(0.1, 0.2, 0.8)
    )
    assert wa_for("greedy", 0.1, 64, hot_lba_fraction=0.2, hot_write_fraction=0.8,
                  frontier="shared") == greedy_hotcold_wa(0.1, 64, 0.2, 0.8)


def test_dispatcher_returns_none_without_a_model():
    assert wa_for("cost-benefit", 0.1, 64) is None
    hot = {"hot_lba_fraction": 0.2, "hot_write_fraction": 0.8}
    # Eq. 16 assumes one frontier: separate GC copies have no model.
    assert wa_for("greedy", 0.1, 64, **hot) is None
    assert wa_for("greedy", 0.1, 64, frontier="separate", **hot) is None
    assert wa_for("random-d", 0.1, 64, d=4, **hot) is None


def test_numpy_scalars_are_accepted():
    assert greedy_wa(np.float64(0.1), np.int64(64)) == greedy_wa(0.1, 64)


# ------------------------------------------------------------------ Argument validation ----


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fifo_wa(1.2), r"spare must be in \(0, 0\.9\]; got 1\.2"),
        (lambda: fifo_wa(0.0), r"spare must be in \(0, 0\.9\]; got 0\.0"),
        (lambda: fifo_wa(-0.1), r"spare must be in \(0, 0\.9\]"),
        (lambda: fifo_wa(math.nan), "spare must be finite"),
        (lambda: fifo_wa(True), "spare must be a real number"),
        (lambda: fifo_wa("0.1"), "spare must be a real number"),
        (lambda: greedy_wa(0.1, 1), r"pages_per_block must be an integer in \[2, 16384\]; got 1"),
        (lambda: greedy_wa(0.1, 2.5), r"pages_per_block must be an integer in \[2, 16384\]"),
        (lambda: greedy_wa_desnoyers(0.1, 0), r"pages_per_block must be an integer"),
        (lambda: random_d_wa(0.1, 16, 0), r"d must be an integer in \[1, 100000\]; got 0"),
        (lambda: random_d_wa(0.1, 1, 2), r"pages_per_block must be an integer"),
        (lambda: fifo_hotcold_wa(0.1, 0.0, 0.5), r"hot_lba_fraction must be in \(0, 1\)"),
        (lambda: fifo_hotcold_wa(0.1, 0.2, 1.5), r"hot_write_fraction must be in \[0, 1\]"),
        (lambda: greedy_hotcold_wa(0.1, 64, 1.0, 0.5), r"hot_lba_fraction must be in \(0, 1\)"),
        (lambda: greedy_hotcold_wa(0.1, 1, 0.2, 0.8), r"pages_per_block must be an integer"),
        (lambda: wa_for("greedy", 0.1, 64, frontier="both"), "frontier must be separate or"),
        (lambda: fifo_multiclass_wa(0.1, [0.5, 0.5], [1.0]), "equal length"),
        (lambda: fifo_multiclass_wa(0.1, [0.5, 0.6], [0.5, 0.5]), "lba_fractions must sum to 1"),
        (lambda: fifo_multiclass_wa(0.1, [0.5, 0.5], [0.9, 0.2]), "write_fractions must sum"),
        (lambda: spare_from_extra(0.0), r"extra_over_user must be in \(0, 9\]; got 0\.0"),
        (lambda: spare_from_extra(10.0), r"extra_over_user must be in \(0, 9\]"),
        (lambda: extra_from_spare(0.95), r"spare must be in \(0, 0\.9\]"),
        (lambda: wa_for("lru", 0.1, 64), "policy must be one of greedy, fifo, random-d"),
        (lambda: wa_for("random-d", 0.1, 64), r"d must be an integer in \[1, 100000\]"),
        (
            lambda: wa_for("fifo", 0.1, 64, hot_lba_fraction=0.2),
            "must be given together",
        ),
    ],
)
def test_arguments_are_checked(call, message):
    with pytest.raises(ValueError, match=message):
        call()
