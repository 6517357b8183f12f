"""Typing on a step that takes an answer goes into its answer field, wherever in the step
the keyboard is.

The window's single-key shortcuts (". steps the drive", "G", "1" to "4", "?": the workbench
table, ssdlab/app/gui/frame/shortcuts.py) stand aside while a text field has focus. But
after Enter checks a quiz's answer the keyboard moves on (to Show answer or Next:
keepfocus.py), and a click can land beside the field: a student who then typed the next
try, "7.1", stepped the workbench's drive with the "." and left "starting steady..." on
screen. So while a step shows an answer field (a quiz's, or a numeric estimate's), a
printable key typed anywhere in the lesson panel or its results, outside another text
field, goes to that field (focus and all) and never reaches a window shortcut. Keys with
Ctrl or Alt, Space (it presses the focused button), Return, Tab and the arrows keep their
usual meaning.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

from ..appearance import appevents
from .shortcuts import text_field

MODIFIERS = (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
             | Qt.KeyboardModifier.MetaModifier)


class AnswerKeys(QObject):
    """An application event filter for one lesson panel."""

    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel
        appevents.watch(self, "keys")  # leaves with the panel, its parent

    def field(self) -> QWidget | None:
        """The answer field the current step shows and takes typing in, if any."""
        p = self.panel
        if p.lesson is None or p.pages.currentIndex() != 1:
            return None
        for w in (p.quiz_answer, p.estimate):
            if w.isVisible() and w.isEnabled():
                return w
        return None

    def _ours(self, w: QWidget) -> bool:
        p = self.panel
        return p.isAncestorOf(w) or w is p or w is p.results or p.results.isAncestorOf(w)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        # a key event (appevents.py sorts the application's events)
        if not isinstance(obj, QWidget):
            return False
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        text = event.text()
        if event.modifiers() & MODIFIERS or not text or not text.isprintable() \
                or text.isspace():
            return False
        field = self.field()
        if field is None or not self._ours(obj) or text_field(obj) is not None:
            return False  # a field keeps its own keys (shortcuts.FieldKeys)
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the key is the answer's, not the window's shortcut
            return False
        field.setFocus(Qt.FocusReason.OtherFocusReason)
        # a spin box types into its own line edit
        target = field if isinstance(field, QLineEdit) else field.findChild(QLineEdit)
        target.end(False)  # after what is there: a retry never loses the last answer
        QApplication.sendEvent(target, QKeyEvent(QEvent.Type.KeyPress, event.key(),
                                                 event.modifiers(), text))
        return True


def install(panel) -> None:
    panel._answer_keys = AnswerKeys(panel)
