"""Plays a garbage collection on the block map at teaching pace: the worker holds a GC's
phases (ssdlab/app/gui/run/teaching.py) and sends them as frames in its snapshots; the pacer shows
them one by one on a single-shot QTimer (mark, move, erase, each PHASE_MS long), then the
snapshot they came with, and tells the worker to go on ("release"). Skip shows the end at
once. Tests drive it with advance() and never wait on the clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from .snapshot import Snapshot

# How long each phase stays on screen: long enough to read the label and see the move.
PHASE_MS = {"mark": 1200, "move": 1600, "erase": 1200}


class GcPacer(QObject):
    """Between the worker's snapshots and the map: see the module docstring."""

    show = Signal(object)  # a Snapshot for the map (a phase, or the run as it is)

    def __init__(self, release: Callable[[], None], parent=None):
        super().__init__(parent)
        self._release = release
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.advance)
        self._frames: list[Snapshot] = []
        self._final: Snapshot | None = None
        self._serial = 0
        self.phase = ""  # the phase on screen ("" when none plays)
        self.held = False  # paused: the phase on screen stays, nothing is released

    def hold(self, on: bool) -> None:
        """Pause (on) or play on: a pause at teaching pace freezes the GC on screen where it
        is; the phases went on playing and releasing the drive, three more GCs over five
        seconds under a status line that said "paused". Played on, the phase on screen has
        its whole time again."""
        if on == self.held:
            return
        self.held = on
        if on:
            self.timer.stop()
        elif self.playing:
            if self.phase:
                self.timer.start(PHASE_MS.get(self.phase, 1000))
            else:
                self.advance()

    @property
    def playing(self) -> bool:
        return self._final is not None

    def offer(self, snap: Snapshot) -> None:
        """A new snapshot from the worker: a new GC to play starts, one arriving while a GC
        plays waits for its end, any other is shown at once."""
        if snap.gc_frames and snap.gc_serial != self._serial:
            self._serial = snap.gc_serial
            self._frames = list(snap.gc_frames)
            self._final = snap
            self.advance()
        elif self.playing and not snap.gc_frames:
            # the worker holds the GC no longer (a reset, a new drive, another speed): the
            # phases are history, the drive as it is now is what the map shows
            self.timer.stop()
            self._frames, self._final, self.phase = [], None, ""
            self.show.emit(snap)
        elif self.playing:
            self._final = snap  # newer (a zoom's pages, a pause): shown when the GC ends
        else:
            self.show.emit(snap)

    def advance(self) -> None:
        """The next phase (the timer's tick), or the end of the GC; nothing while held."""
        if self.held:
            return
        if self._frames:
            frame = self._frames.pop(0)
            self.phase = frame.gc_phase
            self.show.emit(frame)
            self.timer.start(PHASE_MS.get(frame.gc_phase, 1000))
        elif self._final is not None:
            self._finish()

    def skip(self) -> None:
        """Show the end of the GC playing now (if any) and let the run go on."""
        self.timer.stop()
        self._frames = []
        if self._final is not None:
            self._finish()

    def _finish(self) -> None:
        final, self._final = self._final, None
        self.phase = ""
        self.timer.stop()
        self.show.emit(replace(final, gc_frames=()))
        self._release()
