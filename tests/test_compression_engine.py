"""Compression in the engine (a SandForce-style drive): a logical page stored at fraction c
takes max(1, round(c * SLOTS_PER_PAGE)) slots of a flash page, so a block holds more of them
and the same data leaves more flash free.

The compiled engine is checked against the plain-Python reference FTL, which counts slots
(a block is full when the next page would not fit, valid data in slots, cost-benefit's u in
slots), after every batch; Hypothesis picks the drive, the GC policy, the stored fraction and
the workload. Nothing is ever lost: every logical page reads back what the host last wrote.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive, DriveError
from ssdlab.model.flash.geometry import (
    GC_FRONTIERS,
    GC_POLICIES,
    SLOTS_PER_PAGE,
    VICTIM_ORDERS,
    FtlConfig,
    Geometry,
    check_buildable,
    stored_pages_per_block,
)
from ssdlab.model.flash.reference import ReferenceDriveError, ReferenceFtl
from tests.test_differential import (
    assert_same_state,
    gc_step,
    random_batch,
    small_geometry,
    workload_shapes,
)

STORED = st.one_of(st.sampled_from((0.01, 0.3, 0.5, 0.7, 0.99)), st.floats(0.01, 1.0))


@st.composite
def compressing_setups(draw, gc: str):
    gc_low = draw(st.integers(1, 3))
    geometry = small_geometry(draw, gc_low)
    config = FtlConfig(gc=gc, d=draw(st.integers(1, 4)), gc_low_blocks=gc_low,
                       honour_trim=draw(st.booleans()), seed=draw(st.integers(0, 2**63 - 1)),
                       track_versions=True, gc_frontier=draw(st.sampled_from(GC_FRONTIERS)),
                       victim_order=draw(st.sampled_from(VICTIM_ORDERS)),
                       stored_fraction=draw(STORED))
    check_buildable(geometry, config)
    return geometry, config


@pytest.mark.parametrize("gc", GC_POLICIES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_compressing_engine_matches_the_slot_reference(gc, data):
    geometry, config = data.draw(compressing_setups(gc))
    shape = data.draw(workload_shapes())
    rng = random.Random(shape["seed"])
    drive, ref = Drive(geometry, config), ReferenceFtl(geometry, config)
    user = geometry.user_pages
    assert drive.pages_per_block == ref.ppb
    if shape["fill_first"]:
        fill = Commands.of([("write", 0, user)])
        drive.run(fill)
        ref.run(fill)
        assert_same_state(drive, ref, "after the sequential fill")
    for i in range(shape["batches"]):
        batch = random_batch(rng, user, geometry.pages_per_block, shape)
        try:
            assert drive.run(batch) == len(batch)
        except DriveError:
            if gc != "random-d":
                raise
            with pytest.raises(ReferenceDriveError, match="no progress"):
                ref.run(batch)
            return
        ref.run(batch)
        assert_same_state(drive, ref, f"after batch {i}")
        # The flash the engine says it programmed is the slots the reference filled.
        assert drive.flash_pages() == pytest.approx(ref.slots_programmed / SLOTS_PER_PAGE,
                                                    rel=1e-12, abs=1e-12)
        if rng.random() < shape["gc_step_share"]:
            step = gc_step(rng, drive, ref)
            assert_same_state(drive, ref, f"after {step} following batch {i}")
    event("GC ran" if drive.counters()["gc_victims"] else "no GC")


@settings(max_examples=40, deadline=None)
@given(stored=STORED, ppb=st.integers(2, 64), seed=st.integers(0, 2**32 - 1))
def test_nothing_is_lost_under_compression(stored, ppb, seed):
    """Overwrites, TRIMs and reads at random on a compressing drive: the maps agree, valid
    counts match, every page reads back the version last written, and a block holds as many
    stored pages as fit in its slots, no more."""
    g = Geometry(user_pages=40 * ppb, pages_per_block=ppb, spare=0.2)
    config = FtlConfig(stored_fraction=stored, track_versions=True)
    d = Drive(g, config)
    rng = random.Random(seed)
    last: dict[int, int] = {}
    written = 0
    for _ in range(6):
        rows = []
        for _ in range(200):
            lpn = rng.randrange(g.user_pages)
            rows.append(("trim" if rng.random() < 0.1 else "write", lpn, 1))
        d.run(Commands.of(rows))
        for op, lpn, _ in rows:
            if op == "write":
                last[lpn] = written
                written += 1
            else:
                last.pop(lpn, None)
        d.check_invariants()
    for lpn in range(g.user_pages):
        assert d.version_of(lpn) == last.get(lpn)
    k = max(1, round(stored * SLOTS_PER_PAGE))
    held = d.pages_per_block
    assert held == stored_pages_per_block(ppb, stored)
    assert held * k <= ppb * SLOTS_PER_PAGE < (held + 1) * k
    assert d.flash_pages() == pytest.approx(d.counters()["nand_writes"] * k / SLOTS_PER_PAGE)


def test_compressed_data_leaves_gc_more_room():
    """The same random overwrites of the same full drive: stored at 0.5, the flash holds the
    data in half the room, GC finds emptier victims, and flash programmed per host page falls
    well below half of what the uncompressed drive programs (not merely half: that would be
    compression applied to the counters afterwards)."""
    g = Geometry(user_pages=1 << 14, pages_per_block=64, spare=0.07)
    lpns = random.Random(3).choices(range(g.user_pages), k=6 * g.user_pages)
    wa = {}
    for stored in (1.0, 0.5):
        d = Drive(g, FtlConfig(stored_fraction=stored))
        d.write_pages(list(range(g.user_pages)))
        before = d.counters()
        before_flash = d.flash_pages()
        d.write_pages(lpns)
        host = d.counters()["host_writes"] - before["host_writes"]
        wa[stored] = (d.flash_pages() - before_flash) / host
    assert wa[1.0] > 3.0
    assert wa[0.5] < 0.5 * wa[1.0] * 0.5  # at least twice better than the ratio alone


@pytest.mark.parametrize("stored", [0.55, 0.8])
def test_events_of_a_compressing_drive_replay_to_its_state(stored):
    """The animation's event stream numbers pages by their place in the block (block *
    stored pages per block + place): replayed, it rebuilds the engine's map exactly."""
    from tests.test_differential import FlashFromEvents, run_with_events

    g = Geometry(user_pages=512, pages_per_block=4, spare=0.1)
    config = FtlConfig(stored_fraction=stored, gc_low_blocks=1)
    drive = Drive(g, config, event_capacity=256)
    rng = random.Random(int(stored * 100))
    rows = [("write", lpn, min(3, g.user_pages - lpn)) for lpn in range(0, g.user_pages, 3)]
    rows += [("write" if rng.random() < 0.9 else "trim", rng.randrange(g.user_pages), 1)
             for _ in range(8 * g.user_pages)]
    model = FlashFromEvents(drive.arrays.p2l.size, drive.pages_per_block)
    assert run_with_events(drive, Commands.of(rows), model) > 1
    assert drive.events_dropped == 0 and drive.counters()["gc_copies"] > 0
    assert (model.p2l == drive.arrays.p2l).all()
    drive.check_invariants()
