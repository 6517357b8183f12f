"""Telling a screen reader something happened: Qt's accessibility announcement (on Linux the
AT-SPI bridge's Announcement signal, which Orca speaks), polite (said when the reader is
quiet) or assertive (said at once). Every part of the window speaks through `announce`, and
one Voice per application paces what it says (ssdlab/app/gui/appearance/speaking.py: held a
moment, after the focus change it came with, then everything held as one announcement);
`heard` keeps the application's last announcements as said, newest last (what a listener
was told), `timeline` the same with the time each was said."""

from __future__ import annotations

import time
from collections import deque

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

from .speaking import Turns

HEARD = 50  # sentences `heard` keeps


def heard() -> deque[tuple[str, bool]]:
    """The application's last announcements as (text, assertive), newest last."""
    app = QApplication.instance()
    if getattr(app, "_heard", None) is None:
        app._heard = deque(maxlen=HEARD)
    return app._heard


def timeline() -> deque[tuple[float, str, bool]]:
    """The last announcements as (seconds on the voice's clock, text, assertive)."""
    return voice().said


class Voice(QObject):
    """The application's one voice: see the module docstring. clock: seconds, monotonic."""

    def __init__(self, app, clock=time.monotonic):
        super().__init__(app)
        self.clock = clock
        self.turns = Turns()
        self.said: deque[tuple[float, str, bool]] = deque(maxlen=HEARD)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.due)
        app.focusChanged.connect(self._focus)

    def ask(self, source: QWidget, text: str, assertive: bool, topic: str = "") -> None:
        if assertive:
            self.turns.assertive(text, self.clock())
            self._say(source, text, True)
        else:
            self.turns.ask(source, text, self.clock(), topic)
        self._schedule()

    def _focus(self, _old, new) -> None:
        if new is None:
            return
        iface = QAccessible.queryAccessibleInterface(new)
        spoken = iface.text(QAccessible.Text.Name) if iface is not None else ""
        self.turns.focus(f"{spoken} {iface.role().name if iface else ''}", self.clock())
        self._schedule()

    def _schedule(self) -> None:
        at = self.turns.when()
        if at is not None:
            self.timer.start(max(0, round(1000 * (at - self.clock()))))

    def due(self) -> None:
        """Say what is held if its turn has come (the timer calls it; a test may)."""
        said = self.turns.due(self.clock())
        if said is None:
            self._schedule()
            return
        source, words = said
        self._say(source, words, False)

    def flush(self) -> None:
        """Say what is held now, whoever's turn it is (the window closes, a transcript
        ends)."""
        self.turns.busy_until = self.turns.first_at = float("-inf")
        self.due()

    def _say(self, source: QWidget, text: str, assertive: bool) -> None:
        if not isValid(source):  # gone while its sentence waited: the window says it
            source = QApplication.activeWindow() or next(
                iter(QApplication.topLevelWidgets()), None)
            if source is None:
                return
        heard().append((text, assertive))
        self.said.append((self.clock(), text, assertive))
        event = QAccessibleAnnouncementEvent(source, text)
        p = QAccessible.AnnouncementPoliteness
        event.setPoliteness(p.Assertive if assertive else p.Polite)
        QAccessible.updateAccessibility(event)


def voice() -> Voice:
    app = QApplication.instance()
    if getattr(app, "_voice", None) is None:
        app._voice = Voice(app)
    return app._voice


def announce(source: QWidget, text: str, assertive: bool = False, topic: str = "") -> None:
    """Say text through the accessibility tree from source (the object a screen reader
    names as where it came from), in its turn (topic: see speaking.Turns.ask)."""
    if text:
        voice().ask(source, text, assertive, topic)
