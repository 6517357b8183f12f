"""One WA figure for one moment: the snapshot carries it (ssdlab/app/gui/run/snapshot.py), and the
tally beside the map and the status bar both show it for the moment the map shows (they
once computed their own, from different moments, and disagreed by 0.01-0.02)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel

from ssdlab.app.gui.drive.tally import Tally
from ssdlab.app.gui.frame import statusline
from ssdlab.app.gui.run.snapshot import drive_snapshot, phase_snapshot
from ssdlab.app.session.settings import Settings
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.gcepisodes import GcEpisode, GcPhase
from ssdlab.model.flash.geometry import Geometry

G = Geometry(user_pages=256, pages_per_block=16, spare=0.25)


def _drive_after(writes: int, seed: int = 3) -> Drive:
    d = Drive(G)
    d.write_pages(np.arange(G.user_pages, dtype=np.int64))
    d.write_pages(np.random.default_rng(seed).integers(0, G.user_pages, writes))
    return d


def test_a_snapshot_carries_its_counters_wa_compression_counted():
    d = _drive_after(600)
    c = d.counters()
    assert c["gc_copies"] > 0  # the drive collected: WA above 1
    snap = drive_snapshot(d, 1)
    assert snap.wa == pytest.approx(c["nand_writes"] / c["host_writes"]) and snap.wa > 1
    half = drive_snapshot(d, 1, stored=0.5)
    assert half.wa == pytest.approx(snap.wa / 2)
    assert drive_snapshot(Drive(G), 1).wa != drive_snapshot(Drive(G), 1).wa  # nan: none yet


def test_a_gc_phase_has_the_wa_of_its_own_counters():
    d = _drive_after(600)
    snap = drive_snapshot(d, 1, stored=0.5)
    a = d.arrays
    c = d.counters()
    mid = {"nand_writes": c["nand_writes"] - 7, "gc_copies": c["gc_copies"] - 7}
    ep = GcEpisode(victim=0, valid_pages=7, sources=(), targets=(), erase_count=1,
                   pages_per_block=G.pages_per_block)
    phase = GcPhase("move", ep, a.p2l.copy(), d.block_views()["state"].copy(),
                    d.block_views()["valid"].copy(), mid)
    moved = phase_snapshot(snap, phase)
    assert moved.wa == pytest.approx(0.5 * (c["nand_writes"] - 7) / c["host_writes"])


def test_tally_and_status_bar_show_one_figure_for_the_moment_the_map_shows(qtbot):
    early, late = drive_snapshot(_drive_after(300), 1), drive_snapshot(_drive_after(900), 2)
    assert f"{early.wa:.3f}" != f"{late.wa:.3f}"
    tally = Tally()
    qtbot.addWidget(tally)
    tally.set_snapshot(early)  # the map plays an older moment (a GC at teaching pace)
    view = SimpleNamespace(blockmap=SimpleNamespace(snapshot=early), shows_own_drive=True,
                           snapshot=late, settings=Settings())
    w = SimpleNamespace(views=[view], status={"wa": QLabel()}, wa_note=QLabel())
    statusline.show_wa(w)
    assert w.status["wa"].text() == f"WA {tally.figure('wa')}" == f"WA {early.wa:.3f}"
    view.shows_own_drive = False  # a lesson's drive on the map: the bar keeps the run's
    statusline.show_wa(w)
    assert w.status["wa"].text() == f"WA {late.wa:.3f}"
    two = SimpleNamespace(views=[view, SimpleNamespace(
        blockmap=SimpleNamespace(snapshot=early), shows_own_drive=True, snapshot=late,
        settings=Settings())], status={"wa": QLabel()})
    statusline.show_wa(two)
    assert two.status["wa"].text() == f"A: WA {late.wa:.3f}  B: WA {early.wa:.3f}"
