"""What a lesson's run produced, drawn: its charts (runchartview.py: every configuration its
own labelled line or bar, so a comparison never erases the first run) and, beside them, each
prediction about the run with the outcome on the same axis (predictionview.py), or a quiz's
two states. The data come from ssdlab/lessons/charts.py; nothing here computes a figure.
"""

from __future__ import annotations

import re
import textwrap

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QTextDocument
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from ssdlab.app.palette import RIGHT_ANSWER_LABEL
from ssdlab.lessons.charts import PredictionPicture, RunChart

from ..appearance import theme
from ..appearance.flowlayout import FlowLayout
from .predictionview import PredictionView
from .resultpages import Pager, pack
from .runchartview import RunChartView, results_font

MIN_TABLE_SCALE = 0.6  # a table's type is never smaller than this share of the theme's
CHART_PX = 260  # a chart's least height in one column
# a chart's least height in pages, in lines of the results' type: its plot then holds
# "write amplification" upright at 9 pt, and WA with four ticks at 18 pt
CHART_LINES = 9
UNBOUNDED = (1 << 24) - 1  # Qt's QWIDGETSIZE_MAX: no greatest height


def _bold_label(text: str) -> QLabel:
    label = QLabel(text)
    f = QFont(label.font())
    f.setBold(True)
    label.setFont(f)
    return label


def _fitted(text: str, room: int, least: float = MIN_TABLE_SCALE) -> tuple[QFont, bool]:
    """The monospaced font for text: the theme's size, or smaller down to `least` of it
    to fit room (px); and whether it fits."""
    base = theme.current().font_pt
    font = QFont("DejaVu Sans Mono")
    font.setStyleHint(QFont.StyleHint.Monospace)
    scale = 1.0
    while True:  # type does not scale linearly (hinting): measure each size tried
        font.setPointSizeF(base * scale)
        widest = max((QFontMetrics(font).horizontalAdvance(line)
                      for line in text.split("\n")), default=0)
        if widest <= room or scale <= least or room <= 0:
            return font, widest <= room
        scale = max(least, min(scale * 0.95, scale * room / widest))


def _label_over_value(table: str, chars: int = 0) -> str:
    """A table of two columns (a label, two or more spaces, a value: a run quiz's
    figures) with each value on a line of its own under its label, the label wrapped at
    `chars` characters (0: not wrapped); "" for any other table."""
    rows = [re.split(r" {2,}", line.strip()) for line in table.split("\n") if line.strip()]
    if not rows or any(len(r) != 2 for r in rows):
        return ""
    return "\n".join("\n".join(textwrap.wrap(label, chars) if chars else [label])
                     + f"\n    {value}" for label, value in rows)


def _figures(table: str) -> bool:
    """A table of labels and figures only (a run quiz's), no heading row ("counter  raw
    value" heads a reading's table, whose columns stay together)."""
    rows = [re.split(r" {2,}", line.strip()) for line in table.split("\n") if line.strip()]
    return bool(_label_over_value(table)) and all(
        r[1][:1].isdigit() or r[1][:1] in "-+." for r in rows)


class LessonResults(QScrollArea):
    """The lesson's tab beside the workbench charts: the run's charts, then each
    prediction beside its outcome, with a legend of the marks."""

    changed = Signal()  # shown anew: the window's layout policy asks has_content() again

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self.setWidget(self._inner)
        # in pages (set_paged): the row that turns them, over the figures
        self.pager = Pager(self._inner, self.turn)
        self._layout.addWidget(self.pager)
        self.paged = False
        self.page = 0
        self.pages: list[list[int]] = []
        self._figures: list[list[QWidget]] = []  # each figure's widgets, in order
        self._paginating = self._again = False
        self.charts: list[RunChartView] = []
        self.predictions: list[PredictionView] = []
        self.tables: list[QLabel] = []  # a quiz's monospaced states, fitted to the width
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setObjectName("note")
        # in the page from the start: a label no widget owns is deleted by Python's cycle
        # collector, at whatever moment it runs (frame/themefit.py says why that crashed)
        self._layout.addWidget(self.note)
        # Tab stops here (it scrolls): a screen reader hears what it holds, a quiz's two
        # states above all (the quiz cannot be answered without them)
        self.setAccessibleName("Lesson results")

    def _describe(self) -> None:
        """Its words (headings, states, keys, legends, notes) as its accessible description."""
        words = []
        for label in self._inner.findChildren(QLabel):
            # a label just added is hidden until the event loop shows it: only one hidden
            # on purpose (a cleared one) is left out, or the description came out empty
            hidden = label.isHidden() and label.testAttribute(
                Qt.WidgetAttribute.WA_WState_ExplicitShowHide)
            if hidden or not label.text():
                continue
            text = label.text()
            if label.textFormat() != Qt.TextFormat.PlainText and "<" in text:  # html
                doc = QTextDocument()
                doc.setHtml(text)
                # a legend's samples are images: no object-replacement marks in the words
                text = doc.toPlainText().replace("\ufffc", "")
            words.append(text)
        self.setAccessibleDescription("\n".join(words))

    def clear(self) -> None:
        while self._layout.count():
            item = self._layout.takeAt(0)
            w = item.widget()
            if w is not None and w is not self.note and w is not self.pager:
                w.hide()  # at once: deleteLater alone leaves it drawn until the next loop
                w.deleteLater()
        self.charts, self.predictions, self.tables = [], [], []
        self._figures, self.pages, self.page = [], [], 0
        self._layout.addWidget(self.pager)
        self.pager.hide()
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAccessibleDescription("")
        self.changed.emit()

    def has_content(self) -> bool:
        """Whether it shows a chart, a prediction or a quiz's states (not a note alone)."""
        return bool(self.charts or self.predictions or self.tables)

    def _fit_tables(self) -> None:
        """Monospaced tables in the theme's size; where the view is narrower than their
        widest row, a table of labels and figures gives each figure a line under its
        label, in the theme's size, and any other (a drive's states, whose columns must stay
        aligned) is set smaller, down to MIN_TABLE_SCALE: a column of values is never cut
        off (lesson 7's quiz: its values were 114 px off the right
        of the results at a 1024 x 768 projector, in 11 pt); any other table scrolls
        sideways."""
        # room as if the vertical scroll bar were shown: it appears once the text is set, and
        # a table fitted without it would push the view into scrolling sideways
        room = (self.width() - 2 * self.frameWidth() - self.verticalScrollBar().sizeHint().width()
                - 2 * self._layout.contentsMargins().left() - 8)
        for body in self.tables:
            table = body.property("table") or body.text()
            body.setProperty("table", table)  # as made: the view may widen again
            # labels and values go each value under its label before their type shrinks:
            # lesson 1's quiz showed its two figures in 11 pt, unreadable at the back of
            # a room, where the words could wrap in the theme's size
            pairs = _figures(table)
            font, fits = _fitted(table, room, 1.0 if pairs else MIN_TABLE_SCALE)
            text = table
            if not fits and pairs and room > 0:
                # labels and values: each value under its label, the labels wrapped, in the
                # theme's size (the rows no longer need the smaller type)
                font, _fits = _fitted(table, room, 1.0)
                chars = room // max(1, QFontMetrics(font).horizontalAdvance("0"))
                text = _label_over_value(table, max(12, chars))
            if body.text() != text:
                body.setText(text)
            # polished first: a label polished after it (made while the results were
            # hidden) took the style sheet's 18 pt back, and its values were cut off
            body.ensurePolished()
            body.setFont(font)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded if self.tables
                                          else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        if self.tables:
            self._fit_tables()
        self._paginate()

    # --- pages: on a short screen in large type, whole figures a page at a time ----------

    def set_paged(self, paged: bool) -> None:
        """The layout policy's results (ssdlab/app/gui/frame/layoutpolicy.py): True for
        "pages", False for one column."""
        if paged != self.paged:
            self.paged = paged
            self._paginate()

    def turn(self, step: int) -> None:
        """The page `step` (-1, +1) from the one shown, if there is one."""
        page = self.page + step
        if self.paged and 0 <= page < len(self.pages):
            self.page = page
            self._paginate()

    def turn_shown(self, step: int) -> None:
        """The window's Page Down / Page Up (shortcuts.TABLE): turn only pages on the
        screen, never hidden ones (the drive shown in their place, or a workbench chart)."""
        if self.isVisible():
            self.turn(step)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt name
        steps = {Qt.Key.Key_PageDown: 1, Qt.Key.Key_PageUp: -1}
        step = steps.get(event.key())
        if self.paged and len(self.pages) > 1 and step is not None:
            self.turn(step)
            return
        super().keyPressEvent(event)

    def _add_figure(self, *widgets: QWidget) -> None:
        for widget in widgets:
            self._layout.addWidget(widget)
        self._figures.append(list(widgets))

    def _chart_least(self) -> int:
        return max(200, CHART_LINES * QFontMetrics(results_font()).lineSpacing())

    def _height(self, figure: list[QWidget], width: int) -> int:
        """A figure's height (px) at width, a chart at its least."""
        spacing = self._layout.spacing()
        h = 0
        for widget in figure:
            # a label made while the results are hidden has its style sheet's font (18 pt
            # in presentation mode) only once polished: measured before, it was short
            widget.ensurePolished()
            if isinstance(widget, RunChartView):
                h += self._chart_least()
            elif widget.hasHeightForWidth():
                h += widget.heightForWidth(width)
            else:
                h += widget.sizeHint().height()
            h += spacing
        return h

    def _paginate(self) -> None:
        """In pages, the page shown and the others hidden, each chart on it as tall as the
        page leaves; in one column, every figure, each chart at its least CHART_PX."""
        if self._paginating:  # resized by its own showing: once more when it is done
            self._again = True
            return
        self._paginating = True
        try:
            for _ in range(3):  # a scroll bar shown or hidden settles it within two
                self._again = False
                self._show_page()
                if not self._again:
                    break
        finally:
            self._paginating = False

    def _show_page(self) -> None:
        figures = self._figures + ([[self.note]] if self.note.text() else [])
        if not self.paged or not self._figures:
            for widget in (w for f in figures for w in f):
                widget.show()
            self.note.show()
            for chart in self.charts:
                chart.setMinimumHeight(CHART_PX)
                chart.setMaximumHeight(UNBOUNDED)
            self.pager.hide()
            self.pages = []
            self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
            return
        m = self._layout.contentsMargins()
        width = self.viewport().width() - m.left() - m.right()
        room = self.viewport().height() - m.top() - m.bottom() - 2  # never a 1 px scroll
        heights = [self._height(f, width) for f in figures]
        pages = pack(heights, room)
        if len(pages) > 1:  # the row that turns them takes its line
            self.pager.show_page(pages, 0, len(figures))  # its words, to measure
            self.pager.ensurePolished()
            row = self.pager.heightForWidth(width)
            room -= (row if row > 0 else self.pager.sizeHint().height()) + self._layout.spacing()
            pages = pack(heights, room)
        self.pages = pages
        self.page = min(self.page, len(pages) - 1)
        shown = pages[self.page]
        # no scroll bar unless a figure is taller than the room: one that came and went
        # as the page was laid out left the figures 14 px wider than the view
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOff if all(heights[i] <= room for i in shown)
            else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.note.hide()  # an empty note's line was the room's last 28 px at 18 pt
        for i, figure in enumerate(figures):
            for widget in figure:
                widget.setVisible(i in shown)
        charts = [w for i in shown for w in figures[i] if isinstance(w, RunChartView)]
        if charts:  # the room the page leaves, shared by its charts
            spare = room - sum(heights[i] for i in shown)
            tall = self._chart_least() + max(0, spare) // len(charts)
            for chart in charts:
                chart.setMinimumHeight(tall)
                chart.setMaximumHeight(tall)
        self.pager.setVisible(len(pages) > 1)
        self.pager.show_page(pages, self.page, len(figures))

    def show_states(self, parts: list[tuple[str, str]]) -> None:
        """Blocks of monospaced text with a heading each (a quiz's two drive states): here,
        where there is width for them, rather than in the narrow lesson text."""
        self.clear()
        for heading, text in parts:
            figure = [_bold_label(heading)]
            # a reading opens with a sentence (which drive): it wraps; the table under it
            # keeps its columns, so it never wraps
            lines = text.split("\n")
            prose = next((i for i, line in enumerate(lines) if "  " in line), len(lines))
            if prose:
                said = QLabel("\n".join(lines[:prose]))
                said.setTextFormat(Qt.TextFormat.PlainText)
                said.setWordWrap(True)
                # a wrapping label asks for a wide minimum of its own; the view's width rules
                said.setMinimumWidth(40)
                figure.append(said)
            body = QLabel("\n".join(lines[prose:]))
            body.setTextFormat(Qt.TextFormat.PlainText)
            body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if not body.text():  # a reading all prose: nothing to select, nothing to focus
                body.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            figure.append(body)
            self._add_figure(*figure)
            self.tables.append(body)
        self._fit_tables()
        self.note.setText("")
        self._layout.addWidget(self.note)
        self._layout.addStretch(1)
        self._describe()
        self._paginate()
        self.changed.emit()

    def show_results(self, charts: list[RunChart], pictures: list[PredictionPicture],
                     note: str = "") -> None:
        self.clear()
        # the prediction first: the guess beside the outcome is the point of the lesson
        key = None
        if any(p.kind == "compare" for p in pictures):
            key = QLabel("Each figure as the article (or the published model) gives it, and "
                         "as the simulation gives it.")
            key.setWordWrap(True)
            key.setObjectName("note")
        elif pictures:
            key = QLabel("Yours in orange, outlined in dashes (a diamond for an estimate); "
                         "the drive's result is the dot; the right answer is outlined solid "
                         f"and marked \u201c{RIGHT_ANSWER_LABEL}\u201d.")
            key.setWordWrap(True)
            key.setObjectName("note")
        for picture in pictures:
            view = PredictionView()
            view.show_picture(picture)
            # the key of the marks goes with the first picture: on its page
            self._add_figure(*([key, view] if key is not None else [view]))
            key = None
            self.predictions.append(view)
        for data in charts:
            view = RunChartView()
            view.show_chart(data)
            view.setMinimumHeight(CHART_PX)
            self.charts.append(view)
            legend = QWidget()
            legend.setAccessibleName("Legend")
            flow = FlowLayout(legend)
            for entry in view.legend_entries():
                part = QLabel(entry)
                part.setWordWrap(True)  # a label wider than the panel goes under its sample
                flow.addWidget(part)
            figure = [view, legend]
            if view.caption:
                cap = QLabel("Steps: " + view.caption)
                cap.setWordWrap(True)
                cap.setObjectName("note")
                figure.append(cap)
            self._add_figure(*figure)
        self.note.setText(note)
        self._layout.addWidget(self.note)
        self._layout.addStretch(1)
        self._describe()
        self._paginate()
        self.changed.emit()
