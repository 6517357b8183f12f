"""Tab follows the reading order (ssdlab/app/gui/frame/taborder.py) in every state: the control
panel, then the button bar, maps and legends ("Colour by" among them), the charts or a
lesson's results, then the lesson panel; within a part, rows top to bottom. The chain is read
with nextInFocusChain after one real Tab press, so no walk of key presses is needed. After
Enter in a field (focus goes to the window, so its plain keys work again) Tab goes on from
the field."""

from __future__ import annotations

from _window_states import STATES, settle
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.frame import taborder


def _chain(w):
    """The visible, enabled widgets Tab reaches in w, in chain order."""
    return [x for x in taborder.tabbable(w) if x.isVisibleTo(w) and x.isEnabled()]


def _part(w, x) -> int:
    parts = taborder.regions(w)
    return next((i for i, p in enumerate(parts) if p is x or p.isAncestorOf(x)), len(parts))


def _check(w, state: str) -> None:
    QTest.keyClick(QApplication.focusWidget() or w, Qt.Key.Key_Tab)
    settle()
    chain = _chain(w)
    parts = [_part(w, x) for x in chain]
    assert parts == sorted(parts), f"{state}: Tab leaves a part and comes back: {parts}"
    for a, b in zip(chain, chain[1:], strict=False):
        if _part(w, a) != _part(w, b):
            continue
        ya = a.mapTo(w, a.rect().topLeft()).y()
        yb = b.mapTo(w, b.rect().center()).y()
        assert yb >= ya, f"{state}: Tab goes up from {a.accessibleName()!r} to " \
                         f"{b.accessibleName()!r}"


def test_tab_follows_the_reading_order_in_every_state_and_after_enter(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    qtbot.addWidget(w)
    w.resize(1024, 768)
    w.show()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    # Enter in a field gives the window its keys back; the next Tab goes on from the field
    spare = w.controls.widgets["spare_pct"]
    spare.setFocus()
    qtbot.waitUntil(spare.hasFocus)
    QTest.keyClick(spare, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w)
    QTest.keyClick(w, Qt.Key.Key_Tab)
    chain = _chain(w)
    assert QApplication.focusWidget() is chain[chain.index(spare) + 1]
    _check(w, "first screen")
    names = [x.accessibleName() or getattr(x, "text", str)() for x in _chain(w)]
    # the map's "Colour by" sits under the map, before the charts and the lesson panel
    assert names.index("Colour by") < names.index("Start with lesson 1")
    colour = next(x for x in _chain(w) if x.accessibleName() == "Colour by")
    assert _part(w, colour) == taborder.regions(w).index(w.map_area)
    for state in ("lesson read", "lesson quiz", "compare mode"):
        STATES[state](w)
        settle()
        _check(w, state)
    w.close()

