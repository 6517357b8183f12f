"""A drop-down list whose shown choice ends in "…" when it is wider than the box: the
control panel keeps its lists narrow (10 characters at least) so it fits 1024 px in
presentation type, and a long choice ("OCZ Vertex LE 100 GB") was cut mid-letter ("GE")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter


class ElidedCombo(QComboBox):
    def shown_text(self) -> str:
        """The current choice as drawn: whole, or cut short with "…" to fit."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        return self.fontMetrics().elidedText(self.currentText(), Qt.TextElideMode.ElideRight,
                                             field.width())

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)
