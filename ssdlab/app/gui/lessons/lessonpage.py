"""The lesson panel's step page (ssdlab/app/gui/lessons/lessonpanel.py): its widgets (the step's
text, the prediction's choices or estimate, the run box, the quiz box, Back and Next) and the
predict and quiz steps shown on it. A mixin of LessonPanel: it uses the panel's play,
results and signals.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ssdlab.lessons.quiz import QuizAnswerError

from ..appearance.announce import announce
from ..appearance.flowlayout import FlowLayout
from ..appearance.fullnote import FullNote
from ..appearance.linkring import LinkBrowser
from .feedbackarea import FeedbackArea, FeedbackNote
from .lessonhome import bold
from .lessonshown import DriveChoice

# a step's keys, window-wide while a lesson's step shows (listed in shortcuts.TABLE): the
# browser's Back and Forward; Page Up / Down turn the results, Space plays or pauses
STEP_KEYS = {"next": "Alt+Right", "back": "Alt+Left"}
QUESTION_LINES = 5  # a prediction's question shows at least this many lines (or all of it)
LOCKED_NOTE = "The run is done: this prediction is kept as you made it."
PREDICT_NOTES = ("Prediction saved. Next: the run.", "Estimate saved. Next: the run.",
                 "Estimate: enter a number above 0.", LOCKED_NOTE)
# how the answers of a prediction are chosen: the rule of a group of radio buttons (Windows,
# GTK, WAI-ARIA's radio group): the arrows move and choose, Space chooses the highlighted
# answer (Tab into a list with none chosen highlights the first, not chosen), Return too
CHOOSING = ("Choose the answer you expect: click it, or the arrow keys (Space or Return "
            "chooses the highlighted one). You can change it until the run.")


def not_quite(lines: tuple[str, ...]) -> str:
    """A wrong answer's verdict: what went wrong (a mistake named, or how far off), a line
    each; Show answer gives the number and the working."""
    if len(lines) == 1:
        return f"Not quite: {lines[0]}."
    return "Not quite:\n" + "\n".join(f"\N{BULLET} {line}" for line in lines)


class StepPage:
    """LessonPanel methods that build the step page and show predictions and quizzes."""

    def _name_next(self, last: bool) -> None:
        """Next (Finish on the last step) with its key on it, its name and tooltip."""
        key = STEP_KEYS["next"]
        self.next_name = "Finish" if last else "Next"
        self.next_button.setText(self.next_name)
        self.next_button.setAccessibleName("Finish the lesson" if last else "Next step")
        self.next_button.setToolTip(("Finish the lesson and go back to the list of lessons"
                                     if last else "The next step") + f" ({key}).")

    def _step_page(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        # the page's wrapped lines claim their height: at 18 pt on a 1.5x screen the run's
        # note took six lines counted as one, and Cancel lay under the progress bar
        self.title = bold(FullNote(), 1.15)
        self.where = FullNote()
        self.where.setObjectName("note")
        v.addWidget(self.title)
        v.addWidget(self.where)
        self.drive_choice = DriveChoice()  # which configuration the workbench shows
        self.drive_choice.hide()
        v.addWidget(self.drive_choice)
        self.body = LinkBrowser()
        self.body.setAccessibleName("Lesson text")
        self.body.setOpenLinks(False)
        self.body.anchorClicked.connect(self._link)
        v.addWidget(self.body, 3)

        self.predict_box = QWidget()
        pv = QVBoxLayout(self.predict_box)
        pv.setContentsMargins(0, 0, 0, 0)
        # a list, not radio buttons: a choice is a sentence, and it must wrap in a narrow panel.
        # It keeps the radio buttons' rule (CHOOSING): once arrows and Space only moved a
        # highlight, Return alone chose, and Next stayed disabled with nothing saying why
        self.choices = QListWidget()
        self.choices.setAccessibleName("Your prediction")
        self.choices.setWordWrap(True)
        self.choices.setToolTip(CHOOSING)
        self.choices.itemSelectionChanged.connect(self._picked)  # a click too
        self.choices.itemActivated.connect(lambda item: self._chose(self.choices.row(item)))
        pv.addWidget(self.choices)
        row = QHBoxLayout()
        self.estimate = QDoubleSpinBox()
        self.estimate.setAccessibleName("Your estimate")
        self.estimate.setDecimals(2)
        self.estimate.setRange(0.0, 1e6)
        self.estimate.setMinimumWidth(60)
        self.estimate_button = QPushButton("Save estimate")
        self.estimate_button.clicked.connect(self._estimated)
        row.addWidget(self.estimate, 1)
        row.addWidget(self.estimate_button)
        pv.addLayout(row)
        v.addWidget(self.predict_box)
        self.predict_box.setSizePolicy(QSizePolicy.Policy.Preferred,
                                       QSizePolicy.Policy.Maximum)

        self.run_box = QWidget()
        rv = QVBoxLayout(self.run_box)
        rv.setContentsMargins(0, 0, 0, 0)
        # Cancel goes under Run where the panel is narrow: side by side at 18 pt ("Run 4
        # configurations", Cancel) they made the panel 391 px, the window wider than 1024
        buttons = QWidget()
        row = FlowLayout(buttons)
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self.start_job)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the run (Esc); what finished is kept.")
        self.cancel_button.clicked.connect(self.cancel_job)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        rv.addWidget(buttons)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        rv.addWidget(self.bar)
        self.run_note = FullNote()
        rv.addWidget(self.run_note)
        v.addWidget(self.run_box)

        self.quiz_box = QWidget()
        qv = QVBoxLayout(self.quiz_box)  # the answer gets the whole width: it is a sentence
        qv.setContentsMargins(0, 0, 0, 0)
        self.quiz_answer = QLineEdit()
        self.quiz_answer.setAccessibleName("Your answer")
        self.quiz_answer.setPlaceholderText("write 3 5; trim 10-12; gc 4")
        self.quiz_answer.returnPressed.connect(self.check_quiz)
        self.quiz_button = QPushButton("Check")
        self.quiz_button.clicked.connect(self.check_quiz)
        self.reveal_button = QPushButton("Show answer")
        self.reveal_button.clicked.connect(self.reveal_quiz)
        qv.addWidget(self.quiz_answer)
        buttons = QHBoxLayout()
        buttons.addWidget(self.quiz_button)
        buttons.addWidget(self.reveal_button)
        buttons.addStretch(1)
        qv.addLayout(buttons)
        # the verdict above the quiz's answer box, which stays put above Back and Next: a
        # verdict under it grew into the text's room and the box moved up (feedbackarea.py)
        self.feedback = FeedbackNote()
        self.feedback.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.feedback_area = FeedbackArea(self.feedback)
        v.addWidget(self.feedback_area)
        self.feedback_area.watch(page)
        QWidget.setTabOrder(self.body, self.feedback_area)  # where it sits: over the answer
        v.addWidget(self.quiz_box)

        self.filler = QWidget()  # takes the room a short step leaves, above Back / Next
        self.filler.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        v.addWidget(self.filler, 1)
        # what a disabled Next waits for, right above it (and its accessible description)
        self.next_note = FullNote()
        self.next_note.setObjectName("note")
        self.next_note.hide()
        v.addWidget(self.next_note)
        row = QHBoxLayout()
        # Back and Next have keys that work wherever in the window the keyboard is while a
        # step shows (STEP_KEYS): on a read step Next was six Tabs away, a lecturer's pause
        self.back_button = QPushButton("Back")
        self.back_button.setAccessibleName("Previous step")
        self.back_button.setToolTip(f"The previous step ({STEP_KEYS['back']}).")
        self.back_button.clicked.connect(self.back)
        self.next_button = QPushButton()
        self._name_next(False)
        self.next_button.clicked.connect(self.next)
        for name, slot in (("next", self.next), ("back", self.back)):
            QShortcut(QKeySequence(STEP_KEYS[name]), page, activated=slot,
                      context=Qt.ShortcutContext.WindowShortcut)
        self.leave_button = QPushButton("Lessons")
        self.leave_button.setToolTip("Back to the list of lessons; your place is kept.")
        self.leave_button.clicked.connect(self.leave)
        row.addWidget(self.back_button)
        row.addWidget(self.next_button)
        row.addStretch(1)
        row.addWidget(self.leave_button)
        v.addLayout(row)
        self.pages.addWidget(page)

    def _locked(self, step) -> bool:
        """A prediction about a run already made cannot change (the outcome is known)."""
        m = step.measure
        return m is not None and (m.run in self.play.runs or (
            m.over is not None and m.over.run in self.play.runs))

    def _show_predict(self, step) -> None:
        self.predict_box.show()
        answer = self.play.answers.get(step.id)
        locked = self._locked(step)
        self.choices.blockSignals(True)  # refilled and the answer shown, not chosen (_picked)
        self.choices.clear()
        for c in step.choices:
            self.choices.addItem(QListWidgetItem(c.text))
        self.choices.setVisible(bool(step.choices))
        self.choices.setEnabled(not locked)
        if answer is not None and step.choices:
            self.choices.setCurrentRow(int(answer))
        else:
            self.choices.clearSelection()
            self.choices.setCurrentRow(-1)
        self.choices.blockSignals(False)
        self.choices.setSpacing(3)
        self._fit_choices()
        numeric = not step.choices
        self.estimate.setVisible(numeric)
        self.estimate_button.setVisible(numeric)
        if numeric:
            self.estimate.setSuffix(f" {step.unit}" if step.unit else "")
            self.estimate.setEnabled(not locked)
            self.estimate_button.setEnabled(not locked)
            if answer is not None:
                self.estimate.setValue(answer)
        # the notes this step may show under the choices: room for the longest, so the
        # choices do not move when one comes
        # (a locked prediction's note shows from the start: nothing to make room for)
        self.feedback_area.reserve(() if locked else PREDICT_NOTES[:3])
        if locked:
            self.feedback.setText(LOCKED_NOTE)

    def _fit_question(self) -> None:
        """A predict step's text box as tall as its question at the box's width, its
        answers right below it (at a width the panel had before it narrowed, the question
        of 6 lines got a box of 2); any other step's text takes the room the step leaves."""
        if self.lesson is None or self.step.kind != "predict":
            self.body.setMinimumHeight(0)
            self.body.setMaximumHeight(16777215)
            return
        doc = self.body.document()
        doc.setTextWidth(self.body.viewport().width())
        height = int(doc.size().height()) + 2 * self.body.frameWidth() + 8
        self.body.setMaximumHeight(height)
        # never squeezed under QUESTION_LINES by the answers and notes (a longer
        # question scrolls in it): at 18 pt it kept 2 lines and its frame
        lines = QUESTION_LINES * self.body.fontMetrics().lineSpacing()
        self.body.setMinimumHeight(min(height, lines + 2 * self.body.frameWidth() + 8))

    def _fit_choices(self) -> None:
        """As tall as the wrapped answers need (sizeHintForRow is not yet wrapped)."""
        fm = self.choices.fontMetrics()
        # the width the rows wrap at: the list's own (the text box's, less 30 px, wrapped
        # them narrower than drawn, and the list kept two empty rows at its foot)
        width = max(80, self.choices.viewport().width() - 2 * self.choices.spacing() - 8)
        flags = int(Qt.AlignmentFlag.AlignLeft) | int(Qt.TextFlag.TextWordWrap)
        rows = sum(fm.boundingRect(0, 0, width, 10000, flags, self.choices.item(i).text())
                   .height() + 2 * self.choices.spacing() + 4
                   for i in range(self.choices.count()))
        self.choices.setFixedHeight(min(360, rows + 2 * self.choices.frameWidth() + 4))

    def _picked(self) -> None:
        """The highlighted answer is the chosen one (arrows, Space, a click), as in a group
        of radio buttons; said the first time only (each arrow press would say it again)."""
        rows = [self.choices.row(item) for item in self.choices.selectedItems()]
        if rows and self.lesson is not None and self.step.kind == "predict" \
                and rows[0] < len(self.step.choices):
            first = self.step.id not in self.play.answers
            if self.play.answers.get(self.step.id) != rows[0]:
                self._chose(rows[0], said=first)

    def _chose(self, i: int, said: bool = True) -> None:
        if [self.choices.row(x) for x in self.choices.selectedItems()] != [i]:
            self.choices.blockSignals(True)  # Return on a highlight not yet chosen
            self.choices.setCurrentRow(i)
            self.choices.blockSignals(False)
        self.play.predict(self.step, i)
        self.progress.remember(self.lesson.id, self.step.id, i)
        self.feedback.setText("Prediction saved. Next: the run.")
        if said:
            announce(self.feedback, self.feedback.text())
        self._update_next()
        self._show_results()
        self._focus()  # "which drive wins": the drive shown is the one chosen

    def _estimated(self) -> None:
        value = self.estimate.value()
        if not (value > 0 and math.isfinite(value)):
            self.feedback.setText(PREDICT_NOTES[2])
            announce(self.feedback, self.feedback.text())
            return
        self.play.predict(self.step, value)
        self.progress.remember(self.lesson.id, self.step.id, value)
        self.feedback.setText("Estimate saved. Next: the run.")
        announce(self.feedback, self.feedback.text())
        self._update_next()
        self._show_results()

    def predict(self, answer: float) -> None:
        """Answer the current predict step (the keyboard and tests use this)."""
        if self.step.choices:
            self._chose(int(answer))
        else:
            self.estimate.setValue(answer)
            self._estimated()

    def _show_quiz_states(self, step) -> None:
        try:
            blocks = self.play.quiz_blocks(step)
        except KeyError:  # a quiz on a run not played yet
            blocks = [("From the run", "Run the lesson's runs first.")]
        self.quiz_answer.setPlaceholderText(self.play.quiz_hint(step))
        self.results.show_states(blocks)

    def check_quiz(self) -> None:
        step = self.step
        try:
            verdict = self.play.check_quiz(step, self.quiz_answer.text())
        except (QuizAnswerError, ValueError) as e:
            self.feedback.setText(f"Answer: {e}")
            self.quiz_outcome = "unreadable"  # where focus goes next (keepfocus.py)
        except KeyError:
            self.feedback.setText("Run the lesson's runs first: this quiz is about them.")
            self.quiz_outcome = None
        else:
            self.reveal_button.setEnabled(True)
            self.quiz_outcome = "right" if verdict.correct else "wrong"
            self.feedback.setText(f"Right: {verdict.right or 'that is the answer'}."
                                  if verdict.correct else not_quite(verdict.feedback))
        announce(self.feedback, self.feedback.text())  # a screen reader hears the verdict

    def reveal_quiz(self) -> None:
        try:
            first, *working = self.play.quiz_truth(self.step).splitlines()
            self.feedback.setText("\n".join([f"The answer: {first}"]
                                             + [f"\N{BULLET} {line}" for line in working]))
        except KeyError:
            self.feedback.setText("Run the lesson's runs first: this quiz is about them.")
        announce(self.feedback, self.feedback.text())
