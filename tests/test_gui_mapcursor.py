"""The block map by keyboard (ssdlab/app/gui/drive/mapcursor.py): Tab into it shows a block cursor,
the arrows, Home, End, Page Up and Page Down move it, its block's details are the map's
accessible description and show at the cursor, + zooms about it, and the ring is a black
line between white ones (drawn, not a colour). Focus by a click or the program keeps the
old keys."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from ssdlab.app.gui.drive.blockmap import BlockMap
from ssdlab.app.gui.drive.mapcursor import INNER_PX
from ssdlab.app.gui.run.snapshot import drive_snapshot
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import Geometry

K = Qt.Key


@pytest.fixture
def bm(qtbot):
    top = QWidget()
    button = QPushButton("before", top)
    m = BlockMap(top)
    layout = QVBoxLayout(top)
    layout.addWidget(button)
    layout.addWidget(m)
    qtbot.addWidget(top)
    top.resize(420, 360)
    drive = Drive(Geometry(user_pages=2048, pages_per_block=16, spare=0.12))
    drive.write_pages(np.arange(0, 2048, 3, dtype=np.int64))
    m.set_snapshot(drive_snapshot(drive, 0))
    top.show()
    qtbot.waitUntil(lambda: m.view is not None and m.width() > 200)
    top.activateWindow()
    button.setFocus()
    qtbot.waitUntil(button.hasFocus)
    yield m
    top.close()


def test_tab_in_shows_a_cursor_the_keys_move(qtbot, bm):
    qtbot.keyClick(bm.window().focusWidget(), K.Key_Tab)
    qtbot.waitUntil(bm.hasFocus)
    v, c = bm.view, bm.cursor
    assert c.on and c.block == 0
    assert "Block 0" in bm.accessibleDescription() and "erased" in bm.accessibleDescription()
    moves = [(K.Key_Right, 1), (K.Key_Down, 1 + v.cols), (K.Key_Up, 1), (K.Key_Left, 0),
             (K.Key_Left, 0), (K.Key_End, v.n - 1), (K.Key_Right, v.n - 1), (K.Key_Home, 0)]
    for key, want in moves:
        qtbot.keyClick(bm, key)
        assert c.block == want, key
    r0, r1, _, _ = v.visible()
    qtbot.keyClick(bm, K.Key_PageDown)
    assert c.block == min(v.n - 1, max(1, r1 - r0 - 1) * v.cols)
    qtbot.keyClick(bm, K.Key_PageUp)
    assert c.block == 0
    qtbot.keyClick(bm, K.Key_Right)
    s = bm.snapshot
    assert bm.accessibleDescription() == c.text()
    assert f"{int(s.valid[1])} of {s.pages_per_block} pages valid" in c.text()


def test_the_ring_is_black_between_white_at_least_min_size(qtbot, bm):
    qtbot.keyClick(bm.window().focusWidget(), K.Key_Tab)
    qtbot.waitUntil(bm.hasFocus)
    qtbot.keyClick(bm, K.Key_Right)
    image = bm.grab().toImage()
    box = bm.cursor.box().toRect()
    assert box.width() >= 9
    x = box.center().x()
    col = [image.pixelColor(x, y).name() for y in range(box.top() - 4, box.top() + 4)]
    assert "#000000" in col and "#ffffff" in col  # the black line has white beside it
    assert col.count("#000000") >= INNER_PX - 1


def test_zoom_keys_centre_on_the_cursor(qtbot, bm):
    qtbot.keyClick(bm.window().focusWidget(), K.Key_Tab)
    qtbot.waitUntil(bm.hasFocus)
    v = bm.view
    want = (v.rows // 2) * v.cols + v.cols // 2 - 2
    for _ in range(want):
        bm.cursor.key(K.Key_Right)
    for _ in range(3):
        qtbot.keyClick(bm, K.Key_Plus)
    assert v.zoomed
    assert v.block_at(v.width / 2, v.height / 2) == want
    # walking off the screen brings the view along
    qtbot.keyClick(bm, K.Key_End)
    assert bm.cursor._on_screen()


def test_focus_by_the_program_keeps_the_old_keys(qtbot, bm):
    bm.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(bm.hasFocus)
    assert not bm.cursor.on and not bm.cursor.owns(K.Key_Right)
    assert bm.cursor.text() == "" and bm.cursor.box() is None
