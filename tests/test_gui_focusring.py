"""The focus ring (issue 25): whatever has keyboard focus, a button, a list, the block map or
a chart, is framed by a ring drawn in the window's picture, at least 3:1 against the window
colour around it in both colour profiles."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor

from ssdlab.app.gui.appearance import focusring, theme


def luminance(hex_colour: str) -> float:
    c = QColor(hex_colour)
    chans = [x / 255 for x in (c.red(), c.green(), c.blue())]
    lin = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in chans]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("name", list(theme.THEMES))
def test_ring_colour_stands_out_in_both_profiles(name):
    t = theme.THEMES[name]
    ring = focusring.COLOUR[name]
    for token in ("window", "input_back"):
        assert contrast(ring, t.colours[token]) >= 3.0, (name, token)


@pytest.mark.parametrize("name", list(theme.THEMES))
def test_focused_controls_map_and_chart_are_ringed(bench, qtbot, name):
    theme.set_current(name)
    bench._apply_theme()
    targets = [bench.play_button, bench.views[0].blockmap, bench.charts.currentWidget(),
               bench.charts.tabBar(), bench.controls.widgets["spare_pct"]]
    for widget in targets:
        widget.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(lambda w=widget: w.hasFocus())
        ring = bench.findChild(focusring.Ring)
        assert ring is not None and ring.isVisible() and ring.target is widget
        # the ring follows a control the layout moves (bigger type) within FOLLOW_MS
        qtbot.waitUntil(lambda w=widget, r=ring: r.geometry().topLeft() + QPoint(3, 3)
                        == w.mapTo(bench, w.rect().topLeft()))
        picture = bench.grab().toImage()
        corner = widget.mapTo(bench, widget.rect().topLeft())
        # the ring's middle line, one pixel outside the control's own top-left corner
        x, y = corner.x() - 2, corner.y() + widget.height() // 2
        assert picture.pixelColor(x, y).name() == focusring.COLOUR[name], (
            name, type(widget).__name__)
