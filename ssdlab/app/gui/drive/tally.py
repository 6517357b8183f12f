"""The live tally beside the block map: the pages behind the write amplification, in plain
words first and the term second, following what the map shows (each phase of a GC at
teaching pace too): pages the host wrote, pages written to flash, pages GC copied, and WA as
flash over host. Under them, what the map shows of a garbage collection, in words.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from ssdlab.app.session.wanotes import wa_figure

from ..appearance import theme
from ..run.runstatus import gc_words
from ..run.snapshot import Snapshot

QWIDGETSIZE_MAX = (1 << 24) - 1  # Qt's largest widget size: no maximum

ROWS = (
    ("host", "Pages the host wrote", "host writes: pages the computer sent"),
    ("flash", "Pages written to flash", "NAND writes: pages programmed, the host's and GC's"),
    ("copied", "Pages GC copied", "GC copies: valid pages garbage collection moved"),
    ("wa", "Write amplification = flash ÷ host", "WA: pages written to flash per page the "
     "host wrote, since the drive was new"),
)


# With two drives each tally stands under its map, headed by its drive's letter, and its
# rows say the same in fewer words (the long ones stay in the tooltips): two tallies with
# the long words were wider than two maps beside a lesson at 1024 px in projector type.
SHORT = {"host": "Host wrote", "flash": "Flash written", "copied": "GC copied",
         "wa": "flash ÷ host = WA"}

DESCRIPTION = ("Pages the host wrote, pages written to flash, pages garbage collection copied, "
               "and their ratio, the write amplification, as the run plays.")
WITHHELD = "?"  # the WA while a quiz asks the student to work it out
LARGEST_DRIVE_WRITES = 1000  # a run's figures stay within this many drive writes of pages


def flash_figure(stored_pages: float, stored: float) -> str:
    """Flash pages programmed as the tally writes them: whole pages without compression,
    stored pages x the stored fraction to one decimal with it (ssdlab/model/flash/drive.py
    Drive.flash_pages)."""
    if stored == 1:
        return f"{round(stored_pages):,}"
    return f"{stored_pages * stored:,.1f}"


class Tally(QWidget):
    """The tally beside the map, one row a figure; set_snapshot follows the map."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAccessibleName("Write tally")
        self.setAccessibleDescription(DESCRIPTION)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        grid = QGridLayout(self)
        # room on the right too: the figures ended on the window's (or map area's) edge
        grid.setContentsMargins(6, 0, 8, 0)
        grid.setVerticalSpacing(2)
        grid.setHorizontalSpacing(6)
        self.values: dict[str, QLabel] = {}
        self._names: dict[str, QLabel] = {}
        self._widths: list[QLabel] = []  # sized for the largest figure (changeEvent)
        self._user_pages = 0  # the drive's size the widths are for
        self.drive = ""  # the drive's letter with two drives ("": one drive, no heading)
        # the drive's letter beside the rows, in words and not by colour: with two drives
        # side by side the room tells A's figures from B's
        self.tag = QLabel("")
        font = self.tag.font()
        font.setBold(True)
        self.tag.setFont(font)
        self.tag.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.tag.hide()
        grid.addWidget(self.tag, 1, 0, len(ROWS), 1)
        for row, (key, words, term) in enumerate(ROWS):
            # the words on one line (the WA's on two), the figure beside them: four rows
            # fit beside the map in the large type of presentation mode too
            name = QLabel(words.replace(" = ", "\n= "))
            self._names[key] = name
            name.setToolTip(term)
            value = QLabel("-")
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value.setAccessibleName(words)
            value.setToolTip(term)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard
                                          | Qt.TextInteractionFlag.TextSelectableByMouse)
            font = value.font()
            font.setBold(True)
            value.setFont(font)
            name.setBuddy(value)
            self._widths.append(value)
            grid.addWidget(name, row + 1, 1)
            grid.addWidget(value, row + 1, 2)
            self.values[key] = value
        # what the figures count when a lesson says so (since the drive was new, where its
        # results count only the measured part): over the rows, empty and hidden otherwise
        self.counted = QLabel("")  # a few words, narrower than the rows under it
        self.counted.setObjectName("note")
        self.counted.hide()
        grid.addWidget(self.counted, 0, 0, 1, 3)
        grid.setRowStretch(len(ROWS) + 1, 1)
        # what the map shows of a GC, in words: the drive view puts it under the map, where
        # a sentence has room in large type too
        self._fix_widths()
        self.now = QLabel("")
        self.now.setWordWrap(True)
        self.now.setAccessibleName("What garbage collection is doing")
        self.withheld = ""  # why the WA is not shown (a lesson's quiz asks for it)
        self._words_room = False  # two lines kept for the words (set_snapshot)
        self.set_snapshot(None)

    def set_counted(self, words: str, why: str = "") -> None:
        """Say over the rows what the figures count ("" hides it); why: its tooltip."""
        self.counted.setText(words)
        self.counted.setToolTip(why)
        self.counted.setVisible(bool(words))
        self.setAccessibleDescription(f"{DESCRIPTION} {words}".strip())

    def set_drive(self, name: str) -> None:
        """Head the tally with its drive's letter ("A", "B") and say its rows in fewer
        words, as one of two tallies; "" for the only drive's tally."""
        self.drive = name
        self.tag.setText(name)
        self.tag.setVisible(bool(name))
        self.setAccessibleName(f"Write tally, drive {name}" if name else "Write tally")
        for key, words, _term in ROWS:
            self._names[key].setText(SHORT[key] if name else words.replace(" = ", "\n= "))
            # a screen reader hears whose figure it is, as the room sees the letter
            self.values[key].setAccessibleName(f"{words}, drive {name}" if name else words)
        if self._snap is not None:  # a compressing drive's flash row keeps its words
            c = self._snap.tally_counts or self._snap.counters
            self._name_flash(c["nand_writes"], self._snap.stored)
        self._name_wa()
        # under its map one of two tallies may narrow to the map's width: its WA words
        # then break onto a second line (two tallies on one line were 40 px wider than
        # the two maps beside the control panel at 1024 px in projector type)
        self._names["wa"].setWordWrap(bool(name))
        self.setSizePolicy(QSizePolicy.Policy.Maximum if name else QSizePolicy.Policy.Fixed,
                           QSizePolicy.Policy.Preferred)

    def withhold_wa(self, why: str) -> None:
        """Show "?" for the WA while a lesson's quiz asks the student to work it out (why:
        said on hover); "" shows it again. The pages under it stay: they are the working."""
        if why != self.withheld:
            self.withheld = why
            self.set_snapshot(self._snap)

    def figure(self, key: str) -> str:
        """The figure a row shows now ("-" when there is none)."""
        return self.values[key].text()

    def _fix_widths(self) -> None:
        """Each figure as wide as the largest this drive's run shows (LARGEST_DRIVE_WRITES
        drive writes of pages): a tally that widened as its numbers grew narrowed the map
        beside it, which moved the view a person had zoomed to; one as wide as a 95 GB
        drive's counts on every drive pushed the window past a 1024 px screen."""
        largest = f"{max(self._user_pages, 1024) * LARGEST_DRIVE_WRITES:,}"
        widest = "".join("0" if ch.isdigit() else ch for ch in largest)  # widest digits
        for value in self._widths:
            font = value.font()
            font.setBold(True)
            value.setFont(font)
            value.setMinimumWidth(value.fontMetrics().horizontalAdvance(widest))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:  # presentation type: widths again
            self._fix_widths()
            self._name_wa()

    def _name_wa(self) -> None:
        """The WA row's words on two lines, or on one in large type ("flash ÷ host = WA",
        the plain words first): the tally's height is its map row's, and a line less there
        is what lets a window with a kept reference fit 768 lines in presentation mode."""
        words = ROWS[3][1]
        short = theme.current().large or self.drive
        self._names["wa"].setText(SHORT["wa"] if short else words.replace(" = ", "\n= "))

    def _name_flash(self, stored_pages: int, stored: float) -> None:
        """The flash row's tooltip and name say what its figure counts: pages programmed,
        or on a compressing drive flash pages, the stored pages times the share of a flash
        page each takes (a screen reader hears the same words, with the letter of two)."""
        words = ROWS[1][1]
        label = self.values["flash"]
        if stored == 1:
            label.setToolTip(ROWS[1][2])
        else:
            words = f"{words}, in flash pages: data stored at {stored:g} of a page"
            label.setToolTip(f"NAND writes in flash pages: {stored_pages:,} pages stored "
                             f"compressed, each {stored:g} of a flash page, the host's and "
                             f"GC's ({stored_pages:,} × {stored:g})")
        label.setAccessibleName(f"{words}, drive {self.drive}" if self.drive else words)

    def _name_cache(self, slc: dict | None) -> None:
        """On a drive with an SLC cache the copied row counts the folds too (each folded
        page is programmed a second time, into dense flash: model/flash/slccache.py), and
        its name, tooltip and what a screen reader hears say so, with the cache's figures;
        the flash row's say how many of its pages went into the cache first."""
        key, words, term = ROWS[2]
        flash = self.values["flash"]
        if slc is not None:
            words, short = "Pages GC copied or folded", "GC copied/folded"
            term = (f"GC copies and folds: valid pages garbage collection moved, and "
                    f"{slc['folded_pages']:,} pages folded out of the SLC cache into dense "
                    f"flash ({slc['folds']:,} cache blocks)")
            flash.setToolTip(f"{flash.toolTip()}; {slc['slc_writes']:,} of them into the "
                             f"SLC cache (one bit per cell) first")
            flash.setAccessibleName(f"{flash.accessibleName()}, {slc['slc_writes']:,} into "
                                    "the SLC cache")
        else:
            short = SHORT[key]
        # fewer words in large type too: the long ones were wider than "Pages written to
        # flash" and pushed the figures off a 1024 px screen in presentation mode
        self._names[key].setText(short if self.drive or theme.current().large else words)
        self._names[key].setToolTip(term)
        self.values[key].setToolTip(term)
        self.values[key].setAccessibleName(f"{words}, drive {self.drive}" if self.drive
                                           else words)

    def set_snapshot(self, snap: Snapshot | None) -> None:
        self._snap = snap
        if snap is None:
            for v in self.values.values():
                v.setText("-")
            self.now.setText("")
            self._keep_words_room(False)
            return
        if snap.user_pages != self._user_pages:  # another drive: widths for its figures
            self._user_pages = snap.user_pages
            self._fix_widths()
        c = snap.tally_counts or snap.counters  # a lesson's file system: its own counts
        host, stored = round(c["host_writes"]), c["nand_writes"]
        wa = snap.wa  # the status bar's figure too, from the same snapshot
        self.values["host"].setText(f"{host:,}")
        # the engine counts the pages it stores; on a compressing drive each takes a share
        # of a flash page, and the row says flash: flash pages, to one decimal
        flash = flash_figure(stored, snap.stored)
        self.values["flash"].setText(flash)
        self._name_flash(stored, snap.stored)
        self.values["copied"].setText(f"{c['gc_copies']:,}")
        self._name_cache(snap.slc_counts)
        known = math.isfinite(wa) and host > 0
        self.values["wa"].setText(WITHHELD if self.withheld else wa_figure(wa))
        ratio = f"{flash} ÷ {host:,}" if known else ROWS[3][2]
        if self.withheld:
            ratio = f"{ratio}: {self.withheld}"
        # the division itself, shown on hover; said at a listener's pace (frame/speech.py)
        self.values["wa"].setToolTip(ratio)
        words = gc_words(snap)
        self.now.setText(words)
        # Two lines kept for the words from the first GC they name until the drive starts
        # afresh, said or not: the map never jumps between a GC's phases. Before, and on a
        # run that names none (flat out), the map has the room: kept always, they were an
        # empty band 30 px high under the map at 1366 x 768 and 58 px in presentation type
        # at 1024 x 768 (issue 36).
        self._keep_words_room(bool(words) or (self._words_room and not self._fresh(snap)))

    @staticmethod
    def _fresh(snap: Snapshot) -> bool:
        """The drive has nothing written yet (new, or reset)."""
        c = snap.counters
        return c["host_writes"] == 0 and c["nand_writes"] == 0

    def _keep_words_room(self, keep: bool) -> None:
        """Two lines for the words under the map (keep), or none at all (an empty label
        still took a line)."""
        self._words_room = keep
        self.now.setMinimumHeight(2 * self.now.fontMetrics().lineSpacing() + 2 if keep else 0)
        self.now.setMaximumHeight(QWIDGETSIZE_MAX if keep else 0)
