"""user_mix picks its in-place rewrites from every block of the live files, listed extent
by extent: the list is built in one go, and is the one an arange per extent gives."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.host.fsworkloads import _extent_blocks

EXTENT = st.tuples(st.integers(0, 2**40), st.integers(1, 3000)).map(list)


@settings(max_examples=80, deadline=None)
@given(extents=st.lists(EXTENT, min_size=1, max_size=30))
def test_every_block_of_every_extent_in_order(extents):
    want = np.concatenate([np.arange(s, s + n) for s, n in extents])
    got = _extent_blocks(extents)
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist()


def test_no_live_files_is_said_plainly():
    with pytest.raises(ValueError, match="no live file blocks"):
        _extent_blocks([])
