"""What the screen shows, heard (issue 38): Qt's AT-SPI bridge gives a label no text of its
own, only its accessible name and description, so a label with a fixed name hid its words
(lesson 1's teaching lines, the tally's figures, the note under the chart). In every state
of the window each visible text is in its label's name or description, as the bridge reads
them (QAccessible.queryAccessibleInterface, the interface it serves); and every object Tab
can focus has a name. One window for all states: a window costs seconds to build."""

from __future__ import annotations

import re
import time

import pytest
from _window_states import STATES, settle
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QTextDocument
from PySide6.QtWidgets import QLabel, QWidget

from ssdlab.app.gui.frame.announcer import DESCRIBE_GAP_S

NAME, DESCRIPTION = QAccessible.Text.Name, QAccessible.Text.Description
HANG = 5 * 60 * 1000


@pytest.fixture
def lab(qtbot, tmp_path, monkeypatch, compiled_engine):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.confirm = lambda text: False
    qtbot.addWidget(w)
    w.resize(1024, 768)
    w.show()
    qtbot.waitUntil(lambda: w.snapshot is not None, timeout=HANG)
    yield w
    if w.lesson_panel.job is not None:
        w.lesson_panel.job.cancel()
        w.lesson_panel.job.wait()
    w.close()


def plain(label: QLabel) -> str:
    text = label.text()
    if re.search(r"<[a-zA-Z/][^>]*>", text) or label.textFormat() == Qt.TextFormat.RichText:
        doc = QTextDocument()
        doc.setHtml(text)
        text = doc.toPlainText()
    return " ".join(text.replace("&", "").split())


def squeezed(text: str) -> str:
    return " ".join(text.replace("&", "").split())


def unheard(top: QWidget) -> list[str]:
    """Visible labels of top whose words are in neither their name nor description."""
    bad = []
    for label in top.findChildren(QLabel):
        words = plain(label)
        if not (label.isVisible() and words) or not re.search(r"\w", words):
            continue
        iface = QAccessible.queryAccessibleInterface(label)
        said = squeezed(f"{iface.text(NAME)} {iface.text(DESCRIPTION)}")
        if words not in said:
            bad.append(f"{words[:60]!r} heard as {said[:60]!r}")
    return bad


def nameless(top: QWidget) -> list[str]:
    bad = []
    for w in top.findChildren(QWidget):
        if not (w.isVisible() and w.isEnabled() and w.focusPolicy() != Qt.FocusPolicy.NoFocus):
            continue
        iface = QAccessible.queryAccessibleInterface(w)
        if iface is not None and not iface.text(NAME).strip():
            chain, p = [], w.parentWidget()
            while p is not None and len(chain) < 4:
                chain.append(f"{type(p).__name__}:{p.accessibleName()}")
                p = p.parentWidget()
            bad.append(f"{type(w).__name__} {w.objectName()!r} {iface.role().name} {chain}")
    return bad


class Clock:
    """The speech's clock, moved by the test: a description may change every
    DESCRIBE_GAP_S, and the test need not wait that long."""

    def __init__(self):
        self.now = time.monotonic()  # on from the real clock the speech began with

    def __call__(self) -> float:
        return self.now


def paced_by(w, clock: Clock) -> None:
    w.speech.clock = clock
    for an in w.speech.voices.values():
        an.clock = clock


def caught_up(w, clock: Clock, until, top: QWidget, gaps: int = 4) -> list[str]:
    """top's unheard labels once the pace lets every description follow its text (the
    speech looks once a PACE_MS; the clock jumps past the gap). A state's texts may still
    change while it settles (a lesson's heading once its drives are made, on a busy machine
    after the first look), so a text is given a few gaps to be heard, never wall-clock time."""
    for _ in range(gaps):
        paced_by(w, clock)  # voices made since (a drive B) keep the test's pace too
        clock.now += DESCRIBE_GAP_S
        looked = w.speech.looks
        until(lambda n=looked: w.speech.looks >= n + 2)  # a look past the gap, one more
        bad = unheard(top)
        if not bad:
            break
    return bad


def test_every_visible_text_is_heard_and_every_focusable_object_named(lab, until):
    """Each state of the window (first screen, every kind of lesson step, free
    exploration, compare mode, the glossary, the dialogs): no label's words hidden behind
    a fixed name, and no focusable object without a name (2 on the first screen, the
    empty quiz verdict, the chart tabs and a chart's plot were nameless)."""
    clock = Clock()
    problems = {}
    for state, make in STATES.items():
        top = make(lab)
        settle()
        bad = caught_up(lab, clock, until, top) + [f"nameless: {n}" for n in nameless(top)]
        if bad:
            problems[state] = bad
        if top is not lab:
            top.close()
    assert not problems, problems
    _a_lesson_link_says_what_it_does_and_does_it(lab)
    _a_check_box_is_named_by_its_words()


def _a_lesson_link_says_what_it_does_and_does_it(w) -> None:
    """The glossary's "Shown in lesson ..." link said "Enter opens it in the glossary", then
    opened the lesson and left the one in progress without asking."""
    from PySide6.QtCore import QUrl

    from ssdlab.app.gui.appearance.linkring import link_action
    from ssdlab.lessons.catalogue import find

    assert "opens this lesson" in link_action("lesson:spare-space")
    assert "glossary" in link_action("glossary:page")
    panel = w.lesson_panel
    panel.start(find("1"), 1)
    w.show_glossary("spare area")
    asked = []
    w.confirm = lambda text: asked.append(text) or False
    w.glossary_window.text.anchorClicked.emit(QUrl("lesson:spare-space"))
    assert asked and "Leave lesson 1" in asked[0]
    assert panel.lesson.id == "write-amplification" and panel.index == 1  # stayed
    w.confirm = lambda text: True
    w.glossary_window.text.anchorClicked.emit(QUrl("lesson:spare-space"))
    assert panel.lesson.id == "spare-space"
    w.glossary_window.close()


def _a_check_box_is_named_by_its_words() -> None:
    from ssdlab.app.gui.appearance.preferences import Preferences
    from ssdlab.app.gui.appearance.prefsdialog import PreferencesDialog

    dialog = PreferencesDialog(Preferences())
    assert dialog.motion.accessibleName() == "Reduce motion"  # was "Motion", its row's
    dialog.deleteLater()


def test_a_run_s_figures_and_notes_are_heard_by_their_text(bench, until):
    """A run in free exploration: the tally's figures, the note under the chart
    ("simulated 7.23 in the last drive write") and the status figures reach a listener."""
    w, v = bench, bench.views[0]
    w.run_button.click()
    until(lambda: w.snapshot.counters["host_writes"] > 0)
    until(lambda: not w.snapshot.running and not w.snapshot.segment)
    assert "in the last drive write" in w.wa_note.text()
    assert not caught_up(w, Clock(), until, w)
    for label in v.tally.values.values():
        assert label.text() in QAccessible.queryAccessibleInterface(label).text(DESCRIPTION)
    note = QAccessible.queryAccessibleInterface(w.wa_note)
    assert w.wa_note.text() in note.text(DESCRIPTION)
    wa = QAccessible.queryAccessibleInterface(v.tally.values["wa"])
    assert wa.text(NAME) == "Write amplification = flash ÷ host"
    assert " ÷ " in wa.text(DESCRIPTION)  # the division behind the figure too


def test_the_teaching_phases_are_said_and_their_lines_are_the_note_s_name(qtbot, until,
                                                                        tmp_path,
                                                                        compiled_engine):
    """Lesson 1's run at teaching pace: the line under the progress bar ("GC 2: block 92,
    54 valid pages moved to block 17.") is the label's accessible name, so a screen reader
    reads it (it was "What the block map shows"), and each phase is announced: the
    victim, where its pages went, the erase."""
    from _lesson_panel import at_lesson_one_run

    from ssdlab.app.gui.appearance import announce
    from ssdlab.app.gui.lessons.lessonpanel import LessonPanel
    from ssdlab.app.gui.lessons.lessonresults import LessonResults
    from ssdlab.app.session.progress import Progress
    from ssdlab.lessons.catalogue import bundled

    results = LessonResults()
    p = LessonPanel(bundled(), Progress(path=tmp_path / "progress.json"), results)
    qtbot.addWidget(p)
    qtbot.addWidget(results)
    p.show()
    at_lesson_one_run(p)
    voice = announce.voice()
    p.start_job()
    watch = p.watch
    until(lambda: watch.playing)
    voice.flush()
    assert "play slowly on the block map" in " ".join(t for t, _a in announce.heard())
    seen: set[str] = set()
    try:
        for phase in ("mark", "move", "erase"):
            shown = watch.note.text()
            iface = QAccessible.queryAccessibleInterface(watch.note)
            assert iface.text(NAME) == shown, "the line is hidden behind a fixed name"
            voice.flush()
            said = announce.heard()[-1][0]
            victim = shown.split("block ")[1].split()[0].rstrip(",;:")
            number = shown.split(":")[0]  # "GC 1"
            # one sentence a GC, as it begins: the victim, where its pages go, the erase
            assert f"{number}: block {victim}, " in said and "erased" in said, said
            assert (phase == "mark") == (said not in seen), "said once, not once a phase"
            seen.add(said)
            watch.pacer.timer.stop()  # the test is the clock
            watch.pacer.advance()
    finally:
        p.cancel_job()
        p.job.wait() if p.job is not None else None
