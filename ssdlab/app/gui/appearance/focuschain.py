"""The first control of a part of a window that Tab reaches and that can take the focus now:
where F6 lands in a part (frame/partkeys.py), and where the lesson panel's focus goes when
the control that had it is hidden with nothing better to go to (ssdlab/lessons/keepfocus.py).

Only the part's own stretch of the focus chain is walked: a walk of the whole window's chain
from Python before a restyle (F6, then F11 for presentation mode) crashed Qt in the restyle,
in 3 of 4 runs of the every-key test."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


def first_control(part: QWidget) -> QWidget | None:
    """part's first control in the focus chain (Tab's order) that is shown, enabled and
    takes Tab: not inside something being hidden (isVisibleTo the window: a hidden part's
    children keep their own flag until the hiding is done)."""
    window = part.window()
    w = part.nextInFocusChain()
    while w is not None and w is not part and part.isAncestorOf(w):
        if w.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus \
                and w.focusProxy() is None and w.isVisibleTo(window) and w.isEnabled():
            return w
        w = w.nextInFocusChain()
    return None
