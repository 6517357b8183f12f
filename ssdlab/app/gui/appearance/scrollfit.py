"""A part of the window that scrolls rather than grow the window past the screen.

A top-level window is never smaller than its layout's minimum: at 1.5x scaling on a
1366 x 768 screen (911 x 512 logical pixels) the workbench's minimum was 1064 x 601, so the
window ran off the screen and the lesson's Back/Next row and the status bar with it. Inside
a scroll area a part keeps its own minimum, the window's minimum shrinks to the scroll
area's, and whatever does not fit is reached by scrolling (the scroll bars show only then).

Only where the window's layout policy says the screen is short for the type
(ssdlab/app/gui/frame/layoutpolicy.py, set_short): on a screen with lines enough the parts keep
their whole minimum as before (a scroll area there would squeeze rows that wrap, whose
height depends on their width).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QScrollArea, QWidget

LEAST_PX = 120  # the scroll area's own minimum side: a scroll bar and a little content


class ScrollFit(QScrollArea):
    """`inner` at the room's size, or at its least size with scroll bars when the room is
    smaller. QScrollArea's own resizing gives a part whose text wraps its preferred height
    (its text box as tall as its text), so a lesson's Back/Next row went below the fold
    even where the text box could have shrunk: here the part's least height for the width
    it has."""

    def __init__(self, inner: QWidget, name: str = "", keep_width: bool = False):
        """keep_width: on a short screen too, never narrower than the part (with the
        vertical scroll bar it then needs): for a column such as the lessons panel, which
        scrolled sideways at 1.5x scaling in presentation type when its scroll bar took
        the last of its width."""
        super().__init__()
        self.keep_width = keep_width
        self._barred = False  # the vertical scroll bar counted in the width kept
        self.setObjectName(name or "scrollfit")
        self.setWidget(inner)
        self.setWidgetResizable(False)  # sized by _fit
        self.setFrameShape(QFrame.Shape.NoFrame)
        for policy in (self.setHorizontalScrollBarPolicy, self.setVerticalScrollBarPolicy):
            policy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # its content takes focus, not the frame
        self._short = False  # set_short
        inner.installEventFilter(self)

    def set_short(self, short: bool) -> None:
        """The screen is short for the type (the layout policy's "scroll"): the part claims
        little height and scrolls; else it claims its whole least size."""
        if short != self._short:
            self._short = short
            self.updateGeometry()
            self._fit()

    def least(self) -> QSize:
        """The part's least size (its layout's minimum: a text box at its least height,
        not the height of all its text)."""
        inner = self.widget()
        return inner.minimumSizeHint().expandedTo(inner.minimumSize())

    def _fit(self) -> None:
        room, least = self.viewport().size(), self.least()
        barred = least.height() > room.height()
        if barred:  # a vertical scroll bar takes some width
            room.setWidth(room.width() - self.verticalScrollBar().sizeHint().width())
        self.widget().resize(room.expandedTo(least))
        if self.keep_width and barred != self._barred:
            self._barred = barred
            self.updateGeometry()  # the width it keeps counts the bar, or no longer

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._fit()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self._least_changed()
        return super().eventFilter(obj, event)

    def viewportEvent(self, event) -> bool:  # noqa: N802 - Qt name
        # the part's minimum changed (posted to its parent, the viewport)
        if event.type() == QEvent.Type.LayoutRequest:
            self._least_changed()
        return super().viewportEvent(event)

    def _least_changed(self) -> None:
        """The window's layout asks this one's minimum again. A dock's layout sets the
        dock's least size from its content's, then counts that as a floor: a lesson step
        that was wide for a moment (473 px in projector type) kept the lesson panel that
        wide for every step and lesson after it, the window wider than a 1024 px screen.
        The dock's least size is cleared, so its layout sets it from the content again."""
        parent = self.parentWidget()
        if isinstance(parent, QDockWidget):
            parent.setMinimumSize(0, 0)
        self.updateGeometry()
        self._fit()

    def scrolls(self) -> bool:
        """Whether the part claims less than it needs and scrolls (a short screen)."""
        return self._short

    def minimumSizeHint(self):  # noqa: N802 - Qt name
        if self.scrolls():
            if not self.keep_width:
                return QSize(LEAST_PX, LEAST_PX)
            bar = self.verticalScrollBar().sizeHint().width() if self._barred else 0
            width = self.least().width() + bar + 2 * self.frameWidth()
            return QSize(max(LEAST_PX, width), LEAST_PX)
        edge = 2 * self.frameWidth()
        return QSize(self.widget().minimumSizeHint().width() + edge,
                     max(LEAST_PX, self.widget().minimumSizeHint().height() + edge))
