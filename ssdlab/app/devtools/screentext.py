"""Every text a window shows, as a student (or a screen reader) could take it in: each shown
widget's words, its accessible name and description and its tooltip, the window's title,
each chart's title, axis titles and tick labels, a prediction picture's question, axis and
ticks, and the definition of each glossary term a shown text links (one click opens it).

`screen_texts(window)` returns (where, text) pairs; tests/test_gui_lesson_walk.py reads them
to check that nothing on screen states a question's answer before the student gives it.
One widget's words stay together (a list of choices is one text, not one per row), so a
text that lists every choice is told from one that names the right one.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from PySide6.QtCharts import (
    QAbstractBarSeries,
    QBarCategoryAxis,
    QCategoryAxis,
    QChartView,
    QValueAxis,
)
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QTabBar,
    QTextEdit,
    QWidget,
)

from ssdlab.lessons.glossary import Glossary, load_glossary

GLOSSARY_HREF = re.compile(r'href="glossary:([^"]+)"')


def plain(text: str) -> str:
    """A label's words without its markup (QLabel takes rich text when it looks like HTML)."""
    if "<" in text and ">" in text:
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _printf(fmt: str, value: float) -> str:
    try:
        return fmt % value
    except (TypeError, ValueError):
        return f"{value:g}"


def chart_words(view: QChartView) -> list[tuple[str, str]]:
    """A chart's title, axis titles, series and bar names; then its tick labels ("ticks":
    where each axis starts and ends, and its scale)."""
    chart = view.chart()
    words, ticks = [chart.title()], []
    for axis in chart.axes():
        if not axis.isVisible():
            continue
        words.append(axis.titleText())
        if not axis.labelsVisible():
            continue
        if isinstance(axis, QCategoryAxis):  # a QValueAxis too: the labels it was given
            ticks += [plain(x) for x in axis.categoriesLabels()]
        elif isinstance(axis, QValueAxis):
            n = max(2, axis.tickCount())
            lo, hi = axis.min(), axis.max()
            ticks += [_printf(axis.labelFormat() or "%g", lo + i * (hi - lo) / (n - 1))
                      for i in range(n)]
        elif isinstance(axis, QBarCategoryAxis):
            words += axis.categories()
    for series in chart.series():
        words.append(series.name())
        if isinstance(series, QAbstractBarSeries):
            words += [b.label() for b in series.barSets()]
    return [("", "\n".join(w for w in words if w)), ("ticks", " ".join(ticks))]


def picture_words(view) -> list[tuple[str, str]]:
    """A PredictionView as drawn: its question, axis label, each bar's label and value;
    then its tick labels (ssdlab/app/gui/lessons/predictionview.py paints these)."""
    from ssdlab.app.gui.lessons.predictionview import _ticks

    p = view.picture
    if p is None:
        return []
    words, ticks = [p.title, view._axis_text()], []
    if p.kind in ("bars", "facts", "compare"):
        for b in p.bars:
            words.append(b.label)
            if b.value == b.value:  # nan is not drawn
                words.append(f"{b.value:.3g} {p.unit}".strip())
    else:
        lo, hi = p.axis_range()
        ticks = [f"{v / 1000:g} k" if v >= 1000 else f"{v:g}"
                 for v in _ticks(lo, hi, p.log_scale)]
    return [("", "\n".join(w for w in words if w)), ("ticks", " ".join(ticks))]


def own_words(w: QWidget, glossary: Glossary) -> list[str | tuple[str, str]]:
    """What the widget itself shows in words; a chart's or picture's tick labels as
    ("ticks", labels)."""
    from ssdlab.app.gui.lessons.predictionview import PredictionView

    if isinstance(w, QLabel):
        return [plain(w.text())]
    if isinstance(w, QAbstractButton):
        return [w.text()]
    if isinstance(w, QLineEdit):
        return [w.text(), w.placeholderText()]
    if isinstance(w, QTextEdit | QPlainTextEdit):
        out = [w.toPlainText()]
        html = w.toHtml() if isinstance(w, QTextEdit) else ""
        for name in dict.fromkeys(GLOSSARY_HREF.findall(html)):
            term = glossary.find(unquote(name))
            if term is not None:  # a click opens the glossary at it
                out.append(f"{term.term}: {term.definition}")
        return out
    if isinstance(w, QComboBox):
        return ["\n".join(w.itemText(i) for i in range(w.count()))]
    if isinstance(w, QAbstractSpinBox):
        return [w.text()]
    if isinstance(w, QListWidget):
        items = [w.item(i) for i in range(w.count())]
        return ["\n".join(i.text() for i in items if not i.isHidden()),
                *(i.toolTip() for i in items if not i.isHidden())]
    if isinstance(w, QTabBar):
        return [w.tabText(i) for i in range(w.count())] + [w.tabToolTip(i)
                                                          for i in range(w.count())]
    if isinstance(w, QGroupBox):
        return [w.title()]
    if isinstance(w, QProgressBar):
        return [w.text()] if w.isTextVisible() else []
    if isinstance(w, QChartView):
        return chart_words(w)
    if isinstance(w, PredictionView):
        return picture_words(w)
    return []


def _where(w: QWidget) -> str:
    """The widget in words: its class and name (a prediction picture: its question)."""
    from ssdlab.app.gui.lessons.predictionview import PredictionView

    picture = w.picture if isinstance(w, PredictionView) else None
    name = picture.title if picture is not None else w.accessibleName() or w.objectName()
    box = w.parentWidget()
    if isinstance(w, QLineEdit) and isinstance(box, QAbstractSpinBox):  # a spin box's field
        return f"{type(box).__name__} {name!r} field"
    return f"{type(w).__name__}" + (f" {name!r}" if name else "")


def screen_texts(window: QWidget | None = None,
                 glossary: Glossary | None = None) -> list[tuple[str, str]]:
    """(where, text) for every text shown now: of `window`, or of every visible top-level
    window, with their shown children. A chart's tick labels come as their own text, its
    where ending in " ticks"."""
    glossary = glossary or load_glossary()
    tops = [window] if window is not None else [
        w for w in QApplication.topLevelWidgets() if w.isVisible()]
    out: list[tuple[str, str]] = []
    for top in tops:
        if not top.isVisible():
            continue
        out.append(("window title", top.windowTitle()))
        for w in [top, *top.findChildren(QWidget)]:
            if not w.isVisible():
                continue
            where = _where(w)
            texts = own_words(w, glossary)
            texts += [w.accessibleName(), w.accessibleDescription(), w.toolTip(),
                      w.statusTip()]
            for t in texts:
                kind, t = t if isinstance(t, tuple) else ("", t)
                if t and t.strip():
                    out.append((f"{where} {kind}" if kind else where, t))
    return out
