"""Completed.until reads the Machine's timeline only up to the first batch that starts after
the reading (the rest cannot add anything yet); what it reports is exactly what a reading
of every batch gives, interval after interval, on timelines shaped as the Machine makes
them (each batch starts when the one before ended, or later; some take no time)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.host.blockdev import BatchStats
from ssdlab.model.lab.series import NAMES, Completed


class _Machine:  # what Completed reads of a Machine when it is given its batches
    clock = 0.0


def _every_batch(line: list, t0: float, t: float) -> tuple[dict, list]:
    """The reading before the early stop: every batch looked at."""
    sums = np.zeros(len(NAMES))
    keep = []
    for batch in line:
        start, stop, stats, _ = batch
        if stop <= start:
            share = 1.0 if stop <= t else 0.0
        else:
            share = max(0.0, min(stop, t) - max(start, t0)) / (stop - start)
        if share:
            sums += share * np.array([getattr(stats, k) for k in NAMES], dtype=float)
        if stop > t:
            keep.append(batch)
    return dict(zip(NAMES, sums.tolist(), strict=True)), keep


BATCH = st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5]),  # on interval ends too
                  st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.5]),
                  st.integers(0, 9), st.integers(1, 5))


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(BATCH, max_size=25), every=st.sampled_from([0.5, 1.0, 2.0]))
def test_early_stop_reads_the_same_as_every_batch(batches, every):
    line, clock = [], 0.0
    for gap, seconds, pages, n in batches:
        start = clock + gap
        clock = start + seconds
        line.append((start, clock, BatchStats(write_requests=n, write_bytes=4096 * pages,
                                              nand_writes=pages, erases=n % 2), n))
    done = Completed(_Machine(), list(line), start=(0.0, 0))
    ref, t0 = list(line), 0.0
    for k in range(1, int(clock / every) + 3):
        t = k * every
        want, ref = _every_batch(ref, t0, t)
        assert done.until(t) == want
        assert done.line == ref
        t0 = t
