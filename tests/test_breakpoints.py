"""Breakpoints and the victim histogram against the engine's own event log.

The engine counts GC victims by valid pages, the free-block low point and the writes of one
watched page; each is checked here against what the event log says happened. Each
breakpoint is then run on a seeded workload in batches, and must fire in the batch where
the event log says its condition first became true."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive, event_capacity_for
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.state import EV_COPY, EV_ERASE, EV_PROGRAM, EV_VICTIM, OP_WRITE
from ssdlab.model.lab.breakpoints import Breakpoints, BreakpointWatch

G = Geometry(user_pages=4096, pages_per_block=32, spare=0.12)
BATCH = 500  # host writes per batch
BATCHES = 40


def _drive(config: FtlConfig | None = None, g: Geometry = G) -> Drive:
    config = config or FtlConfig()
    return Drive(g, config, event_capacity=event_capacity_for(g, config, 8))


def _run_batch(d: Drive, cmds: Commands) -> np.ndarray:
    got, start = [], 0
    while start < len(cmds):
        start = d.run(cmds, start)
        got.append(d.take_events())
    return np.concatenate(got)


def _workload(seed: int = 7) -> list[Commands]:
    """A fill, then uniform random single-page writes, in batches."""
    rng = np.random.default_rng(seed)
    lpns = np.concatenate([np.arange(G.user_pages), rng.integers(0, G.user_pages,
                                                                 BATCH * BATCHES)])
    return [Commands.single_page(OP_WRITE, lpns[i:i + BATCH])
            for i in range(0, lpns.size, BATCH)]


@pytest.mark.parametrize("gc", ["greedy", "fifo", "cost-benefit", "random-d"])
def test_victim_histogram_matches_the_event_log(gc):
    d = _drive(FtlConfig(gc=gc))
    events = np.concatenate([_run_batch(d, c) for c in _workload()])
    victims = events[events[:, 0] == EV_VICTIM]
    assert len(victims) > 100
    expected = np.bincount(victims[:, 2], minlength=G.pages_per_block + 1)
    assert np.array_equal(d.victim_valid(), expected)
    assert d.victim_valid().sum() == d.counters()["gc_victims"]


@pytest.mark.parametrize("mapping", ["page", "block", "fast"])
def test_watched_page_counts_every_host_write_of_it(mapping):
    d = _drive(FtlConfig(mapping=mapping, gc="fifo"))
    rng = np.random.default_rng(3)
    lpns = rng.integers(0, G.user_pages - 8, 3000)
    counts = rng.integers(1, 8, 3000)
    target = int(lpns[100]) + 1
    d.watch(target)
    _run_batch(d, Commands(np.full(3000, OP_WRITE, dtype=np.int8), lpns, counts))
    expected = int(np.count_nonzero((lpns <= target) & (target < lpns + counts)))
    assert expected > 0 and d.watched_writes == expected


def test_watch_refuses_a_page_past_the_end():
    with pytest.raises(ValueError, match="logical page must be from 0 to 4095"):
        _drive().watch(G.user_pages)


def _free_trajectory(free0: int, events: np.ndarray, ppb: int) -> np.ndarray:
    """Free blocks after each event: a block leaves the pool just before its first page is
    programmed (host or GC copy) and returns when erased (page mapping)."""
    kind = events[:, 0]
    first = ((kind == EV_PROGRAM) & (events[:, 1] % ppb == 0)) | (
        (kind == EV_COPY) & (events[:, 2] % ppb == 0))
    step = np.where(first, -1, 0) + np.where(kind == EV_ERASE, 1, 0)
    return free0 + np.cumsum(step)


def test_free_low_is_the_lowest_point_inside_a_batch():
    d = _drive()
    for cmds in _workload():
        free0 = d.free_blocks
        d.reset_free_low()
        events = _run_batch(d, cmds)
        path = _free_trajectory(free0, events, G.pages_per_block)
        assert path[-1] == d.free_blocks
        assert d.free_low == min(free0, int(path.min()))


def _oracle(events: list[np.ndarray], cmds: list[Commands], free0: int) -> dict[str, int]:
    """For each condition, the first batch in which the event log says it became true."""
    first: dict[str, int] = {}
    host = nand = 0
    seen_victims, free = 0, free0
    for i, (ev, c) in enumerate(zip(events, cmds, strict=True)):
        kind = ev[:, 0]
        wa_before = nand / host if host else 0.0
        host += int(np.count_nonzero(kind == EV_PROGRAM))
        nand += int(np.count_nonzero((kind == EV_PROGRAM) | (kind == EV_COPY)))
        if wa_before < 1.5 <= nand / host:
            first.setdefault("wa_above", i)
        victims = ev[kind == EV_VICTIM]
        if seen_victims < 250 <= seen_victims + len(victims):
            first.setdefault("gc_count", i)
        seen_victims += len(victims)
        if (victims[:, 2] >= 20).any():
            first.setdefault("victim_valid", i)
        path = _free_trajectory(free, ev, G.pages_per_block)
        if free > 3 >= path.min(initial=free):
            first.setdefault("free_blocks", i)
        free = int(path[-1]) if path.size else free
        if (ev[kind == EV_ERASE, 2] >= 3).any():
            first.setdefault("erases", i)
        if (c.lpns == 4000).any():
            first.setdefault("lpn", i)
    return first


CONDITIONS = {"wa_above": 1.5, "gc_count": 250, "victim_valid": 20, "free_blocks": 3,
              "erases": 3, "lpn": 4000}


@pytest.mark.parametrize("exact", [True, False], ids=["with-events", "end-of-batch"])
@pytest.mark.parametrize("name", list(CONDITIONS))
def test_each_breakpoint_fires_in_the_batch_where_it_happened(name, exact):
    cmds = _workload()
    log_drive = _drive()
    free0 = log_drive.free_blocks
    expected = _oracle([_run_batch(log_drive, c) for c in cmds], cmds, free0)[name]
    d = _drive()
    watch = BreakpointWatch(Breakpoints(**{name: CONDITIONS[name]}), d)
    fired = None
    for i, c in enumerate(cmds):
        events = _run_batch(d, c)
        hit = watch.after_batch(events if exact else None, f"{len(c)} host writes")
        if hit:
            fired = (i, hit)
            break
    assert fired is not None and fired[0] == expected, (name, fired, expected)
    assert ("end of the batch" in fired[1]) != exact


def test_gc_breakpoint_with_events_names_the_victim():
    d = _drive()
    watch = BreakpointWatch(Breakpoints(gc_count=100), d)
    seen = []
    for c in _workload():
        events = _run_batch(d, c)
        seen.append(events[events[:, 0] == EV_VICTIM])
        hit = watch.after_batch(events)
        if hit:
            break
    victims = np.concatenate(seen)
    hundredth = victims[99]
    assert hit == (f"GC number 100: block {hundredth[1]:,}, {hundredth[2]} valid pages")


@pytest.mark.parametrize("field,value,words", [
    ("wa_above", 0.0, "wa_above (WA rises past) must be a number above 0 to 1,000"),
    ("gc_count", 0, "gc_count"), ("victim_valid", 33, "from 0 to 32"),
    ("free_blocks", -1, "free_blocks"), ("erases", 2.5, "a whole number"),
    ("lpn", 4096, "lpn (logical page written) must be a whole number from 0 to 4,095"),
    ("wa_above", float("nan"), "wa_above"), ("lpn", True, "lpn"),
])
def test_a_bad_breakpoint_names_its_field_and_range(field, value, words):
    with pytest.raises(ValueError, match=None) as e:
        Breakpoints.from_dict({field: value}, G)
    assert words in str(e.value)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([*CONDITIONS, "other"]),
                       st.one_of(st.none(), st.integers(-10, 10**7), st.floats(),
                                 st.booleans(), st.text(max_size=3)), max_size=4))
def test_from_dict_accepts_only_what_it_can_check(d):
    try:
        bp = Breakpoints.from_dict(d, G)
    except ValueError as e:
        assert str(e)
        return
    bp.check(G)
    assert set(bp.as_dict()) <= set(CONDITIONS)
