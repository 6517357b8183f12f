"""The window's type and proportions: the theme applied to the whole application (palette,
style sheet), and the control panel's width (the map's share of the height is the layout
policy's: arranger.py)."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from ssdlab.model.lab.collector import collector_paused

from ..appearance import appevents, theme
from . import compare


def apply_theme(w) -> None:
    """Workbench w restyled in the current theme.

    Python's cycle collector is paused while Qt restyles: Qt walks a list of every widget it
    made beforehand, calling into Python for each (change events), and a collection run by
    that Python code could delete a widget whose wrapper only a cycle still held, later in
    the list: the window then died in the restyle (CI, at F11 or its way back, one run in
    six). No widget is left to the collector now (tests/test_gui_qt_cycles.py); the pause
    keeps the walk safe from one that would be."""
    app = QApplication.instance()
    sheet = theme.current().stylesheet()
    with collector_paused(), appevents.held(w):
        app.setPalette(theme.current().palette())
        if app.styleSheet() != sheet:  # setting it again restyles every widget: a second
            app.setStyleSheet(sheet)   # or more, for nothing
    w.controls.set_rows_wrapped(theme.current().large)
    fit_panel(w)
    compare.apply_theme(w)
    w.arranger.update()  # the new type may call for another arrangement (layoutpolicy.py)
    w.charts.apply_theme()
    QTimer.singleShot(0, w._show_charts)


LESSON_PANEL_PX = 240  # a lesson's panel at most: its few settings, read-only


def _least_width(w) -> int:
    """The panel's contents' least width, with its scroll bar (px)."""
    bar = w.controls_scroll.verticalScrollBar().sizeHint().width() + 8
    return w.controls.minimumSizeHint().width() + bar


def fit_lesson_panel(w) -> None:
    """In a lesson the panel shows only the settings the lesson uses: as narrow as they
    let it be, never narrower (there is no sideways scroll bar there), 240 px at most."""
    w.controls_scroll.setMaximumWidth(LESSON_PANEL_PX)
    w.controls_scroll.setMinimumWidth(min(_least_width(w), LESSON_PANEL_PX))


def fit_panel(w) -> None:
    """The panel is as wide as its widest row needs, and may grow a little; with its
    scroll bar, nothing in it is cut at the side."""
    if getattr(w, "in_lesson", False):
        fit_lesson_panel(w)  # a lesson narrows the panel to the settings it uses
        return
    least = _least_width(w)
    w.controls_scroll.setMinimumWidth(least)
    # in presentation mode no wider than that: a wider panel, kept from the sizes the
    # window passed through, wrapped the legends beside it onto more rows than 768 px hold
    presenting = getattr(w, "presentation", None) is not None and w.presentation.on
    most = least if presenting else max(least, int(0.4 * w.width()))
    w.controls_scroll.setMaximumWidth(most)
    # the splitter keeps a wider share it gave the panel before, as empty room beside
    # it: the rest goes to the map and charts
    sizes = w.main_split.sizes() if hasattr(w, "main_split") else []
    if len(sizes) == 2 and sizes[0] > most:
        w.main_split.setSizes([most, sum(sizes) - most])
