"""F6 and Shift+F6 move the keyboard from one part of the window to the next or previous
(the control panel, the map with its buttons, the charts or a lesson's results, the lesson
panel), as in a browser or an office suite. With Tab alone, a keyboard-only student went
through every control of the workbench (15 presses at 1.5x scaling, 27 at 1.0x) before
reaching "Start with lesson 1"; with F6 it is one or two presses. A part that is hidden or
holds nothing to focus is passed over; the focus lands on the part's first control in Tab's
order (appearance/focuschain.py), which a screen reader then says.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QWidget

from ..appearance.focuschain import first_control
from . import taborder


def _first_controls(window: QWidget) -> list[tuple[QWidget, QWidget]]:
    """(part, its first control) for each shown part that has one."""
    out = []
    for part in taborder.regions(window):
        if part.isVisibleTo(window):
            first = first_control(part)
            if first is not None:
                out.append((part, first))
    return out


def move(window: QWidget, step: int) -> QWidget | None:
    """Focus the first control of the next part (step 1) or the previous one (-1) after the
    part that holds the focus now; returns the control focused, or None."""
    parts = _first_controls(window)
    if not parts:
        return None
    focus = QApplication.focusWidget()
    here = next((i for i, (part, _) in enumerate(parts)
                 if focus is not None and (part is focus or part.isAncestorOf(focus))), None)
    if here is None:  # nothing of a part has focus: F6 goes to the first, Shift+F6 the last
        at = 0 if step > 0 else len(parts) - 1
    else:
        at = (here + step) % len(parts)
    target = parts[at][1]
    target.setFocus(Qt.FocusReason.TabFocusReason)
    return target


def install(window: QWidget) -> None:
    for keys, step in (("F6", 1), ("Shift+F6", -1)):
        shortcut = QShortcut(QKeySequence(keys), window)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(lambda s=step: move(window, s))
