"""A breakpoint the class can follow (issue 36), in the window: the victim the breakpoint
outlines is the one the first G cleans; the tally, the status bar and the note under the
chart give the same WA, written the same way, for the moment the map shows; zoomed in, the
map brings the victim on screen. Runs wait on conditions, never on time."""

from __future__ import annotations

from ssdlab.app.gui.drive import mapwiring
from ssdlab.app.session.wanotes import wa_figure
from ssdlab.model.lab.breakpoints import Breakpoints


def agree(bench) -> str:
    """The tally's WA, checked against the status bar and the note; returns it."""
    tally = bench.views[0].tally.figure("wa")
    assert bench.status["wa"].text() == f"WA {tally}"
    assert f"simulated {tally}" in bench.wa_note.text(), (tally, bench.wa_note.text())
    return tally


def test_the_first_g_after_a_breakpoint_cleans_the_victim_outlined(qtbot, until, bench):
    mapwiring.set_breakpoints(bench, Breakpoints(gc_count=1),
                              bench.session.settings.geometry())
    bench.blockmap.zoom(len(bench.blockmap.view.rungs))  # as far in as it goes
    assert bench.blockmap.view.zoomed
    bench.run_workload()  # the default drive: fill in order, then random rewrites
    until(lambda: bench.notice.startswith("Breakpoint") and not bench.is_running()
          and bench.blockmap.snapshot is not None
          and bench.blockmap.snapshot.gc_phase == "breakpoint")
    shown = bench.blockmap.snapshot
    victim = shown.gc_victim
    assert f"block {victim:,}" in bench.notice
    assert bench.worker.drive.counters()["gc_victims"] > 1  # its batch ran on past GC 1
    assert shown.counters["gc_victims"] == 0 and shown.counters["gc_copies"] == 0
    assert bench.views[0].tally.figure("copied") == "0"
    assert agree(bench) == wa_figure(shown.wa)
    # the charts end where the map stands, not at the end of the batch that ran on
    assert bench.snapshot.series["drive_writes"][-1] < (shown.counters["host_writes"]
                                                         / shown.user_pages)
    view = bench.blockmap.view
    assert view.zoomed and victim in view.visible_blocks()  # the map went to the victim
    bench.step_gc()
    until(lambda: bench.blockmap.snapshot.gc_phase == "stepped")
    stepped = bench.blockmap.snapshot
    assert stepped.gc_victim == victim  # the block the class saw outlined
    assert stepped.counters["gc_victims"] == 1
    assert bench.views[0].tally.figure("copied") == f"{shown.gc_valid:,}"
    assert f"block {victim} cleaned" in bench.views[0].tally.now.text()
    agree(bench)
    assert "copies nothing" not in bench.wa_note.text()  # beside 53 pages copied


def test_the_victim_outlined_stays_in_its_row_and_column_when_the_map_resizes(until, bench):
    """After a breakpoint the map's size changed (the divider, the window, a lesson's stage)
    and the grid was laid out afresh for it: the victim outlined at the end of a row went
    to the start of another, and the class lost it (issue 36). While a GC is named the
    grid keeps its columns; the outline is drawn from the block's index, and the sentence
    under the map still names it."""
    from ssdlab.app.gui.drive import blockmap, gcmarks, mapview

    mapwiring.set_breakpoints(bench, Breakpoints(gc_count=1),
                              bench.session.settings.geometry())
    bench.run_workload()
    bmap = bench.blockmap
    until(lambda: not bench.is_running() and bmap.snapshot is not None
          and bmap.snapshot.gc_phase == "breakpoint")
    victim = bmap.snapshot.gc_victim
    cols = bmap.view.cols
    place = divmod(victim, cols)  # its row and column
    split = bench.right_split
    total = sum(split.sizes())
    n = bmap.snapshot.blocks
    # a height for the map's half at which a grid laid out afresh has other columns
    for top in range(split.sizes()[0] - 20, 100, -10):
        split.setSizes([top, total - top])
        until(lambda t=top: split.sizes()[0] == t or split.sizes()[0] > t + 5)
        w, h = bmap.width() - 2 * blockmap.MARGIN, bmap.height() - 2 * blockmap.MARGIN
        if mapview.fitted(n, w, h)[0] != cols:
            break
    else:
        raise AssertionError("no height of the map's half lays the grid out afresh")
    until(lambda: (bmap.view.width, bmap.view.height) == (w, h))
    view = bmap.view
    assert view.cols == cols and divmod(victim, view.cols) == place
    outline = gcmarks.block_rect(view, blockmap.MARGIN, victim)
    centre = outline.center()
    assert bmap.block_at(int(centre.x()), int(centre.y())) == victim
    assert bmap.snapshot.gc_phase == "breakpoint" and bmap.snapshot.gc_victim == victim
    assert f"block {victim}" in bench.views[0].tally.now.text()
