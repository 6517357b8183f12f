"""A lesson run to watch (a run step with pace "teach", ssdlab/lessons/lesson.py) in the lesson
panel: its first GCs play on the block map at teaching pace (ssdlab/app/gui/run/gcpacer.py times the
phases: the victim marked, its valid pages moved, the erase), a line under the progress bar
says which GC and which phase is on screen, and "Skip to end" (a button reached by Tab and
pressed by Space, Enter or a click) stops the watching: the run finishes at full speed, with
the same figures (the physics does not depend on the pace: tests/test_lesson_pace.py). A
block-mapped drive's merges play the same way, named merges.

While the GCs play, `following` is True: the frame has the map zoom in on each one so its
pages show (ssdlab/app/gui/drive/gcfollow.py), and show the whole drive again when it turns False
(the GCs to watch were shown or skipped, the watched configuration ended, the run ended).

The LessonJob (lessonrun.py) holds its thread while a GC plays and goes on when the pacer
releases it; the panel (lessonruns.py) hands this its job and every snapshot for map A.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from ssdlab.model.flash.gcwatch import TEACH_GCS
from ssdlab.model.host.profiles import load_profile

from ..appearance.announce import announce
from ..run.gcpacer import GcPacer
from ..run.snapshot import TEACH_PAGES, Snapshot

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
    """What the map shows at one phase of GC (or merge) `number`, in a sentence."""
    b, k, ppb = snap.gc_victim, snap.gc_valid, snap.pages_per_block
    name = f"{'Merge' if snap.gc_kind == 'merge' else 'GC'} {number}"
    pages = "page" if k == 1 else "pages"
    if snap.gc_phase == "mark" and snap.gc_kind == "merge":
        return (f"{name}: block {b} is rewritten whole (this drive maps whole blocks, so it "
                f"cannot change a page in place); {k} valid {pages} must be copied.")
    if snap.gc_phase == "mark":
        return (f"{name}: block {b} chosen to be cleaned; {k} of its {ppb} pages "
                f"{'is' if k == 1 else 'are'} still valid.")
    if snap.gc_phase == "move":
        return (f"{name}: block {b}, {k} valid {pages} moved to "
                f"{blocks_words(snap.gc_destinations)}.")
    return f"{name}: block {b} erased; its {ppb} pages are free again."


def gc_said(snap: Snapshot, number: int) -> str:
    """What a listener is told of GC (or merge) `number`, once, as its first phase shows:
    the three phases' facts in one short sentence (a GC stays about 4 s on screen, the
    time this takes to hear; a sentence a phase fell further behind with each GC)."""
    b, k = snap.gc_victim, snap.gc_valid
    pages = "page" if k == 1 else "pages"
    if snap.gc_kind == "merge":
        return (f"Merge {number}: block {b} rewritten whole, {k} valid {pages} copied to "
                f"{blocks_words(snap.gc_destinations)}.")
    if not k:
        return f"GC {number}: block {b}, no valid page to move, erased."
    return (f"GC {number}: block {b}, {k} valid {pages} to "
            f"{blocks_words(snap.gc_destinations)}, then erased.")


def _name(snap: Snapshot, plural: bool = False) -> str:
    if snap.gc_kind == "merge":
        return "merges" if plural else "merge"
    return "GCs" if plural else "GC"


def _name_kind(kind: str) -> str:
    return "merges" if kind == "merge" else "garbage collections"


def watched_drive(step) -> tuple[str, int]:
    """(mapping, physical pages) of the drive a run step watches: its first
    configuration's."""
    config = step.configs[0]
    if config.spec is not None:
        return config.spec.config.mapping, config.spec.geometry.physical_pages
    sc = config.scenario
    profile = load_profile(sc.profile)
    return profile.ftl_config().mapping, profile.geometry(sc.user_pages).physical_pages


def watched_what(step) -> str:
    """What the watched drive of a run step does to free a block, in the note's words:
    "merges" (a drive that maps whole blocks, or hybrid) or "GCs"."""
    return "merges" if watched_drive(step)[0] != "page" else "GCs"


class LessonWatch(QObject):
    """The panel's teaching pace for a lesson run: see the module docstring."""

    following = Signal(bool)  # the map follows the GCs playing (True) or shows the drive

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
        self._following = False
        self._kind = "gc"  # the watched drive's: "gc", or "merge" (block-mapped)
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
        # no name of its own: its name is its text, the sentence a listener must hear (a
        # fixed name hid it: the bridge gives a label no text of its own), and it changes
        # once a phase, not every frame
        self.note.setAccessibleDescription("What the block map shows")
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
        mapping, pages = watched_drive(job.step)
        self._kind = "merge" if mapping != "page" else "gc"
        # the button names what plays, as the note does (a listener hears its description)
        self.button.setAccessibleDescription(
            f"Stop showing {_name_kind(self._kind)} one by one: the run finishes at full "
            "speed, with the same results.")
        self.button.setToolTip(f"Stop showing the {'merges' if mapping != 'page' else 'GCs'}"
                               " one by one; the run finishes at full speed with the same "
                               "results.")
        if self._kind == "merge":
            what = ("this drive maps whole blocks, so to change a page it rewrites the "
                    "whole block (a merge), copying the pages still valid. The first "
                    f"{TEACH_GCS} merges play one by one")
        else:
            what = (f"the first {TEACH_GCS} garbage collections play one by one (the block "
                    "chosen, its valid pages moved, the erase)")
        close = (", the map close enough to see the pages" if pages <= TEACH_PAGES else
                 "; this drive is too big to draw its pages, so the map shows whole blocks")
        self.note.setText(f"Watch the block map: {what}{close}. Skip to end runs the rest "
                          "at full speed.")
        self.note.show()
        announce(self.note, f"The first {TEACH_GCS} {_name_kind(self._kind)} play slowly "
                 "on the block map.")  # short: the first GC comes a few seconds on
        self._follow(True)
        # a method of this object, not a lambda: the job's thread emits it, and the slot
        # must run in the window's
        job.config_done.connect(self._first_done)

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
            where = (f"Phase {PHASE_NUMBER[phase]} of 3 · the first {TEACH_GCS} "
                     f"{_name(snap, True)} play slowly.")
            if self._more and self._number == self._last:
                where += f" This one host write needed {self._more} more, not shown."
            if snap.pages is None:
                where += " This drive is too big to draw its pages: the map shows blocks."
            self.note.setText(f"{words}\n{where}")
            if phase == "mark":
                announce(self.note, gc_said(snap, self._number))
        elif self.job is not None and not self.pacer.playing:
            after = self._after()
            if after != self.note.text() and self._number >= TEACH_GCS:
                announce(self.note, after)
            self.note.setText(after)
            if self._number >= TEACH_GCS:
                self._follow(False)
        self.panel._show_drive(0, snap)

    def _first_done(self, _result) -> None:
        """The watched configuration ended: the step's others run at full speed, unwatched
        (side by side, both end together)."""
        job = self.sender()
        if job is None or job is not self.job or not self.button.isEnabled():
            return
        self._follow(False)
        self.button.setEnabled(False)
        if len(job.step.configs) > 1 and not self.playing:
            what = "merges" if self._kind == "merge" else "GCs"
            self.note.setText(f"Only the first configuration's {what} play slowly: the "
                              "others run at full speed.")
        if self.button.hasFocus():
            self.panel.cancel_button.setFocus()

    def _follow(self, on: bool) -> None:
        if on != self._following:
            self._following = on
            self.following.emit(on)

    def _after(self) -> str:
        if self.job is not None and self.job.skipped:
            return "Skipped: the run goes on to its end at full speed."
        merges = self._kind == "merge"
        if self._number >= TEACH_GCS:
            return (f"The first {TEACH_GCS} {'merges' if merges else 'GCs'} were shown; the "
                    "rest of the run goes on at full speed.")
        return f"Writing on until the next {'merge' if merges else 'garbage collection'}…"

    def skip(self) -> None:
        """Skip to end: the GC playing shows its end, and the run finishes at full speed."""
        if self.job is None:
            return
        self.job.skip()
        if self.pacer is not None:
            self.pacer.skip()
        self.button.setEnabled(False)
        self.note.setText(self._after())
        self._follow(False)
        self.panel.cancel_button.setFocus()  # focus stays in the panel, not on a dead button

    def end(self) -> None:
        """The job ended (or another begins): nothing more plays."""
        if self.pacer is not None:
            self.pacer.timer.stop()
            self.pacer.deleteLater()
        self.pacer, self.job = None, None
        self._number = self._more = self._last = 0
        self._follow(False)
        self.button.hide()
        self.note.hide()
