"""A room reads the map from the back: heat colours fill whole blocks on a small drive (not a
1-pixel frame round its pages), a zoom brings the point clicked to the middle, and the
Victims histogram fits the run on screen, not a kept reference's thousands."""

from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor

from ssdlab.app.gui.charts.charts import Charts, Run
from ssdlab.app.gui.drive import heatmap
from ssdlab.app.gui.drive.blockmap import MARGIN
from ssdlab.app.gui.drive.mapview import Viewport


def run_to_end(until, w, **changes):
    w.request(speed="fast", **changes)
    before = w.snapshot.counters["host_writes"]
    w.run_workload()
    until(lambda: w.snapshot.counters["host_writes"] > before)
    until(lambda: not w.snapshot.running and not w.snapshot.segment)


@pytest.mark.parametrize("mode", ["valid", "erases", "age"])
def test_heat_colours_fill_the_blocks_of_the_64_mib_drive(until, bench, mode):
    bench.resize(1024, 768)
    run_to_end(until, bench, workload="steady", amount=0.5)
    m = bench.blockmap
    until(lambda: m.snapshot is not None and m.snapshot.pages is not None)
    m.set_mode("state")
    m._render()
    assert m.page_level  # the state map shows this drive's pages
    m.set_mode(mode)
    m._render()
    assert not m.page_level
    v, lut = m.view, heatmap.lut(mode)
    cell = v.scale.cell
    assert cell >= 8  # blocks big enough to have been drawn as pages
    # nothing drawn over the cells: no keyboard cursor (Tab into the map draws one, and the
    # map may hold the focus a test before left it with), only the colours
    bench.setFocus()
    m.cursor.on = False
    m._render()
    image = m.grab().toImage()
    codes = m.heat.codes
    # a GC victim is crossed out over its colour (victimmarks.py): three blocks that are not
    from ssdlab.app.gui.run.snapshot import CODE_VICTIM

    plain = [b for b in range(m.snapshot.blocks) if m.snapshot.codes[b] != CODE_VICTIM]
    for b in (plain[0], plain[37], plain[-1]):
        r, c = divmod(b, v.cols)
        x0, y0 = MARGIN + v.ox + c * cell, MARGIN + v.oy + r * cell
        want = QColor(*lut[codes[b]][:3]).rgb()
        # every pixel of the cell but the 1-pixel gap on its top and left: one colour
        for dx, dy in ((1, 1), (cell // 2, cell // 2), (cell - 1, cell - 1), (1, cell - 1)):
            assert image.pixel(x0 + dx, y0 + dy) == want, (mode, b, dx, dy)


def test_a_zoom_key_after_a_click_centres_the_block_clicked():
    v = Viewport(20_000, 64, 800, 500)
    v.zoom(4)  # zoomed in far enough that the grid overflows the view both ways
    x, y = 130, 90  # near the top left corner
    clicked = v.block_at(x, y)
    v.mark(x, y)
    for _ in range(3):
        assert v.zoom(1)
        assert v.block_at(v.width / 2, v.height / 2) == clicked
    v.mark(10**6, 10**6)  # off the drive: the keys zoom about the middle again
    middle = v.block_at(v.width / 2, v.height / 2)
    v.zoom(1)
    assert abs(v.block_at(v.width / 2, v.height / 2) - middle) <= v.cols + 1


def test_a_double_click_zooms_in_centred_on_the_point(qtbot, until, bench):
    m = bench.blockmap
    until(lambda: m.view is not None)
    v = m.view
    cell = v.scale.value
    row, col = v.rows * 3 // 8, v.cols * 3 // 8  # off the middle, up and left
    clicked = row * v.cols + col
    x, y = (MARGIN + v.ox + (col + 0.5) * cell, MARGIN + v.oy + (row + 0.5) * cell)
    at = QPointF(x, y).toPoint()

    def centre():
        w = m.view
        return divmod(w.block_at(w.width / 2, w.height / 2), w.cols)

    qtbot.mouseDClick(m, Qt.MouseButton.LeftButton, pos=at)
    assert m.view.zoomed
    r, c = centre()
    assert abs(r - row) <= 1 and abs(c - col) <= 1, (r, c, row, col)
    qtbot.keyClick(m, Qt.Key.Key_0)
    assert not m.view.zoomed
    qtbot.mouseClick(m, Qt.MouseButton.LeftButton, pos=at)
    qtbot.keyClick(m, Qt.Key.Key_Plus)  # + with the map clicked: about the block clicked
    qtbot.keyClick(m, Qt.Key.Key_Plus)
    r, c = centre()
    assert abs(r - row) <= 1 and abs(c - col) <= 1 and m.view.zoomed
    assert clicked < m.snapshot.blocks


def _snap(victims):
    return SimpleNamespace(series={}, erases=np.zeros(4, int), steps=[],
                           victim_valid=np.asarray(victims, dtype=np.int64))


def test_the_victims_histogram_fits_the_run_not_a_kept_reference(qtbot):
    charts = Charts()
    qtbot.addWidget(charts)
    charts.resize(600, 400)
    charts.setCurrentWidget(charts.views["victims"])
    chart = charts.views["victims"]
    run = np.zeros(65, int)
    run[40:50] = 12  # a short run: a dozen victims a level
    kept = np.zeros(65, int)
    kept[30:40] = 4000  # a long reference run
    charts.show_snapshot(_snap(run), False, [Run("ref0", "ref: spare 7 %", _snap(kept), "ref")],
                         label="spare 12 %")
    top = chart.y_axis.shown[1]
    assert 12 <= top < 30  # the run's bars fill the chart
    assert chart.points("ref0:hist") > 0  # the reference is still drawn (off the top)
    charts.show_snapshot(_snap(np.zeros(65, int)), False,
                         [Run("ref0", "ref: spare 7 %", _snap(kept), "ref")])
    assert chart.y_axis.shown[1] >= 4000  # nothing of its own yet: the reference sets it
    wear = charts.views["wear"]
    charts.setCurrentWidget(wear)  # other charts still fit every line
    assert wear.y_axis.shown[1] > 0
