"""A thick ring around whatever control has keyboard focus: the platform's own focus mark
was a faint dotted line (about 1.45:1 in the normal theme) and the block map and charts had
none. One ring per window, drawn above the controls and never taking a click, follows the
focus; its colour is at least 3:1 against the window and the controls in both profiles.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

from . import theme

# ring colour per profile, drawn just outside the control on the window's colour: dark blue
# on the light desk theme (7.3:1 on #f4f4f2, 8.0:1 on white), yellow on the projector's
# black (14.7:1 on #000, 12.2:1 on #1a1a1a)
COLOUR = {"normal": "#0b4f9c", "projector": "#ffd400"}
WIDTH_PX = 3
# a control's or a parent's events after which the ring is drawn anew
MOVED = frozenset({QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show,
                   QEvent.Type.Hide})


def visible_part(t: QWidget, window: QWidget) -> QRect:
    """What shows of control t, in window's coordinates: its rectangle clipped by each
    parent's (a scroll area's viewport cuts a part scrolled out of it)."""
    shown = QRect(t.mapTo(window, t.rect().topLeft()), t.size())
    w = t.parentWidget()
    while w is not None and w is not window:
        shown = shown.intersected(QRect(w.mapTo(window, w.rect().topLeft()), w.size()))
        w = w.parentWidget()
    return shown


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
            # widget afresh rather than call into a dead wrapper
            now = QApplication.focusWidget()
            t = self.target = now if now is not None and now.window() is self.parentWidget() \
                else None
        if t is None or not t.isVisible() or t.window() is not self.parentWidget():
            self.hide()
            return
        shown = visible_part(t, self.parentWidget())
        if shown.isEmpty():  # scrolled out of its panel: no ring over the parts beside
            self.hide()
            return
        m = WIDTH_PX
        # kept inside the window: the control panel starts at its left edge, and its ring
        # lost that side outside the window (Tab and F6 stop on the panel itself)
        self.setGeometry(shown.adjusted(-m, -m, m, m).intersected(self.parentWidget().rect()))
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
    """Moves the ring of the focused widget's window onto it as focus changes, and as the
    focused widget or a parent of it moves, resizes, shows or hides."""

    def __init__(self, app: QApplication):
        super().__init__(app)
        self.rings: dict[int, Ring] = {}
        self.watched: list[QWidget] = []  # the focused widget and its parents
        app.focusChanged.connect(self._changed)

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
        self._watch(None)
        if new is not None and not isinstance(new, Ring) and new is not new.window():
            ring = self.ring_for(new.window())
            ring.target = new
            ring.follow()
            self._watch(new)

    def _watch(self, target: QWidget | None) -> None:
        """Hear target's and its parents' moves (none: stop hearing the last ones)."""
        for w in self.watched:
            if isValid(w):
                w.removeEventFilter(self)
        self.watched = []
        w = target
        while w is not None:
            w.installEventFilter(self)
            self.watched.append(w)
            if w.isWindow():
                break
            w = w.parentWidget()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if event.type() in MOVED:
            for ring in list(self.rings.values()):
                if ring.target is not None:
                    ring.follow()
        return False


def install() -> None:
    """Once per application."""
    app = QApplication.instance()
    if getattr(app, "_focus_rings", None) is None:
        app._focus_rings = FocusRings(app)
