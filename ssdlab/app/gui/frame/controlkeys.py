"""Keys a focused control owns: the window's plain-key shortcuts (Right steps, G collects)
stand aside while a control that uses that key has focus, so a keyboard user can pick a tab
with the arrows or walk a list; Return and Enter press a focused button or check box (which
Qt does only for a dialog's default button) and open a focused drop-down list.

Space is the exception: it is the lecturer's play/pause key (shortcuts.TABLE), and in the
workbench it plays or pauses whatever has focus. A control kept it before, and focus lands
on controls nobody chose: after F9 hid the control panel the focus sat on Run, and Space
restarted a run at 52 %; after a lesson it sat on "Colour by", and Space opened its list.
Only in the lessons panel and its results, where the lesson runs the drive through its own
buttons, does Space press the focused button (and walk a list) as usual. Everywhere Return
or Enter presses a button, F4 or Alt+Down (or Return) opens a list.

Page Up and Page Down turn a lesson's results pages wherever the keyboard is, but a control
that uses them keeps them: the lesson's text, a list, a tab bar, a slider, a spin box (a
field: shortcuts.FieldKeys), a scroll area while it scrolls (the control panel's, the
results' own column).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSlider,
    QComboBox,
    QTabBar,
    QTextEdit,
    QWidget,
)

K = Qt.Key
PLAY_PAUSE = K.Key_Space  # the window's play/pause key, never a workbench control's
PRESS = frozenset({K.Key_Space, K.Key_Return, K.Key_Enter, K.Key_Select})
ARROWS = frozenset({K.Key_Left, K.Key_Right, K.Key_Up, K.Key_Down})
PAGES = frozenset({K.Key_PageUp, K.Key_PageDown})
MOVES = ARROWS | {K.Key_Home, K.Key_End} | PAGES

# (kind of control, the plain keys it uses); the first kind the widget is wins
OWNED: tuple[tuple[type, frozenset], ...] = (
    (QAbstractButton, PRESS),
    (QTabBar, MOVES),
    (QAbstractItemView, MOVES | PRESS),  # Space selects, Return chooses the item
    (QComboBox, MOVES | {K.Key_Space}),  # Space opens the list
    (QAbstractSlider, MOVES),
    (QTextEdit, MOVES | PRESS),  # read-only text: scroll, Return follows a link
    # any other view keeps only the page keys, and only while it scrolls (owned()): Right
    # still steps the run there, and a chart clicked in the results lets them turn
    (QAbstractScrollArea, PAGES),
)


def owned(widget: QWidget | None, key: int, lesson_area: bool = False) -> bool:
    """True when the focused widget uses key (pressed without Ctrl, Alt or Meta); Space
    only in the lessons panel or its results (lesson_area: widget is there)."""
    if widget is None or (key == PLAY_PAUSE and not lesson_area):
        return False
    for kind, keys in OWNED:
        if isinstance(widget, kind):
            if kind is QAbstractScrollArea:
                return key in keys and widget.verticalScrollBar().maximum() > 0
            return key in keys
    return False


def press_on_return(widget: QWidget | None, key: int) -> bool:
    """Return or Enter on a focused button or check box of the window presses it, on a
    drop-down list opens it (Space plays or pauses there: the module docstring); a dialog's
    own default-button rule is left alone: the caller only asks for the main window. True
    when it did."""
    if key not in (K.Key_Return, K.Key_Enter):
        return False
    if isinstance(widget, QComboBox) and not widget.isEditable():
        widget.showPopup()
        return True
    if not isinstance(widget, QAbstractButton):
        return False
    if not widget.isEnabled():
        return True  # a disabled button swallows the key, as a click on it would
    widget.click()
    return True
