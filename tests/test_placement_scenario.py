"""Placement in scenario files: the host tags a user mix's hot rewrites with a handle of
their own ([host] placement, tag_errors; [drive] handle_gc), what a scenario may not ask,
and the file written back."""

from __future__ import annotations

import pytest

from ssdlab.model.lab.scenario import (
    ScenarioError,
    build_machine,
    parse_scenario,
    run_scenario,
    scenario_text,
)

SCENARIO = """version = 1
[drive]
profile = "{profile}"
user_gib = 0.5
{drive}
[host]
{host}
[filesystem]
atime = "noatime"
[[steps]]
do = "user_mix"
drive_writes = 1.5
fill = 60
hot_pct = {hot}
hot_writes_pct = 90
"""


def _scenario(profile="intel_320_120", drive='handle_gc = "isolated"',
              host='placement = "hotcold"', hot=10):
    return parse_scenario(SCENARIO.format(profile=profile, drive=drive, host=host, hot=hot))


def test_the_hot_rewrites_fill_blocks_of_their_own_handle():
    s = _scenario()
    assert (s.placement, s.handle_gc, s.tag_errors) == ("hotcold", "isolated", None)
    m = build_machine(s)
    assert m.drive.config.placement_handles == 2 and m.placement == "hotcold"
    run_scenario(s, machine=m)
    a = m.drive.arrays
    blocks = slice(0, m.drive.geometry.blocks)
    hot_valid = int(a.valid[blocks][a.bhandle[blocks] == 1].sum())
    # the hot tenth of the live blocks, rewritten 90 % of the time, lives in handle 1's
    # blocks; every other page (new files, the cold rewrites, the journal) in handle 0's
    live_pages = int(a.valid[blocks].sum())
    assert 0 < hot_valid < 0.2 * live_pages
    assert not a.tag[:m.drive.geometry.user_pages].any()  # tags end at 0 after each round


def test_the_file_written_back_keeps_the_placement():
    s = _scenario(host='placement = "hotcold"\ntag_errors = 0.25')
    again = parse_scenario(scenario_text(s))
    assert (again.placement, again.handle_gc, again.tag_errors) == ("hotcold", "isolated",
                                                                     0.25)
    assert "[host]" in scenario_text(s) and 'placement = "hotcold"' in scenario_text(s)


@pytest.mark.parametrize("kwargs, words", [
    ({"host": ""}, "drive.handle_gc = 'isolated' chooses where GC copies the pages of "
                   "placement handles; it needs host.placement = 'hotcold'"),
    ({"drive": "", "host": "tag_errors = 0.1"}, "host.tag_errors = 0.1 is the share of the "
                                               "host's placement tags that are wrong"),
    ({"hot": 0}, "host.placement = 'hotcold' tags the hot rewrites of user_mix steps; this "
                 "scenario has no user_mix step with hot_pct above 0"),
    ({"profile": "firstgen_block_64"}, "host.placement = 'hotcold' needs a drive with two "
                                       "placement handles, which this one cannot have"),
    ({"host": 'placement = "streams"'}, "host.placement must be one of none, hotcold"),
    ({"host": 'placement = "hotcold"\ntag_errors = 1.5'}, "host.tag_errors must be"),
])
def test_what_cannot_run_is_refused_naming_the_field(kwargs, words):
    with pytest.raises(ScenarioError, match="^<scenario>:") as e:
        _scenario(**kwargs)
    assert words in str(e.value) and "\n" not in str(e.value)
