"""The window's arrangement chosen from the screen, the type and the parts open
(ssdlab/app/gui/frame/layoutpolicy.py): the table read at each screen a class meets, with no
window (cheap)."""

from __future__ import annotations

import pytest

from ssdlab.app.gui.frame import layoutpolicy as lp

NORMAL_PT, PRESENTATION_PT = 9, 18


def room(width: int, height: int, pt: float, scale: float = 1.0) -> lp.Room:
    """A screen of width x height device px at QT_SCALE_FACTOR scale (logical px divided)."""
    return lp.Room(int(width / scale), int(height / scale), pt)


@pytest.mark.parametrize(("size", "pt", "scale", "name"), [
    ((1024, 768), NORMAL_PT, 1.0, "wide"),
    ((1366, 768), NORMAL_PT, 1.0, "wide"),
    ((1920, 1080), NORMAL_PT, 1.0, "wide"),
    ((1024, 768), PRESENTATION_PT, 1.0, "compact"),
    ((1366, 768), PRESENTATION_PT, 1.0, "compact"),
    ((1920, 1080), PRESENTATION_PT, 1.0, "regular"),
    ((1024, 768), NORMAL_PT, 1.5, "regular-narrow"),
    ((1366, 768), NORMAL_PT, 1.5, "regular-narrow"),
    ((1920, 1080), NORMAL_PT, 1.5, "wide"),
    ((1024, 768), PRESENTATION_PT, 1.5, "compact-narrow"),
    ((1366, 768), PRESENTATION_PT, 1.5, "compact-narrow"),
    ((1920, 1080), PRESENTATION_PT, 1.5, "compact"),
    ((1366, 768), 2 * NORMAL_PT, 1.0, "compact"),  # 200 % text size, out of presentation
    ((1366, 768), 14, 1.0, "regular-narrow"),  # 150 % (14 pt)
    ((1366, 768), 11, 1.0, "regular"),  # 125 % (11 pt): 44 lines, the parts scroll
])
def test_each_screen_gets_its_arrangement(size, pt, scale, name):
    assert lp.choose(room(*size, pt, scale)).name == name


def test_a_lesson_at_a_768_line_projector_shows_its_drive_or_its_results():
    """At 27 lines of 18 pt a lesson's drive over its results left the results a strip
    about 150 px high: one at a time, flipped by F7."""
    a = lp.choose(room(1024, 768, PRESENTATION_PT))
    assert a.stage == "flip" and a.scroll
    assert lp.choose(room(1920, 1080, NORMAL_PT)).stage == "split"


def test_the_control_panel_folds_where_the_table_says():
    compact, wide = lp.BY_NAME["compact"], lp.BY_NAME["wide"]
    lessons = lp.Parts(lessons=True, in_lesson=False, reference=False)
    reference = lp.Parts(lessons=False, in_lesson=False, reference=True)
    neither = lp.Parts(lessons=False, in_lesson=False, reference=False)
    assert not lp.panel_shown(compact, lessons) and not lp.panel_shown(compact, reference)
    assert lp.panel_shown(compact, neither)
    assert lp.panel_shown(wide, lessons) and lp.panel_shown(wide, reference)
    # a lesson's own settings are what its panel shows: a reference never folds them
    assert lp.panel_shown(lp.BY_NAME["regular"], lp.Parts(True, True, True))


def test_the_status_figures_follow_the_arrangement():
    run = lp.BY_NAME["compact"]
    assert lp.status_shown(run, False, True) == {"wa"}
    assert "capacity" not in lp.status_shown(run, False, False)
    assert lp.status_shown(lp.BY_NAME["wide"], False, False) == set(lp.STATUS_FIGURES)
    assert lp.status_shown(lp.BY_NAME["wide"], True, False) == set()


def test_every_room_gets_an_arrangement_and_fewer_lines_never_more_room():
    """Rows are ordered from the most room to the least: a shorter or narrower screen never
    gets an arrangement higher in the table."""
    order = [a.name for a in lp.ARRANGEMENTS]
    for pt in (9, 11, 14, 18, 24):
        last = 0
        for height in range(1600, 300, -40):
            i = order.index(lp.choose(lp.Room(1366, height, pt)).name)
            assert i >= last
            last = i
    assert len(lp.table_rows()) == len(lp.ARRANGEMENTS) + 1
