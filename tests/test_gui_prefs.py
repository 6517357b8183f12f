"""The Preferences dialog in the window (issue 25, "Seeing it"): reached by its key in either
mode, worked by keyboard alone, its choice in force at once and kept for the next start; the
colour profile apart from presentation mode; a bad preferences file said in the status line
with defaults used; and a window whose parts scroll rather than run off a small screen."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from ssdlab.app.gui.appearance import preferences, theme
from ssdlab.app.gui.appearance.preferences import Preferences
from ssdlab.app.gui.drive.flashguard import REDUCED_GAP_S


@pytest.fixture
def config(tmp_path, monkeypatch):
    """A configuration folder of the test's own (the window reads its preferences there)."""
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    yield tmp_path
    preferences.set_in_force(Preferences())


def window(request, config, prefs: dict | None = None):
    if prefs is not None:
        (config / "preferences.json").write_text(json.dumps(prefs))
    return request.getfixturevalue("bench")


def key(target, k, mod=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.keyClick(target, k, mod)
    QApplication.processEvents()


def test_preferences_by_keyboard_alone(request, config, until):
    bench = window(request, config)
    bench.activateWindow()
    until(lambda: bench.isActiveWindow())
    view = bench.actions_by_slot["toggle_presentation"].associatedObjects()
    menu = next(m for m in view if isinstance(m, QMenu))
    item = next(a for a in menu.actions() if a.text() == "P&references...")
    item.trigger()  # what Alt+V, R does (a native menu's keys are the platform's)
    dialog = bench.presentation.prefs_dialog
    until(lambda: dialog is not None and dialog.isVisible())
    dialog.colours.setFocus()
    until(lambda: dialog.colours.hasFocus())
    key(dialog.colours, Qt.Key.Key_End)  # the last: projector
    key(dialog.colours, Qt.Key.Key_Tab)
    until(lambda: dialog.motion.hasFocus())
    key(dialog.motion, Qt.Key.Key_Space)
    key(dialog.motion, Qt.Key.Key_Tab)
    until(lambda: dialog.text.hasFocus())
    key(dialog.text, Qt.Key.Key_Down)  # 125 %
    key(dialog.text, Qt.Key.Key_Return)
    until(lambda: not dialog.isVisible())
    t = theme.current()
    assert (t.name, t.font_pt) == ("projector", 11)  # 125 % of the desktop's 9 pt
    assert not bench.presentation.on and not bench.isFullScreen()
    assert bench.blockmap.guard.gap_s == REDUCED_GAP_S
    saved = json.loads((config / "preferences.json").read_text())
    assert saved | {"format": 1} == {"format": 1, "colours": "projector",
                                     "reduced_motion": True, "text_pct": 125}


def test_presentation_mode_keeps_the_chosen_colours(request, config, until):
    bench = window(request, config, {"colours": "normal"})
    bench.toggle_presentation(True)
    assert theme.current().name == "normal" and theme.current().font_pt >= 18
    menus = bench.menu_button.menu().actions()  # presentation mode: the Menu button's
    view = next(a.menu() for a in menus if a.menu() is not None and any(
        x.text() == "P&references..." for x in a.menu().actions()))
    next(x for x in view.actions() if x.text() == "P&references...").trigger()
    assert bench.presentation.prefs_dialog.isVisible()
    bench.presentation.prefs_dialog.reject()
    bench.toggle_presentation(False)
    assert (theme.current().name, theme.current().font_pt) == ("normal", 9)


def test_a_bad_preferences_file_is_said_and_defaults_used(request, config, until):
    bench = window(request, config, {"text_pct": 300, "colours": "projector"})
    assert theme.current().name == "projector" and theme.current().font_pt == 9
    said = bench.status_message.toolTip()
    assert "text_pct must be one of 100, 125, 150, 200" in said, said


def test_the_window_fits_a_small_screen_with_a_lesson_at_150_percent(request, config, until,
                                                                    monkeypatch):
    """At 1.5x scaling a 1366 x 768 screen is 911 x 512: the parts scroll inside the window
    instead of pushing it (and the lesson's Back/Next row, the status bar) off the screen;
    the lesson's text box shrinks, so its Back/Next row stays in sight."""
    from test_gui_fit768 import screen_is

    bench = window(request, config, {"text_pct": 150})
    screen_is(bench, monkeypatch, 911, 512)  # the offscreen screen is 800 x 800
    bench.lesson_dock.show()
    bench.lesson_panel.start(bench.lesson_panel.lessons[0])
    QApplication.processEvents()
    least = bench.minimumSizeHint()
    assert least.width() <= 911 and least.height() <= 512, least
    bench.resize(911, 512)
    until(lambda: bench.size().width() == 911 and bench.size().height() == 512)
    panel = bench.lesson_panel
    for button in (panel.back_button, panel.next_button):
        until(lambda b=button: bench.rect().contains(b.mapTo(bench, b.rect().bottomRight())))
        assert button.isVisible() and not button.visibleRegion().isEmpty()
    bar = bench.statusBar()
    assert bench.rect().contains(bar.mapTo(bench, bar.rect().bottomRight()))
