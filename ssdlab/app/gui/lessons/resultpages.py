"""A lesson's results in pages (the layout policy's `results = "pages"`: a short screen in
large type): the figures, each whole, as many on a page as the room holds, in their order;
and the row over them that says which are shown and turns the page. LessonResults
(lessonresults.py) measures the figures and shows one page; pack decides the pages, and
is pure, so a test checks it without a window.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


def pack(heights: list[int], room: int) -> list[list[int]]:
    """The figures' indices in pages, in order: a page takes the next figure while the
    heights (px) it holds sum to no more than room (px). A figure taller than the room has
    a page of its own (it scrolls there: nothing is cut)."""
    pages: list[list[int]] = []
    used = 0
    for i, h in enumerate(heights):
        if pages and used + h <= room:
            pages[-1].append(i)
            used += h
        else:
            pages.append([i])
            used = h
    return pages


def pages_words(pages: list[list[int]], page: int, figures: int) -> str:
    """'Figures 1-2 of 5' (or 'Figure 3 of 5'), numbered from 1."""
    shown = pages[page]
    first, last = shown[0] + 1, shown[-1] + 1
    which = f"Figure {first}" if first == last else f"Figures {first}\u2013{last}"
    return f"{which} of {figures}"


class Pager(QWidget):
    """Over the results: which figures show, and buttons to the earlier and later ones
    (Page Up and Page Down do the same wherever the keyboard is, unless the focused control
    scrolls with them: shortcuts.TABLE)."""

    def __init__(self, parent: QWidget, turn):
        """turn(step): show the page step (-1 or +1) from the one shown."""
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel(self)
        self.label.setObjectName("note")
        # it wraps, and never widens the results: on one line at 18 pt the row was 84 px
        # wider than the results beside lesson 5's text, and cut every figure's right end
        self.label.setWordWrap(True)
        self.label.setMinimumWidth(40)
        self.earlier = QPushButton("\u25c0 Earlier", self)
        self.later = QPushButton("More \u25b6", self)
        for button, step, name, tip in (
                (self.earlier, -1, "Earlier figures of the results",
                 "The figures before these (Page Up)."),
                (self.later, 1, "More figures of the results",
                 "The figures after these (Page Down): on a short screen "
                 "the results show as many whole figures as fit, a page at a time.")):
            button.setAccessibleName(name)
            button.setToolTip(tip)
            button.clicked.connect(lambda _c=False, s=step: turn(s))
        row.addWidget(self.label, 1)
        row.addWidget(self.earlier)
        row.addWidget(self.later)
        self.hide()

    def show_page(self, pages: list[list[int]], page: int, figures: int) -> None:
        self.label.setText(pages_words(pages, page, figures)
                           + (" \u00b7 Page Down: more" if page + 1 < len(pages) else ""))
        self.earlier.setEnabled(page > 0)
        self.later.setEnabled(page + 1 < len(pages))
