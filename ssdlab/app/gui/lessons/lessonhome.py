"""The lesson panel's first page: the welcome a newcomer sees.

What SSD Lab is in two sentences, "Start with lesson 1" (or "Continue with lesson N"), the
lessons with their minutes and how far the student got, "Open a lesson file…", "Glossary"
and "Explore freely". It only says what was chosen; the panel opens the lesson.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ssdlab.app.session.progress import Progress
from ssdlab.lessons.lesson import Lesson

from ..appearance.flowlayout import FlowLayout

WELCOME = ("SSD Lab is a laboratory for the flash memory inside a solid-state drive. You fill "
           "a simulated drive, change how it is set up, and see why it writes more than it "
           "is asked to, one short lesson at a time, next to the figures of real, published "
           "experiments.")


LIST_ROWS = 4  # lessons the list shows at least: in 18 pt type at 768 lines it showed one


class LessonList(QListWidget):
    """The lessons, at least LIST_ROWS of them in view whatever the type (the panel scrolls
    rather than squeeze the list to a row), and as many more as the panel has room for;
    never scrolled sideways: a title wraps, whole, onto as many lines as it needs (cut to
    "What write am..." at a 1024 px projector, the class could not tell lessons apart), its
    minutes and status on the line under it."""

    def __init__(self):
        super().__init__()
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        # rows are measured at the list's width as it changes (a wrapped title's height)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)

    def minimumSizeHint(self):  # noqa: N802 - Qt name
        hint = super().minimumSizeHint()
        rows = LIST_ROWS * 2 * self.fontMetrics().lineSpacing() + 2 * self.frameWidth()
        return hint.expandedTo(QSize(hint.width(), rows))


def bold(label: QLabel, scale: float = 1.0) -> QLabel:
    """The label in bold, `scale` times the size, wrapping (the panel can be narrow)."""
    f = QFont(label.font())
    f.setBold(True)
    if scale != 1.0:
        f.setPointSizeF(f.pointSizeF() * scale)
    label.setFont(f)
    label.setWordWrap(True)
    return label


class LessonHome(QWidget):
    chosen = Signal(object)  # the Lesson to open
    glossary_asked = Signal(str)  # "" : the glossary at its start
    explore = Signal()  # the student chose the workbench
    open_file_asked = Signal()  # "Open a lesson file..."

    def __init__(self, lessons: list[Lesson], progress: Progress, parent=None):
        super().__init__(parent)
        self.lessons = lessons  # the panel appends a lesson opened from a file
        self.progress = progress
        v = QVBoxLayout(self)
        v.addWidget(bold(QLabel("Welcome to SSD Lab"), 1.15))  # as a lesson's title
        intro = QLabel(WELCOME)
        intro.setWordWrap(True)
        v.addWidget(intro)
        self.start_button = QPushButton("Start with lesson 1")
        self.start_button.setToolTip("Open the first lesson you have not finished.")
        self.start_button.clicked.connect(
            lambda: self.chosen.emit(self.next_lesson() or self.lessons[0]))
        v.addWidget(self.start_button)
        v.addWidget(bold(QLabel("Lessons")))
        self.lesson_list = LessonList()
        self.lesson_list.setAccessibleName("Lessons")
        # every row its title, wrapped whole, then its minutes and status on a line of their
        # own; the tooltip adds the lesson's summary
        self.lesson_list.itemActivated.connect(self._open_item)
        self.lesson_list.itemDoubleClicked.connect(self._open_item)
        v.addWidget(self.lesson_list, 1)
        # the buttons wrap rather than widen the panel (at 18 pt two in a row did not fit
        # beside the map on a 1024 px screen)
        buttons = QWidget()
        row = FlowLayout(buttons)
        self.open_button = QPushButton("Open lesson")
        self.open_button.clicked.connect(
            lambda: self._open_item(self.lesson_list.currentItem()))
        file_button = QPushButton("Open a lesson file…")
        file_button.setToolTip("A lesson a teacher wrote (see ssdlab/lessons/README.md).")
        file_button.clicked.connect(self.open_file_asked.emit)
        row.addWidget(self.open_button)
        row.addWidget(file_button)
        glossary = QPushButton("Glossary")
        glossary.setToolTip("Every term the lessons use, with a search (Ctrl+G).")
        glossary.clicked.connect(lambda: self.glossary_asked.emit(""))
        explore = QPushButton("Explore freely")
        explore.setToolTip("Close this panel and use the workbench on your own; Ctrl+L "
                           "brings the lessons back.")
        explore.clicked.connect(self.explore.emit)
        row.addWidget(glossary)
        row.addWidget(explore)
        v.addWidget(buttons)
        self.note = QLabel()
        self.note.setObjectName("note")
        self.note.setWordWrap(True)
        v.addWidget(self.note)

    def refresh(self) -> None:
        """The list and the start button as the student's progress now stands."""
        self.lesson_list.clear()
        for lesson in self.lessons:
            done = lesson.id in self.progress.finished
            at = self.progress.at.get(lesson.id)
            state = "done" if done else (f"left at step {at + 1}" if at else "not started")
            item = QListWidgetItem(f"{lesson.order}. {lesson.title}\n"
                                   f"{lesson.minutes} min · {state}")
            item.setToolTip(f"{lesson.order}. {lesson.title} ({lesson.minutes} min, {state})"
                            f"\n{lesson.summary}")
            item.setData(Qt.ItemDataRole.UserRole, lesson.id)
            self.lesson_list.addItem(item)
        nxt = self.next_lesson()
        if nxt is None:
            self.start_button.setText("All lessons done: start lesson 1 again")
        elif nxt is self.lessons[0] and not self.progress.at.get(nxt.id):
            self.start_button.setText("Start with lesson 1")
        else:
            # the title goes in the tooltip: at 18 pt it made the panel wider than a
            # 1024 px screen has room for beside the map, and was cut
            self.start_button.setText(f"Continue with lesson {nxt.order}")
            self.start_button.setToolTip(f"Lesson {nxt.order}: {nxt.title}")
        self.lesson_list.setCurrentRow(0)
        self.note.setText(self.progress.problem)

    def next_lesson(self) -> Lesson | None:
        return next((x for x in self.lessons if x.id not in self.progress.finished), None)

    def _open_item(self, item: QListWidgetItem | None) -> None:
        if item is not None:
            self.chosen.emit(next(x for x in self.lessons
                                  if x.id == item.data(Qt.ItemDataRole.UserRole)))
