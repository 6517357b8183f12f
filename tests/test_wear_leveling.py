"""Static wear levelling: under hot and cold data it keeps the most- and least-worn full
blocks within its gap of each other (without it, cold blocks sit unworn while the hot ones
wear), its moves are GC copies that WA counts and are counted apart, and it is asked for
only where it works. The differential test (test_differential.py) checks each move
against the reference FTL."""

import numpy as np
import pytest

from ssdlab.app.cli.main import main
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.state import BLOCK_FULL
from ssdlab.model.flash.workloads import hot_cold_pages

G = Geometry(user_pages=1 << 14, pages_per_block=64, spare=0.1)


def _hot_and_cold(gap: int) -> Drive:
    d = Drive(G, FtlConfig(wear_leveling_gap=gap))
    d.write_pages(np.arange(G.user_pages, dtype=np.int64))
    rng = np.random.default_rng(3)
    for _ in range(30):  # 10 % of the pages take 90 % of the writes
        d.write_pages(hot_cold_pages(G.user_pages, 1 << 13, 0.1, 0.9, rng))
    return d


def _full_blocks_spread(d: Drive) -> int:
    """Erases of the most-worn block less those of the least-worn full one."""
    full = np.flatnonzero(d.block_views()["state"] == BLOCK_FULL)
    e = d.arrays.erases
    return int(e.max() - e[full].min())


@pytest.mark.parametrize("gap", [4, 16])
def test_the_wear_stays_within_the_gap_and_its_moves_are_counted(gap):
    off, on = _hot_and_cold(0), _hot_and_cold(gap)
    assert _full_blocks_spread(off) > 3 * gap  # cold blocks left behind
    # a move follows a GC victim, so the gap may be passed by the erases of one victim's GC
    assert _full_blocks_spread(on) <= gap + 2
    c = on.counters()
    assert c["wl_moves"] > 0 and 0 < c["wl_copies"] <= c["wl_moves"] * G.pages_per_block
    assert c["gc_copies"] >= c["wl_copies"]  # GC copies: WA counts them
    assert c["nand_writes"] == c["host_writes"] + c["gc_copies"]
    assert off.counters()["wl_moves"] == off.counters()["wl_copies"] == 0
    on.check_invariants()


@pytest.mark.parametrize("config, words", [
    (dict(wear_leveling_gap=-1), "wear_leveling_gap must be a whole number from 0"),
    (dict(wear_leveling_gap=4, gc="fifo"), "needs mapping 'page', gc 'greedy'"),
    (dict(wear_leveling_gap=4, mapping="block"), "needs mapping 'page', gc 'greedy'"),
])
def test_wear_levelling_is_refused_where_it_cannot_work(config, words):
    with pytest.raises(ValueError, match=words):
        FtlConfig(**config)


def test_simulate_reports_the_moves_and_the_wear(capsys):
    args = ["simulate", "--user-pages", "16384", "--pages-per-block", "64", "--spare", "0.1",
            "--workload", "hotcold", "--hot-lbas", "0.1", "--hot-writes", "0.9",
            "--warmup-drive-writes", "5", "--measure-drive-writes", "5"]
    assert main([*args, "--wear-leveling", "8"]) == 0
    out = capsys.readouterr().out
    row = next(ln for ln in out.splitlines() if ln.startswith("wear levelling"))
    assert "a block moved when the wear gap passes 8 erases" in row and "(in the GC copies)" in row
    assert main([*args, "--wear-leveling", "8", "--gc", "fifo"]) == 2
    err = capsys.readouterr().err
    assert "needs mapping 'page', gc 'greedy'" in err and err.count("\n") == 1


SCENARIO = """version = 1
[drive]
profile = "{profile}"
user_gib = 1
wear_leveling_gap = 8
[[steps]]
do = "write"
name = "a"
mb = 16
"""


def test_a_scenario_turns_it_on_where_the_profile_allows_and_names_the_field_where_not():
    from ssdlab.model.lab.scenario import (
        ScenarioError,
        build_machine,
        parse_scenario,
        scenario_text,
    )

    s = parse_scenario(SCENARIO.format(profile="nvme_modern_1tb"))
    assert build_machine(s).drive.config.wear_leveling_gap == 8
    assert parse_scenario(scenario_text(s)).wear_leveling_gap == 8
    with pytest.raises(ScenarioError, match=r"drive\.wear_leveling_gap = 8: wear levelling "
                       r".* needs mapping 'page', gc 'greedy' and no SLC cache; got mapping "
                       r"'fast'"):
        parse_scenario(SCENARIO.format(profile="ocz_vertex_60"))
