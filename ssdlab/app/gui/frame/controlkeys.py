"""Keys a focused control owns: the window's plain-key shortcuts (Space plays, Right steps)
stand aside while a control that uses that key has focus, so a keyboard user can press a
button with Space, pick a tab with the arrows or walk a list; Return and Enter press a
focused button or check box, which Qt does only for a dialog's default button.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QComboBox,
    QTabBar,
    QTextEdit,
    QWidget,
)

K = Qt.Key
PRESS = frozenset({K.Key_Space, K.Key_Return, K.Key_Enter, K.Key_Select})
ARROWS = frozenset({K.Key_Left, K.Key_Right, K.Key_Up, K.Key_Down})
MOVES = ARROWS | {K.Key_Home, K.Key_End, K.Key_PageUp, K.Key_PageDown}

# (kind of control, the plain keys it uses); the first kind the widget is wins
OWNED: tuple[tuple[type, frozenset], ...] = (
    (QAbstractButton, PRESS),
    (QTabBar, MOVES),
    (QAbstractItemView, MOVES | PRESS),  # Space selects, Return chooses the item
    (QComboBox, MOVES | {K.Key_Space}),  # Space opens the list
    (QAbstractSlider, MOVES),
    (QTextEdit, MOVES | PRESS),  # read-only text: scroll, Return follows a link
)


def owned(widget: QWidget | None, key: int) -> bool:
    """True when the focused widget uses key (pressed without Ctrl, Alt or Meta)."""
    if widget is None:
        return False
    for kind, keys in OWNED:
        if isinstance(widget, kind):
            return key in keys
    return False


def press_on_return(widget: QWidget | None, key: int) -> bool:
    """Return or Enter on a focused button or check box of the window presses it (a dialog's
    own default-button rule is left alone: the caller only asks for the main window);
    True when it did."""
    if key not in (K.Key_Return, K.Key_Enter) or not isinstance(widget, QAbstractButton):
        return False
    if not widget.isEnabled():
        return True  # a disabled button swallows the key, as a click on it would
    widget.click()
    return True
