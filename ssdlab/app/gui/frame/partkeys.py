"""F6 and Shift+F6 move the keyboard from one part of the window to the next or previous
(the control panel, the button bar, the block maps, the charts or a lesson's results, the
lesson panel, the status bar's button: taborder.PARTS), as in a browser or an office
suite. With Tab alone, a keyboard-only student went through every control of the workbench
(15 presses at 1.5x scaling, 27 at 1.0x) before reaching "Start with lesson 1"; with F6 it
is one or two presses. A part that is hidden or
holds nothing to focus is passed over; the focus lands on the part's first control in Tab's
order (taborder.py), which a screen reader then says. (It once went by Qt's focus chain,
which Tab's reordering had broken: F6 went between "Profile" and "Run" only, issue 38.)
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QWidget

from . import taborder


def _first_controls(window: QWidget) -> list[tuple[str, QWidget]]:
    """(part's name, its first control) for each part that has a control Tab reaches."""
    out: list[tuple[str, QWidget]] = []
    for w in taborder.reading_order(window):
        name = taborder.part_of(window, w)
        if name and name not in (n for n, _w in out):
            out.append((name, w))
    return out


def move(window: QWidget, step: int) -> QWidget | None:
    """Focus the first control of the next part (step 1) or the previous one (-1) after the
    part that holds the focus now; returns the control focused, or None."""
    parts = _first_controls(window)
    if not parts:
        return None
    name = taborder.part_of(window, QApplication.focusWidget())
    here = next((i for i, (part, _w) in enumerate(parts) if part == name), None)
    if here is None:  # nothing of a part has focus: F6 goes to the first, Shift+F6 the last
        at = 0 if step > 0 else len(parts) - 1
    else:
        at = (here + step) % len(parts)
    target = parts[at][1]
    taborder.focus(target)
    return target


def install(window: QWidget) -> None:
    for keys, step in (("F6", 1), ("Shift+F6", -1)):
        shortcut = QShortcut(QKeySequence(keys), window)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(lambda s=step: move(window, s))
