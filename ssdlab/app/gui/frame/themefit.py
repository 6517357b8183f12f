"""The window's type and proportions: the theme applied to the whole application (palette,
style sheet), the share of height the block map gets, and the control panel's width."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from ..appearance import theme
from . import compare


def apply_theme(w) -> None:
    """Workbench w restyled in the current theme."""
    app = QApplication.instance()
    app.setPalette(theme.current().palette())
    sheet = theme.current().stylesheet()
    if app.styleSheet() != sheet:  # setting it again restyles every widget: a second
        app.setStyleSheet(sheet)   # or more, for nothing
    w.controls.set_rows_wrapped(theme.current().large)
    fit_panel(w)
    # presentation type needs more room for the charts' labels: they get 60 %, and the
    # map may shrink further (at 18 pt a 768-line screen has room for little else)
    present = theme.current().large
    share = 0.52 if present else 0.45
    w._map_share = 1 - share
    compare.apply_theme(w)
    share_split(w)
    # again once the map's legend has wrapped in the new type: setSizes honours the
    # minimum heights as they are then, so the legend's last row is not cut off
    QTimer.singleShot(0, w._share_split)
    w.charts.apply_theme()
    QTimer.singleShot(0, w._show_charts)


def share_split(w) -> None:
    """The map's share of the right-hand side's height (a lesson sets its own)."""
    if w.in_lesson:
        return
    height = sum(w.right_split.sizes()) or w.height()
    top = int(height * w._map_share)
    w.right_split.setSizes([top, height - top])


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
