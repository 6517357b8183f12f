"""The window's arrangement, decided in one place: which parts show where, chosen from the
screen's size in lines and columns of the type in force and from which parts are open.

The room is measured in the type's own units, so one rule serves every screen, scaling
and text size: `lines` is the screen's height over the type's line spacing, `columns` its
width over the type's average character width (logical px: QT_SCALE_FACTOR divides both).
At 9 pt a line is 14 px and a character 6 px; at 18 pt (presentation mode, or 200 % text
size) 28 px and 12 px. So 1024 x 768 holds 54 lines of 170 columns in the normal type and
27 lines of 85 columns in presentation type; 1366 x 768 at 1.5x scaling (911 x 512
logical) 36 lines of 151 columns; 1920 x 1080 in presentation type 38 lines of 160.

The first row of ARRANGEMENTS whose least lines and columns the room has is the
arrangement. Its columns say:

- panel_beside_lessons: the control panel stays beside the lessons panel; False: it folds
  while the lessons panel shows (F9 brings it back and it stays, until the arrangement or
  the parts shown change).
- panel_beside_reference: the same beside a kept reference's legend under the charts.
- stage: "split", a lesson's drive over its results (on the workbench, the maps over the
  charts), the divider between them; "flip", one of the two at a time (stageflip.py): a
  lesson's drive while a run plays and its results after it, and on the workbench with two
  drives or a kept reference the drives until the run ends and the charts after it; F7
  (or the button over them) flips to the other. One drive alone keeps maps and charts
  together: they fit.
- tally: "beside" the map or "under" it (in the lessons' narrow middle: a map with the
  tally beside it was wider than the middle).
- scroll: the main area and the lessons panel scroll rather than make the window taller
  than the screen (their least height is a few lines); False: each keeps its own least
  height, as on a tall screen where wrapped rows then never squeeze.
- status: which figures the status bar shows: "all"; "run" (not the drive's size; with
  two drives the WA only); a lesson shows none (they would describe the workbench's drive).
- map_share: the block map's share of the height over the charts, outside a lesson.
- results: a lesson's results (answer bars, charts, compare bars, a quiz's states) in one
  "column" that scrolls where it is longer than the room, or in "pages" of the figures
  that fit the room whole, each chart sized to the rest of its page, Page Down (or the
  button over them) turning to the next: at 18 pt on 768 lines one column was up to
  2,500 px longer than the room (lesson 4's compare step).
- lesson_columns: while a lesson's results show alone (the stage flipped to them), and
  on the panel's first page (the list of lessons, the workbench's tally then under its
  map), the lessons panel is this many columns of its type wide, at most half the
  window; with a lesson's drive shown it keeps its own width (the maps and tallies need
  theirs). At 18 pt on a 1024 px screen the panel was 300 px, 21 characters a line:
  a prediction's question kept 2 of its 6 lines and Back and Next went under the
  fold, while the results beside it filled a third of their room. 0: the panel keeps its own width.

`choose` is pure (no Qt): tests check the table at each screen without a window. `Arranger`
applies it to the window whenever an input changes (ssdlab/app/gui/frame/arranger.py).
"""

from __future__ import annotations

from dataclasses import dataclass

LINE_PX_PER_PT = 14 / 9  # DejaVu Sans, the type Qt falls back to: 9 pt -> 14 px lines
CHAR_PX_PER_PT = 6 / 9  # and 6 px average characters (9 pt), 12 px (18 pt)


@dataclass(frozen=True)
class Arrangement:
    name: str
    least_lines: int
    least_columns: int
    panel_beside_lessons: bool
    panel_beside_reference: bool
    stage: str  # "split" or "flip"
    tally: str  # "beside" or "under"
    scroll: bool
    status: str  # "all" or "run"
    map_share: float
    results: str  # "column" or "pages"
    lesson_columns: int  # the lessons panel's width beside the results alone; 0: its own


# name, least lines, least columns, panel beside lessons, panel beside a reference,
# the middle's stage, tally, parts scroll, status figures, map's share, results,
# the lessons panel's columns beside the results alone
ARRANGEMENTS: tuple[Arrangement, ...] = (
    Arrangement("wide", 50, 160, True, True, "split", "beside", False, "all", 0.55, "column",
                0),
    Arrangement("tall", 50, 0, False, True, "split", "beside", False, "all", 0.55, "column",
                0),
    Arrangement("regular", 30, 160, True, True, "split", "beside", True, "all", 0.48,
                "column", 0),
    Arrangement("regular-narrow", 30, 0, False, True, "split", "beside", True, "run", 0.48,
                "column", 0),
    Arrangement("compact", 0, 80, False, False, "flip", "beside", True, "run", 0.48, "pages",
                36),
    Arrangement("compact-narrow", 0, 0, False, False, "flip", "under", True, "run", 0.48,
                "pages", 36),
)

BY_NAME = {a.name: a for a in ARRANGEMENTS}


@dataclass(frozen=True)
class Room:
    """The screen in logical px and the type in points."""

    width_px: int
    height_px: int
    type_pt: float

    @property
    def lines(self) -> int:
        return int(self.height_px / (self.type_pt * LINE_PX_PER_PT))

    @property
    def columns(self) -> int:
        return int(self.width_px / (self.type_pt * CHAR_PX_PER_PT))


def lessons_wide(a: Arrangement, parts: Parts, stage: str) -> bool:
    """Whether the lessons panel takes its columns: it shows, the arrangement has them, and
    beside it are a lesson's results alone (stage "results") or, on its first page (the
    list of lessons), the workbench, each drive's tally then under its map."""
    return bool(a.lesson_columns) and parts.lessons and (
        stage == "results" if parts.in_lesson else True)


def tally_under(a: Arrangement, parts: Parts) -> bool:
    """Each drive's tally under its map: as the arrangement says, and beside the lessons
    panel's first page when that takes its columns (the map and tally beside were wider
    than the rest of a 1024 px window)."""
    return a.tally == "under" or (parts.lessons and not parts.in_lesson
                                  and lessons_wide(a, parts, "both"))


def lessons_width(a: Arrangement, wide: bool, type_pt: float, window_px: int) -> int:
    """The lessons panel's width (px) in arrangement a: when wide (lessons_wide), its
    columns of the type with the room its margins and the text's scroll bar take (two
    lines' worth), at most half the window; 0: the panel keeps its own width."""
    if not wide:
        return 0
    px = a.lesson_columns * type_pt * CHAR_PX_PER_PT + 2 * type_pt * LINE_PX_PER_PT
    return min(int(px), window_px // 2)


def choose(room: Room) -> Arrangement:
    """The first arrangement the room has the lines and columns for."""
    for a in ARRANGEMENTS:
        if room.lines >= a.least_lines and room.columns >= a.least_columns:
            return a
    return ARRANGEMENTS[-1]


@dataclass(frozen=True)
class Parts:
    """Which parts are open: the lessons panel, a lesson playing in it, a kept reference."""

    lessons: bool
    in_lesson: bool
    reference: bool


def panel_shown(a: Arrangement, parts: Parts) -> bool:
    """Whether the control panel shows (before the person's own F9)."""
    if parts.lessons and not a.panel_beside_lessons:
        return False
    return not (parts.reference and not parts.in_lesson and not a.panel_beside_reference)


STATUS_FIGURES = ("capacity", "fill", "wa", "time", "speed")


def status_shown(a: Arrangement, in_lesson: bool, two_drives: bool) -> set[str]:
    """The status bar's figures shown (statusline.py names them)."""
    if in_lesson:
        return set()
    if a.status == "all":
        return set(STATUS_FIGURES)
    return {"wa"} if two_drives else {"fill", "wa", "time", "speed"}


def table_rows() -> list[str]:
    """The table as text, for the docs and the closing note."""
    head = ("arrangement", "lines >=", "columns >=", "panel | lessons", "panel | reference",
            "stage", "tally", "scroll", "status", "map share", "results",
            "lessons beside results")
    rows = [" | ".join(head)]
    for a in ARRANGEMENTS:
        rows.append(" | ".join(str(x) for x in (
            a.name, a.least_lines, a.least_columns,
            "beside" if a.panel_beside_lessons else "folds",
            "beside" if a.panel_beside_reference else "folds",
            a.stage, a.tally, "yes" if a.scroll else "no", a.status, a.map_share,
            a.results, f"{a.lesson_columns} columns" if a.lesson_columns else "own")))
    return rows
