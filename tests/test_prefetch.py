"""Software prefetching in the compiled engine changes speed, never results.

The whole-drive loop (`Drive.write_pages`, page mapping) prefetches ahead; the command loop
(`Drive.run`, used with events for animation) does not. Both must leave every engine array
identical, whatever the policy, the batch length (shorter or longer than the prefetch
distances) and the write pattern.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from ssdlab.model.flash import ftl
from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import GC_POLICIES, FtlConfig, Geometry
from ssdlab.model.flash.prefetch import prefetch, prefetch_write
from ssdlab.model.flash.state import OP_WRITE


@njit
def _sum_with_prefetch(values, order, ahead):
    total = 0
    n = order.shape[0]
    for i in range(n):
        if i + ahead < n:
            prefetch(values, order[i + ahead])
            prefetch_write(values, order[i + ahead])
        total += values[order[i]]
    return total


def test_prefetch_emits_llvm_prefetch_and_changes_no_value():
    rng = np.random.default_rng(3)
    values = rng.integers(-1000, 1000, size=4096).astype(np.int32)
    before = values.copy()
    order = rng.integers(0, values.size, size=10_000)
    assert _sum_with_prefetch(values, order, 8) == int(values[order].sum())
    assert np.array_equal(values, before)
    ir = _sum_with_prefetch.inspect_llvm(_sum_with_prefetch.signatures[0])
    assert "@llvm.prefetch" in ir
    # Read and write intent are both emitted (second argument 0 and 1).
    assert "i32 0, i32 3, i32 1)" in ir and "i32 1, i32 3, i32 1)" in ir


def test_prefetch_distances_are_positive_and_ordered():
    # The old page is looked up after its l2p entry had time to arrive.
    assert 0 < ftl.PREFETCH_OLD < ftl.PREFETCH_L2P


def _drive(gc: str, mapping: str, user_pages: int, ppb: int, spare: float,
           track: bool) -> Drive:
    return Drive(Geometry(user_pages=user_pages, pages_per_block=ppb, spare=spare),
                 FtlConfig(gc=gc, mapping=mapping, track_versions=track))


def _assert_same_state(a: Drive, b: Drive) -> None:
    for name in a.arrays._fields:
        if name == "events":
            continue
        assert np.array_equal(getattr(a.arrays, name), getattr(b.arrays, name)), name


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_prefetching_loop_matches_the_plain_command_loop(data):
    gc = data.draw(st.sampled_from(GC_POLICIES), label="gc")
    mapping = data.draw(st.sampled_from(("page", "page", "block", "fast")), label="mapping")
    ppb = data.draw(st.sampled_from((4, 8, 16)), label="ppb")
    user_pages = data.draw(st.integers(60, 150), label="logical blocks") * ppb
    spare = data.draw(st.sampled_from((0.1, 0.25, 0.5)), label="spare")
    track = data.draw(st.booleans(), label="track versions")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    hot = data.draw(st.integers(1, user_pages), label="pages written")
    rng = np.random.default_rng(seed)
    fast = _drive(gc, mapping, user_pages, ppb, spare, track)
    plain = _drive(gc, mapping, user_pages, ppb, spare, track)
    # Batches shorter and longer than the prefetch distances, so both loop ends are used.
    for length in data.draw(st.lists(st.integers(0, 6 * user_pages), min_size=1, max_size=4),
                            label="batch lengths"):
        lpns = rng.integers(0, hot, size=length)
        fast.write_pages(lpns)
        plain.run(Commands.single_page(OP_WRITE, lpns))
        _assert_same_state(fast, plain)
    assert fast.counters() == plain.counters()
