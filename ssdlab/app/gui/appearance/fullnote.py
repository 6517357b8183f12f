"""A wrapped note that always has the height its words need at its width, no less, no more.

The control panel's notes ("7.2 % of physical = 7.8 % of user capacity; 276 blocks") sit in
form layouts inside a scroll area, which gives a wrapped label the height it needed at an
earlier width: after the panel narrowed (two drives, then one; normal then presentation
type) the note kept two lines' height for four lines of words, printed over the field above
it. This label asks for its height at its own width whenever either changes.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel


class FullNote(QLabel):
    """A QLabel with word wrap whose height follows its text at its width."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def needed_height(self) -> int:
        """The height the words need at the label's width, px, measured in its font now
        (QLabel.heightForWidth kept the large type's answer after the style sheet went
        back to normal type: 112 px for two lines of 9 pt)."""
        m = self.contentsMargins()
        inner = self.width() - m.left() - m.right() - 2 * self.margin()
        if inner <= 0:
            return -1
        rect = QFontMetrics(self.font()).boundingRect(
            QRect(0, 0, inner, 0), int(Qt.TextFlag.TextWordWrap), self.text())
        return rect.height() + m.top() + m.bottom() + 2 * self.margin()

    def _fit(self) -> None:
        need = self.needed_height()
        if need > 0 and (need != self.minimumHeight() or need != self.maximumHeight()):
            # no more either: a panel with room to spare gave it to the notes, which then
            # floated in blank bands between the fields (1024x768, expert options open)
            self.setMinimumHeight(need)
            self.setMaximumHeight(need)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt name
        super().setText(text)
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().changeEvent(event)
        if event.type() in (event.Type.FontChange, event.Type.StyleChange):
            # presentation type and back: more lines, then fewer. Asked again once the
            # style sheet has set the new font, or the note kept its large-type height in
            # blank bands after presentation mode ended
            self._fit()
            QTimer.singleShot(0, self, self._fit)
