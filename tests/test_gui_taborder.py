"""Return (and Escape) in a field never leaves the focus on the window itself, which a
screen reader called "SSD Lab frame" with no focus ring anywhere (issue 38): Enter keeps the
value and the keyboard goes on to the next control in Tab's order, ringed, for every kind of
field: a number box (decimal and whole), a choice list (Return opens it, Escape comes
back), the glossary's search (a text
field in a window of its own), a prediction's estimate and a quiz's answer (a text field,
which goes to Next or Show answer).
Tab's order itself, lap after lap in every state: tests/test_gui_tablaps.py."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from ssdlab.lessons.catalogue import find

K = Qt.Key


def a_control(w: QWidget, f: QWidget | None) -> bool:
    """f is a control of w's that Tab stops at, shown, enabled, with the focus ring on it."""
    if f is None or f is w or f.window() is not w or not f.isVisible() or not f.isEnabled():
        return False
    if f.focusPolicy() & Qt.FocusPolicy.TabFocus != Qt.FocusPolicy.TabFocus:
        return False
    ring = QApplication.instance()._focus_rings.ring_for(w)
    return ring.target is f and ring.isVisible()


def enter_in(until, w, field: QWidget, typed: str = "", key=K.Key_Return) -> QWidget:
    """Focus field as Tab would, type, press key on whatever has focus; the control the
    focus settles on."""
    field.setFocus(Qt.FocusReason.TabFocusReason)
    until(lambda: QApplication.focusWidget() is field or field.isAncestorOf(
        QApplication.focusWidget()))
    if typed:
        QTest.keyClick(QApplication.focusWidget(), K.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(QApplication.focusWidget(), typed)
    QTest.keyClick(QApplication.focusWidget(), key)
    for _ in range(5):  # the field hands the focus on after a zero timer, then nothing more
        QApplication.processEvents()
    if not w.isActiveWindow():  # offscreen, an earlier test's window closing took the
        w.activateWindow()  # keyboard away for a moment; Qt gives it back to the same control
        until(w.isActiveWindow)
    f = QApplication.focusWidget()
    assert a_control(w, f), f"{key!r} in {field.accessibleName()!r} left the focus on {f!r}"
    return f


def test_return_in_any_field_goes_on_to_a_control(bench, until):
    w = bench
    w.activateWindow()
    until(w.isActiveWindow)
    c = w.controls.widgets
    # number boxes: the value kept, the keyboard on the next control, as Tab goes
    for key, typed, value in (("spare_pct", "30", 30.0), ("pages_per_block", "64", 64)):
        field = c[key]
        to = enter_in(until, w, field, typed)
        until(lambda k=key, v=value: getattr(w.session.settings, k) == v)
        assert to is not field
        QTest.keyClick(to, K.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
        assert QApplication.focusWidget() is field, f"Enter in {key} went past the next control"
    # Escape puts the setting back, and goes on the same way
    to = enter_in(until, w, c["spare_pct"], "45", K.Key_Escape)
    assert w.session.settings.spare_pct == 30.0 and to is not c["spare_pct"]
    # a choice list: Return opens its list (keys36), Escape closes it, the focus back on it
    profile = c["profile"]
    profile.setFocus(Qt.FocusReason.TabFocusReason)
    until(profile.hasFocus)
    QTest.keyClick(profile, K.Key_Return)
    until(lambda: profile.view().isVisible())
    QTest.keyClick(QApplication.focusWidget(), K.Key_Escape)
    until(lambda: not profile.view().isVisible())
    until(lambda: QApplication.focusWidget() is profile)
    assert a_control(w, profile)
    # the glossary's search, a window of its own: Return leaves it there, still a control
    w.show_glossary("erase block")
    g = w.glossary_window
    g.activateWindow()
    until(g.isActiveWindow)
    assert enter_in(until, g, g.search, "spare") is g.search
    g.close()
    w.activateWindow()
    until(w.isActiveWindow)
    # a prediction's estimate (lesson 2): on to Save estimate, one more Return saves it
    panel = w.lesson_panel
    lesson = find("2")
    at = next(i for i, s in enumerate(lesson.steps) if s.kind == "predict" and not s.choices)
    panel.start(lesson, at)
    until(panel.estimate.isVisible)
    assert enter_in(until, w, panel.estimate, "3") is panel.estimate_button
    QTest.keyClick(panel.estimate_button, K.Key_Return)
    assert panel.play.answers[panel.step.id] == 3.0
    # a quiz's answer (lesson 1): a wrong one to Show answer, a right one to Next
    lesson = find("1")
    panel.start(lesson, next(i for i, s in enumerate(lesson.steps) if s.kind == "predict"))
    panel.predict(1)
    run = next(i for i, s in enumerate(lesson.steps) if s.kind == "run")
    panel.watch.enabled = False
    panel.show_step(run)
    panel.start_job()
    until(lambda: panel.job is None)
    panel.show_step(next(i for i, s in enumerate(lesson.steps) if s.kind == "quiz"))
    assert enter_in(until, w, panel.quiz_answer, "write 0") is panel.reveal_button
    assert enter_in(until, w, panel.quiz_answer, panel.step.answer) is panel.next_button
