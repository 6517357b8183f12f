"""A lesson run to watch (a run step with pace "teach", ssdlab/lessons/lesson.py) in the lesson
panel: its first GCs play on the block map at teaching pace (ssdlab/app/gui/run/gcpacer.py times the
phases: the victim marked, its valid pages moved, the erase), a line under the progress bar
says which GC and which phase is on screen, and "Skip to end" (a button reached by Tab and
pressed by Space, Enter or a click) stops the watching: the run finishes at full speed, with
the same figures (the physics does not depend on the pace: tests/test_lesson_pace.py).

The LessonJob (lessonrun.py) holds its thread while a GC plays and goes on when the pacer
releases it; the panel (lessonruns.py) hands this its job and every snapshot for map A.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from ssdlab.model.flash.gcwatch import TEACH_GCS

from ..run.gcpacer import GcPacer
from ..run.snapshot import Snapshot

PHASE_NUMBER = {"mark": 1, "move": 2, "erase": 3}


class SkipButton(QPushButton):
    """A push button that Return and Enter press as well as Space, wherever it is docked."""

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.isEnabled():
            self.click()
            event.accept()
            return
        super().keyPressEvent(event)


def blocks_words(blocks: tuple[int, ...]) -> str:
    if not blocks:
        return "nowhere (it held no valid page)"
    if len(blocks) == 1:
        return f"block {blocks[0]}"
    return "blocks " + ", ".join(map(str, blocks[:-1])) + f" and {blocks[-1]}"


def phase_words(snap: Snapshot, number: int) -> str:
    """What the map shows at one phase of GC `number`, in a sentence."""
    b, k, ppb = snap.gc_victim, snap.gc_valid, snap.pages_per_block
    if snap.gc_phase == "mark":
        return (f"GC {number}: block {b} chosen to be cleaned; {k} of its {ppb} pages are "
                "still valid.")
    if snap.gc_phase == "move":
        return (f"GC {number}: block {b}, {k} valid pages moved to "
                f"{blocks_words(snap.gc_destinations)}.")
    return f"GC {number}: block {b} erased; its {ppb} pages are free again."


class LessonWatch(QObject):
    """The panel's teaching pace for a lesson run: see the module docstring."""

    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel
        # False: runs to watch play at full speed too (tests of other things that wait for
        # a run's end; tests/test_gui_lesson_watch.py plays them)
        self.enabled = True
        self.job = None
        self.pacer: GcPacer | None = None
        self._number = 0  # the GC on screen (1-based)
        self._more = 0  # GCs the same write made after the ones played
        self._last = 0  # the number of the last GC played of the write held
        # seconds the run was held while its GCs played: "Done in" says the simulation's
        # own time without them (lessonruns.py)
        self.watched_s = 0.0
        self._held_at: float | None = None
        self.button = SkipButton("Skip to end")
        self.button.setAccessibleName("Skip to end")
        self.button.setAccessibleDescription(
            "Stop showing garbage collections one by one: the run finishes at full speed, "
            "with the same results.")
        self.button.setToolTip("Stop showing the GCs one by one; the run finishes at full "
                               "speed with the same results.")
        self.button.clicked.connect(self.skip)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setAccessibleName("What the block map shows")
        self.note.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        box = panel.run_box.layout()
        at = box.indexOf(panel.run_note)
        box.insertWidget(at, self.note)
        box.insertWidget(at + 1, self.button)
        QWidget.setTabOrder(panel.cancel_button, self.button)  # Tab: Run, Cancel, Skip
        self.button.hide()
        self.note.hide()

    @property
    def playing(self) -> bool:
        return self.pacer is not None and self.pacer.playing

    def start(self, job) -> None:
        """A job begins: a paced one shows the button and says what is coming."""
        self.end()
        job.paced = job.paced and self.enabled
        if not job.paced:
            return
        self.job = job
        self.watched_s, self._held_at = 0.0, None
        self.pacer = GcPacer(lambda: self._released(job), self)
        self.pacer.show.connect(self._show)
        self.button.setEnabled(True)
        self.button.show()
        # room for its longest sentence in the font of now (the projector's is larger), so
        # Run and the text above do not jump at each phase
        self.note.setMinimumHeight(6 * self.note.fontMetrics().lineSpacing())
        self.note.setText(f"Watch the block map: the first {TEACH_GCS} garbage collections "
                          "play one by one (the block chosen, its valid pages moved, the "
                          "erase). Skip to end runs the rest at full speed.")
        self.note.show()

    def offer(self, snap: Snapshot) -> bool:
        """A snapshot of map A from the job: True when the pacer has it (a GC to play, or
        one arriving while a GC plays)."""
        if self.pacer is None or not (snap.gc_frames or self.pacer.playing):
            return False
        if snap.gc_frames and self.job is not None:
            first, kept, self._more = self.job.gc_held
            self._number, self._last = first - 1, first + kept - 1
            if self._held_at is None:
                self._held_at = self.panel.clock()
        self.pacer.offer(snap)
        return True

    def _released(self, job) -> None:
        """A GC has played: the job goes on, and the time it was held is the watching's."""
        if self._held_at is not None:
            self.watched_s += self.panel.clock() - self._held_at
            self._held_at = None
        job.release()

    def _show(self, snap: Snapshot) -> None:
        phase = snap.gc_phase
        if phase in PHASE_NUMBER:
            if phase == "mark":
                self._number += 1
            words = phase_words(snap, self._number)
            where = f"Phase {PHASE_NUMBER[phase]} of 3 · the first {TEACH_GCS} GCs play slowly."
            if self._more and self._number == self._last:
                where += f" This one host write needed {self._more} more, not shown."
            self.note.setText(f"{words}\n{where}")
        elif self.job is not None and not self.pacer.playing:
            self.note.setText(self._after())
        self.panel._show_drive(0, snap)

    def _after(self) -> str:
        if self.job is not None and self.job.skipped:
            return "Skipped: the run goes on to its end at full speed."
        if self._number >= TEACH_GCS:
            return (f"The first {TEACH_GCS} GCs were shown; the rest of the run goes on at "
                    "full speed.")
        return "Writing on until the next garbage collection…"

    def skip(self) -> None:
        """Skip to end: the GC playing shows its end, and the run finishes at full speed."""
        if self.job is None:
            return
        self.job.skip()
        if self.pacer is not None:
            self.pacer.skip()
        self.button.setEnabled(False)
        self.note.setText(self._after())
        self.panel.cancel_button.setFocus()  # focus stays in the panel, not on a dead button

    def end(self) -> None:
        """The job ended (or another begins): nothing more plays."""
        if self.pacer is not None:
            self.pacer.timer.stop()
            self.pacer.deleteLater()
        self.pacer, self.job = None, None
        self._number = self._more = self._last = 0
        self.button.hide()
        self.note.hide()
