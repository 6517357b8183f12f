"""Placement handles (streams, FDP): the host tags its pages, the drive keeps an open block
per handle, and GC copies into one block for all (mixed) or the victim's handle's own
(isolated). A host that keeps hot and cold data apart saves flash writes; one whose tags
are noise saves none. The differential test (test_differential.py) checks every write and
copy against the reference FTL."""

from pathlib import Path

import numpy as np
import pytest

from ssdlab.app.cli.main import main
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.runner import RunSpec, hotcold_tags, run
from ssdlab.model.flash.workloads import Workload
from ssdlab.model.lab.sweep import SweepError, sweep_from_data

G = Geometry(user_pages=1 << 15, pages_per_block=64, spare=0.1)
HOT = Workload(kind="hotcold", hot_lba_fraction=0.1, hot_write_fraction=0.9)


def _wa(placement="none", handle_gc="mixed", tag_errors=0.0) -> float:
    handles = 2 if placement != "none" else 1
    config = FtlConfig(placement_handles=handles, handle_gc=handle_gc)
    return run(RunSpec(G, config, HOT, 2, 2, placement=placement,
                       tag_errors=tag_errors)).wa


def test_keeping_hot_and_cold_apart_saves_flash_writes_and_noise_saves_none():
    plain = _wa()
    isolated = _wa("hotcold", "isolated")
    mixed = _wa("hotcold", "mixed")
    noise = _wa("hotcold", "isolated", tag_errors=0.5)  # every tag a coin toss
    assert isolated < 0.92 * plain  # simulated: about 15 % fewer flash writes here
    assert isolated < mixed < plain  # mixed GC puts the copies of both back together
    assert noise == pytest.approx(plain, rel=0.02)


def test_the_tags_follow_the_workloads_hot_pages_and_the_errors_follow_the_seed():
    spec = RunSpec(G, FtlConfig(placement_handles=2), HOT, placement="hotcold",
                   tag_errors=0.25)
    tags = hotcold_tags(spec)
    hot = int(round(G.user_pages * 0.1))
    wrong = np.concatenate([tags[:hot] == 0, tags[hot:] == 1])
    assert wrong.mean() == pytest.approx(0.25, abs=0.02)
    assert np.array_equal(tags, hotcold_tags(spec))  # the same seed, the same errors


def test_isolated_gc_keeps_each_handles_data_in_its_own_blocks():
    d = Drive(G, FtlConfig(placement_handles=3, handle_gc="isolated", track_versions=True))
    tags = (np.arange(G.user_pages) * 3 // G.user_pages).astype(np.int8)
    d.set_tags(tags)
    d.write_pages(np.arange(G.user_pages, dtype=np.int64))
    rng = np.random.default_rng(2)
    d.write_pages(rng.integers(0, G.user_pages, 4 * G.user_pages))
    assert d.counters()["gc_copies"] > 0
    ppb = d.pages_per_block
    p2l = d.arrays.p2l.reshape(-1, ppb)
    for b in np.flatnonzero(d.arrays.valid):
        held = p2l[b][p2l[b] >= 0]
        assert set(tags[held].tolist()) == {int(d.arrays.bhandle[b])}, b
    d.check_invariants()


@pytest.mark.parametrize("config, words", [
    (dict(placement_handles=9), "placement_handles must be a whole number from 1 to 8"),
    (dict(placement_handles=2, gc_frontier="shared"), "need mapping 'page', gc_frontier "
     "'separate'"),
    (dict(placement_handles=2, mapping="block"), "need mapping 'page'"),
    (dict(handle_gc="apart"), "handle_gc must be one of mixed, isolated"),
])
def test_placement_is_refused_where_it_cannot_work(config, words):
    with pytest.raises(ValueError, match=words):
        FtlConfig(**config)


def test_tags_are_checked():
    d = Drive(G, FtlConfig(placement_handles=2))
    with pytest.raises(ValueError, match="tags must be from 0 to 1"):
        d.set_tags(np.full(G.user_pages, 2))
    with pytest.raises(ValueError, match="one a logical page"):
        d.set_tags(np.zeros(10, dtype=int))
    with pytest.raises(ValueError, match="needs placement_handles of 2 or more"):
        Drive(G).set_tags(np.zeros(G.user_pages, dtype=int))


ARGS = ["simulate", "--user-pages", "32768", "--pages-per-block", "64", "--spare", "0.1",
        "--workload", "hotcold", "--hot-lbas", "0.1", "--hot-writes", "0.9",
        "--warmup-drive-writes", "1", "--measure-drive-writes", "1"]


def test_simulate_reports_the_placement_and_refuses_what_cannot_run(capsys):
    assert main([*ARGS, "--placement", "hotcold", "--handle-gc", "isolated",
                 "--tag-errors", "0.1"]) == 0
    out = capsys.readouterr().out
    assert ("placement            hot pages tagged to handle 1, the rest to handle 0, 10 % "
            "tagged wrongly; isolated GC") in out
    assert "analytic: no model" in out
    for bad, words in ((["--tag-errors", "2"], "--tag-errors must be from 0 to 1"),
                       (["--workload", "random"], "--placement 'hotcold' tags the hot pages "
                        "of a hotcold workload")):
        assert main([*ARGS, "--placement", "hotcold", *bad]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


def test_a_sweep_varies_the_tags_errors_and_names_the_fields_only_when_given():
    base = {"user_pages": 32768, "pages_per_block": 64, "spare": 0.1, "workload": "hotcold",
            "placement": "hotcold", "handle_gc": "isolated"}
    sweep = sweep_from_data({"format": 1, "drive": base,
                             "axes": {"tag_errors": [0.0, 0.5]}}, Path("s.toml"))
    assert [t.point["tag_errors"] for t in sweep.tasks] == [0.0, 0.5]
    with pytest.raises(SweepError, match="placement 'hotcold' tags the hot pages"):
        sweep_from_data({"format": 1, "drive": {**base, "workload": "random"},
                         "axes": {"tag_errors": [0.0]}}, Path("s.toml"))
    plain = sweep_from_data({"format": 1, "drive": {"user_pages": 65536},
                             "axes": {"spare": [0.1, 0.2]}}, Path("p.toml"))
    assert not {"placement", "handle_gc", "tag_errors"} & set(plain.tasks[0].point)
