"""GC episodes read back from the engine's events (ssdlab/model/flash/gcepisodes.py): each GC's
victim, the pages it moved and where, and the drive at its mark, move and erase phases; a
block-mapped drive's merges as episodes too; the last victim the engine records without
events (Drive.last_victim)."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive, event_capacity_for
from ssdlab.model.flash.gcepisodes import PHASES, TALLY, gc_phases
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.state import (
    BLOCK_FREE,
    BLOCK_FULL,
    BLOCK_VICTIM,
    EV_ERASE,
    EV_MERGE,
    EV_VICTIM,
    FREE_PAGE,
    OP_WRITE,
)


def small_drive(events: bool = True, frontier: str = "separate") -> Drive:
    g = Geometry(user_pages=512, pages_per_block=16, spare=0.25)
    c = FtlConfig(gc_frontier=frontier)
    return Drive(g, c, event_capacity=event_capacity_for(g, c, 1) if events else 0)


def before(d: Drive) -> tuple:
    a = d.arrays
    return a.p2l.copy(), a.bstate.copy(), a.valid.copy(), d.counters()


def run_writes(d: Drive, lpns) -> np.ndarray:
    cmds = Commands.single_page(OP_WRITE, np.asarray(lpns, dtype=np.int64))
    out, start = [], 0
    while start < len(cmds):
        start = d.run(cmds, start)
        out.append(d.take_events())
    return np.concatenate(out)


def filled(d: Drive, seed: int = 3) -> Drive:
    rng = np.random.default_rng(seed)
    run_writes(d, np.arange(d.geometry.user_pages))
    run_writes(d, rng.integers(0, d.geometry.user_pages, 2 * d.geometry.user_pages))
    return d


@pytest.mark.parametrize("frontier", ["separate", "shared"])
def test_one_gc_step_replays_to_exactly_the_drive_after_it(frontier):
    d = filled(small_drive(frontier=frontier))
    p2l, bstate, valid, counters = before(d)
    moved = d.collect_one()
    phases = gc_phases(p2l, bstate, valid, counters, d.take_events(), 16)
    assert [p.name for p in phases] == list(PHASES)
    mark, move, erase = phases
    ep = mark.episode
    assert (ep.victim, ep.valid_pages) == d.last_victim and ep.valid_pages == moved
    ppb, v = 16, ep.victim
    # mark: the victim as GC found it, its valid pages the ones it moved
    assert mark.bstate[v] == BLOCK_VICTIM
    held = np.flatnonzero(mark.p2l[v * ppb:(v + 1) * ppb] >= 0) + v * ppb
    assert tuple(held) == ep.sources and mark.valid[v] == moved
    assert all(mark.p2l[t] == FREE_PAGE for t in ep.targets)
    # move: the pages are in their new block, the victim holds none, not yet erased
    assert [int(move.p2l[t]) for t in ep.targets] == [int(mark.p2l[s]) for s in ep.sources]
    assert move.valid[v] == 0 and move.bstate[v] == BLOCK_VICTIM
    assert all(t // ppb in ep.destinations for t in ep.targets) and v not in ep.destinations
    assert move.counters["gc_copies"] == counters["gc_copies"] + moved
    # erase: the drive exactly as the engine left it
    assert np.array_equal(erase.p2l, d.arrays.p2l)
    assert np.array_equal(erase.bstate, d.arrays.bstate)
    assert np.array_equal(erase.valid, d.arrays.valid)
    assert erase.counters == {k: d.counters()[k] for k in TALLY}
    assert erase.bstate[v] == BLOCK_FREE and ep.erase_count == int(d.arrays.erases[v])


def test_every_gc_of_a_write_batch_is_an_episode_in_order():
    d = filled(small_drive())
    p2l, bstate, valid, counters = before(d)
    events = run_writes(d, np.random.default_rng(9).integers(0, 512, 200))
    phases = gc_phases(p2l, bstate, valid, counters, events, 16)
    victims = events[events[:, 0] == EV_VICTIM]
    assert len(phases) == 3 * len(victims) > 0
    for i, (blk, held) in enumerate(victims[:, 1:3].tolist()):
        ep = phases[3 * i].episode
        assert (ep.victim, ep.valid_pages, len(ep.sources)) == (blk, held, held)
        for p in phases[3 * i:3 * i + 3]:  # every phase is a consistent drive
            counted = (p.p2l.reshape(-1, 16) >= 0).sum(axis=1)
            assert np.array_equal(counted, p.valid)
    assert (phases[-1].episode.victim, phases[-1].episode.valid_pages) == d.last_victim


def test_the_engine_names_the_last_victim_without_events():
    d = small_drive(events=False)
    assert d.last_victim is None
    d.write_pages(np.arange(512))
    d.write_pages(np.random.default_rng(1).integers(0, 512, 1024))
    assert d.counters()["gc_victims"] > 0
    block, moved = d.last_victim
    assert 0 <= block < d.geometry.blocks and 0 <= moved <= 16
    assert d.victim_valid()[moved] >= 1
    moved_now = d.collect_one()
    assert d.last_victim[1] == moved_now


def _mapped_drive(mapping: str) -> Drive:
    g = Geometry(user_pages=512, pages_per_block=16, spare=0.25)
    c = FtlConfig(mapping=mapping)
    return Drive(g, c, event_capacity=event_capacity_for(g, c, 16))


@pytest.mark.parametrize("mapping", ["block", "fast"])
def test_a_block_mapped_drives_merges_are_episodes_and_every_phase_is_a_drive(mapping):
    """A merge (the old block marked, its logical block's valid pages gathered into a fresh
    block, the old block erased) plays as mark, move and erase; each phase holds as many
    valid pages per block as its page map says, and a merge that ends its write leaves the
    replay exactly at the drive the engine left, block states too (a data block the engine
    took with no event is full, a "fast" log block open)."""
    d = _mapped_drive(mapping)
    rng = np.random.default_rng(5)
    merges = exact = 0
    for lpn in rng.integers(0, 512, 600).tolist():
        a = d.arrays
        state = (a.p2l.copy(), a.bstate.copy(), a.valid.copy(), d.counters(), a.lb2pb.copy())
        events = run_writes(d, [lpn])
        phases = gc_phases(*state[:4], events, 16, lb2pb=state[4])
        assert len(phases) == 3 * sum(1 for k, old, _, _ in events.tolist()
                                      if k == EV_MERGE and old >= 0)
        for mark, move, erase in zip(phases[::3], phases[1::3], phases[2::3], strict=True):
            ep = mark.episode
            merges += 1
            assert ep.kind == "merge" and ep.valid_pages == len(ep.sources)
            assert mark.bstate[ep.victim] == BLOCK_VICTIM == move.bstate[ep.victim]
            assert erase.bstate[ep.victim] == BLOCK_FREE
            assert all(erase.bstate[b] == BLOCK_FULL for b in ep.destinations)
            for p in (mark, move, erase):
                counted = (p.p2l.reshape(-1, 16) >= 0).sum(axis=1)
                assert np.array_equal(counted, p.valid)
        if phases and events[-1, 0] == EV_ERASE and events[-1, 1] == phases[-1].episode.victim:
            exact += 1
            last = phases[-1]
            assert np.array_equal(last.p2l, d.arrays.p2l)
            assert np.array_equal(last.bstate, d.arrays.bstate)
            assert np.array_equal(last.valid, d.arrays.valid)
    assert merges > 20 and (exact > 10 or mapping == "fast")


def test_a_limit_keeps_the_drive_of_the_first_gcs_only():
    d = filled(small_drive())
    p2l, bstate, valid, counters = before(d)
    events = run_writes(d, np.random.default_rng(9).integers(0, 512, 200))
    every = gc_phases(p2l, bstate, valid, counters, events, 16)
    two = gc_phases(p2l, bstate, valid, counters, events, 16, limit=2)
    assert len(two) == len(every) > 6
    assert all(p.p2l is not None for p in two[:6]) and all(p.p2l is None for p in two[6:])
    assert [(p.name, p.episode, p.counters) for p in two] == \
        [(p.name, p.episode, p.counters) for p in every]
    assert np.array_equal(two[5].p2l, every[5].p2l)
