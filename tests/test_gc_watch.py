"""A run watched GC by GC (ssdlab/model/flash/gcwatch.py) gives the same figures as one run at
full speed, whether every watched GC is played or the watch is skipped part way; the GCs it
shows are the engine's own, in order, each victim erased at its last phase."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.gcwatch import GcWatch
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.runner import RunSpec, run
from ssdlab.model.flash.state import BLOCK_FREE, BLOCK_VICTIM, OP_READ, OP_TRIM, OP_WRITE
from ssdlab.model.flash.workloads import Workload


def _spec(**ftl) -> RunSpec:
    return RunSpec(Geometry(2048, 32, spare=0.1), FtlConfig(**ftl), Workload(),
                   warmup_drive_writes=0.5, measure_drive_writes=1.0, seed=7, windows=4)


def _figures(result) -> dict:
    d = asdict(result)
    d.pop("seconds")
    d.pop("host_writes_per_second")
    return d


@pytest.mark.parametrize("ftl", [{}, {"gc": "fifo"}, {"gc_frontier": "separate"}])
def test_watched_run_has_the_same_figures(ftl):
    spec = _spec(**ftl)
    seen = []
    watch = GcWatch(lambda drive, phases, n: seen.append((n, phases)), gcs=4)
    assert _figures(run(spec, watch=watch)) == _figures(run(spec))
    firsts = [n for n, _ in seen]
    assert firsts[0] == 1 and firsts == sorted(firsts)
    assert sum(len(p) for _, p in seen) == 3 * watch.shown and watch.shown >= 4
    for _, phases in seen:
        assert [p.name for p in phases[:3]] == ["mark", "move", "erase"]
        mark, move, erase = phases[:3]
        victim = mark.episode.victim
        assert mark.bstate[victim] == BLOCK_VICTIM
        assert erase.bstate[victim] == BLOCK_FREE
        assert len(mark.episode.sources) == mark.episode.valid_pages
        assert move.counters["gc_copies"] - mark.counters["gc_copies"] == \
            mark.episode.valid_pages


def test_skipping_part_way_gives_the_same_figures():
    spec = _spec()
    state = {"skip": False}

    calls = []

    def show(drive, phases, first):
        calls.append(len(phases) // 3)
        state["skip"] = True  # the student pressed "Skip to end" during the first GC

    watch = GcWatch(show, gcs=100, skipped=lambda: state["skip"])
    assert _figures(run(spec, watch=watch)) == _figures(run(spec))
    assert len(calls) == 1 and watch.shown == calls[0]


def test_the_watch_sees_the_drive_past_the_gc():
    spec = _spec()
    drives = []

    def show(drive, phases, n):
        drives.append((drive.counters()["erases"], phases[-1].counters["erases"]))

    run(spec, watch=GcWatch(show, gcs=2))
    assert drives and all(now >= shown for now, shown in drives)


def _commands(rng, user: int, n: int) -> Commands:
    """A block device's batch: writes of 1 to 40 pages, some TRIMs and reads."""
    ops = rng.choice([OP_WRITE] * 6 + [OP_TRIM, OP_READ], n).astype(np.int8)
    counts = rng.integers(1, 41, n).astype(np.int64)
    lpns = np.minimum(rng.integers(0, user, n), user - counts).astype(np.int64)
    return Commands(ops, lpns, counts)


@pytest.mark.parametrize("mapping", ["page", "block", "fast"])
def test_a_drive_run_by_someone_else_is_watched_with_the_same_physics(mapping):
    """attach(): the batches a block device hands Drive.run_all and the idle time's
    background GC (Drive.idle_gc) go through the watch while it wants GCs; the drive ends
    exactly as one that ran them unwatched, and the watch was shown its GCs (merges)."""
    g, c = Geometry(1024, 16, spare=0.2), FtlConfig(mapping=mapping, seed=3)
    plain, watched = Drive(g, c), Drive(g, c)
    seen = []
    watch = GcWatch(lambda drive, phases, first: seen.append((first, phases)), gcs=5)
    watch.attach(watched)
    rng = np.random.default_rng(11)
    idle = {id(plain): [], id(watched): []}
    for _ in range(30):
        cmds = _commands(rng, 1024, 40)
        for d in (plain, watched):
            d.run_all(cmds)
            idle[id(d)].append(d.idle_gc(g.spare_blocks + 4, 3, 0.5))
    assert idle[id(plain)] == idle[id(watched)]
    for name in ("p2l", "l2p", "bstate", "valid", "erases", "lb2pb", "regs"):
        assert np.array_equal(getattr(plain.arrays, name), getattr(watched.arrays, name)), name
    assert watch.shown >= 5 and seen[0][0] == 1
    kind = "gc" if mapping == "page" else "merge"
    assert all(p.episode.kind == kind for _, phases in seen for p in phases)
    watched.record_events(False)
    assert watched.event_capacity == 0  # the log off again: run_all takes the fast path


def test_the_idle_times_gcs_are_watched_one_victim_at_a_time():
    g, c = Geometry(1024, 16, spare=0.2), FtlConfig(seed=3)
    drives = []
    for _ in range(2):
        d = Drive(g, c)
        d.write_pages(np.arange(1024))
        d.write_pages(np.random.default_rng(2).integers(0, 1024, 1500))
        d.run_all(Commands.single_page(OP_TRIM, np.arange(0, 1024, 3)))
        drives.append(d)
    plain, watched = drives
    seen = []
    GcWatch(lambda drive, phases, first: seen.append((first, len(phases))), gcs=2).attach(
        watched)
    assert watched.idle_gc(g.blocks, 40, 1.0) == plain.idle_gc(g.blocks, 40, 1.0) > 2
    assert seen == [(1, 3), (2, 3)]
    for name in ("p2l", "bstate", "valid", "regs", "rng"):
        assert np.array_equal(getattr(plain.arrays, name), getattr(watched.arrays, name)), name
