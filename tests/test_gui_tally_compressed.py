"""On a compressing drive every figure that says "flash" counts flash pages: the engine counts
the pages it stores (each a fraction of a flash page), and the tally, the WA's division and
what a screen reader hears multiply them by the engine's own stored fraction. The tally once
showed the stored pages as "Pages written to flash" (twice the flash programmed at 0.5), and
only its WA's tooltip said "x 0.5 (compressed)"."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.app.gui.drive.tally import Tally
from ssdlab.app.gui.frame.speech import tally_words
from ssdlab.app.gui.run.snapshot import drive_snapshot
from ssdlab.app.gui.run.spoken import map_description, wa_now
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry

G = Geometry(user_pages=256, pages_per_block=16, spare=0.25)


def _compressing_drive(stored: float = 0.5) -> Drive:
    d = Drive(G, FtlConfig(stored_fraction=stored))
    d.write_pages(np.arange(G.user_pages, dtype=np.int64))
    d.write_pages(np.random.default_rng(5).integers(0, G.user_pages, 2000))
    return d


def test_the_tally_counts_flash_pages_on_a_compressing_drive(qtbot):
    d = _compressing_drive(0.3)
    c = d.counters()
    assert c["gc_copies"] > 0 and d.stored_fraction == 0.3
    flash = d.flash_pages()
    assert flash == pytest.approx(0.3 * c["nand_writes"])
    tally = Tally()
    qtbot.addWidget(tally)
    tally.set_snapshot(drive_snapshot(d, 1, stored=d.stored_fraction))
    shown = f"{flash:,.1f}"
    assert tally.figure("flash") == shown  # flash pages, not the stored pages
    assert tally.figure("host") == f"{c['host_writes']:,}"
    assert tally.figure("wa") == f"{flash / c['host_writes']:.3f}"
    # the division the WA row explains is the figures on screen, nothing hidden in it
    wa_tip = tally.values["wa"].toolTip()
    assert wa_tip.startswith(f"{shown} ÷ {c['host_writes']:,}") and "×" not in wa_tip
    # the flash row says what it counts, on hover and to a screen reader
    flash_label = tally.values["flash"]
    for said in (flash_label.toolTip(), flash_label.accessibleName()):
        assert "flash pages" in said and "0.3" in said, said
    assert f"{c['nand_writes']:,}" in flash_label.toolTip()  # the stored pages behind it
    heard = tally_words(tally)
    assert heard[flash_label] == shown and heard[tally.values["wa"]].startswith(
        f"{tally.figure('wa')}: {shown} ÷ ")


def test_an_uncompressed_tally_keeps_whole_pages(qtbot):
    d = Drive(G)
    d.write_pages(np.arange(G.user_pages, dtype=np.int64))
    tally = Tally()
    qtbot.addWidget(tally)
    tally.set_snapshot(drive_snapshot(d, 1))
    assert tally.figure("flash") == f"{d.counters()['nand_writes']:,}"
    assert tally.values["flash"].accessibleName() == "Pages written to flash"


def test_what_a_screen_reader_hears_counts_flash_on_a_compressing_drive():
    d = _compressing_drive(0.5)
    c = d.counters()
    snap = drive_snapshot(d, 1, stored=d.stored_fraction)  # a lesson's run: no series
    assert wa_now(snap) == pytest.approx(d.flash_pages() / c["host_writes"])
    said = map_description(snap)
    assert "of flash pages" not in said and "of the flash" in said
