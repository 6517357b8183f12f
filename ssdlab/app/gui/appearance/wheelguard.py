"""The mouse wheel changes only a field the person chose: a number box or drop-down list
changes by wheel only while it has focus (taken by a click or the keyboard). Over any other
field the wheel scrolls what holds it (the control panel), as over a label; it never
focuses the field either, so a wheel that passed over "Pages / block" on its way down the
panel leaves the value and the keyboard as they were.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QWidget,
)

from . import appevents

GUARDED = (QAbstractSpinBox, QComboBox)


def _field(obj) -> QWidget | None:
    """The guarded field obj is or is inside (a spin box's line edit), or None."""
    w = obj if isinstance(obj, QWidget) else None
    while w is not None and not w.isWindow():
        if isinstance(w, GUARDED):
            return w
        w = w.parentWidget()
    return None


class WheelGuard(QObject):
    """A part of the application's one event filter (appevents.py): wheel turns and the
    polish of guarded fields; see the module's docstring."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        # a wheel turn, or a guarded field polished (appevents.py sorts the events)
        if not isinstance(event, QWheelEvent):
            # WheelFocus would hand the field the keyboard before any filter sees the wheel
            if obj.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                obj.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            return False
        field = _field(obj)
        if field is None or field.hasFocus() or field.isAncestorOf(
                QApplication.focusWidget()):
            return False
        # the panel holding the field scrolls, as over a label (a sent event does not
        # travel up to the parents on its own)
        area = field.parentWidget()
        while area is not None and not isinstance(area, QAbstractScrollArea):
            area = area.parentWidget()
        if area is not None:
            QApplication.sendEvent(area.verticalScrollBar(), event)
        return True


def install(app: QApplication) -> WheelGuard:
    """Guard every field of the application (once; later calls return the same guard)."""
    guard = getattr(app, "_wheel_guard", None)
    if guard is None:
        guard = app._wheel_guard = WheelGuard(app)
        appevents.watch(guard, "wheel", "polish", polished=GUARDED)
    return guard
