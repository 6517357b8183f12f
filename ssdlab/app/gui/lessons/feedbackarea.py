"""Where a lesson step says how an answer fared, laid out so the answer never moves.

The verdict of a quiz ("Not quite: ...", the working after Show answer) grew under the
answer field and took its lines from the lesson text above, so the field and its buttons
moved up by as many lines and the student's next click missed them. Now the verdict sits
between the lesson text and the quiz's answer box, which stays anchored above Back and Next:
the text gives up what the verdict takes, and nothing below it moves. A prediction's short
notes ("Prediction saved") sit under its choices, in a height reserved when the step is
shown for the longest of them, so the choices never move either. A verdict taller than
two fifths of the page scrolls rather than squeezing the page, and Tab then stops on it
(between the lesson text and the answer) so the keyboard can scroll it too.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy

from ..appearance.fullnote import FullNote

CAP_SHARE = 0.4  # of the page's height, at most; the rest scrolls


class FeedbackNote(FullNote):
    """The verdict's words (plain text: the working's lines break where it says); its area
    refits whenever they change."""

    def __init__(self):
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.area: FeedbackArea | None = None

    def setText(self, text: str) -> None:  # noqa: N802 - Qt name
        super().setText(text)
        # a click selects the words to copy (focus by click); empty, it is nothing to
        # focus: a screen reader listed it as a focusable object without a name
        if self.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse:
            self.setFocusPolicy(Qt.FocusPolicy.ClickFocus if text else Qt.FocusPolicy.NoFocus)
        if self.area is not None:
            self.area.fit()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().changeEvent(event)
        if self.area is not None and event.type() in (QEvent.Type.FontChange,
                                                      QEvent.Type.StyleChange):
            self.area.fit()  # presentation type and back: the style sheet sets the font


class FeedbackArea(QScrollArea):
    """A FeedbackNote in a frameless scroll area exactly as tall as its words (or the
    reserve, when larger), never taller than CAP_SHARE of the page."""

    def __init__(self, note: FeedbackNote):
        super().__init__()
        self.reserved: tuple[str, ...] = ()
        self.note = note
        self.setWidget(note)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # the verdict is announced when it comes; Tab stops here only while it scrolls
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAccessibleName("How your answer fared")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(0)
        note.area = self

    def reserve(self, texts: tuple[str, ...]) -> None:
        """Keep room for the tallest of texts (the notes this step may show), even before
        any is shown; () when the step keeps no room."""
        self.reserved = tuple(texts)
        self.fit()

    def _height_of(self, text: str, width: int) -> int:
        if not text:
            return 0
        m = self.note.contentsMargins()
        inner = max(40, width - m.left() - m.right() - 2 * self.note.margin())
        rect = QFontMetrics(self.note.font()).boundingRect(
            QRect(0, 0, inner, 0), int(Qt.TextFlag.TextWordWrap), text)
        return rect.height() + m.top() + m.bottom() + 2 * self.note.margin()

    def wanted_height(self) -> int:
        """The words' height at the area's width (or the reserve's), before the cap, px."""
        width = self.viewport().width() if self.width() > 0 else self.note.width()
        return max([self._height_of(t, width) for t in (self.note.text(), *self.reserved)])

    def fit(self) -> None:
        page = self.parentWidget()
        cap = max(3 * self.note.fontMetrics().lineSpacing(),
                  int(CAP_SHARE * page.height()) if page is not None else 200)
        wanted = self.wanted_height()
        height = min(wanted, cap)
        if height != self.height() or height != self.minimumHeight():
            self.setFixedHeight(height)
        # taller than its room: Tab reaches it, so the keyboard can scroll the rest
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus if wanted > cap
                            else Qt.FocusPolicy.NoFocus)

    def watch(self, page) -> None:
        """Refit when the page's height changes (the cap is a share of it)."""
        page.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.Resize and obj is self.parentWidget():
            self.fit()
        return False

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self.fit()  # a new width wraps the words to another height
