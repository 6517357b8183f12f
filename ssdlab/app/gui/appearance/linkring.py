"""A text page whose links are reached by Tab (the lesson's text, the glossary's definition)
with the link that has keyboard focus framed as the focus ring frames a control: Qt marks
it only by a one-pixel dotted line in the text colour (issue 25), which a student who sees
poorly cannot find. The frame is focusring's colour and width, at least 3:1 against the page
in both colour profiles; a screen reader hears which link it is.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QTextCursor
from PySide6.QtWidgets import QTextBrowser

from . import focusring, theme
from .announce import announce


def link_action(href: str) -> str:
    """What Enter on a link does, in words a listener hears with the link."""
    if href.startswith("lesson:"):
        return "Enter opens this lesson (it asks first if a lesson is in progress)."
    return "Enter opens it in the glossary."


class LinkBrowser(QTextBrowser):
    """A QTextBrowser that frames its keyboard-focused link."""

    def focused_link(self) -> str:
        """The words of the link Tab has put the keyboard on ("" when none)."""
        cursor = self.textCursor()
        if not cursor.hasSelection():
            return ""
        probe = QTextCursor(cursor)
        probe.setPosition(cursor.selectionStart() + 1)  # the format of the link's first letter
        return cursor.selectedText() if probe.charFormat().isAnchor() else ""

    def focused_href(self) -> str:
        """Where the link Tab has put the keyboard on leads ("glossary:page",
        "lesson:02-spare"; "" when none)."""
        if not self.focused_link():
            return ""
        probe = QTextCursor(self.textCursor())
        probe.setPosition(self.textCursor().selectionStart() + 1)
        return probe.charFormat().anchorHref()

    def link_rects(self) -> list[QRect]:
        """Where the focused link's words are, one rectangle a line, in the viewport's
        coordinates (a link may wrap onto the next line)."""
        if not self.focused_link():
            return []
        cursor = self.textCursor()
        start, end = cursor.selectionStart(), cursor.selectionEnd()
        doc = self.document()
        block = doc.findBlock(start)
        layout = block.layout()
        origin = doc.documentLayout().blockBoundingRect(block).topLeft()
        dx = origin.x() - self.horizontalScrollBar().value()
        dy = origin.y() - self.verticalScrollBar().value()
        out = []
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            a = max(start - block.position(), line.textStart())
            b = min(end - block.position(), line.textStart() + line.textLength())
            if a >= b:
                continue
            x1, x2 = _x(line, a), _x(line, b)
            out.append(QRectF(dx + x1, dy + line.y(), x2 - x1, line.height())
                       .toAlignedRect())
        return out

    def focusNextPrevChild(self, next_: bool) -> bool:  # noqa: N802 - Qt name
        moved = super().focusNextPrevChild(next_)
        link = self.focused_link() if self.hasFocus() else ""
        if link:
            announce(self, f"Link: {link}. {link_action(self.focused_href())}")
        self.viewport().update()
        return moved

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().paintEvent(event)
        if not self.hasFocus():
            return
        rects = self.link_rects()
        if not rects:
            return
        painter = QPainter(self.viewport())
        pen = QPen(QColor(focusring.COLOUR.get(theme.current().name,
                                               focusring.COLOUR["normal"])))
        pen.setWidth(focusring.WIDTH_PX)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        m = focusring.WIDTH_PX // 2 + 1  # the frame's middle line, clear of the letters
        for r in rects:
            painter.drawRect(r.adjusted(-m, -m + 1, m, m - 1))


def _x(line, position: int) -> float:
    """QTextLine.cursorToX's x (PySide gives it with the position it was asked)."""
    x = line.cursorToX(position)
    return float(x[0] if isinstance(x, tuple) else x)
