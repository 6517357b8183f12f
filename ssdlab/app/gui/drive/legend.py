"""The block map's legend, always shown beside it: a list to colour the blocks by state or as
a heat map, and the colours that colouring uses; a heat map's colour bar is labelled with
the lowest and highest value on the drive now. The page colours are listed only while the
map draws pages (show_pages); a map of whole blocks says so in words instead."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ..appearance import theme
from ..appearance.flowlayout import FlowLayout
from . import handlemarks, heatmap, slcmarks, victimmarks

SWATCH_FRAME = "#808080"  # mid grey: apart from both profiles' page, white and black alike


def _swatch(colour: str, size: int = 12, crossed: bool = False, ring: bool = False,
            tab: bool = False, flag: bool = False) -> QPixmap:
    """A square of colour in a one-pixel frame: without it the white of "just erased" was
    lost on the desk profile's near-white page. crossed: the victim's X, as on the map;
    ring: hollow, in the map's background, as a page GC just copied is drawn."""
    pm = QPixmap(size, size)
    pm.fill(QColor(SWATCH_FRAME))
    painter = QPainter(pm)
    painter.fillRect(1, 1, size - 2, size - 2, QColor(colour))
    if ring:
        k = size // 3
        painter.fillRect(k, k, size - 2 * k, size - 2 * k,
                         QColor(theme.current().colour("map_background")))
    if crossed:
        victimmarks.paint(painter, [QRectF(0, 0, size, size)], page_level=False)
    if tab:  # an SLC cache block's tab, as on the map
        slcmarks.paint(painter, [QRectF(0, 0, size, size)])
    if flag:  # a tagged block's corner flag, as on the map
        handlemarks.paint(painter, [QRectF(0, 0, size, size)])
    painter.end()
    return pm


def _gradient(width: int = 72, height: int = 12) -> QPixmap:
    lut = np.ascontiguousarray(np.broadcast_to(theme.viridis_lut()[
        np.linspace(0, 255, width).astype(np.intp)], (height, width, 4)))
    img = QImage(lut.data, width, height, width * 4, QImage.Format.Format_RGBA8888)
    return QPixmap.fromImage(img.copy())


def _number(v: float) -> str:
    return "-" if not math.isfinite(v) else f"{v:,.0f}"


class Legend(QWidget):
    """Swatches for every colour the map uses in the chosen colouring."""

    mode_chosen = Signal(str)  # the user picked a colouring in the list

    STATE_ENTRIES = (("block_free", "free block"), ("block_open", "open block"),
                     ("block_victim", "GC victim"), ("block_erased", "just erased"))
    PAGE_ENTRIES = (("page_valid", "valid page"), ("page_invalid", "invalid page"),
                    ("page_copied", "copied by GC"))
    # two phrases that flow apart: in one piece it was 670 px in projector type, wider than
    # the map area beside a lesson panel (which then scrolled sideways and folded the
    # control panel)
    BLOCKS_ONLY_PHRASES = ("squares are whole blocks:", "too small here to draw pages")
    BLOCKS_ONLY = " ".join(BLOCKS_ONLY_PHRASES)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setToolTip("Colours of the block map. By state, full blocks run from dark purple "
                        "(few valid pages) to yellow (all valid); a heat map runs from the "
                        "lowest value on the drive (purple) to the highest (yellow).")
        self.combo = QComboBox()
        for key, (text, _bar, _how) in heatmap.MODES.items():
            self.combo.addItem(text, key)
        self.combo.setToolTip("Colour blocks by state, or as a heat map of valid pages, erase "
                              "count or age (NAND page writes since the block was closed).")
        self.combo.currentIndexChanged.connect(
            lambda _i: self.mode_chosen.emit(self.combo.currentData()))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 2, 2, 2)
        # The rows' widget, its flow and the chooser at its head are made once: only the
        # entries after the chooser are made again (refresh). Rebuilt whole, the list was
        # taken out of the rows for a moment and lost the keyboard focus: Down changed the
        # colouring once, and the next Down went nowhere (issue 36).
        self._inner = QWidget(self)
        outer.addWidget(self._inner)
        # entries flow and wrap: the map may be narrow (a lesson beside it, projector type)
        self._flow = FlowLayout(self._inner, spacing=12)
        chooser = QWidget(self._inner)
        pair = QHBoxLayout(chooser)
        pair.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Colour by", chooser)
        label.setBuddy(self.combo)  # a screen reader reads the list as "Colour by"
        pair.addWidget(label)
        pair.addWidget(self.combo)
        self._flow.addWidget(chooser)
        self._built_for: tuple = ()
        self._either: tuple[list, list] = ([], [])  # the page colours' entries, the words'
        self._showing = False  # in _show_either
        self.mode = "state"
        self.pages = True  # the map draws pages (a legend on its own lists their colours)
        self.slc = False  # the drive has an SLC cache: its blocks' tab is listed
        self._slc_entry: QWidget | None = None
        self.handles = False  # the drive has placement handles: its tagged blocks' flag
        self._handle_entry: QWidget | None = None
        self.lo = self.hi = float("nan")
        self.lo_label: QLabel  # the colour bar's ends, made with each rebuild (refresh)
        self.hi_label: QLabel
        self.labels: list[str] = []
        self.refresh()

    def set_mode(self, mode: str) -> None:
        """Show the legend of a colouring (the list follows without emitting mode_chosen)."""
        self.combo.blockSignals(True)
        self.combo.setCurrentIndex(self.combo.findData(mode))
        self.combo.blockSignals(False)
        if mode != self.mode:
            self.mode = mode
            self.refresh()

    def show_pages(self, on: bool) -> None:
        """Whether the map draws its blocks as their pages: the page colours, or words
        saying each square is a whole block."""
        if on != self.pages:
            self.pages = on
            if any(self._either):  # both built: the other shows, no rebuild (rebuilt, the
                # legend was a few px tall until laid out, and the map grew into the room)
                self._show_either()
            else:
                self.refresh()

    def _show_either(self) -> None:
        """The page colours or the words, as the map draws (the state map)."""
        if self._showing:  # showing an entry lays the window out at once, and may resize
            return         # the map: the loop below catches up with what it then says
        self._showing = True
        try:
            for _ in range(3):  # the map's answer settles in one more pass, or is left
                wanted = self.pages
                pages, words = self._either
                for entry in (*words, *pages) if wanted else (*pages, *words):
                    for part in entry.findChildren(QLabel):  # counted while hidden
                        part.setVisible(True)
                    entry.setVisible((entry in pages) == wanted)
                if self.pages == wanted:
                    break
        finally:
            self._showing = False
        shown = [text for _t, text in self.PAGE_ENTRIES] if self.pages else [self.BLOCKS_ONLY]
        self.labels = [*self.labels[:len(self.STATE_ENTRIES) + 1], *shown,
                       *([slcmarks.LEGEND_TEXT] if self.slc else []),
                       *([handlemarks.LEGEND_TEXT] if self.handles else [])]

    def show_slc(self, on: bool) -> None:
        """Whether the drive has an SLC cache, whose blocks the map marks with a tab."""
        if on != self.slc:
            self.slc = on
            self._show_slc()

    def _show_slc(self) -> None:
        self._show_mark(self._slc_entry, self.slc, slcmarks.LEGEND_TEXT)

    def show_handles(self, on: bool) -> None:
        """Whether the drive has placement handles, whose tagged blocks the map flags."""
        if on != self.handles:
            self.handles = on
            self._show_mark(self._handle_entry, on, handlemarks.LEGEND_TEXT)

    def _show_mark(self, entry: QWidget | None, on: bool, text: str) -> None:
        """A mark's entry shown or hidden, and listed in labels (last) or not."""
        if entry is not None:
            entry.setVisible(on)
        self.labels = [t for t in self.labels if t != text]
        if on:
            self.labels.append(text)

    def show_heat(self, heat: heatmap.Heat | None) -> None:
        """The colouring the map drew: its mode and the range its colour bar spans."""
        if heat is None:
            return
        self.set_mode(heat.mode)
        self.lo, self.hi = heat.lo, heat.hi
        self.lo_label.setText(_number(heat.lo))
        self.hi_label.setText(_number(heat.hi))

    def range_text(self) -> str:
        """The colour bar's range as shown: "lo .. hi" ("" for the state map)."""
        if self.mode == "state":
            return ""
        return f"{self.lo_label.text()} .. {self.hi_label.text()}"

    def refresh(self) -> None:
        """The entries again, for the current mode and theme (nothing to do when they are
        the ones shown: each rebuild made some forty widgets, and every theme change and
        second drive asked for one)."""
        t = theme.current()
        # the state map holds both the page colours and the words (one shows): the map
        # drawing pages or not never rebuilds it
        key = (self.mode, t) if self.mode == "state" else (self.mode, self.pages, t)
        if self._built_for == key:
            return
        self._built_for = key
        self._either = ([], [])
        self._flow.set_either([], [])
        while self._flow.count() > 1:  # the entries; the chooser at the head stays
            old = self._flow.takeAt(1).widget()
            old.hide()
            old.deleteLater()
        for old in (getattr(self, "lo_label", None), getattr(self, "hi_label", None)):
            if old is not None and old.parent() is self._inner:  # unused in the state map
                old.deleteLater()
        # every widget here is the rows' own from the start: one that no widget owns is
        # deleted by Python's cycle collector, at whatever moment it runs, and a deletion
        # in the middle of Qt's restyle crashed the window (frame/themefit.py)
        self.lo_label = QLabel(_number(self.lo), self._inner)
        self.hi_label = QLabel(_number(self.hi), self._inner)
        bar_text = heatmap.MODES[self.mode][1]
        if self.mode == "state":
            items = [(_swatch(t.colour(token), crossed=token == "block_victim"), text)
                     for token, text in self.STATE_ENTRIES]
            items.insert(2, (_gradient(), bar_text))
            page_items = [(_swatch(t.colour(token), ring=token == "page_copied"), text)
                          for token, text in self.PAGE_ENTRIES]
            rows = [items[:2], items[2:5], page_items, [(None, self.BLOCKS_ONLY)]]
            self.lo_label.hide()  # no range to show: in no row, and never drawn
            self.hi_label.hide()
        else:
            # on rows of their own: narrow enough for 1024 px in projector type
            items = [(None, bar_text), (self.lo_label, ""), (_gradient(), ""),
                     (self.hi_label, "")]
            if self.mode == "age":
                items.append((_swatch(t.colour("block_free")), "free or open: no age"))
            # the map crosses out GC victims in every colouring (victimmarks.py)
            items.append((_swatch(t.colour("block_free"), crossed=True), "GC victim"))
            rows = [items[:1], items[1:]]
        self.labels = [text for _, text in items if text]
        flow = self._flow
        def new_entry() -> tuple[QWidget, QHBoxLayout]:
            entry = QWidget(self._inner)  # a heat map's bar and its two ends stay together
            row = QHBoxLayout(entry)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(4)
            return entry, row

        made: list[list[QWidget]] = []  # each row's entries
        for row_items in rows:
            first = flow.count()
            entry, row = new_entry()
            for what, text in row_items:
                if isinstance(what, QLabel):
                    row.addWidget(what)
                elif what is not None:
                    sw = QLabel()
                    sw.setPixmap(what)
                    row.addWidget(sw)
                if not text:
                    continue
                phrases = self.BLOCKS_ONLY_PHRASES if text == self.BLOCKS_ONLY else (text,)
                for i, phrase in enumerate(phrases):
                    if i:  # the next phrase may go on the next line
                        flow.addWidget(entry)
                        entry, row = new_entry()
                    row.addWidget(QLabel(phrase))
                if self.mode == "state":  # one entry per swatch in the state map
                    flow.addWidget(entry)
                    entry, row = new_entry()
            if row.count():
                flow.addWidget(entry)
            else:  # the row after the last entry, never filled
                entry.deleteLater()
            made.append([flow.itemAt(i).widget() for i in range(first, flow.count())])
        if self.mode == "state":
            self._either = (made[2], made[3])
            flow.set_either(*self._either)
            self._show_either()
        # the marks drawn in every colouring, each listed only for a drive that has them:
        # the SLC cache's tab and the tagged blocks' flag
        for text, mark, on in ((slcmarks.LEGEND_TEXT, "tab", self.slc),
                               (handlemarks.LEGEND_TEXT, "flag", self.handles)):
            entry, row = new_entry()
            sw = QLabel()
            sw.setPixmap(_swatch(t.colour("block_free"), **{mark: True}))
            row.addWidget(sw)
            row.addWidget(QLabel(text))
            flow.addWidget(entry)
            if mark == "tab":
                self._slc_entry = entry
            else:
                self._handle_entry = entry
            self._show_mark(entry, on, text)
