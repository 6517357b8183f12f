"""The block map: every erase block one cell, painted from a numpy RGBA buffer into a QImage.

The whole drive fits the widget at first; the wheel, +/- and a drag zoom and pan it
(mapview.Viewport), 0 goes back. Only what is on screen is drawn, sliced out of the
snapshot's arrays with numpy: one cell per block, or one pixel per k x k blocks on a drive
with more blocks than pixels. Zoomed far enough for each page to get at least two pixels,
every block is a little grid of its pages (valid, invalid, free, just copied by GC), framed
in its colour; the map asks the worker for the pages of the blocks on screen (view_changed),
never for the whole page map. Blocks are coloured by state or as a heat map (heatmap.py).
Hover shows one block, and so does the keyboard's block cursor (mapcursor.py). A garbage
collection the snapshot names (teaching pace, a step of one GC, a breakpoint on one) is
drawn over the map by gcmarks.py: the victim outlined solid and labelled, the blocks its
pages moved to outlined dashed and labelled, never by colour alone; in a lesson the map
zooms in on each GC played at teaching pace (gcfollow.py). `pages_shown` tells the legend
whether pages are drawn, so it lists only what the map shows.
"""

from __future__ import annotations

import math
import time

import numpy as np
from PySide6.QtCore import QEvent, QLine, QPoint, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAccessible, QColor, QImage, QPainter
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from ssdlab.model.flash.state import BLOCK_FREE, BLOCK_STATE_NAMES, MODE_STATIC

from ..appearance import theme
from ..run.snapshot import CODE_FREE, PAGE_COPIED, Snapshot
from . import gcmarks, handlemarks, heatmap, slcmarks, victimmarks
from .flashguard import FlashGuard
from .gcfollow import GcFollow
from .mapcursor import MapCursor
from .mapview import Viewport, page_grid

MARGIN = 2  # pixels round the grid
PAGE_NAMES = ("free", "valid", "invalid (stale)", "valid, just copied by GC")  # by PAGE_*
RING_PX = 3  # from this page size on, a page GC just copied is drawn as a ring


def ring_core(px: int) -> np.ndarray:
    """bool[px, px]: the hole in the middle of a copied page px pixels wide (its middle
    third, at least a pixel), drawn in the map's background: the page is told by its
    shape as well as its colour (the legend's swatch shows the same ring)."""
    core = np.zeros((px, px), dtype=bool)
    k = px // 3
    core[k:px - k, k:px - k] = True
    return core
ZOOM_KEYS = {Qt.Key.Key_Plus: 1, Qt.Key.Key_Equal: 1, Qt.Key.Key_Minus: -1}
PAN_KEYS = {Qt.Key.Key_Left: (1, 0), Qt.Key.Key_Right: (-1, 0), Qt.Key.Key_Up: (0, 1),
            Qt.Key.Key_Down: (0, -1)}


class BlockMap(QWidget):
    """Shows a Snapshot; never touches the drive."""

    # a picture of the drive, described in words (frame/speech.py), its cursor block named
    # in the description (appearance/accessnames.py serves it so)
    ACCESSIBLE_ROLE = QAccessible.Role.Graphic

    MARGIN_PX = MARGIN  # for the keyboard's cursor (mapcursor.py), which draws on the grid
    MIN_WIDTH_PX = 224  # with the tally and a lesson beside it, 1024 px in all

    # the blocks on screen when they are drawn as pages (ascending indices), else None
    view_changed = Signal(object)
    heat_changed = Signal()  # the colouring or its range changed: the legend follows
    shown = Signal(object)  # the Snapshot the map now shows (the tally follows it)
    pages_shown = Signal(bool)  # the blocks are drawn as their pages now, or no longer

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # 140 px: two titled maps, three rows of buttons (the Menu button wraps) and the
        # charts still fit 768 px in presentation type; the map takes what is left over
        self.setMinimumSize(self.MIN_WIDTH_PX, 140)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setToolTip("Every erase block of the drive. Hover a block for its valid pages, "
                        "erase count and age. Wheel or +/- zooms (down to single pages), "
                        "drag or the arrow keys pan, 0 shows the whole drive. "
                        "Tab into it for a block cursor: arrows, Home, End, Page Up and "
                        "Page Down move it and its block's details show. "
                        "Right-click to export it.")
        self.cursor = MapCursor(self)  # the keyboard's hover (mapcursor.py)
        self.snapshot: Snapshot | None = None
        self.mode = "state"
        self.heat: heatmap.Heat | None = None
        self.view: Viewport | None = None
        self._image: QImage | None = None
        self._buf: np.ndarray | None = None
        self._at = QRectF()  # where the image goes
        self._grid_step = 0  # pixels between grid lines, 0 for none
        self._asked: tuple | None = None  # the page view last asked of the worker
        self._drag: QPoint | None = None
        self._wheel = 0
        self.page_level = False
        self.follow = GcFollow()  # a lesson's GCs at teaching pace, zoomed in on
        self._pages_told: bool | None = None  # what pages_shown last said
        self.paint_ms = 0.0
        # no block changes colour more than three times a second (WCAG 2.3.1)
        self.guard = FlashGuard()
        self._catch_up = QTimer(self)  # draws the colours the guard held back, when due
        self._catch_up.setSingleShot(True)
        self._catch_up.timeout.connect(self._redraw)

    # --- inputs ----------------------------------------------------------------------------

    def set_snapshot(self, snap: Snapshot | None) -> None:
        self.snapshot = snap
        if snap is not None:
            self._ensure_view()
            if self.follow.snapshot(self.view, snap):
                self._ask_pages()  # the workbench's own view of its pages, as after a zoom
        self._render()
        self.update()
        if self.cursor.on:
            self.cursor.refresh()
        self.shown.emit(snap)

    def set_mode(self, mode: str) -> None:
        """Colour blocks by state or as a heat map (one of heatmap.MODES)."""
        if mode not in heatmap.MODES:
            raise ValueError(f"heat map must be one of {', '.join(heatmap.MODES)}")
        if mode != self.mode:
            self.mode = mode
            self.guard.reset()
            self._render()
            self.update()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        if self.snapshot is not None:
            self._ensure_view(resized=True)
            if self.follow.zoomed:  # the GC followed stays in the middle
                self.follow.snapshot(self.view, self.snapshot)
        self._render()
        super().resizeEvent(event)

    def _ensure_view(self, resized: bool = False) -> None:
        """A viewport for this drive and widget size; a resize keeps the zoom and the block
        in the middle of the view. While the map names a GC (a breakpoint's victim, a GC
        stepped or played), a resize keeps the grid's columns too, so every block stays in
        its row and column, and a zoomed view centres on the victim: the grid laid out
        afresh for the new size moved the victim outlined from the right-hand end of a row
        to the left-hand end of another when the window, the divider or a lesson's stage
        changed the map's size (issue 36)."""
        snap, old = self.snapshot, self.view
        w, h = self.width() - 2 * MARGIN, self.height() - 2 * MARGIN
        if old is not None and (old.n, old.ppb) == (snap.blocks, snap.pages_per_block) \
                and (old.width, old.height) == (max(1, w), max(1, h)):
            return
        same = resized and old is not None and old.n == snap.blocks
        named = snap.gc_victim if snap.gc_phase and 0 <= snap.gc_victim < snap.blocks \
            else None
        view = Viewport(snap.blocks, snap.pages_per_block, w, h,
                        cols=old.cols if same and named is not None else None)
        if same and old.zoomed:
            middle = old.block_at(old.width / 2, old.height / 2)
            want = old.scale.value
            view.level = min(range(len(view.rungs)),
                             key=lambda i: abs(view.rungs[i].value - want))
            view.show_block(named if named is not None else middle or 0)
        self.view = view
        self._ask_pages()

    def follow_gc(self, on: bool) -> None:
        """Zoom in on each GC the snapshots play at teaching pace (on: a lesson's), or stop
        and show the whole drive again if the map zoomed to follow (gcfollow.py)."""
        if self.follow.set(on):
            self.reset_zoom()

    # --- zoom and pan ----------------------------------------------------------------------

    def zoom(self, steps: int, at: tuple[float, float] | None = None,
             centre: bool = False) -> None:
        """Zoom in (steps > 0) or out about widget point `at` (default: the point last
        clicked, else the middle); centre: bring `at` to the middle (mapview.py)."""
        if self.view is None:
            return
        if at is not None:
            at = (at[0] - MARGIN, at[1] - MARGIN)
        if self.view.zoom(steps, at, centre):
            self._moved()

    def pan(self, dx: int, dy: int) -> None:
        if self.view is not None:
            self.view.pan(dx, dy)
            self._moved()

    def reset_zoom(self) -> None:
        if self.view is not None and self.view.zoomed:
            self.view.reset()
            self._moved()

    def _moved(self) -> None:
        self._ask_pages()
        self._render()
        self.update()

    def _ask_pages(self) -> None:
        """Tell the worker which blocks' pages the view needs (only when that changes)."""
        v = self.view
        want = (v.cols, *v.visible()) if v is not None and v.page_px() else None
        if want != self._asked:
            self._asked = want
            self.view_changed.emit(None if want is None else v.visible_blocks())

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt name
        self._wheel += event.angleDelta().y()  # 120 a notch; touchpads send less
        steps = int(self._wheel / 120)
        self._wheel -= 120 * steps
        if steps:
            p = event.position()
            self.zoom(steps, (p.x(), p.y()))
        event.accept()

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt name
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag = event.position().toPoint()
            if self.view is not None:  # the keys' next zoom centres on it
                self.view.mark(self._drag.x() - MARGIN, self._drag.y() - MARGIN)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt name
        self._drag = None
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 - Qt name
        p = event.position()
        self.zoom(2, (p.x(), p.y()), centre=True)

    def event(self, e) -> bool:
        # Keys the map uses while it has focus win over the window's shortcuts; the arrows
        # only while zoomed in, so Right still steps the run when there is nothing to pan.
        if e.type() == QEvent.Type.ShortcutOverride and e.modifiers() in (
                Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier,
                Qt.KeyboardModifier.ShiftModifier):
            key = e.key()
            zoomed = self.view is not None and self.view.zoomed
            if self.cursor.owns(key) and e.modifiers() != Qt.KeyboardModifier.ShiftModifier:
                e.accept()
                return True
            if key in ZOOM_KEYS or key == Qt.Key.Key_0 or (key in PAN_KEYS and zoomed):
                e.accept()
                return True
        return super().event(e)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt name
        key = event.key()
        shift = event.modifiers() == Qt.KeyboardModifier.ShiftModifier
        if not shift and self.cursor.key(key):
            return
        if key in ZOOM_KEYS:
            self.zoom(ZOOM_KEYS[key])
        elif key == Qt.Key.Key_0:
            self.reset_zoom()
        elif key in PAN_KEYS and self.view is not None and self.view.zoomed:
            sx, sy = PAN_KEYS[key]
            self.pan(sx * max(1, self.view.width // 4), sy * max(1, self.view.height // 4))
        else:
            super().keyPressEvent(event)

    # --- drawing ---------------------------------------------------------------------------

    def _render(self) -> None:
        """Build the image of what is on screen for the newest snapshot."""
        snap, v = self.snapshot, self.view
        if snap is None or v is None:
            self._image = None
            self.guard.reset()
            return
        t0 = time.perf_counter()
        heat = heatmap.heat(snap, self.mode)
        old, self.heat = self.heat, heat
        if old is None or (old.mode, old.lo, old.hi) != (heat.mode, heat.lo, heat.hi):
            self.heat_changed.emit()
        r0, r1, c0, c1 = v.visible()
        px = v.page_px()
        page_level = bool(px) and snap.pages is not None \
            and not heatmap.fills_blocks(self.mode)
        if page_level != self.page_level:
            self.guard.reset()  # drawn another way: the user's doing, not flashing
        self.page_level = page_level
        padded = np.full(v.rows * v.cols, heatmap.BACKGROUND, dtype=np.uint16)
        padded[:snap.blocks] = self.guard.codes(heat.codes)
        grid = padded.reshape(v.rows, v.cols)[r0:r1, c0:c1]
        s = v.scale
        lut = heatmap.lut(self.mode)
        if self.page_level:
            rgba = self._pages_image(snap, grid, r0, r1, c0, c1, px, lut)
            stretch = 1.0  # the image has every pixel already
        else:  # one image pixel per block (or k x k blocks), stretched when drawn
            shown = heatmap.grouped(grid, s.per_px, heat.reduce, marks=self.mode == "state")
            rgba = lut.view(np.uint32).ravel()[shown].view(np.uint8).reshape(*shown.shape, 4)
            stretch = s.value * s.per_px
        self._buf = np.ascontiguousarray(rgba)
        bh, bw = self._buf.shape[:2]
        self._image = QImage(self._buf.data, bw, bh, bw * 4, QImage.Format.Format_RGBA8888)
        self._at = QRectF(MARGIN + v.ox + c0 * s.value, MARGIN + v.oy + r0 * s.value,
                          bw * stretch, bh * stretch)
        self._grid_step = s.cell if not self.page_level and s.cell >= 4 else 0
        self.paint_ms = 1000 * (time.perf_counter() - t0)
        due = self.guard.due_in_s()
        if due is not None:
            self._catch_up.start(max(1, math.ceil(1000 * due)))
        if page_level != self._pages_told:  # the legend lists page colours only when drawn
            self._pages_told = page_level
            self.pages_shown.emit(page_level)

    def _redraw(self) -> None:
        self._render()
        self.update()

    def _pages_image(self, snap: Snapshot, grid: np.ndarray, r0: int, r1: int, c0: int,
                     c1: int, px: int, lut: np.ndarray) -> np.ndarray:
        """RGBA of the blocks on screen drawn as their pages, each in a frame of its colour
        (state map: open, victim and just-erased blocks only); a block whose pages the
        snapshot lacks (the worker has not caught up with the view yet) is filled plain."""
        t = theme.current()
        word = lambda token: t.rgba(token).view(np.uint32)[0]  # noqa: E731 - RGBA as one word
        v, ppb = self.view, snap.pages_per_block
        pw, ph = page_grid(ppb)
        cell = v.scale.cell
        bw = self._frame_px(px)
        fh, fw = ph * px + 2 * bw, pw * px + 2 * bw  # the framed block inside its cell
        rows, cols = r1 - r0, c1 - c0
        idx = (np.arange(r0, r1)[:, None] * v.cols + np.arange(c0, c1)[None, :]).ravel()
        inside = idx < snap.blocks
        words = lut.view(np.uint32).ravel()
        frame = words[grid.ravel()]
        if self.mode == "state":
            # full or free and unmarked, as the guard shows it (codes up to CODE_FREE)
            plain = grid.ravel() <= CODE_FREE
            frame[plain & inside] = word("map_background")
        # Drawn straight into the image's layout (row, y, column, x): no copy at the end.
        out = np.empty((rows, cell, cols, cell), dtype=np.uint32)
        out[:] = word("map_background")
        cells = out.transpose(0, 2, 1, 3)  # a view: (row, column, y, x)
        cells[:, :, :fh, :fw] = frame.reshape(rows, cols)[:, :, None, None]
        # which row of snap.pages each block on screen is (-1: not in the snapshot)
        if snap.page_blocks is None:
            row = np.where(inside, idx, -1)
        else:
            pos = np.searchsorted(snap.page_blocks, idx)
            ok = pos < snap.page_blocks.size
            ok[ok] &= snap.page_blocks[pos[ok]] == idx[ok]
            row = np.where(ok & inside, pos, -1)
        have = row >= 0
        missing = np.flatnonzero(inside & ~have)
        if missing.size:
            mr, mc = np.divmod(missing, cols)
            cells[mr, mc, :fh, :fw] = words[grid.ravel()[missing]][:, None, None]
        if have.any():
            pages = self.guard.pages(idx[have], snap.pages.reshape(-1, ppb)[row[have]])
            if pw * ph != ppb:
                pages = np.pad(pages, ((0, 0), (0, pw * ph - ppb)))
            colours = np.array([word("page_free"), word("page_valid"), word("page_invalid"),
                                word("page_copied")], dtype=np.uint32)
            inner = colours[pages].reshape(-1, ph, pw).repeat(px, axis=1).repeat(px, axis=2)
            copied = (pages == PAGE_COPIED).reshape(-1, ph, pw)
            if px >= RING_PX and copied.any():  # a ring: its shape says "copied" too
                hole = copied.repeat(px, axis=1).repeat(px, axis=2) & np.tile(ring_core(px),
                                                                              (ph, pw))
                inner[hole] = word("map_background")
            hr, hc = np.divmod(np.flatnonzero(have), cols)
            cells[hr, hc, bw:bw + ph * px, bw:bw + pw * px] = inner
        return out.reshape(rows * cell, cols * cell).view(np.uint8).reshape(
            rows * cell, cols * cell, 4)

    def _block_px(self) -> tuple[int, int] | None:
        """(width, height) of a block drawn as its pages, framed (None: blocks fill their
        cells): the GC marks hug it, not the cell's empty rest."""
        if not self.page_level:
            return None
        px = self.view.page_px()
        pw, ph = page_grid(self.view.ppb)
        bw = self._frame_px(px)
        return pw * px + 2 * bw, ph * px + 2 * bw

    def _frame_px(self, px: int) -> int:
        """Width of the frame round a block drawn as pages of px pixels."""
        pw, ph = page_grid(self.view.ppb)
        return max(1, min(px // 3, (self.view.scale.cell - 1 - max(pw, ph) * px) // 2))

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        p = QPainter(self)
        background = QColor(theme.current().colour("map_background"))
        p.fillRect(self.rect(), background)
        image = self._image
        if image is not None:
            p.drawImage(self._at, image)  # nearest neighbour: no smooth-transform hint
            target = self._at.toRect()  # whole pixels whenever grid lines are drawn
            c = self._grid_step
            if c:  # a 1-pixel gap at the top and left of every cell on screen
                p.setPen(background)
                top, left = max(target.top(), 0), max(target.left(), 0)
                bottom = min(target.bottom(), self.height())
                right = min(target.right(), self.width())
                x0 = target.left() + max(0, (left - target.left()) // c) * c
                y0 = target.top() + max(0, (top - target.top()) // c) * c
                lines = [QLine(x, top, x, bottom) for x in range(x0, right + 1, c)]
                lines += [QLine(left, y, right, y) for y in range(y0, bottom + 1, c)]
                p.drawLines(lines)
            slcmarks.paint(p, slcmarks.slc_cells(self.snapshot, self.view, MARGIN))
            handlemarks.paint(p, handlemarks.handle_cells(self.snapshot, self.view, MARGIN))
            named = self.snapshot.gc_victim if self.snapshot.gc_phase else -1
            victimmarks.paint(p, victimmarks.victim_cells(self.snapshot, self.view, MARGIN,
                                                          named), self.page_level)
        if self.snapshot is not None and self.view is not None:
            gcmarks.draw(p, self.snapshot, self.view, MARGIN, self.rect(), self._block_px())
        self.cursor.paint(p)
        p.end()

    def focusInEvent(self, event) -> None:  # noqa: N802 - Qt name
        self.cursor.focus_in(event.reason())
        super().focusInEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802 - Qt name
        self.cursor.focus_out()
        super().focusOutEvent(event)

    # --- hover -----------------------------------------------------------------------------

    def block_at(self, x: int, y: int) -> int | None:
        if self.snapshot is None or self.view is None:
            return None
        return self.view.block_at(x - MARGIN, y - MARGIN)

    def page_at(self, x: int, y: int) -> tuple[int, int] | None:
        """(block, page in it) under widget pixel (x, y) when pages are drawn, else None."""
        b = self.block_at(x, y)
        if b is None or not self.page_level:
            return None
        v, px = self.view, self.view.page_px()
        bw = self._frame_px(px)
        r, c = divmod(b, v.cols)
        dx = x - MARGIN - v.ox - c * v.scale.cell - bw
        dy = y - MARGIN - v.oy - r * v.scale.cell - bw
        pw, ph = page_grid(v.ppb)
        if not (0 <= dx < pw * px and 0 <= dy < ph * px):
            return None
        page = (dy // px) * pw + dx // px
        return (b, page) if page < v.ppb else None

    def describe(self, b: int, page: int | None = None) -> str:
        s = self.snapshot
        state = BLOCK_STATE_NAMES[int(s.state[b])]
        holds = s.pages_per_block
        if s.slc is not None and s.slc[b]:
            holds = s.slc_pages
            state += (", SLC cache (kept for it)" if s.slc[b] == MODE_STATIC
                      else ", SLC cache (borrowed)")
        if s.handles is not None and s.handles[b] and s.state[b] != BLOCK_FREE:
            state += f", data tagged with placement handle {int(s.handles[b])}"
        text = (f"Block {b:,}: {state}\n{int(s.valid[b])} of {holds} pages valid\n"
                f"erased {int(s.erases[b])} times")
        if s.close_seq[b] >= 0:
            age = s.counters["nand_writes"] - int(s.close_seq[b])
            text += f"\nclosed {age:,} NAND page writes ago"
        if page is not None and s.pages is not None:
            rows = s.page_blocks
            i = b if rows is None else int(np.searchsorted(rows, b))
            if rows is None or (i < rows.size and rows[i] == b):
                what = PAGE_NAMES[int(s.pages[i * s.pages_per_block + page])]
                text += f"\npage {page} (physical page {b * s.pages_per_block + page:,}): {what}"
        return text

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt name
        pos = event.position().toPoint()
        if self._drag is not None:
            d = pos - self._drag
            self._drag = pos
            self.pan(d.x(), d.y())
            return
        b = self.block_at(pos.x(), pos.y())
        if b is None:
            QToolTip.hideText()
        else:
            at = self.page_at(pos.x(), pos.y())
            QToolTip.showText(event.globalPosition().toPoint(),
                              self.describe(b, at[1] if at else None), self)
        super().mouseMoveEvent(event)
