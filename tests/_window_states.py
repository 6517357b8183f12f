"""The states a keyboard or screen-reader walk of the window visits (the first screen, each
kind of step of lesson 1, compare mode, the glossary and every dialog), each made by a
function of the workbench that returns the top-level window to walk, and the Tab chain of
a window (the widgets Tab reaches, in order). Shared by tests/test_gui_keyboard.py and
tests/test_gui_accessible.py."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from ssdlab.lessons.catalogue import find

TAB_LIMIT = 400  # more widgets than any window has: a chain this long never closed


def _lesson_step(kind: str, nth: int = 0):
    def make(bench):
        panel, lesson = bench.lesson_panel, find("1")
        panel.start(lesson, 0)
        at = [i for i, s in enumerate(lesson.steps) if s.kind == kind][nth]
        predict = next(i for i, s in enumerate(lesson.steps) if s.kind == "predict")
        if at > predict:
            panel.show_step(predict)
            panel.predict(1)
        panel.show_step(at)
        return bench
    return make


def first_screen(bench):
    bench.lesson_panel.leave()
    bench.lesson_dock.show()  # "Explore freely" hid it
    return bench


def explore(bench):
    bench.lesson_panel.explore.emit()
    return bench


def compare_mode(bench):
    bench.lesson_panel.explore.emit()
    assert bench.set_compare(True)
    return bench


def glossary(bench):
    bench.show_glossary("erase block")
    return bench.glossary_window


def help_dialog(bench):
    bench.show_help()
    return bench.help_dialog


def breakpoints_dialog(bench):
    from ssdlab.app.gui.drive import mapwiring
    return mapwiring.open_dialog(bench)


def export_dialog(bench):
    from ssdlab.app.gui.frame import exportdialog
    return exportdialog.open_dialog(bench)


STATES = {
    "first screen": first_screen,
    "lesson read": _lesson_step("read"),
    "lesson predict": _lesson_step("predict"),
    "lesson run": _lesson_step("run"),
    "lesson reflect": _lesson_step("reflect"),
    "lesson compare": _lesson_step("compare"),
    "lesson quiz": _lesson_step("quiz"),
    "lesson counter quiz": _lesson_step("quiz", 1),
    "explore": explore,
    "compare mode": compare_mode,
    "glossary": glossary,
    "keyboard help": help_dialog,
    "breakpoints": breakpoints_dialog,
    "export": export_dialog,
}


def settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def tab_chain(top: QWidget) -> list[QWidget]:
    """The widgets of top that Tab reaches, in order, from top's first (real key presses on
    whatever has focus)."""
    top.activateWindow()
    top.raise_()
    top.setFocus(Qt.FocusReason.OtherFocusReason)
    settle()
    chain: list[QWidget] = []
    for _ in range(TAB_LIMIT):
        QTest.keyClick(QApplication.focusWidget() or top, Qt.Key.Key_Tab)
        settle()
        f = QApplication.focusWidget()
        if chain == [f]:
            return chain  # the window's only control
        if chain and f is chain[-1]:
            continue  # Tab moved inside the widget (the links of a text): on to its end
        if f is None or f in chain:
            return chain
        chain.append(f)
    raise AssertionError(f"Tab never came back round in {top.windowTitle()!r}")


def tab_to(top: QWidget, target: QWidget) -> None:
    """Press Tab until target has focus (fails when Tab never reaches it)."""
    for _ in range(TAB_LIMIT):
        if QApplication.focusWidget() is target:
            return
        QTest.keyClick(QApplication.focusWidget() or top, Qt.Key.Key_Tab)
        settle()
    raise AssertionError(f"Tab never reaches {target!r} ({getattr(target, 'text', str)()!r})")
