"""Names a screen reader speaks for the controls: Qt names a combo box by its current choice
("fast") and a check box by its own text ("on"), so a control labelled by a QLabel beside it
(a form row's "Journal", "Speed") gets that label as its accessible name, and a control with
no label names itself in words (Qt's accessible name) where it is made."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QAccessibleWidget,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QWidget,
)

from . import appevents


def label_text(label: QLabel) -> str:
    """A label's words as a name: no mnemonic "&", no trailing colon."""
    return label.text().replace("&", "").strip().rstrip(":").strip()


def name_from_labels(root: QWidget) -> None:
    """Every control under root that a label is the buddy of, and that has no name of its
    own, is named by the label."""
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and not buddy.accessibleName() and label_text(label):
            buddy.setAccessibleName(label_text(label))
    # a spin box's text field takes the focus for it, and Qt serves it as an object of
    # its own ("client", no name): named for its spin box
    for spin in root.findChildren(QAbstractSpinBox):
        edit = spin.findChild(QLineEdit)
        if edit is not None and not edit.accessibleName() and spin.accessibleName():
            edit.setAccessibleName(spin.accessibleName())
    # a drop-down's open list is a control of its own on the desktop's accessibility bus
    # (AT-SPI listed thirteen nameless lists): it is named for its drop-down
    for combo in root.findChildren(QComboBox):
        view = combo.view()
        if view is not None and not view.accessibleName() and combo.accessibleName():
            view.setAccessibleName(f"{combo.accessibleName()}: choices")


def named(widget: QWidget, name: str, description: str = "") -> QWidget:
    """widget with its accessible name (and description) set; returns it, for building."""
    widget.setAccessibleName(name)
    if description:
        widget.setAccessibleDescription(description)
    return widget


class LabelNames(QObject):
    """Names the controls of each window by their labels when it is first shown (dialogs
    and panels built later included)."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        # a window shown (appevents.py sorts the application's events)
        name_from_labels(obj)
        return False


def _roles(_key: str, obj) -> QAccessibleInterface | None:
    """A widget class that says what it is (ACCESSIBLE_ROLE: the block map a picture, a
    chart a chart) is served in that role; Qt gave a custom widget the generic "client"
    ("filler" on the desktop bus), which tells a listener nothing."""
    role = getattr(type(obj), "ACCESSIBLE_ROLE", None)
    if role is None or not isinstance(obj, QWidget):
        return None
    return QAccessibleWidget(obj, role)


def install() -> None:
    """Once per application: name controls by their labels in every window shown, and
    serve the widgets that say their role in it."""
    app = QApplication.instance()
    if getattr(app, "_label_names", None) is None:
        app._label_names = LabelNames(app)
        appevents.watch(app._label_names, "window_shown")
        QAccessible.installFactory(_roles)
