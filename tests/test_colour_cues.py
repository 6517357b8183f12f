"""Never hue alone: under simulated deuteranopia (ssdlab/app/colourvision.py) the GC victim's
vermillion turns an olive close to the map's viridis greens, and a lesson's green outline
turns grey. So the victim is also crossed out (a black X on a white halo, which stands out
from any fill by lightness), and answers carry a label and an outline style of their own."""

from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter, QPen

from ssdlab.app import colourvision as cv
from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.drive import heatmap, victimmarks
from ssdlab.app.gui.drive.blockmap import MARGIN
from ssdlab.app.gui.lessons.predictionview import (
    PredictionView,
    answer_marks,
    answer_pen,
    answer_tail,
)
from ssdlab.app.gui.run.snapshot import CODE_VICTIM
from ssdlab.app.palette import (
    CHART_PAGE,
    CHOSEN_ANSWER_LABEL,
    MAP,
    RIGHT_ANSWER_LABEL,
    VICTIM_MARK,
    VIRIDIS_ENDS,
)
from ssdlab.lessons.charts import Band, PredictionPicture


def _hex(rgba) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(int(v) for v in rgba[:3]))


def test_the_victims_hue_alone_is_lost_among_viridis_to_a_deuteranope():
    """Why the cross is needed: the victim's colour comes close to a state-map colour."""
    viridis = [_hex(c) for c in theme.viridis_lut()]
    victim = MAP["normal"]["block_victim"]
    normal = min(cv.difference(victim, c) for c in viridis)
    deutan = min(cv.difference(victim, c, "deuteranopia") for c in viridis)
    assert deutan < normal / 3  # two thirds of the difference gone


@pytest.mark.parametrize("vision", cv.VISIONS)
def test_the_cross_stands_out_from_every_fill_by_lightness(vision):
    stroke, halo = VICTIM_MARK["stroke"], VICTIM_MARK["halo"]
    assert cv.contrast(stroke, halo, vision) > 20
    fills = [_hex(c) for c in theme.viridis_lut()] + [
        m[k] for m in MAP.values() for k in ("block_victim", "block_free", "block_open",
                                              "block_erased")]
    for fill in fills:  # one of the two strokes is always far from the block's fill
        assert max(cv.contrast(stroke, fill, vision), cv.contrast(halo, fill, vision)) >= 4.5


def _victim_map(until, bench, mode):
    bench.resize(1024, 768)
    m = bench.blockmap
    until(lambda: m.snapshot is not None and m.view is not None)
    snap = m.snapshot
    codes = snap.codes.copy()
    codes[40] = CODE_VICTIM
    m.set_mode(mode)
    m.set_snapshot(replace(snap, codes=codes))
    m._render()
    return m


@pytest.mark.parametrize("mode", ["state", "valid", "erases"])
def test_a_victim_is_crossed_out_in_every_colouring(until, bench, mode):
    m = _victim_map(until, bench, mode)
    v = m.view
    cell = v.scale.cell
    assert cell >= victimmarks.MIN_CELL_PX
    image = m.grab().toImage()
    stroke = QColor(VICTIM_MARK["stroke"]).rgb()

    def centre(b):
        r, c = divmod(b, v.cols)
        return image.pixel(int(MARGIN + v.ox + (c + 0.5) * cell),
                           int(MARGIN + v.oy + (r + 0.5) * cell))

    if m.page_level:  # the state map of this drive shows pages: outlined, not crossed
        assert mode == "state"
        halo = QColor(VICTIM_MARK["halo"]).rgb()
        r, c = divmod(40, v.cols)
        w = max(1.5, cell / 10)
        x, y = int(MARGIN + v.ox + c * cell + 1 + w), int(MARGIN + v.oy + (r + 0.5) * cell)
        near = [QColor(image.pixel(x + dx, y + dy)).lightness()
                for dx in (-1, 0, 1) for dy in range(-4, 5)]
        assert min(near) < 50 and max(near) > 200  # black dashes on white, at the edge
        assert halo != stroke
        return
    assert centre(40) == stroke  # the X's two strokes cross in the middle
    assert centre(41) != stroke and centre(39) != stroke  # its neighbours are not crossed


@pytest.mark.parametrize("mode", ["state", "valid", "age"])
def test_every_colourings_legend_names_the_crossed_victim(until, bench, mode):
    bench.request(heatmap=mode)
    until(lambda: bench.legend.mode == mode)
    assert "GC victim" in bench.legend.labels


def test_the_legend_swatch_of_a_victim_is_crossed_as_well():
    from ssdlab.app.gui.drive.legend import _swatch

    plain = _swatch(MAP["normal"]["block_victim"], 12).toImage()
    crossed = _swatch(MAP["normal"]["block_victim"], 12, crossed=True).toImage()
    assert plain.pixel(6, 6) != crossed.pixel(6, 6)
    assert QColor(crossed.pixel(6, 6)).lightness() < 60  # the dark stroke at the centre


def test_answers_carry_a_label_and_an_outline_style_not_only_a_colour():
    assert answer_marks(chosen=True, right=False) == ["chosen"]
    assert answer_marks(chosen=False, right=True) == ["right"]
    assert answer_marks(chosen=True, right=True) == ["right", "chosen"]
    assert RIGHT_ANSWER_LABEL == "\N{CHECK MARK} right answer"
    assert RIGHT_ANSWER_LABEL in answer_tail(["right"])
    assert CHOSEN_ANSWER_LABEL in answer_tail(["chosen"])
    solid, dashed = answer_pen(QColor("#009E73"), "right"), answer_pen(QColor("#000"), "chosen")
    assert solid.style() != dashed.style() and dashed.dashPattern()


@pytest.mark.parametrize("profile", ["normal", "projector"])
@pytest.mark.parametrize("vision", cv.VISIONS)
def test_the_right_answers_outline_stands_out_from_the_page(profile, vision):
    right = theme.current().series[2]
    assert cv.contrast(right, CHART_PAGE[profile], vision) >= 3.0


def test_the_prediction_draws_both_outlines_and_their_key(qtbot):
    picture = PredictionPicture(
        title="What WA will the drive show?", kind="bands", unit="",
        bands=(Band(1, 2, "1-2", chosen=True, right=False),
               Band(2, 4, "2-4", chosen=False, right=False),
               Band(4, 8, "4-8", chosen=False, right=True)),
        measured=6.0, axis_label="write amplification")
    view = PredictionView()
    qtbot.addWidget(view)
    view.show_picture(picture)
    view.resize(500, view.heightForWidth(500))
    image = view.grab().toImage()
    right = QColor(theme.current().series[2]).rgb()
    ys = [y for y in range(image.height())
          if any(image.pixel(x, y) == right for x in range(image.width()))]
    # the right band's outline and the key's sample of it, on two separate rows of the view
    assert ys and max(ys) - min(ys) > view.fontMetrics().height()
    empty = PredictionView()
    qtbot.addWidget(empty)
    empty.show_picture(replace(picture, bands=()))
    assert view.heightForWidth(500) > empty.heightForWidth(500)  # the key's line
    # narrow (beside the map in presentation type): the key takes a line an entry
    assert [row for _x, row in view._key_places(800)] == [0, 0]
    assert [row for _x, row in view._key_places(220)] == [0, 1]


def test_painting_marks_on_any_fill_leaves_the_fill_round_them():
    image = QImage(24, 24, QImage.Format.Format_RGB32)
    fill = QColor(MAP["normal"]["block_victim"])
    image.fill(fill)
    p = QPainter(image)
    p.setPen(QPen())
    victimmarks.paint(p, [QRectF(0, 0, 24, 24)], page_level=True)
    p.end()
    assert image.pixel(12, 12) == fill.rgb()  # drawn as pages: outlined, the pages show
    assert VIRIDIS_ENDS and heatmap.fills_blocks("valid")
    assert np.any([image.pixel(3, y) != fill.rgb() for y in range(24)])


def test_a_page_gc_copied_is_a_ring_on_the_map_and_in_the_legend(until, bench):
    """Copied pages are told by shape as well as colour: hollow, their middle in the map's
    background, wherever a page has RING_PX pixels or more (and in the legend's swatch)."""
    from ssdlab.app.gui.drive.blockmap import RING_PX
    from ssdlab.app.gui.drive.legend import _swatch
    from ssdlab.app.gui.run.snapshot import PAGE_COPIED

    bench.resize(1024, 768)
    m = bench.blockmap
    until(lambda: m.snapshot is not None and m.snapshot.pages is not None
          and m.view is not None)
    while m.view.page_px() < RING_PX:
        m.zoom(1)
    v = m.view
    from ssdlab.app.gui.drive.gcmarks import block_rect

    b = next(int(b) for b in v.visible_blocks()  # one wholly on screen
             if m.rect().contains(block_rect(v, MARGIN, int(b)).toRect()))
    until(lambda: m.snapshot.pages is not None and (m.snapshot.page_blocks is None
                                                    or b in m.snapshot.page_blocks))
    snap = m.snapshot
    row = b if snap.page_blocks is None else int(np.searchsorted(snap.page_blocks, b))
    pages = snap.pages.copy()
    pages[row * snap.pages_per_block] = PAGE_COPIED  # the block's first page
    m.guard.reset()  # drawn at once, not held back as a flash
    m.set_snapshot(replace(snap, pages=pages))
    m._render()
    assert m.page_level
    image = m.grab().toImage()
    px, bw = v.page_px(), m._frame_px(v.page_px())
    at = block_rect(v, MARGIN, b).topLeft()
    x0, y0 = int(at.x()) + bw, int(at.y()) + bw
    background, copied = (QColor(theme.current().colour(k)).rgb()
                          for k in ("map_background", "page_copied"))
    assert image.pixel(x0, y0) == copied  # the ring
    assert image.pixel(x0 + px // 2, y0 + px // 2) == background  # its hole
    swatch = _swatch(MAP["normal"]["page_copied"], 12, ring=True).toImage()
    assert swatch.pixel(2, 2) == QColor(MAP["normal"]["page_copied"]).rgb()
    assert swatch.pixel(6, 6) == QColor(MAP["normal"]["map_background"]).rgb()
