"""user_mix picks its in-place rewrites among every block of the live files, listed extent
by extent: the blocks are read by index without listing them, and a pick is the block
the listed array holds there, drawn as numpy's choice over that array draws it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.host.fsworkloads import _ExtentBlocks

EXTENT = st.tuples(st.integers(0, 2**40), st.integers(1, 3000)).map(list)


def _listed(extents) -> np.ndarray:
    return np.concatenate([np.arange(s, s + n) for s, n in extents])


@settings(max_examples=80, deadline=None)
@given(extents=st.lists(EXTENT, min_size=1, max_size=30), seed=st.integers(0, 2**32 - 1),
       n=st.integers(0, 500))
def test_a_pick_is_what_choice_over_the_listed_blocks_gives(extents, seed, n):
    listed, blocks = _listed(extents), _ExtentBlocks(extents)
    assert blocks.size == listed.size
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    got = blocks[ours.integers(0, blocks.size, size=n)]
    want = theirs.choice(listed, size=n)
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist()
    assert ours.random() == theirs.random()


@settings(max_examples=40, deadline=None)
@given(extents=st.lists(EXTENT, min_size=1, max_size=30))
def test_every_index_reads_the_listed_block(extents):
    listed = _listed(extents)
    assert _ExtentBlocks(extents)[np.arange(listed.size)].tolist() == listed.tolist()


def test_no_live_files_is_said_plainly():
    with pytest.raises(ValueError, match="no live file blocks"):
        _ExtentBlocks([])
