"""The block map never flashes (WCAG 2.3.1, general flash threshold): a fast run on a clock
the test controls, drawn at 30 frames a second, changes no region of the map's luminance by
more than 10 % more than three times in any one second; with reduce motion, once. The same
run drawn without the guard flashes over much of the map, so the check can fail."""

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.drive.blockmap import BlockMap
from ssdlab.app.gui.drive.flashguard import REDUCED_GAP_S
from ssdlab.app.gui.run.snapshot import drive_snapshot
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import Geometry

FPS = 30
SECONDS = 4
STEP = 0.10  # relative luminance: a change of 10 % of white counts as a transition


@pytest.fixture(scope="module")
def app():
    return QApplication.instance() or QApplication([])


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def luminance(rgba: np.ndarray) -> np.ndarray:
    """WCAG relative luminance of each pixel of an RGBA uint8 image."""
    c = rgba[..., :3].astype(float) / 255
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def most_changes_per_second(frames: list[np.ndarray]) -> np.ndarray:
    """Per pixel: the most luminance changes over STEP in any FPS consecutive frames."""
    lum = np.stack([luminance(f) for f in frames])
    changed = np.abs(np.diff(lum, axis=0)) > STEP
    run = np.cumsum(np.concatenate([np.zeros((1,) + changed.shape[1:]), changed]), axis=0)
    # changes between frame i and frame i + FPS: within one second
    return (run[FPS:] - run[:-FPS]).max(axis=0)


def fast_run(app, gap_s: float | None, zoom: int = 0, user_pages: int = 4096, ppb: int = 32,
             size: tuple[int, int] = (420, 300)) -> tuple[np.ndarray, BlockMap]:
    """Draw a random-write run flat out (2,000 pages a frame, many times the drive's blocks
    rewritten each second) at FPS frames a second of the test's clock; returns the per-pixel
    most changes in a second, and the map."""
    clock = Clock()
    bm = BlockMap()
    bm.guard.clock = clock
    if gap_s is not None:
        bm.guard.gap_s = gap_s
    bm.resize(*size)
    drive = Drive(Geometry(user_pages=user_pages, pages_per_block=ppb, spare=0.12))
    rng = np.random.default_rng(7)
    drive.write_pages(np.arange(user_pages, dtype=np.int64))  # full: GC from the first frame
    bm.set_snapshot(drive_snapshot(drive, 0))
    if zoom:
        bm.zoom(zoom)
    frames = []
    for seq in range(1, FPS * SECONDS + 1):
        drive.write_pages(rng.integers(0, user_pages, 2000).astype(np.int64))
        clock.t += 1 / FPS
        bm.set_snapshot(drive_snapshot(drive, seq))
        frames.append(bm._buf.copy())
    assert len({f.shape for f in frames}) == 1, "the view moved during the run"
    return most_changes_per_second(frames), bm


def test_unguarded_pages_flash(app, compiled_engine):
    worst, bm = fast_run(app, gap_s=0.0)
    assert bm.page_level
    assert (worst > 3).mean() > 0.25  # the run is harsh enough for the check to mean something


BLOCK_LEVEL = dict(user_pages=16384, ppb=64, size=(240, 160))  # one pixel per block


def test_unguarded_blocks_flash(app, compiled_engine):
    worst, bm = fast_run(app, gap_s=0.0, **BLOCK_LEVEL)
    assert not bm.page_level
    assert (worst > 3).mean() > 0.25


def test_block_map_stays_under_three_flashes(app, compiled_engine):
    worst, bm = fast_run(app, gap_s=None, **BLOCK_LEVEL)
    assert worst.max() <= 3
    assert not bm.page_level


def test_pages_stay_under_three_flashes(app, compiled_engine):
    worst, bm = fast_run(app, gap_s=None)
    assert bm.page_level
    assert worst.max() <= 3


def test_reduce_motion_changes_once_a_second(app, compiled_engine):
    worst, _ = fast_run(app, gap_s=REDUCED_GAP_S, **BLOCK_LEVEL)
    assert worst.max() <= 1


def test_held_back_colours_are_drawn_when_due(app, compiled_engine):
    """The guard delays, never loses: once the run stops and the gap has passed, the map
    shows the newest snapshot's colours."""
    _, bm = fast_run(app, gap_s=None, **BLOCK_LEVEL)
    due = bm.guard.due_in_s()
    assert due is not None and 0 < due <= bm.guard.gap_s
    redraws = 0
    while due is not None:  # what the map's catch-up timer does, on the test's clock
        bm.guard.clock.t += due
        bm._redraw()
        redraws += 1
        assert redraws <= FPS  # each block is released within one gap
        due = bm.guard.due_in_s()
    shown = bm.guard.codes(bm.snapshot.codes)
    assert np.array_equal(shown, bm.snapshot.codes)
