"""The block map: every erase block one cell, painted from a numpy RGBA buffer into a QImage.

Block level: free, open, full (viridis by valid fraction), GC victim and just-erased cells.
Page level, when the drive is small enough for each page to get at least two pixels: every
block is a little grid of its pages (valid, invalid, free, just copied by GC), framed in the
block's state colour when it is open, a victim or just erased. Hover shows one block.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from model.state import BLOCK_FREE, BLOCK_FULL, BLOCK_OPEN, BLOCK_STATE_NAMES, BLOCK_VICTIM

from . import theme
from .worker import MARK_ERASED, MARK_VICTIM, Snapshot

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
                        "erase count and age.")
        self.snapshot: Snapshot | None = None
        self._image: QImage | None = None
        self._buf: np.ndarray | None = None
        self._layout = (0, 1, 1, 0, 0)  # cols, cell_w, cell_h, x0, y0
        self.page_level = False
        self.paint_ms = 0.0

    def set_snapshot(self, snap: Snapshot | None) -> None:
        self.snapshot = snap
        self._render()
        self.update()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        self._render()
        super().resizeEvent(event)

    # --- colour buffer ---------------------------------------------------------------------

    def block_colours(self, snap: Snapshot) -> np.ndarray:
        """uint8[blocks, 4]: one RGBA per block by state, full blocks by valid fraction."""
        t = theme.current()
        lut = viridis()
        frac = np.clip(snap.valid / snap.pages_per_block, 0.0, 1.0)
        out = lut[(frac * (len(lut) - 1)).astype(np.intp)]
        out[snap.state == BLOCK_FREE] = t.rgba("block_free")
        out[snap.state == BLOCK_OPEN] = t.rgba("block_open")
        out[snap.state == BLOCK_VICTIM] = t.rgba("block_victim")
        out[snap.marks == MARK_ERASED] = t.rgba("block_erased")
        out[snap.marks == MARK_VICTIM] = t.rgba("block_victim")
        return out

    def _render(self) -> None:
        snap = self.snapshot
        if snap is None:
            self._image = None
            return
        import time

        t0 = time.perf_counter()
        t = theme.current()
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
        else:
            c = max(1, int(math.sqrt(w * h / n)))
            while c > 1 and not fit(n, w, h, c, c):
                c -= 1
            gap = 1 if c >= 4 else 0
            cw = ch = c
            inner = self.block_colours(snap).reshape(n, 1, 1, 4)
            inner = inner.repeat(c - gap, axis=1).repeat(c - gap, axis=2)
            border = np.broadcast_to(t.rgba("map_background"), (n, 4))
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
        self._layout = (cols, cw, ch, (self.width() - bw) // 2, (self.height() - bh) // 2)
        self.paint_ms = 1000 * (time.perf_counter() - t0)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(theme.current().colour("map_background")))
        if self._image is not None:
            _, _, _, x0, y0 = self._layout
            if x0 >= 0 and y0 >= 0:
                p.drawImage(QPoint(x0, y0), self._image)
            else:  # more blocks than pixels: scale down
                target = QRect(0, 0, self.width(), self.height())
                p.drawImage(target, self._image.scaled(
                    self.width(), self.height(), Qt.AspectRatioMode.KeepAspectRatio))
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
        b = row * cols + col
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
        rows = QVBoxLayout(self._inner)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(1)
        per_row = 4
        for start in range(0, len(items), per_row):
            row = QHBoxLayout()
            row.setSpacing(4)
            for pm, text in items[start:start + per_row]:
                sw = QLabel()
                sw.setPixmap(pm)
                row.addWidget(sw)
                row.addWidget(QLabel(text))
                row.addSpacing(12)
            row.addStretch(1)
            rows.addLayout(row)
        self._outer.addWidget(self._inner)
