"""Tab and F6 hold their order lap after lap (issue 38): in each state of one window (the
first screen, presentation mode, "Explore freely", two drives A | B, lesson 1 at a
prediction, at a quiz, during a run and after it) Tab is pressed round the window three
times, and each lap visits every control the window shows, every part (control panel,
buttons, block map, charts or a lesson's results, lesson panel, status bar) once and in
reading order, the same controls in the same order each time, with the focus ring on each
(whole, inside the window);
Shift+Tab goes round the other way; F6 goes part to part, three laps, and Shift+F6 back.
Once, after one lap, Tab went only round the charts and the lesson panel and F6 between
"Profile" and "Run". All by real key presses on whatever has focus; runs are waited on."""

from __future__ import annotations

import pytest
from _window_states import STATES, settle
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QScrollArea, QTextBrowser, QWidget

from ssdlab.lessons.catalogue import find

K = Qt.Key
LAPS = 3
LAP_LIMIT = 120  # more controls than any state shows: a lap this long never closed
PARTS = ("control panel", "stage flip", "buttons", "block map", "charts", "lesson panel",
         "status")
WORKBENCH = ("control panel", "buttons", "block map", "charts", "status")
LESSON = ("control panel", "block map", "charts", "lesson panel", "status")  # no run buttons


def part_widgets(w) -> list[tuple[str, QWidget]]:
    """The parts by the window's own attributes (the button bar inside the map area)."""
    return list(zip(PARTS, (w.controls_scroll, w.stage_flip, w.button_bar, w.map_area,
                            w.lower, w.lesson_dock, w.statusBar()), strict=True))


def part(w, x: QWidget) -> str:
    return next((name for name, p in part_widgets(w) if p is x or p.isAncestorOf(x)), "none")


def focusable(w) -> set[QWidget]:
    """Every widget of w that a Tab can stop at now."""
    return {c for c in w.findChildren(QWidget)
            if c.window() is w and c.isVisibleTo(w) and c.isEnabled() and c.focusProxy() is None
            and c.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus}


def active(w) -> None:
    """w has the keyboard: offscreen, a window of an earlier test closing could take it
    away for a moment (no focus anywhere; Qt gives it back to the same control)."""
    if not w.isActiveWindow() and QApplication.activePopupWidget() is None:
        w.activateWindow()
        for _ in range(LAP_LIMIT):
            QApplication.processEvents()
            if w.isActiveWindow():
                return


def press(w, key, mods=Qt.KeyboardModifier.NoModifier) -> QWidget | None:
    active(w)
    QTest.keyClick(QApplication.focusWidget() or w, key, mods)
    for _ in range(2):  # the focus moves in the key's own handling; a zero timer at most
        QApplication.processEvents()
    active(w)
    return QApplication.focusWidget()


def lap(w, back: bool = False, ringed: bool = False) -> list[QWidget]:
    """Tab (Shift+Tab: back) from the focused control until the focus is on it again: the
    controls visited, it first; a text moving through its links keeps the focus, counted
    once. ringed: check the focus ring on each as it goes."""
    key = K.Key_Backtab if back else K.Key_Tab
    mods = Qt.KeyboardModifier.ShiftModifier if back else Qt.KeyboardModifier.NoModifier
    start = QApplication.focusWidget()
    seen = [start]
    for _ in range(LAP_LIMIT):
        f = press(w, key, mods)
        assert f is not None and f is not w, f"Tab put the focus on {f!r}, not a control"
        if ringed:
            ring = QApplication.instance()._focus_rings.ring_for(w)
            assert ring.target is f and ring.isVisible(), f"no focus ring on {name(f)}"
            box = QRect(f.mapTo(w, QPoint(0, 0)), f.size())
            if w.rect().contains(box):  # round the control, and all of it in the window
                assert ring.geometry().contains(box) and w.rect().contains(ring.geometry()), \
                    f"{name(f)}'s ring is cut off"
        if f is seen[-1]:
            continue  # on to the text's next link
        if f is start:
            return seen
        assert f not in seen, f"Tab came back to {name(f)} before the lap closed: " \
                              f"{[name(x) for x in seen]}"
        seen.append(f)
    raise AssertionError(f"Tab never came back to {name(start)}: {[name(x) for x in seen]}")


def name(x) -> str:
    text = getattr(x, "text", None)
    return x.accessibleName() or (text() if callable(text) else "") or type(x).__name__


def unscrolled_y(w, x: QWidget) -> int:
    """x's top in w, px, with the scroll areas round it scrolled to their top."""
    y = x.mapTo(w, x.rect().topLeft()).y()
    for area in w.findChildren(QScrollArea):
        if area.widget() is not None and area.widget().isAncestorOf(x):
            y += area.verticalScrollBar().value()
    return y


def off_the_text(w) -> None:
    """The laps start on a control that is not a text with links (Tab moves inside it)."""
    for _ in range(LAP_LIMIT):
        f = QApplication.focusWidget()
        if f is not None and f is not w and not isinstance(f, QTextBrowser):
            return
        press(w, K.Key_Tab)
    raise AssertionError("Tab never left the lesson text")


def cyclic_parts(w, controls: list[QWidget]) -> list[str]:
    """The parts the controls are in, a run of one part counted once, read round: starting
    at the first part of PARTS that is there."""
    names: list[str] = []
    for x in controls:
        if not names or names[-1] != part(w, x):
            names.append(part(w, x))
    if len(names) > 1 and names[0] == names[-1]:
        names.pop()  # the lap started inside a part
    first = min(range(len(names)), key=lambda i: PARTS.index(names[i])
                if names[i] in PARTS else len(PARTS))
    return names[first:] + names[:first]


def check_state(w, state: str, parts: tuple[str, ...]) -> None:
    if w.stage_flip.isVisible():  # a lesson on a short screen: F7's button, a part of its own
        parts = (parts[0], "stage flip", *parts[1:])
    off_the_text(w)
    laps = [lap(w, ringed=i == 0) for i in range(LAPS)]
    first = laps[0]
    assert all(x == first for x in laps[1:]), f"{state}: the laps differ: " \
        f"{[[name(x) for x in one] for one in laps]}"
    assert set(first) == focusable(w), f"{state}: Tab missed " \
        f"{[name(x) for x in focusable(w) - set(first)]}"
    assert tuple(cyclic_parts(w, first)) == parts, f"{state}: {cyclic_parts(w, first)}"
    for a, b in zip(first, first[1:], strict=False):  # within a part, rows top to bottom
        if part(w, a) == part(w, b):
            ya, yb = unscrolled_y(w, a), unscrolled_y(w, b) + b.height() // 2
            assert yb >= ya, f"{state}: Tab goes up from {name(a)} to {name(b)}: " \
                f"{[(name(x), type(x).__name__, unscrolled_y(w, x)) for x in first]}"
    back = lap(w, back=True)
    assert back == [first[0], *reversed(first[1:])], f"{state}: Shift+Tab is not Tab reversed"
    # F6: the first control of each part in Tab's order, round and round
    at = next(i for i, x in enumerate(first) if part(w, x) == parts[0]
              and part(w, first[i - 1]) != parts[0])
    tab_order = first[at:] + first[:at]
    heads = {}
    for x in tab_order:
        heads.setdefault(part(w, x), x)
    visited = [press(w, K.Key_F6) for _ in range(LAPS * len(parts))]
    names = [part(w, x) for x in visited]
    start = parts.index(names[0])
    want = [parts[(start + i) % len(parts)] for i in range(len(visited))]
    assert names == want, f"{state}: F6 went {names}"
    assert all(x is heads[part(w, x)] for x in visited), f"{state}: F6 landed on " \
        f"{[name(x) for x in visited]}, not the parts' first controls"
    back6 = [part(w, press(w, K.Key_F6, Qt.KeyboardModifier.ShiftModifier))
             for _ in range(len(parts))]
    end = parts.index(want[-1])
    assert back6 == [parts[(end - 1 - i) % len(parts)] for i in range(len(parts))], \
        f"{state}: Shift+F6 went {back6}"


@pytest.fixture
def window(qtbot, until, tmp_path, monkeypatch):
    """The window as a student first sees it (the lessons' first screen beside the
    workbench) on a 1366 x 768 screen, the control panel shown."""
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    from dataclasses import replace

    from ssdlab.app.gui.frame import arranger
    from ssdlab.app.gui.frame.workbench import Workbench

    real = arranger.room
    monkeypatch.setattr(arranger, "room", lambda w: replace(real(w), width_px=1366,
                                                            height_px=768))
    w = Workbench()
    w.confirm = lambda text: True
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    w.activateWindow()
    until(lambda: w.snapshot is not None and w.isActiveWindow())
    yield w
    panel = w.lesson_panel
    if panel.job is not None:
        panel.job.cancel()
        panel.job.wait()
    w.close()


def said(w) -> None:
    """A message in the status bar, so its Dismiss button is a part of every state."""
    from ssdlab.app.gui.frame import statusline

    statusline.say(w, "A message from the window.")
    settle()


def test_tab_and_f6_go_round_every_part_in_the_same_order_lap_after_lap(
        window, until, monkeypatch):
    w = window
    said(w)
    check_state(w, "first screen", tuple(p for p in PARTS if p != "stage flip"))
    press(w, K.Key_F11)  # presentation mode: full screen, large type, projector colours
    until(lambda: w.presentation.on)
    said(w)
    check_state(w, "presentation mode", WORKBENCH)
    press(w, K.Key_F11)
    until(lambda: not w.presentation.on)
    STATES["explore"](w)
    said(w)
    check_state(w, "explore freely", WORKBENCH)
    STATES["compare mode"](w)
    said(w)
    check_state(w, "two drives A | B", WORKBENCH)
    assert not w.set_compare(False)  # back to one drive
    for state in ("lesson predict", "lesson quiz"):
        STATES[state](w)
        said(w)
        check_state(w, state, LESSON)
    panel = w.lesson_panel
    panel.watch.enabled = False  # its GCs at teaching pace: tests of their own
    STATES["lesson run"](w)
    from ssdlab.app.gui.lessons import lessonruns

    with monkeypatch.context() as m:  # a run that stays under way while the laps go round
        m.setattr(lessonruns.LessonJob, "start", lambda self: None)
        panel.start_job()
        assert panel.job is not None and panel.cancel_button.isEnabled()
        said(w)
        check_state(w, "during a run", LESSON)
        panel.job = None  # never started: nothing to cancel
    panel.show_step(panel.index)
    panel.start_job()
    until(lambda: panel.job is None)
    assert panel.step.id in panel.play.runs and panel.next_button.isEnabled()
    said(w)
    check_state(w, "after a run", LESSON)
    assert panel.lesson is not None and panel.lesson.id == find("1").id
