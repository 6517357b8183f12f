"""Chart ticks read as people write numbers: 1-2-5 steps, "30 k" rather than "3e+04",
whole numbers for counts."""

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.app.gui.charts.chartaxes import tick_text, ticks


def labels(lo, hi, most=6, integer=False):
    start, end, values = ticks(lo, hi, most, integer)
    step = values[1] - values[0]
    return [tick_text(v, step, max(abs(start), abs(end))) for v in values]


def test_big_numbers_read_in_thousands_and_millions():
    assert labels(0, 30_000) == ["0", "5 k", "10 k", "15 k", "20 k", "25 k", "30 k"]
    assert labels(0, 1_000) == ["0", "200", "400", "600", "800", "1,000"]
    assert labels(0, 2.5e7, 5) == ["0", "5 M", "10 M", "15 M", "20 M", "25 M"]
    assert labels(0, 1.3) == ["0", "0.5", "1.0", "1.5"]


def test_counts_get_whole_number_ticks():
    assert labels(0, 3, 6, integer=True) == ["0", "1", "2", "3"]
    assert labels(0, 1, 8, integer=True) == ["0", "1"]


finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)


@given(finite, finite, st.integers(2, 10), st.booleans())
def test_ticks_cover_the_data_on_round_steps_and_never_use_exponents(a, b, most, integer):
    lo, hi = min(a, b), max(a, b)
    start, end, values = ticks(lo, hi, most, integer)
    step = values[1] - values[0]
    # the ends are ticks around the data (a data end a billionth of a step past counts as on)
    assert start <= lo + 1e-6 * step and end >= hi - 1e-6 * step
    assert len(values) <= 2 * most + 2
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 5, 10))
    if integer:
        assert np.all(values == np.round(values))
    texts = [tick_text(v, step, max(abs(start), abs(end))) for v in values]
    assert not any("e" in t or "nan" in t for t in texts)
    assert len(set(texts)) == len(texts)  # no two ticks read the same
