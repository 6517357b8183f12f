"""Where the block map's blocks sit on screen, zoomed and panned: plain arithmetic, no Qt.

The blocks are laid out row by row in a grid of `cols` columns, fixed for a widget size so
zooming never reflows them. A scale is pixels per block side: the fitted scale shows the
whole drive (a fraction on a drive with more blocks than fit as whole pixels, where a k x k
group of blocks may share a pixel); the zoom ladder climbs from it, in steps of about 1.4x
and whole pixels, until one block fills most of the view, so a block's pages are visible on
any drive size. `ox, oy` is where grid column 0 / row 0 lies in widget pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

STEP = 1.4  # zoom factor between rungs of the ladder
MIN_PAGE_PX = 2  # pixels per page side at which a block is drawn as its pages


def page_grid(pages_per_block: int) -> tuple[int, int]:
    """(columns, rows) of the page grid drawn inside one block."""
    cols = 1 << math.ceil(math.log2(math.sqrt(pages_per_block)))
    return cols, -(-pages_per_block // cols)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def fits(n: int, width: int, height: int, cell: int) -> int:
    """Columns for n square cells of `cell` pixels in width x height, or 0 if they don't fit."""
    cols = max(1, width // cell)
    return cols if -(-n // cols) * cell <= height and cols * cell <= width else 0


@dataclass(frozen=True)
class Scale:
    """Pixels per block side: a whole number, or (only to fit a big drive to the view) a
    fraction, drawn by grouping per_px x per_px blocks into one image pixel and stretching
    the image by per_px * value."""

    value: float

    @property
    def whole(self) -> bool:
        return self.value >= 1 and float(self.value).is_integer()

    @property
    def cell(self) -> int:
        """Pixels per block for a whole scale, else 0."""
        return int(self.value) if self.whole else 0

    @property
    def per_px(self) -> int:
        """Blocks per image pixel side (1 unless several blocks share a pixel)."""
        return max(1, math.ceil(1 / self.value - 1e-9))


def fitted(n: int, width: int, height: int) -> tuple[int, Scale]:
    """(grid columns, scale) that show all n blocks in width x height pixels: square cells
    of a whole number of pixels when at least two fit, else the grid shaped like the view
    and stretched to fill it (so a big drive is not a thin strip of 1-pixel cells)."""
    c = int(math.sqrt(width * height / n))
    while c >= 2 and not fits(n, width, height, c):
        c -= 1
    if c >= 2:
        return fits(n, width, height, c), Scale(float(c))
    cols = max(1, math.ceil(math.sqrt(n * width / height)))
    rows = _ceil(n, cols)
    return cols, Scale(min(width / cols, height / rows))


def fitted_to(n: int, cols: int, width: int, height: int) -> Scale:
    """The scale that shows all n blocks in `cols` columns in width x height pixels: whole
    pixels when at least two fit, else a fraction."""
    rows = _ceil(n, cols)
    c = min(width // cols, height // rows)
    return Scale(float(c)) if c >= 2 else Scale(min(width / cols, height / rows))


def ladder(fit: Scale, pages_per_block: int, width: int, height: int) -> list[Scale]:
    """The zoom rungs from the fitted scale up to one block filling most of the view, and
    never short of the scale that shows a block's pages; above the fit, whole pixels."""
    pw, ph = page_grid(pages_per_block)
    top = max(min(width, height) * 3 // 4, max(pw, ph) * 4 * MIN_PAGE_PX + 3)
    rungs = [fit]
    v = fit.value
    while v * STEP < 1:
        v *= STEP
        rungs.append(Scale(v))
    if rungs[-1].value < 1:
        rungs.append(Scale(1.0))
    c = math.floor(rungs[-1].value)
    while c < top:
        c = min(top, max(c + 1, int(round(c * STEP))))
        if c > rungs[-1].value:
            rungs.append(Scale(float(c)))
    return rungs


class Viewport:
    """The zoom and pan of a map of n blocks in a width x height widget."""

    def __init__(self, n: int, pages_per_block: int, width: int, height: int,
                 cols: int | None = None):
        """cols: lay the blocks out in this many columns (the grid of a view before a
        resize, kept), else in those that show the whole drive largest."""
        self.n, self.ppb = n, pages_per_block
        self.width, self.height = max(1, width), max(1, height)
        if cols:
            self.cols, fit = cols, fitted_to(n, cols, self.width, self.height)
        else:
            self.cols, fit = fitted(n, self.width, self.height)
        self.rows = -(-n // self.cols)
        self.rungs = ladder(fit, pages_per_block, self.width, self.height)
        self.level = 0
        self.ox = self.oy = 0
        self.focus: tuple[float, float] | None = None  # grid point last clicked, in blocks
        self._clamp()

    @property
    def scale(self) -> Scale:
        return self.rungs[self.level]

    @property
    def zoomed(self) -> bool:
        return self.level > 0

    def grid_px(self) -> tuple[int, int]:
        """The whole grid's size in pixels at this scale."""
        v = self.scale.value
        # a drive of fewer blocks than a row holds occupies only their columns: centring
        # on the empty rest once left a one-block drive off screen at full zoom
        cols = min(self.cols, self.n)
        return math.ceil(cols * v - 1e-9), math.ceil(self.rows * v - 1e-9)

    def _clamp(self) -> None:
        """Keep the grid on screen: centred along an axis it fits in, else no gap at an end."""
        gw, gh = self.grid_px()
        self.ox = (self.width - gw) // 2 if gw <= self.width else \
            min(0, max(self.width - gw, self.ox))
        self.oy = (self.height - gh) // 2 if gh <= self.height else \
            min(0, max(self.height - gh, self.oy))

    def zoom(self, steps: int, at: tuple[float, float] | None = None,
             centre: bool = False) -> bool:
        """Zoom in (steps > 0) or out. at: a widget point that stays where it is (the
        wheel's pointer); centre: that point comes to the middle of the view instead (a
        click). Without `at`, the point last clicked (mark) comes to the middle, else the
        middle stays. Returns whether the scale changed."""
        level = min(len(self.rungs) - 1, max(0, self.level + steps))
        if level == self.level:
            return False
        old = self.scale.value
        if at is None and self.focus is not None:
            (gx, gy), centre = self.focus, True
        else:
            ax, ay = at if at is not None else (self.width / 2, self.height / 2)
            gx, gy = (ax - self.ox) / old, (ay - self.oy) / old
        self.level = level
        new = self.scale.value
        ax, ay = (self.width / 2, self.height / 2) if centre or at is None else at
        self.ox, self.oy = int(round(ax - gx * new)), int(round(ay - gy * new))
        self._clamp()
        return True

    def mark(self, x: float, y: float) -> None:
        """Remember the grid point under widget pixel (x, y) (None off the drive): the
        next zoom without a point centres on it."""
        v = self.scale.value
        gx, gy = (x - self.ox) / v, (y - self.oy) / v
        inside = self.block_at(x, y) is not None
        self.focus = (gx, gy) if inside else None

    def pan(self, dx: int, dy: int) -> None:
        """Move the grid by dx, dy pixels (it stays on screen)."""
        self.ox += int(dx)
        self.oy += int(dy)
        self._clamp()

    def reset(self) -> None:
        self.level = 0
        self._clamp()

    def show_block(self, b: int) -> None:
        """Centre block b in the view."""
        s = self.scale.value
        r, c = divmod(int(b), self.cols)
        self.ox = int(round(self.width / 2 - (c + 0.5) * s))
        self.oy = int(round(self.height / 2 - (r + 0.5) * s))
        self._clamp()

    def visible(self) -> tuple[int, int, int, int]:
        """Grid rows r0..r1 and columns c0..c1 (ends excluded) at least partly on screen;
        r0 and c0 start a pixel group when several blocks share a pixel."""
        v, k = self.scale.value, self.scale.per_px

        def span(origin: int, size: int, count: int) -> tuple[int, int]:
            lo = max(0, math.floor(-origin / v)) // k * k
            hi = math.ceil((size - origin) / v - 1e-9)
            return min(lo, count), min(max(hi, 0), count)

        r0, r1 = span(self.oy, self.height, self.rows)
        c0, c1 = span(self.ox, self.width, self.cols)
        return r0, r1, c0, c1

    def visible_blocks(self) -> np.ndarray:
        """Indices of the blocks on screen, ascending."""
        r0, r1, c0, c1 = self.visible()
        idx = (np.arange(r0, r1)[:, None] * self.cols + np.arange(c0, c1)[None, :]).ravel()
        return idx[idx < self.n]

    def block_at(self, x: float, y: float) -> int | None:
        """The block under widget pixel (x, y), or None."""
        v = self.scale.value
        col, row = math.floor((x - self.ox) / v), math.floor((y - self.oy) / v)
        if x < self.ox or y < self.oy or col >= self.cols or row >= self.rows:
            return None
        b = row * self.cols + col
        return b if b < self.n else None

    def show_blocks(self, blocks: list[int], clamp: bool = True) -> None:
        """Centre the view on blocks[0] and as many of the others, in order, as fit on
        screen with it, a block's width to spare at each side for their labels. clamp:
        keep the grid on screen (False: the blocks in the middle, even at the drive's edge,
        where their labels then have room)."""
        s = self.scale.value
        xs, ys = [], []
        for b in blocks:
            r, c = divmod(int(b), self.cols)
            x, y = (c + 0.5) * s, (r + 0.5) * s
            if xs and (max(xs + [x]) - min(xs + [x]) > self.width - 3 * s
                       or max(ys + [y]) - min(ys + [y]) > self.height - 3 * s):
                continue
            xs.append(x)
            ys.append(y)
        if not xs:
            return
        self.ox = int(round(self.width / 2 - (min(xs) + max(xs)) / 2))
        self.oy = int(round(self.height / 2 - (min(ys) + max(ys)) / 2))
        if clamp:
            self._clamp()

    def page_px(self, scale: Scale | None = None) -> int:
        """Pixels per page side when blocks are drawn as their pages (at this scale, or at
        `scale`), else 0."""
        s = scale or self.scale
        if not s.whole:
            return 0
        pw, ph = page_grid(self.ppb)
        px = (s.cell - 3) // max(pw, ph)  # a frame pixel each side and a 1-pixel gap
        return px if px >= MIN_PAGE_PX else 0
