"""RawDraws.sample gives exactly rng.choice(n, size, replace=False), draw after draw, and
leaves the Generator where numpy's own calls would have: make_schedule picks each unit's
common headers with it, and every make step's figures depend on those picks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.host.rawdraws import RawDraws

# (n, size) pairs with size <= n, and now and then a plain integer draw between them
PICK = st.integers(1, 10_000).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, min(n, 40)), st.booleans()))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), picks=st.lists(PICK, min_size=1, max_size=25))
def test_sample_is_numpys_choice_without_replacement(seed, picks):
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    with RawDraws(ours) as draws:
        for n, size, between in picks:
            if between:
                assert draws.integers(0, 7) == int(theirs.integers(0, 7))
            assert draws.sample(n, size) == theirs.choice(n, size, replace=False).tolist()
    assert ours.random(3).tolist() == theirs.random(3).tolist()  # the stream goes on alike


def test_the_kernel_trees_header_pool_as_make_draws_it():
    ours, theirs = np.random.default_rng(2639), np.random.default_rng(2639)
    with RawDraws(ours) as draws:
        got = [draws.sample(24, 6) for _ in range(2000)]
    assert got == [theirs.choice(24, 6, replace=False).tolist() for _ in range(2000)]


@pytest.mark.parametrize("n, size", [(10_001, 3), (5, 6), (5, -1)])
def test_sample_refuses_what_numpy_draws_another_way(n, size):
    with RawDraws(np.random.default_rng(1)) as draws, pytest.raises(ValueError, match="n <="):
        draws.sample(n, size)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), data=st.data(),
       count=st.integers(0, 400), before=st.booleans())
def test_samples_are_sample_after_sample(seed, n, data, count, before):
    """The array drawing gives what count calls of sample give, whichever half of a word
    the stream holds when it starts, and leaves the stream where they leave it."""
    size = data.draw(st.integers(0, n))
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    with RawDraws(ours) as a, RawDraws(theirs) as b:
        if before:  # a 32-bit draw first: the next word's high half is kept
            assert a.integers(0, 5) == b.integers(0, 5)
        assert a.samples(n, size, count) == [b.sample(n, size) for _ in range(count)]
        assert a.integers(0, 1000) == b.integers(0, 1000)
    assert ours.random(2).tolist() == theirs.random(2).tolist()
