"""The breakpoint dialog's error bar shows only with a message in it (it was an empty
dark-red bar under the conditions)."""

from __future__ import annotations

from ssdlab.app.gui.drive.breakpointdialog import BreakpointDialog
from ssdlab.model.flash.geometry import Geometry
from ssdlab.model.lab.breakpoints import Breakpoints


def test_the_error_bar_shows_only_with_words(qtbot, until):
    g = Geometry(user_pages=1024, pages_per_block=16, spare=0.25)
    dialog = BreakpointDialog(Breakpoints(), g)
    qtbot.addWidget(dialog)
    dialog.show()
    until(dialog.isVisible)
    assert not dialog.error.isVisible() and dialog.error.text() == ""
    tick = next(iter(dialog.ticks.values()))
    tick.setChecked(True)
    dialog.chosen = lambda: {"no_such_condition": -1}  # what Breakpoints refuses
    dialog.accept()
    assert dialog.isVisible() and dialog.error.isVisible() and dialog.error.text()
