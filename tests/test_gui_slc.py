"""An SLC cache in the window: the profile brings it, the map marks its blocks by shape, the
legend lists the mark, and the tally, the map's description and what a screen reader hears
count its pages, all from the snapshot of the run on screen."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ssdlab.app.gui.drive import slcmarks
from ssdlab.app.gui.drive.tally import Tally
from ssdlab.app.gui.run.snapshot import drive_snapshot
from ssdlab.app.gui.run.spoken import map_description
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.state import BLOCK_FULL, MODE_STATIC

G = Geometry(user_pages=4096, pages_per_block=32, spare=0.2)


def _cached_drive() -> Drive:
    d = Drive(G, FtlConfig(slc_cache="dynamic", cell_bits=4, slc_blocks=4,
                           slc_dynamic_share=0.5))
    d.write_pages(np.arange(600, dtype=np.int64))  # into the cache: 8 pages a block
    d.fold(3)
    return d


def test_the_snapshot_and_the_words_count_a_cache_blocks_own_pages(qtbot):
    d = _cached_drive()
    snap = drive_snapshot(d, 1)
    c = d.slc_counters()
    assert snap.slc_pages == 8 and snap.slc_counts == c and c["folds"] == 3
    cache = np.flatnonzero(snap.slc)
    # the map marks every block in SLC mode: the static ones free in the cache's pool too
    assert (snap.slc[-4:] == MODE_STATIC).all() and cache.size >= c["slc_blocks"]
    full = [b for b in cache if snap.state[b] == BLOCK_FULL]
    # a full cache block is a full block: the top of the colour scale, as a full dense one
    assert full and all(snap.codes[b] == 255 for b in full)
    said = map_description(snap)
    assert (f"SLC cache: {cache.size} blocks in SLC mode, of 8 pages, {c['slc_full']} full and "
            f"waiting to be folded; {c['slc_writes']:,} pages written into it, "
            f"{c['folded_pages']} folded into dense flash.") in said
    tally = Tally()
    qtbot.addWidget(tally)
    tally.set_snapshot(snap)
    copied = tally.values["copied"]
    assert copied.accessibleName() == "Pages GC copied or folded"
    assert f"{c['folded_pages']:,} pages folded out of the SLC cache" in copied.toolTip()
    assert tally.values["flash"].accessibleName().endswith(
        f", {c['slc_writes']:,} into the SLC cache")
    tally.set_snapshot(drive_snapshot(Drive(G), 2))  # a drive without: the plain words
    assert tally.values["copied"].accessibleName() == "Pages GC copied"


SCENARIO = """version = 1
[drive]
profile = "qlc_slc_cache_1tb"
user_gib = 4
[filesystem]
atime = "noatime"
[[steps]]
do = "write"
name = "a"
mb = 600
"""


def test_the_qlc_profile_brings_its_cache_to_the_window_and_a_drive_without_one_refuses_it(
        until, bench, tmp_path):
    path = Path(tmp_path / "qlc.toml")
    path.write_text(SCENARIO)
    assert bench.open_scenario(str(path)), bench.controls.error.text()
    combo = bench.controls.widgets["slc_cache"]
    assert combo.currentData() == "dynamic" and combo.accessibleName() == "SLC cache"
    until(lambda: bool(bench.snapshot.steps) and not bench.snapshot.running)
    snap = bench.snapshot
    assert snap.slc is not None and snap.counters["slc_writes"] > 0
    view = bench.views[0]
    until(lambda: view.blockmap.snapshot is snap)
    assert slcmarks.LEGEND_TEXT in view.legend.labels
    assert slcmarks.slc_cells(snap, view.blockmap.view, 0), "no cache block is marked"
    b = int(np.flatnonzero(snap.slc)[0])
    assert "SLC cache" in view.blockmap.describe(b)
    assert f"of {snap.slc_pages} pages valid" in view.blockmap.describe(b)
    # a drive whose profile has no cache figures: none, and a cache asked of it is refused
    bench.confirm = lambda text: True  # yes, discard the run
    assert bench.request(profile="ocz_vertex_60")
    assert bench.session.settings.slc_cache == "none"
    assert not bench.request(slc_cache="dynamic")
    assert "SLC cache" in bench.controls.error.text()
    assert "needs a profile with an SLC cache's figures" in bench.controls.error.text()
    assert bench.session.settings.slc_cache == "none"  # the settings that stood
