"""A run watched GC by GC (ssdlab/model/flash/gcwatch.py) gives the same figures as one run at
full speed, whether every watched GC is played or the watch is skipped part way; the GCs it
shows are the engine's own, in order, each victim erased at its last phase."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from ssdlab.model.flash.gcwatch import GcWatch
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.runner import RunSpec, run
from ssdlab.model.flash.state import BLOCK_FREE, BLOCK_VICTIM
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
