"""Which drive a lesson step shows beside the panel (ssdlab/app/gui/lessons/lessonpanel.py):
the run the step names (a run or compare step's own, a prediction's or quiz's measure, the
prediction a reflection answers) and, of its configurations, the one the step is about. The
map, the tally, the control panel and the heading over the map all show that one, so no
figure on screen belongs to another drive than the step's. Where the run has several
configurations, "Drive shown" (a labelled list, reached by Tab and changed by the arrow keys)
lets the student look at each; the map, tally, controls and heading follow the choice. A run
of two drives side by side shows both on maps A and B, each with its tally (the choice then
picks the controls and heading). A mixin of LessonPanel: it uses the panel's play, signals
and widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout, QWidget

from ..appearance.elidedcombo import ElidedCombo
from ..settings.session import Settings
from .lessonfocus import beyond_panel, used_settings

TAGS = ("A", "B")  # the workbench's two maps, when a run of two plays side by side


@dataclass(frozen=True)
class LessonFocus:
    """What the workbench shows for a lesson step: settings (the configuration shown, in
    the control panel), used (the names of the settings the run sets or varies), blockmap
    (the run draws the map), pair ((label, settings) of each of two configurations on maps A
    and B; None: one map), label (the configuration shown, as the lesson names it, with
    its map's letter when there are two), counted (what the tally counts, in words) and
    withheld (why the tally's WA is held back: a quiz asks the student to work one out)."""

    settings: Settings
    used: set[str]
    blockmap: bool
    pair: tuple | None
    label: str
    counted: tuple[str, str]  # (words over the tally, the longer reason as its tooltip)
    withheld: str = ""  # why the tally's WA is not shown ("": it is)
    beyond: str = ""  # what the configuration sets that no control shows (beyond_panel)


# The tally counts from the drive's first write; the lesson's figures count less.
COUNTED_BLOCK = ("Since new, fill included:",
                 "These count every write since the drive was new: the first fill and the "
                 "warm-up too. The lesson's figures count only the part it measures, so "
                 "they differ.")
COUNTED_STEPS = ("All its steps together:",
                 "These add up every step of this drive's run, as the lesson's figures and "
                 "charts count them (what a step prepares untimed before it starts, such as "
                 "a test file, is in no step); each of the lesson's figures is one step's "
                 "own, or a few steps'.")

QUIZ_WA = "the quiz asks you to work this out, so the tally keeps its WA to itself"
# figures a write amplification is, or is worked out from (flash written over host written)
WA_FIGURES = ("wa", "lifetime_wa", "nand_writes", "flash_pages", "nand_written_mb")


def asks_wa(step) -> bool:
    """A quiz on a run whose answer is a write amplification (or a ratio of two): the
    tally's WA beside it would be the answer, or one half of it."""
    m = getattr(step, "measure", None)
    return step.kind == "quiz" and m is not None and m.figure.rsplit(".", 1)[-1] in WA_FIGURES


class DriveChoice(QWidget):
    """"Drive shown:" over [configuration], the run's configurations to choose from;
    chosen(i) when the student picks one. The list is as wide as the lesson panel, under its
    label: beside it, in projector type, it showed "28 % o" of "28 % of physical". A choice
    longer still ends in "…", whole in the list's tooltip and accessible name."""

    chosen = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(2)
        label = QLabel("Drive &shown:", self)
        self.box = ElidedCombo(self)
        label.setBuddy(self.box)
        self._what = ("Which of the run's drives the block map, the tally, the control panel "
                      "and the line over the map show.")
        # a label as long as a sentence must not widen the narrow panel
        self.box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.box.setMinimumContentsLength(3)
        self.box.currentIndexChanged.connect(self._changed)
        rows.addWidget(label)
        rows.addWidget(self.box)
        self._loading = False
        self._name()

    def _name(self) -> None:
        """The choice shown, whole, in the list's accessible name and tooltip (it may be
        drawn cut short with "…")."""
        shown = self.box.currentText()
        self.box.setAccessibleName(f"Drive shown: {shown}" if shown else "Drive shown")
        self.box.setAccessibleDescription(self._what)
        self.box.setToolTip(f"Shown: {shown}. {self._what}" if shown else self._what)

    def offer(self, labels: list[str], current: int, enabled: bool,
              paired: bool = False) -> None:
        """paired: the run's two drives are on maps A and B, each with its tally; the
        choice then picks what the control panel and the line over the maps show."""
        what = ("Maps A and B and their tallies show both drives; the control panel and "
                "the line over the maps show the one chosen here." if paired else
                "Which of the run's drives the block map, the tally, the control panel and "
                "the line over the map show.")
        self._what = what
        self._loading = True
        try:
            if [self.box.itemText(i) for i in range(self.box.count())] != labels:
                self.box.clear()
                self.box.addItems(labels)
            self.box.setCurrentIndex(current)
        finally:
            self._loading = False
        self.box.setEnabled(enabled)
        self._name()

    def _changed(self, i: int) -> None:
        self._name()
        if not self._loading and i >= 0:
            self.chosen.emit(i)


class ShownDrive:
    """LessonPanel methods: the step's run and configuration, shown on the workbench."""

    def _named(self, step):
        """(the run step this step shows or None, the configuration ids it names, first
        the one it is about, whether it names the run itself)."""
        lesson = self.lesson
        measure, names = None, []
        if step.kind == "run":
            return step, [], True
        if step.kind == "reflect":
            step = lesson.step_of(step.predict)
        if step.kind == "compare" and step.run is not None:
            return lesson.step_of(step.run), [], True
        if step.kind in ("predict", "quiz") and step.measure is not None:
            measure = step.measure
            names = [measure.config]
            if measure.over is not None and measure.over.run == measure.run:
                names.append(measure.over.config)
            names += [g.config for g in getattr(step, "given", ()) if g.run == measure.run]
            if step.kind == "predict" and step.choices:  # "which wins": the one chosen
                answer = self.play.answers.get(step.id)
                if answer is not None:
                    names.append(step.choices[int(answer)].config)
                names += [c.config for c in step.choices]
            return lesson.step_of(measure.run), [n for n in names if n and n != "*"], True
        # a step about no run: the lesson's next run, or its last
        steps = lesson.steps
        later = [s for s in steps[self.index:] if s.kind == "run"]
        earlier = [s for s in steps[:self.index] if s.kind == "run"]
        return (later or earlier[-1:] or [None])[0], [], False

    def _config_index(self, run, names: list[str]) -> int:
        """The configuration shown: the one running; else the one the student chose on
        this step; else the first the step names; else A of a pair, or the last one run."""
        configs = [c.id for c in run.configs]
        if self._running(run):
            return 0 if self.play.paired(run) else min(len(self.partial.get(run.id, [])),
                                                       len(configs) - 1)
        chosen = self.shown_choice.get(self.index)
        if chosen is not None and chosen < len(configs):
            return chosen
        named = next((configs.index(n) for n in names if n in configs), None)
        if named is not None:
            return named
        if self.play.paired(run):
            return 0
        return len(self.play.runs[run.id]) - 1 if run.id in self.play.runs else 0

    def _focus(self) -> None:
        """The workbench shows the drive of the configuration this step is about: the
        controls its settings (what the run varies highlighted), the map and tally its drive
        as its run ended, the line over the map its name."""
        run, names, about = self._named(self.step)
        if run is None:
            self.drive_choice.hide()
            self.focus.emit(None)
            return
        shown, used = used_settings(run)
        i = self._config_index(run, names)
        labels = [c.label for c in run.configs]
        paired = self.play.paired(run) and run.blockmap
        pair = tuple(zip(labels, shown, strict=True)) if paired else None
        label = f"{TAGS[i]}: {labels[i]}" if paired else labels[i]
        counted = COUNTED_BLOCK if run.configs[i].spec is not None else COUNTED_STEPS
        withheld = QUIZ_WA if asks_wa(self.step) else ""
        self.focus.emit(LessonFocus(shown[i], used, run.blockmap, pair, label, counted,
                                    withheld, beyond_panel(run.configs[i])))
        if about and len(labels) > 1:
            self.drive_choice.offer([f"{TAGS[k]}: {x}" for k, x in enumerate(labels)]
                                    if paired else labels, i, not self._running(run), paired)
            self.drive_choice.show()
        else:
            self.drive_choice.hide()
        if not self._running(run):  # while it plays, its own snapshots name what runs
            if run.blockmap:
                self._show_maps(run, i, paired)
            self.heading.emit(self._heading_words(run, i, paired, label))

    def _running(self, run) -> bool:
        return self.job is not None and self.job.step is run

    def _chose_drive(self, i: int) -> None:
        """The student picked configuration i in "Drive shown"."""
        if self.lesson is not None and self.job is None:
            self.shown_choice[self.index] = i
            self._focus()

    def _heading_words(self, run, i: int, paired: bool, label: str) -> str:
        """The line over the map: which configuration it shows, and when."""
        if paired:
            ended = (run.id, 0) in self.maps or (run.id, 1) in self.maps
            when = ("A and B as their run ended" if ended
                    else "A and B appear here when their run plays")
            return f"{when}; the control panel shows {label}"
        if (run.id, i) in self.maps:
            return f"Drive shown: {label}, as its run ended"
        return f"Drive shown: {label}; its map appears here when its run plays"

    def _show_maps(self, run, i: int, pair: bool) -> None:
        """The map beside a step is of the configuration it is about, as that run ended;
        before the run, none (a run of another step, or the workbench's own drive, is
        never shown)."""
        if pair:
            self.drive_snapshot.emit(self.maps.get((run.id, 0)))
            self.second_drive.emit(self.maps.get((run.id, 1)))
        else:
            self.drive_snapshot.emit(self.maps.get((run.id, i)))
