"""The tally goes under the map where the map area is too narrow for it beside the map: at
1.5x scaling on a 1366 x 768 screen in presentation type (911 x 512 logical px), a lesson's
one large drive made the map area scroll sideways and cut the tally's figures at the
right."""

from __future__ import annotations

import pytest
from test_gui_fit768 import hold, screen_is
from test_gui_lecture import as_a_projector


@pytest.fixture(autouse=True)
def _presentation_ends(bench):
    yield
    bench.toggle_presentation(False)


def test_a_narrow_map_area_puts_the_tally_under_the_map_and_a_wide_one_beside_it(
        qtbot, until, bench, monkeypatch):
    as_a_projector(bench, until)
    screen_is(bench, monkeypatch, 911, 512)  # 1.5x scaling: the parts scroll
    panel, view, area = bench.lesson_panel, bench.views[0], bench.central_fit
    panel.start(panel.lessons[1], 0)  # spare space: one 1 GiB drive, its tally beside the map
    until(lambda: not bench.presentation.panel_shown())  # the control panel folds first
    hold(bench, until, 911, 512)
    until(view.stacked)
    until(lambda: area.least().width() <= area.viewport().width())
    until(lambda: not area.horizontalScrollBar().isVisible())  # nothing scrolls sideways
    tally, blockmap = view.tally, view.blockmap
    until(lambda: tally.geometry().top() >= blockmap.geometry().bottom())
    for value in tally.values.values():  # the figures are whole
        assert value.width() >= value.minimumWidth()
    screen_is(bench, monkeypatch, 1366)  # room again: the tally goes back beside the map
    hold(bench, until, 1366)
    until(lambda: not view.stacked())
    until(lambda: tally.geometry().left() >= blockmap.geometry().right())
