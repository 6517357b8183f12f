"""A part that scrolls on a short screen: the lessons panel keeps its width there (with the
vertical scroll bar it then needs), so it never scrolls sideways; the main area claims
little, as before."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from ssdlab.app.gui.appearance.scrollfit import LEAST_PX, ScrollFit


def _part() -> QWidget:
    inner = QWidget()
    box = QWidget()
    box.setMinimumSize(300, 600)  # taller than the room below: a vertical scroll bar
    QVBoxLayout(inner).addWidget(box)
    return inner


def test_a_column_keeps_its_width_and_its_scroll_bar_on_a_short_screen(qtbot, until):
    column, rest = ScrollFit(_part(), "column", keep_width=True), ScrollFit(_part(), "rest")
    for fit in (column, rest):
        fit.set_short(True)  # the layout policy's word: the screen is short for the type
        qtbot.addWidget(fit)
        fit.resize(500, 200)
        fit.show()
    least = column.least().width()
    bar = column.verticalScrollBar()
    until(lambda: bar.isVisible()
          and column.minimumSizeHint().width() >= least + bar.sizeHint().width())
    column.resize(column.minimumSizeHint().width(), 200)
    until(lambda: column.width() == column.minimumSizeHint().width())
    assert not column.horizontalScrollBar().isVisible()
    assert rest.minimumSizeHint().width() == LEAST_PX
    rest.set_short(False)  # a screen with lines enough: the part claims its whole least size
    assert rest.minimumSizeHint().height() >= 600
