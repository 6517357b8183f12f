"""A block cursor for the block map, so a keyboard user can read what hover shows a mouse
user. Tab (or Shift+Tab) into the map turns it on: the arrows move it a block or a row,
Home and End go to the first and last block, Page Up and Page Down a screenful of rows;
a zoomed view follows it, and + / - zoom about it. The cursor block's details (state,
valid pages, erase count, age: BlockMap.describe) show in a tooltip at the cursor and are
the map's accessible description. Focus given by a click or by the program leaves the
arrows as they were (pan while zoomed, else the window's step), so a mouse user loses
nothing.

The ring is a black line between two white ones, round the block (at least MIN_BOX_PX
across, so it shows when a block is a pixel): one of the two is at least 3:1 against any
colour beside it (black on white 21:1; on mid grey both are over 4:1), and it is a shape,
not a colour.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QToolTip

K = Qt.Key
KEYS = frozenset({K.Key_Left, K.Key_Right, K.Key_Up, K.Key_Down, K.Key_Home, K.Key_End,
                  K.Key_PageUp, K.Key_PageDown})
KEYBOARD = (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason)
MIN_BOX_PX = 9
OUTER_PX, INNER_PX = 5, 2  # white under, black over: a black line with white each side


class MapCursor:
    """The cursor of one BlockMap (its `cursor`); block is None until it is first shown."""

    def __init__(self, blockmap):
        self.map = blockmap
        self.on = False
        self.block: int | None = None
        self.summary = ""  # the paced sentence about the whole drive (described)

    # --- what it says ----------------------------------------------------------------------

    def text(self) -> str:
        """The cursor block's details in one line, or "" while the cursor is off. For the
        map's accessible description (reader: compose with this, do not replace it)."""
        m = self.map
        if not self.on or self.block is None or m.snapshot is None:
            return ""
        return "Cursor on " + m.describe(self.block).replace("\n", "; ")

    def described(self, summary: str) -> str:
        """The map's accessible description: the cursor block's details first (what the
        person just moved to), then summary, the paced sentence about the whole drive
        (ssdlab/app/gui/frame/speech.py), kept for when the cursor moves between its updates."""
        self.summary = summary
        return "; ".join(t for t in (self.text(), summary) if t)

    def refresh(self) -> None:
        """Say the details again (a new snapshot changed them, or the cursor moved)."""
        text = self.described(self.summary)
        if text != self.map.accessibleDescription():
            self.map.setAccessibleDescription(text)

    # --- focus and keys --------------------------------------------------------------------

    def focus_in(self, reason: Qt.FocusReason) -> None:
        if reason in KEYBOARD and self.map.view is not None:
            self.on = True
            if self.block is None or self.block >= self.map.view.n:
                self.block = int(self.map.view.visible_blocks()[0])
            self._moved()

    def focus_out(self) -> None:
        QToolTip.hideText()
        self.map.update()  # the ring goes with the focus; the cursor keeps its block

    def owns(self, key: int) -> bool:
        """True when the map's cursor uses key now (the window's shortcut stands aside)."""
        return self.on and key in KEYS

    def key(self, key: int) -> bool:
        """Move the cursor for key; True when it did."""
        v = self.map.view
        if not self.owns(key) or v is None or self.block is None:
            return False
        r0, r1, _c0, _c1 = v.visible()
        page = max(1, r1 - r0 - 1) * v.cols
        b = self.block
        b = {K.Key_Left: b - 1, K.Key_Right: b + 1, K.Key_Up: b - v.cols,
             K.Key_Down: b + v.cols, K.Key_Home: 0, K.Key_End: v.n - 1,
             K.Key_PageUp: b - page, K.Key_PageDown: b + page}[key]
        self.block = min(v.n - 1, max(0, b))
        self._moved()
        return True

    def _moved(self) -> None:
        m, v, b = self.map, self.map.view, self.block
        r, c = divmod(b, v.cols)
        v.focus = (c + 0.5, r + 0.5)  # +/- zoom about the cursor (mapview.Viewport.zoom)
        if v.zoomed and not self._on_screen():
            v.show_block(b)
            m._moved()
        m.update()
        self.refresh()
        box = self.box()
        if box is not None and m.snapshot is not None and m.isVisible():
            at = m.mapToGlobal(QPoint(int(box.right()) + 2, int(box.bottom()) + 2))
            QToolTip.showText(at, m.describe(b), m)

    def _on_screen(self) -> bool:
        box = self.box(exact=True)
        return box is not None and self.map.rect().toRectF().contains(box)

    # --- drawing ---------------------------------------------------------------------------

    def box(self, exact: bool = False) -> QRectF | None:
        """The cursor block's square in widget pixels (grown to MIN_BOX_PX unless exact)."""
        v = self.map.view
        if not self.on or self.block is None or v is None or self.block >= v.n:
            return None
        s = v.scale.value
        r, c = divmod(self.block, v.cols)
        box = QRectF(self.map.MARGIN_PX + v.ox + c * s, self.map.MARGIN_PX + v.oy + r * s, s, s)
        if not exact and s < MIN_BOX_PX:
            grow = (MIN_BOX_PX - s) / 2
            box = box.adjusted(-grow, -grow, grow, grow)
        return box

    def paint(self, p: QPainter) -> None:
        box = self.box()
        if box is None or not self.map.hasFocus():
            return
        p.save()
        p.setBrush(Qt.BrushStyle.NoBrush)
        for colour, width in (("#ffffff", OUTER_PX), ("#000000", INNER_PX)):
            pen = QPen(QColor(colour))
            pen.setWidth(width)
            pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
            p.setPen(pen)
            p.drawRect(box)
        p.restore()
