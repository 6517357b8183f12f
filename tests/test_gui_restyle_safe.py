"""The window never dies in a restyle (CI, one run in six of tests/test_gui_fit768.py): the
application's style sheet restyles every widget in a list Qt makes first, calling into Python
for each, and a collection by Python's cycle collector in that Python code deleted a widget
later in the list, one that no widget owned and only a cycle of wrappers still held (a heat
map's range labels while the map was coloured by state, a legend's unfilled row, drive B's
map and legend after A | B closed). No widget of the window is left to the collector now,
and the collector is paused while Qt restyles (frame/themefit.py)."""

from __future__ import annotations

import gc

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication, QWidget

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.frame import compare
from ssdlab.model.lab.collector import collector_paused


def widgets_no_widget_owns(window: QWidget, before: set[int]) -> list[str]:
    """Widgets made since before (their addresses) that no widget owns, but window: such a
    widget is Python's, deleted when its wrapper is freed, by the cycle collector when a
    cycle held it, at whatever moment that runs (in the middle of a restyle, too)."""
    return sorted(f"{type(o).__name__} {o.objectName()!r} {getattr(o, 'text', str)()!r}"
                  for o in QApplication.allWidgets()
                  if o.parent() is None and o is not window
                  and shiboken6.getCppPointer(o)[0] not in before)


@pytest.fixture
def window(qtbot, until, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    from ssdlab.app.gui.frame.workbench import Workbench

    theme.set_current("normal")
    w = Workbench()
    w.confirm = lambda text: True
    qtbot.addWidget(w)
    w.lesson_panel.explore.emit()
    w.show()
    until(lambda: w.snapshot is not None)
    yield w
    w.toggle_presentation(False)
    w.close()


def test_no_widget_of_the_window_is_left_to_the_collector(window, until):
    """Every colouring of the map's legend, with pages and without; A | B opened and closed;
    every lesson's first step, and a lesson's two drives; presentation mode and back. The
    collector is paused throughout, so that nothing is freed before it is looked for."""
    w = window
    with collector_paused():
        before = {shiboken6.getCppPointer(o)[0] for o in QApplication.allWidgets()}
        for mode in ("valid", "erases", "age", "state"):
            w.legend.set_mode(mode)
        w.legend.show_pages(False)
        w.legend.show_pages(True)
        w.toggle_compare(True)
        until(lambda: len(w.views) == 2)
        w.views[1].legend.set_mode("erases")
        w.toggle_compare(False)
        until(lambda: len(w.views) == 1)
        for lesson in w.lesson_panel.lessons:  # each one's first step, the last kept
            w.lesson_panel.start(lesson, at=0)
            QApplication.processEvents()
        # a lesson's run of two configurations on maps A and B, and back to A alone
        compare.lesson_pair(w, (("one", w.session.settings), ("two", w.session.settings)))
        until(lambda: len(w.views) == 2)
        compare.lesson_pair(w, None)
        until(lambda: len(w.views) == 1)
        w.lesson_panel.leave()
        w.toggle_presentation(True)
        until(lambda: theme.current().large)
        w.toggle_presentation(False)
        until(lambda: not theme.current().large)
        QApplication.processEvents()
        assert widgets_no_widget_owns(w, before) == []


def test_the_collector_is_paused_while_qt_restyles_every_widget(window, monkeypatch):
    """F11 and back: the collector is off while the application's palette and style sheet
    are set (each sends every widget an event, in Python too), and on again after."""
    seen: list[tuple[str, bool]] = []
    for name, static in (("setPalette", True), ("setStyleSheet", False)):
        real = getattr(QApplication, name)

        def watched(app, *args, _real=real, _name=name, _static=static):
            seen.append((_name, gc.isenabled()))
            return _real(*args) if _static else _real(app, *args)

        monkeypatch.setattr(QApplication, name, watched)
    assert gc.isenabled()
    window.toggle_presentation(True)
    window.toggle_presentation(False)
    assert {name for name, _ in seen} == {"setPalette", "setStyleSheet"}
    assert not any(on for _, on in seen), seen
    assert gc.isenabled()
