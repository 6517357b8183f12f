"""The allocator's run-by-run search (BlockAllocator._first_fit) finds the run that the
window's free_runs would: the first that starts before the group's end and holds n blocks,
with runs cut at the window's edges; where it gives up, free_runs still answers."""

from __future__ import annotations

import numpy as np

from ssdlab.model.host.ext4layout import BlockAllocator, Layout


def _by_free_runs(alloc: BlockAllocator, lo: int, stop: int, hi: int, n: int) -> int | None:
    starts, lengths = alloc.free_runs(lo, hi)
    ok = (starts < stop) & (lengths >= n)
    return int(starts[np.flatnonzero(ok)[0]]) if ok.any() else None


def test_the_first_fit_is_the_first_run_free_runs_finds():
    rng = np.random.default_rng(5)
    alloc = BlockAllocator(Layout(4 * 32768))
    gave_up = 0
    for trial in range(400):
        # runs of used and free blocks, short or long, so a search meets both kinds
        lengths = rng.geometric(1 / rng.choice([2, 8, 64, 600]), size=4000)
        bits = np.repeat(np.arange(lengths.size) % 2 == trial % 2, lengths)
        alloc.used[:] = np.resize(bits, alloc.used.size)
        lo = int(rng.integers(0, 2 * 32768))
        stop = min(alloc.used.size, (lo // 32768 + 1) * 32768)
        hi = min(alloc.used.size, stop + 32768)
        n = int(rng.choice([1, 2, 16, 100, 1000, 20000]))
        got = alloc._first_fit(lo, stop, hi, n)
        if got == -1:
            gave_up += 1
            continue
        assert got == _by_free_runs(alloc, lo, stop, hi, n), (trial, lo, stop, hi, n)
    assert gave_up < 300  # it answers most searches itself


def test_a_full_window_and_a_run_cut_at_the_window_end():
    alloc = BlockAllocator(Layout(2 * 32768))
    alloc.used[:] = True
    assert alloc._first_fit(0, 32768, 65536, 1) is None
    alloc.used[65000:] = False  # 536 free blocks at the very end, cut at hi
    assert alloc._first_fit(0, 65536, 65536, 536) == 65000
    assert alloc._first_fit(0, 65536, 65536, 537) is None
    assert alloc._first_fit(0, 65000, 65536, 1) is None  # starts at stop: not before it
