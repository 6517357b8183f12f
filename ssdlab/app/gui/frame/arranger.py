"""The one place the window's arrangement is applied: the policy's table
(ssdlab/app/gui/frame/layoutpolicy.py) read for the screen, the type and the parts open, and
the window set to match: the control panel shown or folded, the parts that scroll, the
tally beside or under the map, the status figures, the map's share of the height, a
lesson's drive and results together or one at a time, and its results in one column or in
pages.

`update` is called whenever an input changes: the window's size (the control panel's width
follows it: themefit.fit_panel) or screen, the type
(presentation mode, preferences), the lessons panel shown or hidden, a lesson started or
left or its step or run changed, two drives, a reference kept or cleared. It measures
nothing the layout computes, so it runs at once, never on a timer after a resize.

The person's own choices stand: F9 after a fold shows the panel and it stays until the
arrangement or the parts open change; F7 (or the button over the stage) flips the middle's
halves (a lesson's drive and results, or two drives and their charts: stageflip.py) until
the step or the run changes what they are about.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt

from ..appearance import theme
from . import layoutpolicy as lp
from . import statusline
from .stageflip import StageFlip

OPENING_PX = (1280, 860)  # the window's size at start, or the screen's where smaller
LESSONS_OWN_PX = 320  # the lessons panel's own width (dockedlessons.install opens it so)
FOLDED = "Panel folded to fit (F9 shows it)"


def room(w) -> lp.Room:
    """The room the window has: its screen (the whole of it in presentation mode, else
    what the desktop's panels leave), logical px, and the type in force."""
    screen = w.screen()
    if screen is None:
        return lp.Room(1 << 16, 1 << 16, theme.current().font_pt)
    g = screen.geometry() if w.presentation.on else screen.availableGeometry()
    return lp.Room(g.width(), g.height(), theme.current().font_pt)


class Arranger(QObject):
    """Owns the arrangement in force and applies the policy to workbench w."""

    def __init__(self, w):
        super().__init__(w)
        self.w = w
        self.arrangement: lp.Arrangement | None = None
        self._panel_wanted = True  # the fold last decided (F9 may differ from it)
        self._share_for = None  # (arrangement, type) the map's share was set for
        self._lessons_for = None  # (arrangement, type, stage) the lessons panel was set for
        self.flipper = StageFlip(w)  # the middle's halves together or in turn
        self.stage_button = self.flipper.button
        w.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if obj is self.w and event.type() in (QEvent.Type.Resize,
                                              QEvent.Type.ScreenChangeInternal):
            self.update()
        return False

    def update(self) -> None:
        w = self.w
        if "speech" not in w.__dict__:  # still being built (a fold is said aloud)
            return
        a = self.arrangement = lp.choose(room(w))
        w._fit_panel()  # the control panel's width: its widest row's, and a share of the window
        parts = lp.Parts(lessons=w.lesson_dock.isVisibleTo(w), in_lesson=w.in_lesson,
                         reference=bool(w.references))
        self._fold(lp.panel_shown(a, parts))
        for part in (w.central_fit, w.lessons_fit):
            part.set_short(a.scroll)
        under = lp.tally_under(a, parts)
        for v in w.views:
            if v.stacked() != under:
                v.stack(under)
        shown = lp.status_shown(a, w.in_lesson, len(w.views) > 1)
        for key, label in w.status.items():
            label.setVisible(key in shown)
        if self._share_for != (a.name, theme.current().font_pt):
            self._share_for = (a.name, theme.current().font_pt)
            w._map_share = a.map_share
            share_split(w)
        w.lesson_results.set_paged(a.results == "pages")
        before = self.stage
        self.flipper.apply(a.stage)
        if self.stage == "both" and before != "both":  # the map's share again, not the
            share_split(w)  # button bar's height it had over the charts alone
        self._lessons_width(a, parts)
        statusline.drop_stale(w)  # a message about the fold, the stage or a lesson held

    def _fold(self, wanted: bool) -> None:
        """The control panel as the policy wants it, when that changed: F9 in between is
        the person's choice and stays."""
        if wanted == self._panel_wanted:
            return
        self._panel_wanted = wanted
        present = self.w.presentation
        if present.panel_shown() != wanted:
            present.set_panel(wanted)
            if not wanted:  # true while the panel is folded, however it comes back (F9,
                # its button, a setting's error shown in it, Reset All, the arrangement)
                statusline.say(self.w, FOLDED, until=lambda w: w.presentation.panel_shown())

    def _lessons_width(self, a: lp.Arrangement, parts: lp.Parts) -> None:
        """The lessons panel as wide as the policy says for what is beside it, when it shows
        and the arrangement, the type or that changed: a width the person drags it
        to stands till then. Its own width is the one it opened with."""
        w, dock = self.w, self.w.lesson_dock
        if not dock.isVisibleTo(w):
            return
        font_pt = theme.current().font_pt
        px = lp.lessons_width(a, lp.lessons_wide(a, parts, self.stage), font_pt, w.width())
        key = (a.name, font_pt, px)
        if key == self._lessons_for:
            return
        if self._lessons_for is not None or px:
            w.resizeDocks([dock], [px or LESSONS_OWN_PX], Qt.Orientation.Horizontal)
        self._lessons_for = key

    @property
    def stage(self) -> str:
        """What the middle shows: "both", "drive" or "results" (stageflip.py)."""
        return self.flipper.stage

    def flip(self) -> None:
        """F7 (stageflip.py)."""
        self.flipper.flip()


def share_split(w) -> None:
    """The map's share of the right-hand side's height (a lesson sets its own)."""
    if w.in_lesson:
        return
    height = sum(w.right_split.sizes()) or w.height()
    top = int(height * w._map_share)
    w.right_split.setSizes([top, height - top])


def opening_size(w) -> tuple[int, int]:
    """The window's size at start: OPENING_PX, or the screen's room where smaller."""
    r = room(w)
    return min(OPENING_PX[0], r.width_px), min(OPENING_PX[1], r.height_px)
