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
from ..appearance.focuschain import first_control


def candidates(panel, gone: QWidget) -> list[QWidget]:
    """Where focus goes when gone turns disabled, best first."""
    question = [panel.choices, panel.estimate, panel.quiz_answer]
    order = {
        id(panel.run_button): [panel.cancel_button, panel.next_button],
        id(panel.cancel_button): [panel.next_button, panel.run_button],
        id(panel.next_button): [*question, panel.run_button, panel.next_button],
        id(panel.quiz_button): [panel.reveal_button, panel.next_button],
        id(panel.watch.button): [panel.cancel_button, panel.next_button],  # Skip to end
    }.get(id(gone), [panel.next_button])
    return order + [*question, panel.run_button, panel.next_button, panel.back_button,
                    panel.body]


def _shown(w: QWidget) -> bool:
    """Shown, and not inside a part being hidden (whose children keep their own flag until
    the hiding is done: Qt asks where the focus goes in between)."""
    return w.isVisible() and w.isVisibleTo(w.window())


def _usable(w: QWidget, gone: QWidget) -> bool:
    return w is not gone and _shown(w) and w.isEnabled()


def redirect(panel) -> bool:
    """Qt is about to move the focus off a control of the panel that turned disabled or
    hidden (to the next in the Tab chain, often "Lessons", which a screen reader then said:
    heard over AT-SPI after Skip to end and at a run's end). Instead: straight to the
    control the student wants next if it can take the focus now; a disabled control keeps
    the focus a moment if it cannot (KeepFocus hands it on once the step is shown, so the
    reader hears nothing in between). False: not such a move (a Tab), Qt's own rule."""
    gone = QApplication.focusWidget()
    if getattr(panel, "_keep_focus", None) is None or gone is None \
            or not panel.isAncestorOf(gone) or (gone.isEnabled() and _shown(gone)):
        return False
    best = candidates(panel, gone)
    if _shown(gone):  # disabled: only the first choice now, else wait for it
        first = next((w for w in best if w is not gone), None)
        if first is not None and _usable(first, gone):
            first.setFocus(Qt.FocusReason.OtherFocusReason)
        return True
    # hidden: straight on if there is somewhere to go. The first screen coming back
    # (Finish) is not shown yet while the lesson's page hides, and Qt's own rule took the
    # keyboard out to the control panel: it stays a moment, the page swap hands it on
    w = target(panel, gone) or first_control(panel)
    if w is not None:
        w.setFocus(Qt.FocusReason.OtherFocusReason)
    else:
        QTimer.singleShot(0, panel, lambda: _not_left_hidden(panel, gone))
    return True


def _not_left_hidden(panel, gone: QWidget) -> None:
    if QApplication.focusWidget() is gone and not _shown(gone):
        w = first_control(panel)
        (w or panel.window()).setFocus(Qt.FocusReason.OtherFocusReason)


def target(panel, gone: QWidget) -> QWidget | None:
    return next((w for w in candidates(panel, gone) if _usable(w, gone)), None)


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
        panel.quiz_answer.focus_after_enter = self._answer_target  # shortcuts.FieldKeys
        for name in self.WATCHED:
            getattr(panel, name).installEventFilter(self)

    def _changed(self, old, new) -> None:
        self.had = old
        if old is self.panel.quiz_answer and new is not None and new is self.panel.window():
            # Enter checked the answer and handed focus to the window (the field rule):
            # on to Next, where the ring shows and one more Enter goes on
            QTimer.singleShot(0, self._after_answer)

    def _after_answer(self) -> None:
        w = self._answer_target()
        if QApplication.focusWidget() is self.panel.window() and w is not None:
            w.setFocus(Qt.FocusReason.OtherFocusReason)

    def _answer_target(self) -> QWidget | None:
        """Where Enter in the quiz's field takes the keyboard, by how the answer fared."""
        p = self.panel
        outcome, p.quiz_outcome = getattr(p, "quiz_outcome", None), None
        w = {"wrong": p.reveal_button, "unreadable": p.quiz_answer}.get(outcome,
                                                                        p.next_button)
        return w if w.isVisible() and w.isEnabled() else None

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
