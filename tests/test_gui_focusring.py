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


def _ringed(qtbot, window, widget):
    """The ring of window, once widget has the focus."""
    from PySide6.QtWidgets import QApplication

    focusring.install()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(widget.hasFocus)
    QApplication.processEvents()
    return window.findChild(focusring.Ring)


def _frames(ring, rect) -> bool:
    m = focusring.WIDTH_PX
    return ring.isVisible() and ring.geometry() == rect.adjusted(-m, -m, m, m)


def test_the_ring_frames_what_shows_of_a_control_scrolled_partly_out_of_its_panel(qtbot):
    """A control half scrolled out of its panel: the ring frames the half that shows, at
    once (it framed the whole control, over the parts beside the panel, and looked for
    it only every 150 ms); scrolled out whole, no ring."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QApplication, QLineEdit, QScrollArea, QVBoxLayout, QWidget

    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    area = QScrollArea()
    inner = QWidget()
    column = QVBoxLayout(inner)
    column.addSpacing(400)
    field = QLineEdit()
    field.setFixedHeight(40)
    column.addWidget(field)
    column.addSpacing(400)
    area.setWidget(inner)
    area.setFixedHeight(200)
    layout.addWidget(area)
    window.resize(300, 260)
    window.show()
    qtbot.waitExposed(window)
    ring = _ringed(qtbot, window, field)
    bar = area.verticalScrollBar()
    view = area.viewport()
    view_rect = QRect(view.mapTo(window, view.rect().topLeft()), view.size())
    top = field.mapTo(view, field.rect().topLeft()).y()
    bar.setValue(bar.value() + top + 20)  # the field's upper half above the viewport
    QApplication.processEvents()
    shown = QRect(field.mapTo(window, field.rect().topLeft()), field.size()) \
        .intersected(view_rect)
    assert shown.height() == 20
    assert _frames(ring, shown), (ring.geometry(), shown)
    bar.setValue(bar.value() + 100)  # out of view whole
    QApplication.processEvents()
    assert not ring.isVisible()


def test_the_ring_follows_a_lesson_step_and_a_resize_at_once(qtbot, until, bench):
    """A new step lays the lesson's text out again, and the window's size moves it: the
    ring is on it as soon as the events are handled, never where the text was."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QApplication

    panel = bench.lesson_panel
    bench.lesson_dock.show()
    panel.start(panel.lessons[0], 0)
    ring = _ringed(qtbot, bench, panel.body)
    body = panel.body

    def where() -> QRect:  # the text box, whole in view in the lessons panel
        return QRect(body.mapTo(bench, body.rect().topLeft()), body.size())

    until(lambda: _frames(ring, where()))
    before = where()
    panel.show_step(2)  # a prediction: its question's box is short, under its title
    for _ in range(5):
        QApplication.processEvents()
    assert body.hasFocus() and where() != before
    assert _frames(ring, where()), (ring.geometry(), where())
    bench.resize(bench.width() + 120, bench.height() - 60)
    for _ in range(5):
        QApplication.processEvents()
    assert _frames(ring, where()), (ring.geometry(), where())
    panel.leave()
