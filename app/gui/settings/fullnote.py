"""A wrapped note that always keeps the height its words need at its width.

The control panel's notes ("7.2 % of physical = 7.8 % of user capacity; 276 blocks") sit in
form layouts inside a scroll area, which gives a wrapped label the height it needed at an
earlier width: after the panel narrowed (two drives, then one; normal then presentation
type) the note kept two lines' height for four lines of words, printed over the field above
it. This label asks for its height at its own width whenever either changes.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel


class FullNote(QLabel):
    """A QLabel with word wrap whose minimum height follows its text at its width."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def _fit(self) -> None:
        need = self.heightForWidth(self.width()) if self.width() > 0 else -1
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt name
        super().setText(text)
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:  # presentation type: more lines
            self._fit()
