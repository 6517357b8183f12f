"""A thick ring around whatever control has keyboard focus: the platform's own focus mark
was a faint dotted line (about 1.45:1 in the normal theme) and the block map and charts had
none. One ring per window, drawn above the controls and never taking a click, follows the
focus; its colour is at least 3:1 against the window and the controls in both profiles.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

from . import theme

# ring colour per profile, drawn just outside the control on the window's colour: dark blue
# on the light desk theme (7.3:1 on #f4f4f2, 8.0:1 on white), yellow on the projector's
# black (14.7:1 on #000, 12.2:1 on #1a1a1a)
COLOUR = {"normal": "#0b4f9c", "projector": "#ffd400"}
WIDTH_PX = 3
FOLLOW_MS = 150  # a scrolled panel moves the control without telling it


class Ring(QWidget):
    def __init__(self, window: QWidget):
        super().__init__(window)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.target: QWidget | None = None
        self.hide()

    def follow(self) -> None:
        t = self.target
        if t is not None and not isValid(t):
            # PySide can drop the Python wrapper we hold while the widget lives on (the
            # charts' tab bar in compare mode, while drive B closed): take the focused
            # widget afresh rather than call into a dead wrapper from the timer
            now = QApplication.focusWidget()
            t = self.target = now if now is not None and now.window() is self.parentWidget() \
                else None
        if t is None or not t.isVisible() or t.window() is not self.parentWidget():
            self.hide()
            return
        top_left = t.mapTo(self.parentWidget(), t.rect().topLeft())
        m = WIDTH_PX
        # kept inside the window: the control panel starts at its left edge, and its ring
        # lost that side outside the window (Tab and F6 stop on the panel itself)
        self.setGeometry(QRect(top_left.x() - m, top_left.y() - m, t.width() + 2 * m,
                               t.height() + 2 * m).intersected(self.parentWidget().rect()))
        self.show()
        self.raise_()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt name
        painter = QPainter(self)
        pen = QPen(QColor(COLOUR.get(theme.current().name, COLOUR["normal"])))
        pen.setWidth(WIDTH_PX)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        h = WIDTH_PX // 2
        painter.drawRect(self.rect().adjusted(h, h, -h - 1, -h - 1))


class FocusRings(QObject):
    """Moves the ring of the focused widget's window onto it as focus changes."""

    def __init__(self, app: QApplication):
        super().__init__(app)
        self.rings: dict[int, Ring] = {}
        app.focusChanged.connect(self._changed)
        self.timer = QTimer(self)
        self.timer.setInterval(FOLLOW_MS)
        self.timer.timeout.connect(self._follow)

    def ring_for(self, window: QWidget) -> Ring:
        key = id(window)
        ring = self.rings.get(key)
        if ring is None:
            ring = self.rings[key] = Ring(window)
            window.destroyed.connect(lambda _o=None, k=key: self.rings.pop(k, None))
        return ring

    def _changed(self, old: QWidget | None, new: QWidget | None) -> None:
        for ring in list(self.rings.values()):
            if ring.target is old:
                ring.target = None
                ring.hide()
        if new is not None and not isinstance(new, Ring) and new is not new.window():
            ring = self.ring_for(new.window())
            ring.target = new
            ring.follow()
        self.timer.start() if any(r.target for r in self.rings.values()) else self.timer.stop()

    def _follow(self) -> None:
        for ring in list(self.rings.values()):
            ring.follow()


def install() -> None:
    """Once per application."""
    app = QApplication.instance()
    if getattr(app, "_focus_rings", None) is None:
        app._focus_rings = FocusRings(app)
