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
