"""The middle of the window on a short screen (the layout policy's "flip" stage): two halves
that take turns rather than squeeze each other, F7 (or the button over them) showing the
one hidden.

- In a lesson: the lesson's drive while its run plays, its results (a prediction beside
  the outcome, the charts, a quiz's states) after it and on a prediction's step.
- On the workbench with two drives (A | B) or a kept reference: the drives (maps, tallies,
  legend) while a run is under way (paused too) or before one, the charts once every drive's
  run has ended. At 1024 x 768 in 18 pt type both halves together were 125 px taller than
  the screen with the control panel shown, and a kept reference's note lay under the fold.
  The button bar stays over the charts: Run and Play are never hidden.

The person's F7 stands until what the step or the run is about changes (a new step, a run
started or ended); then the half that belongs to it shows again.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QPushButton

from . import statusline


class StageFlip(QObject):
    """Which half of workbench w's middle shows: "both", "drive" or "results" (the charts,
    on the workbench), and the button that flips them."""

    def __init__(self, w):
        super().__init__(w)
        self.w = w
        self.stage = "both"
        self._manual = ""  # the half F7 chose, until the step or run changes it
        self._auto = ("", None)  # (half, what it was decided for) last time
        b = self.button = QPushButton()
        b.setObjectName("stageflip")
        b.setToolTip("Show the drive or the results, whichever is hidden (F7): on a short "
                     "screen they take turns.")
        b.clicked.connect(self.flip)
        b.hide()

    def flips(self, stage: str) -> bool:
        """Whether the halves take turns under the policy's stage ("split" or "flip")."""
        w = self.w
        return stage == "flip" and (w.in_lesson or len(w.views) > 1 or bool(w.references))

    def _words(self, half: str) -> str:
        """What a half is called aloud ("lesson's results"); its last word on the button."""
        if self.w.in_lesson:
            return {"drive": "lesson's drive", "results": "lesson's results"}[half]
        drives = "drives" if len(self.w.views) > 1 else "drive"
        return {"drive": drives, "results": "charts"}[half]

    @staticmethod
    def _other(half: str) -> str:
        return "results" if half == "drive" else "drive"

    def _auto_half(self) -> tuple[str, object]:
        """The half the moment calls for, and what it was decided for."""
        w = self.w
        if not w.in_lesson:
            ended = w.has_data() and all(
                v.snapshot is not None and not v.snapshot.segment for v in w.views)
            return ("results" if ended else "drive"), "workbench"
        panel = w.lesson_panel
        key = (id(panel.lesson), panel.index)
        if not getattr(w, "lesson_map_shown", True):
            return "results", key  # a run that draws no map (a file-system scenario)
        if panel.job is not None or panel.watch.job is not None:
            return "drive", key
        # (a lesson being started may not have its step yet: the last one's index)
        lesson = panel.lesson
        if lesson is not None and panel.index < len(lesson.steps) \
                and lesson.steps[panel.index].kind == "predict":
            return "results", key
        return ("results" if w.lesson_results.has_content() else "drive"), key

    def apply(self, stage: str) -> None:
        """Show the halves as the policy's stage and the moment say."""
        w = self.w
        flip = self.flips(stage)
        if not flip:
            self.stage, self._manual, self._auto = "both", "", ("", None)
        else:
            auto = self._auto_half()
            if auto != self._auto:  # the step or the run changed: its own half first
                self._auto, self._manual = auto, ""
            self.stage = self._manual or auto[0]
        drive = self.stage in ("both", "drive")
        if w.in_lesson:
            w.map_area.setVisible(drive and getattr(w, "lesson_map_shown", True))
            w.maps.setVisible(True)
            w.legends.setVisible(True)
        else:  # the button bar over the maps stays
            w.map_area.setVisible(True)
            w.maps.setVisible(drive)
            w.legends.setVisible(drive)
        w.lower.setVisible(self.stage in ("both", "results"))
        self._fit_top(not drive and not w.in_lesson)
        b = self.button
        b.setVisible(flip)
        if flip:
            other = self._other(self.stage)
            b.setText(f"Show the {self._words(other).split()[-1]} (F7)")
            b.setAccessibleName(f"Show the {self._words(other)}")

    def _fit_top(self, buttons_only: bool) -> None:
        """Over the charts alone, the map half is only as tall as its button bar and
        progress line (splitfit.py)."""
        fit = self.w.split_fit
        if fit.exact == buttons_only:
            return
        fit.exact = buttons_only
        self.w.map_area.layout().invalidate()  # its heights still count the maps just hidden
        fit.fit()

    def check(self) -> None:
        """A snapshot arrived: on the workbench, a run started or ended may call for the
        other half (cheap when nothing changed)."""
        if self.stage != "both" and not self.w.in_lesson \
                and self._auto_half() != self._auto:
            self.w.arranger.update()

    def flip(self) -> None:
        """F7: the half that is hidden; said aloud."""
        if self.stage == "both":
            statusline.say(self.w, "The drive and the results both show: nothing to flip",
                           until=lambda w: w.arranger.stage != "both")
            return
        self._manual = self._other(self.stage)
        self.w.arranger.update()
        shown = self.stage
        other = self._other(shown)
        words = (self._words(shown), self._words(other))
        # till the other half shows, or its words change (B gone: "the drive", not "drives")
        statusline.say(self.w, f"Showing the {words[0]} (F7 shows the "
                       f"{words[1].split()[-1]})",
                       until=lambda w: w.arranger.stage != shown or (
                           w.arranger.flipper._words(shown), w.arranger.flipper._words(other))
                       != words)
