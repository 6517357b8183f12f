"""Names steps choose: the load check predicts the tree and filler names the run will pick
(the smallest free of base, base-2, ...) in constant time per step, so what it refuses at
load (a write onto a tree, a delete of a tree) is what the run would have met."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.lab.preflight import NameSeries
from ssdlab.model.lab.scenario import ScenarioError, parse_scenario, run_scenario
from ssdlab.model.lab.steps import fresh_name

HEAD = 'version = 1\n[drive]\nprofile = "firstgen_block_64"\nuser_gib = 0.25\n'


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.just("next"), st.integers(1, 12), st.text("lix-n0123", max_size=8)),
                max_size=60))
def test_the_series_picks_what_fresh_name_picks(ops):
    """Take the next name, free a numbered one, or take/free any other name, in any order:
    NameSeries always agrees with the plain scan the run uses."""
    series, taken = NameSeries("linux"), set()
    for op in ops:
        if op == "next":
            expect = fresh_name("linux", taken.__contains__)
            assert series.next(taken.__contains__) == expect
            taken.add(expect)
        else:
            name = series.name(op) if isinstance(op, int) else op
            if name in taken:
                taken.discard(name)
                series.released(name)
            else:
                taken.add(name)


def test_a_file_named_like_a_tree_pushes_the_tree_to_the_next_name():
    text = HEAD + ('[[steps]]\ndo = "write"\nname = "linux"\nmb = 1\n'
                   '[[steps]]\ndo = "unpack"\nscale = 0.01\n')
    with pytest.raises(ScenarioError, match=r"steps\[2\]\.name must name a file that does "
                       r"not exist yet; 'linux-2' was made by a tree"):
        parse_scenario(text + '[[steps]]\ndo = "write"\nname = "linux-2"\nmb = 1\n', "s.toml")
    s = parse_scenario(text + '[[steps]]\ndo = "write"\nname = "linux-3"\nmb = 1\n'
                       '[[steps]]\ndo = "rm"\n[[steps]]\ndo = "delete"\nname = "linux"\n')
    assert len(run_scenario(s)) == 5
