"""The block map: every erase block one cell, painted from a numpy RGBA buffer into a QImage.

Block level: free, open, full (viridis by valid fraction), GC victim and just-erased cells.
Page level, when the drive is small enough for each page to get at least two pixels: every
block is a little grid of its pages (valid, invalid, free, just copied by GC), framed in the
block's state colour when it is open, a victim or just erased. Hover shows one block.
"""

from __future__ import annotations

import math
import time

import numpy as np
from PySide6.QtCore import QLine, QRect
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from model.flash.state import BLOCK_FREE, BLOCK_FULL, BLOCK_STATE_NAMES

from . import theme
from .flowlayout import FlowLayout
from .worker import CODE_ERASED, CODE_FREE, CODE_OPEN, CODE_VICTIM, CODES, Snapshot

MIN_PAGE_PX = 2


def page_grid(pages_per_block: int) -> tuple[int, int]:
    """(columns, rows) of the page grid drawn inside one block."""
    cols = 1 << math.ceil(math.log2(math.sqrt(pages_per_block)))
    return cols, -(-pages_per_block // cols)


def fit(n: int, width: int, height: int, cell_w: int, cell_h: int) -> int:
    """Columns for n cells of cell_w x cell_h pixels in width x height, or 0 if they don't fit."""
    cols = max(1, width // cell_w)
    rows = -(-n // cols)
    return cols if rows * cell_h <= height and cols * cell_w <= width else 0


class BlockMap(QWidget):
    """Shows a Snapshot; never touches the drive."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setMinimumSize(240, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setToolTip("Every erase block of the drive. Hover a block for its valid pages, "
                        "erase count and age. Right-click to export it.")
        self.snapshot: Snapshot | None = None
        self._image: QImage | None = None
        self._buf: np.ndarray | None = None
        self._layout = (0, 1, 1, 0, 0)  # cols, cell_w, cell_h, x0, y0
        self.page_level = False
        self.paint_ms = 0.0
        self._scale, self._grid, self._group = 1, False, 1

    def set_snapshot(self, snap: Snapshot | None) -> None:
        self.snapshot = snap
        self._render()
        self.update()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        self._render()
        super().resizeEvent(event)

    # --- colour buffer ---------------------------------------------------------------------

    def block_colours(self, snap: Snapshot) -> np.ndarray:
        """uint8[blocks, 4]: one RGBA per block, looked up from the worker's colour codes."""
        return code_lut()[snap.codes]

    def _render(self) -> None:
        """Build the image for the newest snapshot. Block level: one pixel per block, which
        paintEvent scales up (nearest neighbour) and grids; a drive with more blocks than
        pixels is shown k blocks per pixel. Page level: a numpy buffer of every page."""
        snap = self.snapshot
        if snap is None:
            self._image = None
            return
        t0 = time.perf_counter()
        n, w, h = snap.blocks, max(1, self.width() - 4), max(1, self.height() - 4)
        pw, ph = page_grid(snap.pages_per_block)
        self.page_level = False
        px = 0
        if snap.pages is not None:
            px = max(0, min((w - 1) // pw, (h - 1) // ph))
            while px >= MIN_PAGE_PX and not fit(n, w, h, pw * px + 1, ph * px + 1):
                px -= 1
            self.page_level = px >= MIN_PAGE_PX
        if self.page_level:
            self._render_pages(snap, pw, ph, px, w, h)
        else:
            self._render_blocks(snap, w, h)
        self.paint_ms = 1000 * (time.perf_counter() - t0)

    def _render_blocks(self, snap: Snapshot, w: int, h: int) -> None:
        lut = code_lut()
        codes = snap.codes
        group = max(1, -(-snap.blocks // (w * h)))
        if group > 1:
            codes = downsample_codes(codes, group)
        n = codes.size
        c = max(1, int(math.sqrt(w * h / n)))
        while c > 1 and not fit(n, w, h, c, c):
            c -= 1
        cols = fit(n, w, h, c, c) or max(1, w // c)
        rows = -(-n // cols)
        buf = np.empty(rows * cols, dtype=np.uint32)  # RGBA bytes as one word per pixel
        buf[:n] = lut.view(np.uint32).ravel()[codes]
        buf[n:] = theme.current().rgba("map_background").view(np.uint32)[0]
        self._buf = buf.view(np.uint8).reshape(rows, cols, 4)
        self._image = QImage(self._buf.data, cols, rows, cols * 4, QImage.Format.Format_RGBA8888)
        self._scale = c
        self._grid = c >= 4
        self._group = group
        self._layout = (cols, c, c, (self.width() - cols * c) // 2,
                        (self.height() - rows * c) // 2)

    def _render_pages(self, snap: Snapshot, pw: int, ph: int, px: int, w: int, h: int) -> None:
        t = theme.current()
        n = snap.blocks
        cw, ch, gap = pw * px + 1, ph * px + 1, 1
        colours = np.stack([t.rgba("page_free"), t.rgba("page_valid"),
                            t.rgba("page_invalid"), t.rgba("page_copied")])
        pages = snap.pages.reshape(n, snap.pages_per_block)
        if pw * ph != snap.pages_per_block:
            pages = np.pad(pages, ((0, 0), (0, pw * ph - snap.pages_per_block)))
        inner = colours[pages].reshape(n, ph, pw, 4)
        inner = inner.repeat(px, axis=1).repeat(px, axis=2)
        border = self.block_colours(snap)
        plain = (snap.state == BLOCK_FULL) | (snap.state == BLOCK_FREE)
        border[plain & (snap.marks == 0)] = t.rgba("map_background")
        cols = fit(n, w, h, cw, ch) or max(1, w // cw)
        rows = -(-n // cols)
        cells = np.empty((rows * cols, ch, cw, 4), dtype=np.uint8)
        cells[:] = t.rgba("map_background")
        cells[:n] = border[:, None, None, :]
        cells[:n, gap:, gap:] = inner
        buf = cells.reshape(rows, cols, ch, cw, 4).transpose(0, 2, 1, 3, 4)
        self._buf = np.ascontiguousarray(buf.reshape(rows * ch, cols * cw, 4))
        bh, bw = self._buf.shape[:2]
        self._image = QImage(self._buf.data, bw, bh, bw * 4, QImage.Format.Format_RGBA8888)
        self._scale, self._grid, self._group = 1, False, 1
        self._layout = (cols, cw, ch, (self.width() - bw) // 2, (self.height() - bh) // 2)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        p = QPainter(self)
        background = QColor(theme.current().colour("map_background"))
        p.fillRect(self.rect(), background)
        image = self._image
        if image is not None:
            cols, cw, ch, x0, y0 = self._layout
            c = self._scale
            target = QRect(x0, y0, image.width() * c, image.height() * c)
            p.drawImage(target, image)  # nearest neighbour: no smooth-transform hint
            if self._grid:  # a 1-pixel gap at the top and left of every cell
                p.setPen(background)
                lines = [QLine(x, y0, x, target.bottom())
                         for x in range(x0, target.right() + 1, c)]
                lines += [QLine(x0, y, target.right(), y)
                          for y in range(y0, target.bottom() + 1, c)]
                p.drawLines(lines)
        p.end()

    # --- hover -----------------------------------------------------------------------------

    def block_at(self, x: int, y: int) -> int | None:
        snap = self.snapshot
        if snap is None:
            return None
        cols, cw, ch, x0, y0 = self._layout
        if x < x0 or y < y0:
            return None
        col, row = (x - x0) // cw, (y - y0) // ch
        b = (row * cols + col) * self._group
        return b if col < cols and 0 <= b < snap.blocks else None

    def describe(self, b: int) -> str:
        s = self.snapshot
        state = BLOCK_STATE_NAMES[int(s.state[b])]
        text = (f"Block {b:,}: {state}\n{int(s.valid[b])} of {s.pages_per_block} pages valid\n"
                f"erased {int(s.erases[b])} times")
        if s.close_seq[b] >= 0:
            age = s.counters["nand_writes"] - int(s.close_seq[b])
            text += f"\nclosed {age:,} NAND page writes ago"
        return text

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt name
        pos = event.position().toPoint()
        b = self.block_at(pos.x(), pos.y())
        if b is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(event.globalPosition().toPoint(), self.describe(b), self)
        super().mouseMoveEvent(event)


_VIRIDIS = [None]
_LUTS: dict[str, np.ndarray] = {}


def code_lut() -> np.ndarray:
    """uint8[CODES, 4]: the colour of every worker colour code in the current theme."""
    t = theme.current()
    lut = _LUTS.get(t.name)
    if lut is None:
        lut = np.empty((CODES, 4), dtype=np.uint8)
        lut[:256] = viridis()
        for code, token in ((CODE_FREE, "block_free"), (CODE_OPEN, "block_open"),
                            (CODE_VICTIM, "block_victim"), (CODE_ERASED, "block_erased")):
            lut[code] = t.rgba(token)
        _LUTS[t.name] = lut
    return lut


def downsample_codes(codes: np.ndarray, group: int) -> np.ndarray:
    """One code per `group` consecutive blocks, for drives with more blocks than pixels:
    a victim or just-erased block shows through; otherwise the mean valid fraction of the
    group's full blocks; a group with none is shown by its most common other state."""
    m = -(-codes.size // group)
    padded = np.full(m * group, CODE_FREE, dtype=np.uint16)
    padded[:codes.size] = codes
    g = padded.reshape(m, group)
    full = g < 256
    nfull = full.sum(axis=1)
    out = np.where(full, g, 0).sum(axis=1, dtype=np.int64) // np.maximum(nfull, 1)
    out = out.astype(np.uint16)
    out[nfull == 0] = g[nfull == 0].max(axis=1)
    for mark in (CODE_ERASED, CODE_VICTIM):
        out[(g == mark).any(axis=1)] = mark
    return out


def viridis() -> np.ndarray:
    if _VIRIDIS[0] is None:
        _VIRIDIS[0] = theme.viridis_lut()
    return _VIRIDIS[0]


def _swatch(colour: str, size: int = 12) -> QPixmap:
    pm = QPixmap(size, size)
    pm.fill(QColor(colour))
    return pm


def _gradient(width: int = 72, height: int = 12) -> QPixmap:
    lut = np.ascontiguousarray(np.broadcast_to(viridis()[
        np.linspace(0, 255, width).astype(np.intp)], (height, width, 4)))
    img = QImage(lut.data, width, height, width * 4, QImage.Format.Format_RGBA8888)
    return QPixmap.fromImage(img.copy())


class Legend(QWidget):
    """Swatches for every colour the map uses; always shown beside it."""

    ENTRIES = (("block_free", "free block"), ("block_open", "open block"),
               ("block_victim", "GC victim"), ("block_erased", "just erased"),
               ("page_valid", "valid page"), ("page_invalid", "invalid page"),
               ("page_copied", "copied by GC"))

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setToolTip("Colours of the block map. Full blocks run from dark purple (few "
                        "valid pages) to yellow (all valid).")
        self._outer = QVBoxLayout(self)
        self._outer.setContentsMargins(2, 2, 2, 2)
        self._inner: QWidget | None = None
        self.labels: list[str] = []
        self.refresh()

    def refresh(self) -> None:
        if self._inner is not None:
            self._outer.removeWidget(self._inner)
            self._inner.hide()
            self._inner.setParent(None)
            self._inner.deleteLater()
        t = theme.current()
        items = [(_swatch(t.colour(token)), text) for token, text in self.ENTRIES]
        items.insert(2, (_gradient(), "full block: valid 0 → 100 %"))
        self.labels = [text for _, text in items]
        self._inner = QWidget()
        flow = FlowLayout(self._inner, spacing=12)  # as many entries a row as fit
        for pm, text in items:
            entry = QWidget()
            row = QHBoxLayout(entry)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(4)
            sw = QLabel()
            sw.setPixmap(pm)
            row.addWidget(sw)
            row.addWidget(QLabel(text))
            flow.addWidget(entry)
        self._outer.addWidget(self._inner)
