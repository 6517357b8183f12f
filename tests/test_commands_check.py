"""Commands.check reads a small batch as Python lists (a file system's fsync batches are a
handful of commands, and five numpy reductions cost more than the engine's work on them):
it refuses exactly what the numpy reading refuses, with the same message."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.flash import commands
from ssdlab.model.flash.commands import Commands

ROW = st.tuples(st.integers(-1, 3), st.integers(-2, 120), st.integers(-1, 9))


def _verdict(cmds: Commands, user_pages: int) -> str:
    try:
        cmds.check(user_pages)
    except ValueError as e:
        return str(e)
    return "ok"


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=80), user_pages=st.integers(1, 130))
def test_python_and_numpy_readings_refuse_alike(rows, user_pages):
    ops, lpns, counts = zip(*rows, strict=True)
    cmds = Commands(np.array(ops, dtype=np.int8), np.array(lpns, dtype=np.int64),
                    np.array(counts, dtype=np.int64))
    few = _verdict(cmds, user_pages)
    saved = commands._FEW
    commands._FEW = 0  # the numpy reading for every size
    try:
        assert _verdict(cmds, user_pages) == few
    finally:
        commands._FEW = saved


@pytest.mark.parametrize("n", [1, 64, 65])
def test_a_batch_past_the_drive_is_refused_at_any_size(n):
    lpns = np.arange(n, dtype=np.int64)
    lpns[-1] = 99
    cmds = Commands(np.zeros(n, dtype=np.int8), lpns, np.full(n, 2, dtype=np.int64))
    with pytest.raises(ValueError, match="at most user_pages=100; got 101"):
        cmds.check(100)
