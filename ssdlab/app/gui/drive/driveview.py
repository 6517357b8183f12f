"""One drive on screen: its worker (a thread of its own), its block map and legend, its
settings and its newest snapshot. The workbench (ssdlab/app/gui/frame/workbench.py) is the frame
around one or two of these: it owns the controls, buttons, keys, charts and status line, and
sends each view the same workload.

A view says when it holds a new snapshot (`snapshot_taken`) and when the model changed its
mount options (`mount_followed`); it never decides anything about the run itself.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import replace

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QBoxLayout, QLabel, QVBoxLayout, QWidget

from ssdlab.model.host.profiles import load_profile
from ssdlab.model.lab.lockstep import Lockstep

from ..run.gcpacer import GcPacer
from ..run.runstatus import RunStatus
from ..run.snapshot import Snapshot
from ..run.worker import Worker
from ..settings.session import Session, Settings
from .blockmap import BlockMap
from .legend import Legend
from .tally import Tally

# commands after which the drive goes on (or starts afresh): a GC held on screen by a
# pause plays on (a change of view, speed or breakpoints while paused keeps it held)
PLAYS_ON = frozenset({"play", "step", "gc", "workload", "replay", "fs", "reset",
                      "configure", "stop", "halt"})


class DriveView(QObject):
    """Drive `name` ("A" or "B"): see the module docstring."""

    snapshot_taken = Signal(object)  # (this view) a new snapshot is in self.snapshot
    mount_followed = Signal(object)  # (this view) a scenario's remount changed the settings
    failed = Signal(str)  # what went wrong in the engine

    def __init__(self, name: str, settings: Settings | None = None,
                 lockstep: Lockstep | None = None, parent=None):
        super().__init__(parent)
        self.name = name
        self.session = Session(settings)
        self.worker = Worker()
        self.worker.lockstep = lockstep
        if lockstep is not None:
            lockstep.join(self.worker)
        self.snapshot: Snapshot | None = None
        self.frame_times: deque[float] = deque(maxlen=240)
        self.run_status = RunStatus()
        self.shows_own_drive = True  # False while a lesson shows its drive on this map
        self._run_remounts = 0  # the worker's count of the run's own remounts, as last seen
        self._settling: list[tuple[int, QEventLoop]] = []  # (ticket, loop) of each settle()
        self.blockmap = BlockMap()
        self.tally = Tally()  # beside the map: the pages behind the WA, as the map shows them
        self.blockmap.shown.connect(self.tally.set_snapshot)
        # teaching pace: GC phases play on the map before the snapshot they came with
        self.pacer = GcPacer(lambda: self.worker.send("release"), self)
        self.pacer.show.connect(self._show)
        self.legend = Legend()  # the frame places it: under the maps, A's alone by state
        # "A: discard" above the map when two drives are shown; hidden with one
        self.title = QLabel(name)
        self.title.setToolTip("Which drive this map shows, and what is set differently on it.")
        self.title.setWordWrap(True)
        self.title.hide()
        box = self.widget = QWidget()
        v = QVBoxLayout(box)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(2)
        v.addWidget(self.title)
        row = self._row = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.blockmap, 1)
        row.addWidget(self.tally)
        v.addLayout(row, 1)
        v.addWidget(self.tally.now)
        # two maps side by side (each titled) leave no room for a tally beside each at
        # 1024 px: then each tally stands under its map, headed by its drive's letter
        self._paired = False
        self.title.installEventFilter(self)
        self.worker.snapshot_ready.connect(self._on_snapshot, Qt.ConnectionType.QueuedConnection)
        self.worker.failed.connect(self.failed, Qt.ConnectionType.QueuedConnection)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt name
        if watched is self.title and event.type() in (QEvent.Type.Show, QEvent.Type.Hide,
                                                      QEvent.Type.HideToParent,
                                                      QEvent.Type.ShowToParent):
            self._pair(not self.title.isHidden())
        return False

    def _pair(self, on: bool) -> None:
        """One of two drives side by side (on): the tally under the map, whatever the
        window's width, headed by the drive's letter; its sentence under the map goes
        (two lines kept for it under each of two maps pushed the window past 768 px in
        presentation type), the status line and the map's marks say what GC does. Off:
        the only drive's tally, beside its map or under it as the window decides."""
        if on == self._paired:
            return
        if on:
            self.stack(True)
        self._paired = on
        self.tally.set_drive(self.name if on else "")
        self.tally.now.setHidden(on)
        if not on:
            self.stack(False)

    def stack(self, under: bool) -> None:
        """The tally under the map (under) or beside it (frame/layoutpolicy.py decides); one
        of two drives' tallies stays under its map."""
        if self._paired:
            return
        row = self._row
        row.setDirection(QBoxLayout.Direction.TopToBottom if under
                         else QBoxLayout.Direction.LeftToRight)
        row.setAlignment(self.tally, Qt.AlignmentFlag.AlignLeft if under
                         else Qt.AlignmentFlag(0))

    def stacked(self) -> bool:
        return self._row.direction() == QBoxLayout.Direction.TopToBottom

    def beside_px(self) -> int:
        """How much wider the map with its tally is beside it than under it, px."""
        map_px, tally_px = self.blockmap.minimumWidth(), self.tally.minimumSizeHint().width()
        return map_px + self._row.spacing() + tally_px - max(map_px, tally_px)

    @property
    def settings(self) -> Settings:
        return self.session.settings

    # --- commands ---------------------------------------------------------------------------

    def start(self) -> None:
        self.worker.start()

    def send(self, name: str, *args) -> int:
        if name == "pause":  # the GC on screen stays where it is (gcpacer.py)
            self.pacer.hold(True)
        elif name in PLAYS_ON:
            self.pacer.hold(False)
        return self.worker.send(name, *args)

    def configure(self, s: Settings) -> None:
        """A new, empty drive built from s."""
        profile = load_profile(s.profile) if s.profile else None
        self.worker.configure(s.geometry(), s.config(), profile, s)

    def stop(self) -> None:
        self.worker.stop()

    # --- state ------------------------------------------------------------------------------

    def has_data(self) -> bool:
        s = self.snapshot
        return s is not None and (s.counters["host_writes"] > 0 or s.counters["trims"] > 0)

    def is_running(self) -> bool:
        return self.snapshot is not None and self.snapshot.running

    def fps(self) -> float:
        now = time.perf_counter()
        return float(sum(1 for t in self.frame_times if now - t <= 1.0))

    def progress(self) -> str:
        return self.run_status.progress(self.snapshot) if self.snapshot is not None else ""

    # --- snapshots --------------------------------------------------------------------------

    @Slot()
    def _on_snapshot(self) -> None:
        snap = self.worker.take_snapshot()
        if snap is None:
            self._end_settle()
            return
        self.snapshot = snap
        self.frame_times.append(time.perf_counter())
        self._follow_mount(snap)
        self.pacer.offer(snap)
        self.snapshot_taken.emit(self)
        self._end_settle()

    def _show(self, snap: Snapshot) -> None:
        """What the pacer says the map shows now (a GC's phase, or the run as it is)."""
        if self.shows_own_drive:
            self.blockmap.set_snapshot(snap)

    def skip_gc(self) -> None:
        """Show the end of the GC playing at teaching pace at once."""
        self.pacer.skip()

    def _follow_mount(self, snap: Snapshot) -> None:
        """A scenario's remount step changed the mount options: the settings follow (the
        file system already has them, so nothing is sent back). Counted by the worker, so
        a run that remounted between two snapshots this view took is followed too."""
        s = self.session.settings
        seen, self._run_remounts = self._run_remounts, snap.run_remounts
        # only a change the run made: a snapshot taken before a remount the controls asked
        # for still shows the old options, and must not undo the request
        if snap.mount is not None and snap.run_remounts != seen \
                and snap.mount != (s.atime, s.discard):
            self.session.settings = replace(s, atime=snap.mount[0], discard=snap.mount[1])
            self.mount_followed.emit(self)

    def settle(self) -> None:
        """Pause, and wait (the window still answering) until the worker has published a
        snapshot taken after the pause, or has stopped. No time limit: a step being
        prepared pauses when its preparation ends, and a stopped worker ends the wait."""
        ticket = self.worker.send("pause")
        loop = QEventLoop()
        # _on_snapshot ends the loop once settled (a save asked for meanwhile nests one more)
        self._settling.append((ticket, loop))
        self.worker.finished.connect(loop.quit)  # before the check: it may end meanwhile
        try:
            if not self._settled(ticket):
                loop.exec()
        finally:
            self._settling.remove((ticket, loop))
            self.worker.finished.disconnect(loop.quit)

    def _settled(self, ticket: int) -> bool:
        snap, w = self.snapshot, self.worker
        return (not w.isRunning() or (snap is not None and snap.handled >= ticket)
                or (w.drive is None and w.published >= ticket))

    def _end_settle(self) -> None:
        for ticket, loop in self._settling:
            if self._settled(ticket):
                loop.quit()
