"""The status bar's message: a label that shortens its text in the middle to whatever width
the bar gives it, every time that width changes. A text shortened once, for the room the bar
had when it was said, ran under the figures (or was cut) when they widened a moment later."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel


class MessageLabel(QLabel):
    """message(): the whole text (also the tooltip); text(): what fits, with "…" in the
    middle when it does not."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._message = ""
        # one name: a label without one tells the accessibility bridge its name changed
        # whenever its text does; the message itself is its description
        self.setAccessibleName("Message")

    def message(self) -> str:
        return self._message

    def set_message(self, text: str) -> None:
        self._message = text
        self.setToolTip(text)
        self.setAccessibleDescription(text)
        self._fit()

    def _fit(self) -> None:
        metrics, room = self.fontMetrics(), self.width()
        shown = self._message
        if metrics.horizontalAdvance(shown) > room:
            shown = metrics.elidedText(shown, Qt.TextElideMode.ElideMiddle, max(room, 0))
        if shown != self.text():
            self.setText(shown)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()
