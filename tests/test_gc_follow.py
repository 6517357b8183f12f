"""Where a lesson's map zooms to follow a GC at teaching pace (ssdlab/app/gui/drive/gcfollow.py):
plain arithmetic on the map's viewport, no window."""

from __future__ import annotations

from ssdlab.app.gui.drive.gcfollow import TEACH_PAGE_PX, GcFollow, zoom_level
from ssdlab.app.gui.drive.mapview import Viewport


def _in_view(v: Viewport, b: int) -> bool:
    s = v.scale.value
    r, c = divmod(b, v.cols)
    x, y = v.ox + c * s, v.oy + r * s
    return 0 <= x and x + s <= v.width and 0 <= y and y + s <= v.height


def test_a_big_drive_is_zoomed_until_pages_show_and_the_victim_fits():
    v = Viewport(4383, 64, 566, 199)  # lesson 2's drive on a lesson's map at 1366 x 768
    assert not v.page_px()  # at its fitted size a block is a few pixels: no pages
    near = zoom_level(v, [1200, 1201])
    far = zoom_level(v, [1200, 4381])
    for level in (near, far):
        assert 2 <= v.page_px(v.rungs[level]) <= TEACH_PAGE_PX
    v.level = far
    v.show_blocks([4381, 1200], clamp=False)  # the move: where the pages go, first
    assert _in_view(v, 4381) and not _in_view(v, 1200)
    v.level = near
    v.show_blocks([1200, 1201], clamp=False)
    assert _in_view(v, 1200) and _in_view(v, 1201)


def test_a_block_too_big_for_the_map_at_five_pixel_pages_is_shown_smaller():
    v = Viewport(71, 4096, 390, 199)  # lesson 4's NVMe drive: blocks of 64 x 64 pages
    level = zoom_level(v, [2, 69])
    assert v.page_px(v.rungs[level]) == 2 and v.rungs[level].value <= 199


def test_a_drive_whose_pages_show_whole_is_left_alone():
    v = Viewport(276, 64, 870, 300)  # free exploration's first drive, page by page
    assert v.page_px() and zoom_level(v, [5, 6]) is None


def test_following_says_when_the_map_should_show_the_whole_drive_again():
    f = GcFollow()
    assert f.set(True) is False
    f.zoomed = True  # a GC was followed
    assert f.set(False) is True and not f.zoomed
    assert f.set(False) is False


def test_a_map_zoomed_in_by_hand_brings_a_breakpoints_victim_on_screen_once():
    """Not following a lesson: the zoom stays the person's; the view moves only to show a
    GC a snapshot names that is off screen, once for each (a pan after it stays put)."""
    from types import SimpleNamespace

    v = Viewport(276, 64, 870, 300)
    v.level = len(v.rungs) - 1  # zoomed in as far as it goes, at the drive's start
    v.show_block(0)
    level, victim = v.level, 270
    assert not _in_view(v, victim)

    def snap(phase, erases, dests=()):
        return SimpleNamespace(gc_phase=phase, gc_victim=victim, blocks=276,
                               gc_destinations=dests, counters={"erases": erases})

    f = GcFollow()
    assert f.snapshot(v, snap("breakpoint", 0)) and _in_view(v, victim) and v.level == level
    v.show_block(0)  # the person pans away; the same moment published again (its pages)
    assert not f.snapshot(v, snap("breakpoint", 0)) and not _in_view(v, victim)
    assert f.snapshot(v, snap("stepped", 1, (272,))) and _in_view(v, victim)  # G: again
    assert not f.snapshot(v, snap("", 1))  # a snapshot naming no GC moves nothing
    v.reset()
    assert not f.snapshot(v, snap("stepped", 2))  # the whole drive: nothing to move
