"""Placement in the window: the host's hot/cold tags chosen in the Drive settings, the
tagged blocks flagged on the map and listed in its legend, said to a screen reader and in
a block's tooltip, and what cannot work refused naming the control."""

from __future__ import annotations

from ssdlab.app.gui.drive import handlemarks
from ssdlab.app.gui.run.snapshot import tagged_blocks
from ssdlab.app.gui.run.spoken import map_description


def test_tagged_hot_data_fills_flagged_blocks_of_its_own(until, bench):
    bench.confirm = lambda text: True
    assert bench.request(placement="hotcold", handle_gc="isolated", workload="hotcold",
                         hot_lba_pct=10.0, hot_write_pct=90.0, amount=1.0, speed="fast"), \
        bench.controls.error.text()
    combo = bench.controls.widgets["placement"]
    assert combo.currentData() == "hotcold" and combo.accessibleName() == "Placement"
    bench.controls.set_expert(True)  # where the tag controls are
    assert bench.controls.widgets["handle_gc"].isVisibleTo(bench.controls)
    bench.run_workload()
    until(lambda: bench.snapshot is not None and not bench.snapshot.running
          and bench.snapshot.counters["host_writes"] >= bench.snapshot.user_pages)
    snap = bench.snapshot
    tagged = tagged_blocks(snap)
    # the hot tenth of the pages, 90 % of the writes, fills blocks of handle 1 only
    assert tagged.size and snap.valid[tagged].sum() <= 0.1 * snap.user_pages + 1
    view = bench.views[0]
    until(lambda: view.blockmap.snapshot is snap)
    assert handlemarks.LEGEND_TEXT in view.legend.labels
    assert handlemarks.handle_cells(snap, view.blockmap.view, 0), "no tagged block flagged"
    assert "data tagged with placement handle 1" in view.blockmap.describe(int(tagged[0]))
    assert f"Placement: {tagged.size:,} blocks hold data tagged hot" in map_description(snap)
    # without tags the flags and their legend entry go, and the tag controls fold away
    assert bench.request(placement="none")
    until(lambda: bench.snapshot is not None and bench.snapshot.handles is None)
    until(lambda: handlemarks.LEGEND_TEXT not in view.legend.labels)
    assert not bench.controls.widgets["handle_gc"].isVisibleTo(bench.controls)


def test_placement_where_it_cannot_work_is_refused_naming_the_control(bench):
    bench.confirm = lambda text: True
    assert bench.request(mapping="block")
    assert not bench.request(placement="hotcold")
    assert bench.controls.error.text().startswith("Placement")
    assert bench.session.settings.placement == "none"
