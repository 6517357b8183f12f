"""A kept reference on a 768-line screen in presentation mode: its legend row under the
charts (and the charts' note, at the width the control panel leaves) put the window's least
height past the screen (791 px on 1024 x 768: the status bar off the screen). Then the
control panel folds away, as it does for the lesson panel (dockedlessons.make_room), and
the status line says so; Show panel (F9) brings it back, and it returns by itself when the
reference is cleared.

Whatever else makes the window taller than the screen in presentation mode (the panel brought
back by F9 beside a reference, a lesson's panel beside the map at 18 pt on a 1366 x 768
screen), the main area then scrolls by what the window is too tall, rather than the status
bar running off the screen."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer

from . import statusline


def room_px(w) -> int:
    """The screen's height, px (the window's in presentation mode)."""
    screen = w.screen()
    return screen.geometry().height() if screen is not None else 1 << 20


class _Watch(QObject):
    """The window's layout changed or it grew past the screen in presentation mode (a new
    run's longer note, a second reference, a lesson's panel): the same fold with a
    reference kept, and the main area scrolls by what is still too tall. Measured once the
    layout has settled (the charts' note rewrapped to its new width)."""

    def __init__(self, w):
        super().__init__(w)
        self.w = w
        self._again = QTimer(self)
        self._again.setSingleShot(True)
        self._again.timeout.connect(lambda: _fit(w, squeeze=True))
        w.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if obj is self.w and self.w.presentation.on and event.type() in (
                QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self._again.start(0)
        return False


def install(w) -> None:
    w.panel_folded_for_reference = False
    _Watch(w)


def make_room(w) -> None:
    """See the module docstring. Folding waits for the reference's legend to be laid out;
    the panel comes back at once (the map's size settles before the next key)."""
    _unsqueeze(w)  # what the main area needs is measured afresh (_Watch)
    if w.references:
        QTimer.singleShot(0, w, lambda: _fit(w))
    else:
        _fit(w)


def panel_changed(w) -> None:
    """Shown or hidden (F9): the main area scrolls only while it must. Its need is measured
    afresh: squeezed, its scroll bar narrows it and the rewrapped note would count as need
    (a scroll bar kept after the panel was hidden). Unsqueezed, the window grows past the
    screen if it must, and _Watch squeezes it again."""
    _unsqueeze(w)


def _parts(w) -> tuple:
    """The window's parts that scroll rather than grow it: the main area, the lessons."""
    return w.central_fit, w.lessons_fit


def _unsqueeze(w) -> None:
    for part in _parts(w):
        part.squeeze(0)


def _fit(w, squeeze: bool = False) -> None:
    present = w.presentation
    folded = w.panel_folded_for_reference
    if w.references and present.on and present.panel_shown() and not w.in_lesson \
            and not folded:  # once: Show panel (F9) after it is the person's choice
        if unsqueezed_px(w) > room_px(w):
            w.panel_folded_for_reference = True
            present.set_panel(False)
            statusline.say(w, "Panel folded to fit (F9 shows it)")
            return  # what is still too tall is measured once the layout has the fold
    elif not w.references and folded:
        w.panel_folded_for_reference = False
        if present.on and not present.panel_shown():
            present.set_panel(True)
    if not (squeeze and present.on):
        return
    over = w.minimumSizeHint().height() - room_px(w)
    if over > 0:
        # still too tall after any fold: the main area and the lessons panel beside it
        # each claim that much less and scroll if they must (the shorter one never needs
        # to: the window keeps the screen's height; each stops at its least height)
        for part in _parts(w):
            part.squeeze(part.squeeze_px + over)


def unsqueezed_px(w) -> int:
    """The window's least height if its parts claimed all they need, px."""
    return w.minimumSizeHint().height() + max(part.squeeze_px for part in _parts(w))
