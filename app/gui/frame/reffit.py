"""A kept reference on a 768-line screen in presentation mode: its legend row under the
charts (and the charts' note, at the width the control panel leaves) put the window's least
height past the screen (791 px on 1024 x 768: the status bar off the screen). Then the
control panel folds away, as it does for the lesson panel (dockedlessons.make_room), and
the status line says so; Show panel (F9) brings it back, and it returns by itself when the
reference is cleared."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer

from . import statusline


def room_px(w) -> int:
    """The screen's height, px (the window's in presentation mode)."""
    screen = w.screen()
    return screen.geometry().height() if screen is not None else 1 << 20


class _Watch(QObject):
    """The window grew past the screen with a reference kept (a new run's longer note, a
    second reference): the same fold, then."""

    def __init__(self, w):
        super().__init__(w)
        self.w = w
        w.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.Resize and obj is self.w and self.w.references \
                and event.size().height() > room_px(self.w):
            make_room(self.w)
        return False


def install(w) -> None:
    w.panel_folded_for_reference = False
    _Watch(w)


def make_room(w) -> None:
    """See the module docstring. Folding waits for the reference's legend to be laid out;
    the panel comes back at once (the map's size settles before the next key)."""
    if w.references:
        QTimer.singleShot(0, w, lambda: _fit(w))
    else:
        _fit(w)


def _fit(w) -> None:
    present = w.presentation
    folded = w.panel_folded_for_reference
    if w.references and present.on and present.panel_shown() and not w.in_lesson \
            and not folded:  # once: Show panel (F9) after it is the person's choice
        if w.minimumSizeHint().height() > room_px(w):
            w.panel_folded_for_reference = True
            present.set_panel(False)
            statusline.say(w, "Panel folded to fit (F9 shows it)")
    elif not w.references and folded:
        w.panel_folded_for_reference = False
        if present.on and not present.panel_shown():
            present.set_panel(True)
