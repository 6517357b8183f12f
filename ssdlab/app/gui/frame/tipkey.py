"""Shift+F1 shows the focused control's tooltip beside it: what a mouse user reads by hovering
(what a setting does, and the glossary's definition of its term: settings/controltips.py)
was out of a keyboard user's reach. A control without a tip of its own shows its nearest
parent's.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

KEYS = "Shift+F1"


def tip_of(w: QWidget | None) -> tuple[QWidget, str] | None:
    """(the widget whose tip it is, the tip) for w or its nearest parent that has one."""
    while w is not None:
        if w.toolTip():
            return w, w.toolTip()
        w = w.parentWidget()
    return None


def show_tip(window: QWidget) -> bool:
    """Show the focused control's tip under it; True when there was one."""
    found = tip_of(QApplication.focusWidget())
    if found is None:
        return False
    w, text = found
    QToolTip.showText(w.mapToGlobal(QPoint(0, w.height())), text, w)
    return True


def install(window: QWidget) -> None:
    sc = QShortcut(QKeySequence(KEYS), window)
    sc.setContext(Qt.ShortcutContext.WindowShortcut)
    sc.activated.connect(lambda: show_tip(window))
    if hasattr(window, "shortcut_objects"):
        window.shortcut_objects.append(sc)
