"""The whole window by keyboard (issue 25): in every state Tab reaches each control, and a
key pressed on the focused control works it (Return presses a button or check box, and
Space too in a dialog or the lessons panel, arrows move a tab bar, list, combo or spin box)
without firing the window's own shortcut for that key (Right steps; Space plays); and
lesson 1 taken start to finish with key presses alone. Runs wait on conditions, never on time."""

from __future__ import annotations

import pytest
from _window_states import STATES, settle, tab_chain, tab_to
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QLineEdit,
    QPushButton,
    QTabBar,
    QWidget,
)

from ssdlab.lessons.catalogue import find

HANG = 5 * 60 * 1000
K = Qt.Key


@pytest.fixture
def lab(qtbot, tmp_path, monkeypatch, compiled_engine):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)  # Return on the export dialog's OK writes its file here
    from ssdlab.app.gui.frame import runfiles
    from ssdlab.app.gui.frame.workbench import Workbench

    # a key that opens a file chooser gets "cancelled" at once: offscreen nobody answers it
    monkeypatch.setattr(runfiles, "choose", lambda *a, **k: "")
    w = Workbench()
    w.confirm = lambda text: False  # "keep what you have" to any question a key raises
    w.lesson_panel.watch.enabled = False  # lesson 1's GCs at teaching pace: own tests
    qtbot.addWidget(w)
    w.resize(1024, 768)
    w.show()
    qtbot.waitUntil(lambda: w.snapshot is not None, timeout=HANG)
    yield w
    _quiet(w)
    w.close()


def _quiet(w) -> None:
    """No run left going: a lesson job cancelled, the workbench paused, dialogs closed."""
    panel = w.lesson_panel
    if panel.job is not None:
        panel.job.cancel()
        panel.job.wait()
        settle()
    w.reset_all()  # a key before may have changed a setting, the panel or the mode
    # Wait until each drive's worker has handled the pause: a snapshot it published while
    # still running would otherwise arrive later and turn Play back into Pause.
    for view in w.views:
        view.settle()
    for top in QApplication.topLevelWidgets():
        if top is not w and top.isVisible():
            top.close()
    settle()


class ShortcutSpy:
    """Counts every window-wide shortcut and action of the window that fires."""

    def __init__(self, w):
        self.fired: list[str] = []
        for sc in w.shortcut_objects:
            sc.activated.connect(lambda s=sc: self.fired.append(s.key().toString()))
        for action in w.actions():
            action.triggered.connect(lambda _c=False, a=action: self.fired.append(a.text()))


def _modal_guard() -> QTimer:
    """Closes any modal window a key opens (a message box offscreen would wait forever)."""
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: (m := QApplication.activeModalWidget()) and m.reject())
    timer.start()
    return timer


def _keys_for(widget) -> list[tuple[int, str]]:
    """(key, the signal of widget that says the key worked it) for the control's kind."""
    if isinstance(widget, QAbstractButton):
        # in a dialog Return is its default button's (OK) unless a push button has focus
        if isinstance(widget.window(), QDialog) and not isinstance(widget, QPushButton):
            return [(K.Key_Space, "clicked")]
        if not _in_lessons(widget):  # Space plays or pauses there (test_gui_timekeys.py)
            return [(K.Key_Return, "clicked")]
        return [(K.Key_Space, "clicked"), (K.Key_Return, "clicked")]
    if isinstance(widget, QTabBar):
        last = widget.currentIndex() == widget.count() - 1
        return [(K.Key_Left if last else K.Key_Right, "currentChanged")]
    if isinstance(widget, QComboBox) and not widget.isEditable():
        last = widget.currentIndex() == widget.count() - 1
        return [(K.Key_Up if last else K.Key_Down, "activated")]
    if isinstance(widget, QAbstractSpinBox):
        at_top = hasattr(widget, "value") and widget.value() >= widget.maximum()
        return [(K.Key_Down if at_top else K.Key_Up, "valueChanged")]
    if isinstance(widget, QLineEdit) and not widget.isReadOnly():
        return [(K.Key_5, "textEdited")]
    if isinstance(widget, QAbstractItemView) and widget.model().rowCount() > 0:
        return [(K.Key_Return, "activated")]
    return []


def _in_lessons(widget) -> bool:
    """widget is in the main window's lessons panel or a lesson's results, where Space
    presses a button; or in a dialog or window of its own (the glossary)."""
    panel = getattr(widget.window(), "lesson_panel", None)
    return panel is None or any(p.isAncestorOf(widget) for p in (panel, panel.results))


def _ident(widget) -> tuple[str, str, str]:
    text = widget.text() if isinstance(widget, QAbstractButton) else ""
    return type(widget).__name__, text, widget.toolTip()


def _nth(top, ident, n: int):
    """The n-th shown widget of top like ident (creation order, so stable across remakes)."""
    same = [c for c in top.findChildren(QWidget) if c.isVisible() and _ident(c) == ident]
    assert len(same) > n, f"{ident[:2]} #{n} is not shown after the state is made again"
    return same[n]


def _press(make, w, ident, n: int, j: int):
    """Make the state afresh, focus its n-th control like ident, press the control's j-th
    key on it; returns (the control, the key, how often the control's signal said the key
    worked it, the window shortcuts that fired)."""
    _quiet(w)
    top = make(w)
    settle()
    widget = _nth(top, ident, n)
    if not widget.isEnabled():
        return widget, None, 0, []  # a tab bar's scroll arrow at its end: nothing to press
    key, signal = _keys_for(widget)[j]
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    settle()
    spy = ShortcutSpy(w)
    seen = []
    getattr(widget, signal).connect(lambda *a: seen.append(a))
    guard = _modal_guard()
    QTest.keyClick(widget, key)
    settle()
    guard.stop()
    return widget, key, len(seen), spy.fired


@pytest.mark.parametrize("state", list(STATES))
def test_every_control_works_by_keyboard_in_every_state(lab, qtbot, state):
    make = STATES[state]
    top = make(lab)
    settle()
    chain = tab_chain(top)
    assert chain, f"{state}: Tab reaches nothing"
    # every control a mouse could use is on the Tab chain
    controls = [c for kind in (QAbstractButton, QComboBox, QAbstractSpinBox, QTabBar,
                               QAbstractItemView, QLineEdit) for c in top.findChildren(kind)]
    missed = [_ident(c)[:2] for c in controls
              if c.isVisible() and c.isEnabled() and c.focusPolicy() & Qt.FocusPolicy.TabFocus
              and c.window() is top and c not in chain
              and not isinstance(c.parentWidget(), QAbstractSpinBox | QComboBox)]
    assert not missed, f"{state}: Tab never reaches {missed}"
    plan = []
    for c in chain:
        ident = _ident(c)
        n = [x for x in top.findChildren(QWidget) if x.isVisible()
             and _ident(x) == ident].index(c)
        plan += [(ident, n, j) for j in range(len(_keys_for(c)))]
    assert plan, f"{state}: nothing to press"
    for ident, n, j in plan:
        widget, key, worked, shortcuts = _press(make, lab, ident, n, j)
        if key is None:
            continue
        what = f"{state}: {ident[0]} {ident[1]!r} ({ident[2][:40]!r}), key {key!r}"
        assert worked, f"{what} did not work it"
        assert not shortcuts, f"{what} also fired the window's {shortcuts}"


def test_window_keys_still_work_when_no_control_uses_them(lab, qtbot):
    """Space plays and Right steps from the window itself and from a chart."""
    STATES["explore"](lab)
    spy = ShortcutSpy(lab)
    QTest.keyClick(lab, K.Key_Right)
    chart = lab.charts.currentWidget()
    chart.setFocus()
    QTest.keyClick(chart, K.Key_Space)
    assert spy.fired == ["Right", "Space"]
    _quiet(lab)


def test_lesson_one_start_to_finish_by_keyboard_alone(lab, qtbot):
    """Tab, Space, Return, arrows and typing only: the first screen's start button, every
    step, the prediction, the run, both quizzes, and Next past the last step."""
    panel, lesson = lab.lesson_panel, find("1")
    top = lab
    tab_chain(top)
    tab_to(top, panel.home.start_button)
    assert panel.home.start_button.text() == "Start with lesson 1"
    QTest.keyClick(QApplication.focusWidget(), K.Key_Return)
    settle()
    assert panel.lesson is lesson or panel.lesson.id == lesson.id
    while True:
        step = panel.step
        if step.kind == "predict":
            tab_to(top, panel.choices)
            QTest.keyClick(panel.choices, K.Key_Down)
            QTest.keyClick(panel.choices, K.Key_Return)
            settle()
            assert step.id in panel.play.answers
        elif step.kind == "run":
            tab_to(top, panel.run_button)
            QTest.keyClick(panel.run_button, K.Key_Space)
            qtbot.waitUntil(lambda: panel.job is None, timeout=HANG)
            assert step.id in panel.play.runs
        elif step.kind == "quiz":
            tab_to(top, panel.quiz_answer)
            QTest.keyClicks(panel.quiz_answer, step.answer)
            QTest.keyClick(panel.quiz_answer, K.Key_Return)
            settle()
            assert panel.feedback.text().startswith("Right"), panel.feedback.text()
        last = panel.index == len(lesson.steps) - 1
        tab_to(top, panel.next_button)
        QTest.keyClick(panel.next_button, K.Key_Space)
        settle()
        if last:
            break
    assert panel.pages.currentIndex() == 0  # back on the first screen
    assert lesson.id in panel.progress.finished


def test_colour_by_keeps_the_focus_as_down_changes_it(bench, until):
    """Down on "Colour by" colours the map the next way and the list keeps the keyboard:
    the legend's entries are made again for the new colouring, and the list went with
    them for a moment and lost the focus, so a second Down went nowhere (issue 36)."""
    combo = bench.views[0].legend.combo
    bench.activateWindow()
    combo.setFocus(Qt.FocusReason.TabFocusReason)
    until(lambda: combo.hasFocus())
    modes = [combo.itemData(i) for i in range(combo.count())]
    assert combo.currentData() == modes[0] and len(modes) >= 3
    for step in (1, 2):
        QTest.keyClick(QApplication.focusWidget(), K.Key_Down)
        until(lambda s=step: bench.blockmap.mode == modes[s]
              and bench.views[0].legend.mode == modes[s])
        QApplication.processEvents()  # the old entries' deferred deletion
        assert QApplication.focusWidget() is combo, QApplication.focusWidget()
