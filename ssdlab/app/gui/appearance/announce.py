"""Telling a screen reader something happened: Qt's accessibility announcement (on Linux the
AT-SPI bridge's Announcement signal, which Orca speaks), polite (said when the reader is
quiet) or assertive (said at once). Every part of the window speaks through `announce`;
`heard` keeps the application's last sentences, newest last (what a listener was told)."""

from __future__ import annotations

from collections import deque

from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent
from PySide6.QtWidgets import QApplication, QWidget

HEARD = 50  # sentences `heard` keeps


def heard() -> deque[tuple[str, bool]]:
    """The application's last announcements as (text, assertive), newest last."""
    app = QApplication.instance()
    if getattr(app, "_heard", None) is None:
        app._heard = deque(maxlen=HEARD)
    return app._heard


def announce(source: QWidget, text: str, assertive: bool = False) -> None:
    """Say text through the accessibility tree from source (the object a screen reader
    names as where it came from)."""
    if not text:
        return
    heard().append((text, assertive))
    event = QAccessibleAnnouncementEvent(source, text)
    p = QAccessible.AnnouncementPoliteness
    event.setPoliteness(p.Assertive if assertive else p.Polite)
    QAccessible.updateAccessibility(event)
