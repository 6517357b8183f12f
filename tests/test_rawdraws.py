"""RawDraws gives exactly the values a numpy Generator's own calls give, one at a time, and
leaves the Generator where those calls would have: the kernel tree is built with it, and
every lesson's figures depend on that tree being the same file for file."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.host.rawdraws import RawDraws

# one draw: ("int", low, span) | ("choice", weights, size or None) | ("random", n)
DRAW = st.one_of(
    st.tuples(st.just("int"), st.integers(-5, 5), st.integers(1, 2**32)),
    st.tuples(st.just("choice"),
              st.lists(st.floats(0.01, 10.0), min_size=1, max_size=12),
              st.one_of(st.none(), st.integers(0, 30))),
    st.tuples(st.just("random"), st.integers(0, 6)),
)


def _numpy(rng: np.random.Generator, draw) -> list:
    if draw[0] == "int":
        return [int(rng.integers(draw[1], draw[1] + draw[2]))]
    if draw[0] == "choice":
        p = np.array(draw[1]) / sum(draw[1])
        return np.asarray(rng.choice(len(p), size=draw[2], p=p)).ravel().tolist()
    return rng.random(draw[1]).tolist()


def _raw(draws: RawDraws, draw) -> list:
    if draw[0] == "int":
        return [draws.integers(draw[1], draw[1] + draw[2])]
    if draw[0] == "choice":
        p = np.array(draw[1]) / sum(draw[1])
        return np.asarray(draws.choice(len(p), draw[2], p)).ravel().tolist()
    return draws.random(draw[1]).tolist()


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), before=st.integers(0, 3),
       plan=st.lists(DRAW, max_size=60))
def test_raw_draws_are_the_generators_own_and_leave_it_where_it_would_be(seed, before, plan):
    mine, ref = np.random.default_rng(seed), np.random.default_rng(seed)
    for rng in (mine, ref):  # 32-bit draws first: PCG64 may keep half a word
        rng.integers(0, 10, size=before)
    with RawDraws(mine) as draws:
        got = [_raw(draws, d) for d in plan]
    assert got == [_numpy(ref, d) for d in plan]
    # numpy's own draws afterwards continue the same stream
    assert mine.integers(0, 1000, size=3).tolist() == ref.integers(0, 1000, size=3).tolist()
    assert mine.standard_normal(2).tolist() == ref.standard_normal(2).tolist()
    assert int(mine.integers(0, 7)) == int(ref.integers(0, 7))


def test_a_range_wider_than_32_bits_or_empty_is_refused():
    with RawDraws(np.random.default_rng(1)) as draws:
        with pytest.raises(ValueError, match="range"):
            draws.integers(0, 2**32 + 1)
        with pytest.raises(ValueError, match="range"):
            draws.integers(3, 3)


def test_another_bit_generator_is_refused():
    with pytest.raises(ValueError, match="PCG64"):
        RawDraws(np.random.Generator(np.random.MT19937(1)))
