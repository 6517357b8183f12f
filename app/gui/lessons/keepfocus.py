"""Keyboard focus never falls out of a lesson: when the focused Run, Cancel, Next, Back or
Check button turns disabled (a run starts or ends, a step changes), Qt moves focus to the
next control in the Tab chain that can take it, which was often "Lessons" (one more Enter
and the lesson was left). The focus goes instead to the control the student wants next:
Cancel while a run goes, Next when it ends, the step's own question on a new step (a quiz's
answer field too, though Next stays enabled there, and a screen reader hears the step and
its question; on other steps it hears which step came up);
and after Enter in a quiz's answer field (which checks it), Next when the answer was right,
Show answer when it was wrong (Tab goes on to Back and Next), the field again when it could
not be read.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from ..appearance.announce import announce


def candidates(panel, gone: QWidget) -> list[QWidget]:
    """Where focus goes when gone turns disabled, best first."""
    question = [panel.choices, panel.estimate, panel.quiz_answer]
    order = {
        id(panel.run_button): [panel.cancel_button, panel.next_button],
        id(panel.cancel_button): [panel.next_button, panel.run_button],
        id(panel.next_button): [*question, panel.run_button, panel.next_button],
        id(panel.quiz_button): [panel.reveal_button, panel.next_button],
    }.get(id(gone), [panel.next_button])
    return order + [*question, panel.run_button, panel.next_button, panel.back_button,
                    panel.body]


def target(panel, gone: QWidget) -> QWidget | None:
    for w in candidates(panel, gone):
        if w is not gone and w.isVisible() and w.isEnabled():
            return w
    return None


def said(first: str, then: str) -> str:
    """Two sentences as one announcement ("...do?" is not followed by a full stop)."""
    return f"{first}{'' if first.endswith(('.', '?', '!')) else '.'} {then}"


class KeepFocus(QObject):
    """Watches the panel's buttons; a disabled one that had focus hands it on (after the
    slot that disabled it has enabled whatever comes next)."""

    WATCHED = ("run_button", "cancel_button", "next_button", "back_button", "quiz_button",
               "estimate_button", "reveal_button")

    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel
        self.had: QWidget | None = None  # the widget that lost focus last
        QApplication.instance().focusChanged.connect(self._changed)
        for name in self.WATCHED:
            getattr(panel, name).installEventFilter(self)

    def _changed(self, old, new) -> None:
        self.had = old
        if old is self.panel.quiz_answer and new is not None and new is self.panel.window():
            # Enter checked the answer and handed focus to the window (the field rule):
            # on to Next, where the ring shows and one more Enter goes on
            QTimer.singleShot(0, self._after_answer)

    def _after_answer(self) -> None:
        p = self.panel
        outcome, p.quiz_outcome = getattr(p, "quiz_outcome", None), None
        w = {"wrong": p.reveal_button, "unreadable": p.quiz_answer}.get(outcome,
                                                                        p.next_button)
        if QApplication.focusWidget() is p.window() and w.isVisible() and w.isEnabled():
            w.setFocus(Qt.FocusReason.OtherFocusReason)

    def step_shown(self, keyed: bool) -> None:
        """A new step came up: if the student got there by Next or Back (keyed: one of
        them had focus), a screen reader hears which step it is (nothing else would say
        it: the focus stayed on Next, or went on to the step's Run or question, which say
        only themselves); on a quiz the answer field takes focus, and the question is said
        with the step; on a "what happened" step, the prediction and what the drive did."""
        p = self.panel
        if not keyed:
            return
        where = p.where.text()
        if p.step.kind == "quiz" and p.quiz_answer.isVisible():
            p.quiz_answer.setFocus(Qt.FocusReason.TabFocusReason)
            announce(p.quiz_answer, said(where, p.quiz_answer.accessibleDescription()))
        elif p.step.kind == "reflect":
            first = p.body.document().firstBlock()  # "You predicted: X." "The drive did: Y."
            verdict = " ".join(b.text().strip() for b in (first, first.next()) if b.isValid())
            announce(p.where, said(where, verdict))
        else:
            announce(p.where, where)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.EnabledChange and not obj.isEnabled() \
                and (obj is self.had or obj.hasFocus()):
            # where Qt's own rule put it (the next in the chain that takes focus)
            moved = QApplication.focusWidget()
            QTimer.singleShot(0, lambda o=obj, m=moved: self._hand_on(o, m))
        return False

    def _hand_on(self, gone: QWidget, moved: QWidget | None) -> None:
        now = QApplication.focusWidget()
        if now is not moved and now is not None and now is not gone:
            return  # the step put focus somewhere of its own since
        w = target(self.panel, gone)
        if w is not None:
            w.setFocus()


def install(panel) -> None:
    panel._keep_focus = KeepFocus(panel)
