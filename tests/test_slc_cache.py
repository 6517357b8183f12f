"""The SLC cache in front of dense flash (ssdlab/model/flash/slccache.py): the engine against
the reference FTL after every batch and every fold, and the cache's behaviour a lesson relies
on, each figure worked out by hand: the cache takes the first pages, a full cache sends them
to the dense flash (the write cliff), folding programs each cached page a second time and
frees the cache, and a dynamic cache shrinks as the drive fills. Nothing is ever lost."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_differential import assert_same_state, random_batch, workload_shapes

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive, event_capacity_for
from ssdlab.model.flash.geometry import GC_FRONTIERS, FtlConfig, Geometry, check_buildable
from ssdlab.model.flash.reference import ReferenceFtl


@st.composite
def cached_drives(draw):
    """A small drive with a static or dynamic SLC cache that check_buildable accepts."""
    gc_low = draw(st.integers(1, 3))
    ppb = draw(st.integers(4, 16))
    cell_bits = draw(st.integers(2, min(4, ppb)))
    kind = draw(st.sampled_from(("static", "dynamic")))
    static = draw(st.integers(1 if kind == "static" else 0, 4))
    share = draw(st.floats(0.05, 1.0)) if kind == "dynamic" else 0.0
    spare_blocks = gc_low + 4 + static + draw(st.integers(0, 8))
    user = max(draw(st.integers(16, 512)), ppb * spare_blocks)
    geometry = Geometry(user_pages=user, pages_per_block=ppb,
                        spare=spare_blocks * ppb / (user + spare_blocks * ppb))
    config = FtlConfig(gc_low_blocks=gc_low, track_versions=True, slc_cache=kind,
                       cell_bits=cell_bits, slc_blocks=static, slc_dynamic_share=share,
                       gc_frontier=draw(st.sampled_from(GC_FRONTIERS)),
                       honour_trim=draw(st.booleans()))
    check_buildable(geometry, config)
    return geometry, config


def same(drive: Drive, ref: ReferenceFtl, where: str) -> None:
    assert_same_state(drive, ref, where)
    assert np.array_equal(drive.arrays.mode, ref.state()["mode"]), f"{where}: modes differ"
    assert drive.slc_counters() == ref.slc_counters(), where


@settings(max_examples=150, deadline=None)
@given(setup=cached_drives(), shape=workload_shapes(), data=st.data())
def test_the_engine_matches_the_reference_with_an_slc_cache(setup, shape, data):
    geometry, config = setup
    rng = random.Random(shape["seed"])
    drive, ref = Drive(geometry, config), ReferenceFtl(geometry, config)
    user, ppb = geometry.user_pages, geometry.pages_per_block
    if shape["fill_first"]:
        fill = Commands.of([("write", 0, user)])
        drive.run(fill)
        ref.run(fill)
        same(drive, ref, "after the sequential fill")
    for i in range(shape["batches"]):
        batch = random_batch(rng, user, ppb, shape)
        assert drive.run(batch) == len(batch)
        ref.run(batch)
        same(drive, ref, f"after batch {i}")
        if rng.random() < 0.4:
            n = rng.randint(0, 6)
            assert drive.fold(n) == ref.fold(n), f"fold({n}) after batch {i}"
            same(drive, ref, f"after fold({n}) following batch {i}")
    s = drive.slc_counters()
    event(f"{config.slc_cache} cache")
    event("folded" if s["folded_pages"] else "nothing folded")
    event("some pages went past a full cache"
          if drive.counters()["host_writes"] > s["slc_writes"] else "every page cached")


def static_drive(static_blocks: int = 4, cell_bits: int = 4) -> Drive:
    # 64 pages a block: a block in SLC mode holds 16 pages (QLC) or 21 (TLC)
    geometry = Geometry(user_pages=4096, pages_per_block=64, spare=0.2)
    return Drive(geometry, FtlConfig(slc_cache="static", slc_blocks=static_blocks,
                                     cell_bits=cell_bits, track_versions=True))


def test_a_full_cache_sends_the_rest_to_dense_flash_and_folding_frees_it():
    drive = static_drive()  # 4 blocks of 16 pages: 64 pages of cache
    drive.write_pages(np.arange(100))
    s = drive.slc_counters()
    assert s["slc_writes"] == 64 and s["slc_full"] == 4  # the first 64; 36 went dense
    assert drive.counters()["nand_writes"] == 100  # one program each so far: WA 1
    assert drive.fold(10) == 4  # every full cache block, and no more
    c, s = drive.counters(), drive.slc_counters()
    assert s["folded_pages"] == 64 and s["folds"] == 4 and s["slc_blocks"] == 0
    # each cached page programmed twice: 100 host pages, 164 flash programs
    assert c["nand_writes"] == 164 and c["gc_copies"] == 64
    drive.write_pages(np.arange(100, 180))
    assert drive.slc_counters()["slc_writes"] == 128  # the cache took 64 more
    drive.check_invariants()
    assert all(drive.version_of(p) is not None for p in range(180))


def test_pages_rewritten_in_the_cache_are_not_folded():
    drive = static_drive(static_blocks=2)  # 32 pages of cache
    drive.write_pages(np.arange(16))
    drive.write_pages(np.arange(16))  # the first block's pages all stale now
    assert drive.slc_counters()["slc_writes"] == 32
    assert drive.fold(2) == 2
    assert drive.slc_counters()["folded_pages"] == 16  # only the second block's
    assert drive.counters()["nand_writes"] == 32 + 16


def test_a_dynamic_cache_shrinks_as_the_drive_fills():
    geometry = Geometry(user_pages=16384, pages_per_block=64, spare=0.1)
    drive = Drive(geometry, FtlConfig(slc_cache="dynamic", slc_dynamic_share=0.25,
                                      cell_bits=3))
    empty = drive.slc_counters()["slc_may_borrow"]
    assert empty == 16384 // 64 // 4  # a quarter of the 256 blocks the user pages would take
    drive.write_pages(np.arange(8192))  # half full (the cache took what it could)
    drive.fold(10_000)
    assert drive.slc_counters()["slc_may_borrow"] == 8192 // 64 // 4  # half the room
    drive.write_pages(np.arange(8192, 16384))
    drive.fold(10_000)
    assert drive.slc_counters()["slc_may_borrow"] == 0  # a full drive borrows nothing
    drive.check_invariants()


def test_events_have_room_for_a_write_that_folds_under_pressure():
    geometry = Geometry(user_pages=2048, pages_per_block=16, spare=0.2)
    config = FtlConfig(slc_cache="dynamic", slc_dynamic_share=1.0, cell_bits=2)
    drive = Drive(geometry, config, event_capacity=event_capacity_for(geometry, config, 64))
    rng = np.random.default_rng(3)
    for _ in range(400):
        lpn = int(rng.integers(0, 2048 - 64))
        assert drive.run(Commands.of([("write", lpn, 64)])) == 1
        assert drive.events_dropped == 0
        drive.take_events()
    assert drive.slc_counters()["folded_pages"] > 0


@pytest.mark.parametrize(("fields", "says"), [
    ({"slc_cache": "huge"}, "slc_cache must be one of none, static, dynamic"),
    ({"slc_cache": "static", "cell_bits": 5}, "cell_bits must be a whole number from 2 to 4"),
    ({"slc_cache": "static"}, "a static SLC cache needs slc_blocks of at least 1"),
    ({"slc_cache": "dynamic"}, "a dynamic SLC cache needs slc_dynamic_share above 0"),
    ({"slc_cache": "static", "slc_blocks": 2, "mapping": "block"}, "needs mapping 'page'"),
    ({"slc_cache": "static", "slc_blocks": 2, "gc": "fifo"}, "gc 'greedy'"),
    ({"slc_dynamic_share": 1.5}, "slc_dynamic_share must be from 0 to 1"),
])
def test_bad_cache_settings_name_the_field_and_its_range(fields, says):
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        FtlConfig(**fields)


def test_a_static_cache_must_leave_gc_its_spare():
    geometry = Geometry(user_pages=4096, pages_per_block=64, spare=0.1)  # 7 spare blocks
    with pytest.raises(ValueError, match="besides the static SLC cache's 6"):
        check_buildable(geometry, FtlConfig(slc_cache="static", slc_blocks=6))
