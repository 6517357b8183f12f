"""The time series' sampling: rates over partial intervals use their true length, and the
interval adapts to the run's length unless it is set (ssdlab/model/lab/series.py)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.host.blockdev import BatchStats
from ssdlab.model.lab.series import TARGET_ROWS, Series, auto_interval

PAGE = 4096


def _machine(batches: list[tuple[float, float, int]]):
    """A stand-in Machine whose drive worked through `batches` (start s, stop s, pages),
    with the attributes Series and Completed read."""
    drive = SimpleNamespace(free_blocks=10, geometry=SimpleNamespace(page_bytes=PAGE),
                            stored_fraction=1.0)
    m = SimpleNamespace(clock=0.0, drive=drive, timeline=None,
                        profile=SimpleNamespace(compression_ratio=1.0))
    series = Series(m, None)  # starts the recording (m.timeline = [])
    for start, stop, pages in batches:
        stats = BatchStats(write_bytes=pages * PAGE, host_pages_written=pages,
                           nand_writes=pages)
        m.timeline.append((start, stop, stats, 10))
        m.clock = max(m.clock, stop)
    return m, series


@settings(max_examples=60, deadline=None)
@given(span=st.floats(1e-4, 1e5), batches=st.integers(1, 40),
       every=st.one_of(st.none(), st.floats(1e-3, 50.0)),
       mb_s=st.floats(0.1, 3000.0))
def test_a_constant_rate_gives_a_flat_series_to_the_last_point(span, batches, every, mb_s):
    """The drive writes at one rate from start to end, in batches that do not line up with
    the intervals: every row's rate is that rate, the last (partial) one included."""
    pages_per_s = mb_s * 1e6 / PAGE
    cuts = [span * i / batches for i in range(batches + 1)]
    m, series = _machine([(a, b, pages_per_s * (b - a)) for a, b in
                          zip(cuts[:-1], cuts[1:], strict=True)])
    if every is not None:
        series.every_s = every
    rows = series.as_dicts()
    assert rows and rows[-1]["sim_s"] == pytest.approx(span)
    # up to 20,000 rows: compared as arrays (a pytest.approx per row took most of the time)
    write = np.array([r["write_mb_s"] for r in rows])
    nand = np.array([r["nand_mb_s"] for r in rows])
    assert np.all(np.abs(write - pages_per_s * PAGE / 1e6) <= 1e-6 * pages_per_s * PAGE / 1e6)
    assert np.all(np.abs(nand - write) <= 1e-9 * np.abs(write))
    times = [r["sim_s"] for r in rows]
    assert times == sorted(set(times))  # no duplicate rows, none out of order
    assert rows[-1]["device_written_mb"] == pytest.approx(pages_per_s * span * PAGE / 1e6)
    if every is None:
        assert min(80, len(rows)) <= len(rows) <= TARGET_ROWS + 1


@given(span=st.floats(1e-6, 1e9))
def test_the_automatic_interval_gives_80_to_200_rows_on_a_round_step(span):
    every = auto_interval(span)
    mantissa = every / 10 ** math.floor(math.log10(every))
    assert round(mantissa, 9) in (1.0, 2.0, 5.0)
    assert 80 <= span / every <= TARGET_ROWS * (1 + 1e-9)


def test_the_last_partial_interval_is_no_false_dip():
    """The report's case: 4.02 MB/s to the end of a 16.76 s run, 1 s intervals; the last
    row covers 0.76 s, not a whole second."""
    rate = 4.02e6 / PAGE
    m, series = _machine([(0.0, 16.76, rate * 16.76)])
    series.every_s = 1.0
    rows = series.as_dicts()
    assert [round(r["sim_s"], 6) for r in rows[-2:]] == [16.0, 16.76]
    assert rows[-1]["write_mb_s"] == pytest.approx(4.02)
    assert series.interval_s == 1.0
