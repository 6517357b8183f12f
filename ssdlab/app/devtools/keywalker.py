"""A lesson taken start to finish with key presses alone, as a keyboard-only student does it,
and what a screen reader gets on the way (issue 25).

Every key goes to whatever has focus (QApplication.focusWidget()), never to a control the
walker picked: the focus gets where it must by Tab, arrows, Space and Return, so a control
Tab cannot reach, or a key that does nothing on it, stops the walk with a message naming the
step and the controls Tab visited. The walker reads the window's state (which step is shown,
whether a run is going) to know what to do and when a run has ended; it never calls a method
of the window or the panel.

Each key press gives a transcript line: the key, the focused object as its accessibility
interface describes it (role, name, description, checked or disabled), and the announcements
made since the last line ("said:"). Shared by tests/test_gui_keyboard_lesson.py and
ssdlab/app/devtools/keyboardwalk.py.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

from ssdlab.app.gui.appearance import announce

K = Qt.Key
M = Qt.KeyboardModifier
TAB_LIMIT = 80  # more controls than the window has on one screen: a Tab chain this long lost it
SETTLE_PASSES = 5  # the focus keeping hands focus on after a zero timer (keepfocus.py)
DESCRIPTION_CHARS = 70  # a transcript line keeps this much of a description
VALUE_CHARS = 90  # and of a value (the lesson text is a page long)
KEY_NAMES = {K.Key_Tab: "Tab", K.Key_Backtab: "Shift+Tab", K.Key_Space: "Space",
             K.Key_Return: "Return", K.Key_Down: "Down", K.Key_Up: "Up", K.Key_L: "L",
             K.Key_A: "A"}


class Unreachable(AssertionError):
    """A control the step needs is not reached, or a key on it did nothing."""


class _Heard(deque):
    """announce.heard()'s store, telling the walker each sentence as it is said (the store
    keeps only the last 50: a run says more than that between two key presses)."""

    def __init__(self, old, listener: Callable[[str, bool], None]):
        super().__init__(old or (), maxlen=announce.HEARD)
        self.listener = listener

    def append(self, item) -> None:
        super().append(item)
        self.listener(*item)


def control_name(widget: QWidget | None) -> str:
    """What the student would read on the control: its accessible name, else its text."""
    if widget is None:
        return ""
    if widget.accessibleName():
        return widget.accessibleName()
    return widget.text() if isinstance(widget, QAbstractButton) else ""


def named(*names: str) -> Callable[[QWidget], bool]:
    """A control called one of names (accessible name or button text), enabled."""
    def wanted(w: QWidget) -> bool:
        text = w.text() if isinstance(w, QAbstractButton) else ""
        return w.isEnabled() and (w.accessibleName() in names or text in names)
    return wanted


def spoken(widget: QWidget | None) -> str:
    """The focused object as a screen reader gets it: role 'name' (description) [states],
    and the current item of a list or the value of a field."""
    if widget is None:
        return "nothing"
    iface = QAccessible.queryAccessibleInterface(widget)
    if iface is None:
        return f"no accessible object ({type(widget).__name__})"
    parts = [_one(iface)]
    value = " ".join(iface.text(QAccessible.Text.Value).split())
    if value:
        parts.append(f"value '{_cut(value, VALUE_CHARS)}'")
    if iface.text(QAccessible.Text.Name) in ("", iface.text(QAccessible.Text.Value)):
        # a closed combo is named by its choice; Orca says the label it is labelled by
        labels = [o.text(QAccessible.Text.Name)
                  for o, _r in iface.relations(QAccessible.Relation.Label)]
        if len(labels) > 1:
            labels = [f"{x} ({o.role().name})" for x, (o, _r) in
                      zip(labels, iface.relations(QAccessible.Relation.Label), strict=True)]
        if labels:
            parts.append(f"labelled '{' '.join(labels)}'")
    child = iface.focusChild()
    if child is not None and child.object() is not iface.object():
        parts.append(f"item: {_one(child)}")
    return "; ".join(parts)


def _one(iface) -> str:
    name = iface.text(QAccessible.Text.Name).replace("\n", " / ")
    words = f"{iface.role().name} '{name}'"
    description = " ".join(iface.text(QAccessible.Text.Description).split())
    if description:
        words += f" ({_cut(description, DESCRIPTION_CHARS)})"
    state = iface.state()
    flags = [f for f in ("checked", "selected", "disabled") if getattr(state, f)]
    return words + (f" [{', '.join(flags)}]" if flags else "")


def _cut(text: str, chars: int) -> str:
    """text cut to chars, saying how long it was (a reader would read all of it)."""
    return text if len(text) <= chars else f"{text[:chars]}… ({len(text)} characters)"


def a_wrong_answer(answer: str) -> str:
    """An answer that parses but is not the quiz's (to take the Show answer path)."""
    try:
        return f"{float(answer) * 2 + 1:g}"
    except ValueError:
        return "write 0" if answer.strip() != "write 0" else "write 1"


def round_parts(names: list[str]) -> list[str]:
    """The parts of a Tab lap (one name per control, in order), a run of one part named
    once, read round from the first part of the window's reading order there."""
    from ssdlab.app.gui.frame.taborder import PARTS, STATUS

    order = [name for name, _attr in PARTS] + [STATUS]
    out: list[str] = []
    for name in names:
        if not out or out[-1] != name:
            out.append(name)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()  # the lap started inside a part
    if not out:
        return out
    first = min(range(len(out)), key=lambda i: order.index(out[i]) if out[i] in order
                else len(order))
    return out[first:] + out[:first]


class KeyWalker:
    """Walks window w by keyboard; wait(condition) processes events until condition() holds
    (the tests' `until`, the devtool's own loop)."""

    def __init__(self, w, wait: Callable[[Callable[[], bool]], None],
                 limit: int = TAB_LIMIT):
        self.w, self.panel, self.wait, self.limit = w, w.lesson_panel, wait, limit
        self.lines: list[str] = []
        # (step, the parts a Tab lap visited in order, how many controls): lap()
        self.laps: list[tuple[str, list[str], int]] = []
        self.lapping = False  # True while lap() goes round (the focus leaves the lesson)
        self._said: list[str] = []
        self.step_name = "the first screen"
        self._at: tuple[int, int] | None = None  # (lesson, step) the last line was on
        # the accessibility machinery on, as when a screen reader runs: off, Qt does not
        # follow the window's changes (a list refilled read its current item as '')
        self._was_active = QAccessible.isActive()
        QAccessible.setActive(True)
        app = QApplication.instance()
        announce.heard()  # made if missing, then replaced by one that tells the walker
        app._heard = _Heard(app._heard, lambda text, loud: self._said.append(
            f"said{' (assertive)' if loud else ''}: {text}"))

    def stop(self) -> None:
        """The accessibility machinery and the store of what was said as they were before
        the walk (a later walk or test hears nothing through this one)."""
        QAccessible.setActive(self._was_active)
        app = QApplication.instance()
        app._heard = deque(app._heard, maxlen=announce.HEARD)

    # --- keys ---------------------------------------------------------------------------

    def settle(self) -> None:
        for _ in range(SETTLE_PASSES):
            QApplication.processEvents()
        # what the voice holds for its turn (ssdlab/app/gui/appearance/speaking.py) is said
        # now: the transcript puts each sentence under the key that caused it, and the walk
        # does not wait seconds of speaking time a key
        announce.voice().flush()

    def press(self, key, modifier=M.NoModifier) -> QWidget | None:
        """key on whatever has focus (the window when nothing has); the transcript line.
        The window has the keyboard first, as a student's window has: offscreen, a window
        of an earlier test closing could take it away for a moment (no focus at all)."""
        self._keyboard_back()
        target = QApplication.focusWidget() or self.w
        QTest.keyClick(target, key, modifier)
        self.settle()
        self._keyboard_back()
        name = KEY_NAMES.get(key, getattr(key, "name", str(key)))
        if modifier == M.ControlModifier:
            name = f"Ctrl+{name}"
        self.note(name)
        return QApplication.focusWidget()

    def _keyboard_back(self) -> None:
        """The window active again if it lost the keyboard to nothing (no popup, no dialog:
        Qt then gives the focus back to the control that had it)."""
        if not self.w.isActiveWindow() and QApplication.activePopupWidget() is None \
                and QApplication.activeModalWidget() is None:
            self.w.activateWindow()
            self.wait(self.w.isActiveWindow)
            self.settle()

    def type(self, text: str) -> None:
        QTest.keyClicks(QApplication.focusWidget() or self.w, text)
        self.settle()
        self.note(f"type {text!r}")

    def note(self, what: str) -> None:
        """A transcript line for what just happened, with what was said since the last;
        a heading first when it brought a new step up."""
        p = self.panel
        at = (p.lesson.order, p.index) if p.lesson is not None else None
        if at != self._at and at is not None:
            self.lines.append(f"--- lesson {at[0]} step {at[1] + 1} of "
                              f"{len(p.lesson.steps)} ({p.step.kind}): {p.step.title}")
        self._at = at
        self.lines.append(f"{what:<10} focus: {spoken(QApplication.focusWidget())}")
        self.lines += [f"{'':<10} {s}" for s in self._said]
        self._said.clear()

    def until(self, condition: Callable[[], bool], what: str) -> None:
        """Wait for the window (a run's end): the wait and what was said meanwhile."""
        self.wait(condition)
        self.settle()
        self.note(f"(wait: {what})")

    def press_until(self, wanted: Callable[[QWidget], bool], what: str,
                    key=K.Key_Tab, limit: int | None = None) -> QWidget:
        """Press key until the focused widget is wanted; Unreachable after limit presses."""
        visited: list[str] = []
        for _ in range(self.limit if limit is None else limit):
            f = QApplication.focusWidget()
            if f is not None and wanted(f):
                return f
            visited.append(control_name(f) or type(f).__name__)
            self.press(key)
        f = QApplication.focusWidget()
        if f is not None and wanted(f):
            return f
        raise Unreachable(f"{self.step_name}: {what} not reached by {KEY_NAMES[key]} in "
                          f"{len(visited)} presses; visited {visited}")

    def activate(self, wanted, what: str, key=K.Key_Space,
                 worked: Callable[[], bool] | None = None) -> None:
        """Tab to a control and press key on it; Unreachable when worked() stays false."""
        self.press_until(wanted, what)
        self.press(key)
        if worked is not None and not worked():
            raise Unreachable(f"{self.step_name}: {KEY_NAMES[key]} on {what} did nothing")

    # --- a lesson -------------------------------------------------------------------------

    def open_lesson(self, lesson) -> None:
        """From the first screen (the lessons panel shown by Ctrl+L when it is hidden):
        "Start with lesson 1", or the lesson's row of the list and Return."""
        p = self.panel
        if not p.isVisible():
            self.press(K.Key_L, M.ControlModifier)
            if not p.isVisible():
                raise Unreachable("Ctrl+L did not bring the lessons panel back")
        opened = lambda: p.lesson is not None and p.lesson.id == lesson.id  # noqa: E731
        if lesson is p.home.lessons[0] and p.home.next_lesson() is lesson:
            self.activate(named("Start with lesson 1", f"Continue with lesson {lesson.order}"),
                          "the start button", K.Key_Return, opened)
            return
        lst = self.press_until(named("Lessons"), "the list of lessons")
        row = p.home.lessons.index(lesson)
        for _ in range(len(p.home.lessons)):
            if lst.currentRow() == row:
                break
            self.press(K.Key_Down if lst.currentRow() < row else K.Key_Up)
        self.press(K.Key_Return)
        if not opened():
            raise Unreachable(f"Return on lesson {lesson.order} in the list did not open it")

    def take_lesson(self, lesson, wrong_first_quiz: bool = False, laps: bool = False) -> None:
        """Every step of lesson, then Finish; the lesson ends marked finished. laps: Tab
        once round the whole window on the first screen and on each step (self.laps)."""
        p = self.panel
        if laps:
            self.lap()
        self.open_lesson(lesson)
        wrong = wrong_first_quiz
        while True:
            i, step = p.index, p.step
            self.step_name = f"lesson {lesson.order} step {i + 1} ({step.kind})"
            if laps:
                self.lap()
            if step.kind == "predict":
                self._predict(step)
            elif step.kind == "run":
                self._run(step)
            elif step.kind == "compare" and (p.job is not None or step.experiment):
                self.until(lambda: p.job is None, "the replay ends")
            elif step.kind == "quiz":
                self._quiz(step, wrong)
                wrong = False
            last = i == len(lesson.steps) - 1
            self.activate(named("Finish the lesson" if last else "Next step"), "Next",
                          worked=lambda i=i: p.lesson is None or p.index == i + 1)
            if last:
                break
        if lesson.id not in p.progress.finished:
            raise Unreachable(f"lesson {lesson.order}: Finish did not mark it finished")

    def _predict(self, step) -> None:
        """The answers are a group of radio buttons: Tab into them highlights the first
        without choosing it, the arrows move and choose, Space chooses the highlighted one;
        no Return (it chooses too, but once it alone did)."""
        p = self.panel
        made = lambda: p.play.answers.get(step.id) == step.answer  # noqa: E731
        if step.choices:
            lst = self.press_until(named("Your prediction"), "the answers")
            want = int(step.answer)
            for _ in range(len(step.choices) + 1):
                if lst.currentRow() == want:
                    break
                self.press(K.Key_Down if lst.currentRow() < want else K.Key_Up)
            if not made():
                self.press(K.Key_Space)
        else:
            self.press_until(named("Your estimate"), "the estimate")
            self.press(K.Key_A, M.ControlModifier)  # the old value goes as the new is typed
            self.type(f"{step.answer:g}")
            self.activate(named("Save estimate"), "Save estimate")
        if not made():
            raise Unreachable(f"{self.step_name}: the prediction was not taken by keyboard")

    def lap(self) -> list[str]:
        """Tab from the focused control until it has the focus again: the parts of the
        window visited, in order (frame/taborder.py), kept in self.laps with the step and
        the number of controls, and said in the transcript. Unreachable when Tab puts the
        focus on the window itself or comes back to a control before coming round (once,
        after one lap, it went round the charts and the lesson panel only)."""
        from ssdlab.app.gui.frame.taborder import part_of

        self.lapping = True
        try:
            return self._lap(part_of)
        finally:
            self.lapping = False

    def _lap(self, part_of) -> list[str]:
        start = QApplication.focusWidget()
        seen = [start]
        for _ in range(self.limit):
            f = self.press(K.Key_Tab)
            if f is None or f is self.w:
                raise Unreachable(f"{self.step_name}: Tab put the focus on the window")
            if f is seen[-1]:
                continue  # on to the next link of a text
            if f is start:
                break
            if f in seen:
                raise Unreachable(f"{self.step_name}: Tab came back to {control_name(f)!r} "
                                  f"before coming round to {control_name(start)!r}")
            seen.append(f)
        else:
            raise Unreachable(f"{self.step_name}: Tab never came round in {self.limit} "
                              f"presses")
        parts = round_parts([part_of(self.w, w) for w in seen])
        self.laps.append((self.step_name, parts, len(seen)))
        self.lines.append(f"{'':<10} (lap: {' > '.join(parts)}; {len(seen)} controls)")
        return parts

    def _run(self, step) -> None:
        """Run; Skip to end where the run plays its GCs at teaching pace; wait for its end."""
        p = self.panel
        self.activate(named(p.run_button.text()), "Run", worked=lambda: p.job is not None)
        if p.watch.button.isVisible():
            self.activate(named("Skip to end"), "Skip to end",
                          worked=lambda: p.job is None or p.job.skipped)
        self.until(lambda: p.job is None, "the run ends")
        if step.id not in p.play.runs:
            raise Unreachable(f"{self.step_name}: the run did not finish: {p.run_note.text()}")

    def _quiz(self, step, wrong: bool) -> None:
        """The answer typed and Return; a wrong one leads to Show answer."""
        p = self.panel
        self.press_until(named("Your answer"), "the answer field")
        answer = step.answer or "0"
        self.type(a_wrong_answer(answer) if wrong else answer)
        self.press(K.Key_Return)
        if p.feedback.text().startswith("Not quite"):
            self.activate(named("Show answer"), "Show answer",
                          worked=lambda: p.feedback.text().startswith("The answer"))
