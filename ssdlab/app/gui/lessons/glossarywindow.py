"""The Glossary window: every term of ssdlab/lessons/glossary.toml, a search field that filters as
the student types, the definition, and a link to the lesson that shows the term."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
)

from ssdlab.lessons.glossary import Glossary, Term

from ..appearance.linkring import LinkBrowser


class GlossaryWindow(QDialog):
    """Non-modal: it stays open beside a lesson. open_lesson(id) asks the owner to start the
    lesson a term links to."""

    open_lesson = Signal(str)

    def __init__(self, glossary: Glossary, titles: dict[str, str], parent=None):
        super().__init__(parent)
        self.setWindowTitle("SSD Lab glossary")
        self.glossary = glossary
        self.titles = titles  # lesson id -> "3. GC policies and hot data"
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search terms and definitions")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.search.setAccessibleName("Search the glossary")
        self.list = QListWidget()
        self.list.setAccessibleName("Glossary terms")
        self.list.currentItemChanged.connect(lambda item, _old: self._show(item))
        self.text = LinkBrowser()
        self.text.setAccessibleName("Definition")
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(self._link)
        row = QHBoxLayout()
        row.addWidget(self.list, 2)
        row.addWidget(self.text, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addLayout(row, 1)
        self.resize(720, 420)
        self._filter("")

    def shown_terms(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def _filter(self, text: str) -> None:
        current = self.list.currentItem().text() if self.list.currentItem() else ""
        terms = self.glossary.search(text) if text.strip() else list(self.glossary.terms)
        self.list.clear()
        for term in sorted(terms, key=lambda t: t.term.lower()):
            item = QListWidgetItem(term.term)
            item.setData(Qt.ItemDataRole.UserRole, term)
            self.list.addItem(item)
        if not terms:
            self.text.setMarkdown(f"No term mentions *{text.strip()}*.")
            return
        names = self.shown_terms()
        self.list.setCurrentRow(names.index(current) if current in names else 0)

    def _show(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        term: Term = item.data(Qt.ItemDataRole.UserRole)
        also = f"\n\nAlso called: {', '.join(term.aliases)}." if term.aliases else ""
        lesson = self.titles.get(term.lesson, term.lesson)
        self.text.setMarkdown(f"### {term.term}\n\n{term.definition}{also}\n\n"
                              f"Shown in lesson [{lesson}](lesson:{term.lesson}).")

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt name
        # the text keeps the link colour of the profile it was written in (dark blue on the
        # projector's black): write it again in the new one
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._show(self.list.currentItem())

    def show_term(self, name: str) -> bool:
        """Open at a term (a lesson's link or a control's tooltip); False if unknown."""
        term = self.glossary.find(name)
        if term is None:
            return False
        self.search.clear()
        names = self.shown_terms()
        self.list.setCurrentRow(names.index(term.term))
        self.show()
        self.raise_()
        self.activateWindow()  # the keyboard goes with it (Escape closes it)
        return True

    def done(self, result: int) -> None:
        """Closed (Escape): the keyboard goes back to the window it was opened from, even
        on a desktop whose window manager would leave it nowhere."""
        super().done(result)
        owner = self.parentWidget()
        if owner is not None:
            owner.window().activateWindow()

    def _link(self, url: QUrl) -> None:
        if url.scheme() == "lesson":
            self.open_lesson.emit(url.path())
