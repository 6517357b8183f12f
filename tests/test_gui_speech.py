"""What a screen reader is told as a run plays (issue 25): the status labels keep their names
while their figures change every frame (a label without a name tells the accessibility
bridge its name changed with every text); the block map and the charts describe the
snapshot, at the announcer's pace on a clock the test moves; a status message stays until
replaced or dismissed by keyboard, and is announced; a lesson's verdict is announced."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from ssdlab.app.gui.appearance.announce import heard, voice
from ssdlab.app.gui.frame import statusline
from ssdlab.app.gui.frame.announcer import DESCRIBE_GAP_S
from ssdlab.lessons.catalogue import find


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def later(snap, k: int):
    """snap a few frames on: more pages written, later, a higher WA."""
    c = snap.counters
    wa = snap.series["wa"].copy()
    wa[-1] = 1.0 + k / 10
    return replace(snap, counters=c | {"host_writes": c["host_writes"] + 100 * k,
                                       "nand_writes": c["nand_writes"] + 130 * k},
                   series=snap.series | {"wa": wa}, wa=1.0 + k / 10, sim_s=snap.sim_s + k,
                   running=True)


def frame(w, snap) -> None:
    v = w.views[0]
    v.snapshot = snap
    v.blockmap.set_snapshot(snap)
    w.show_run()


def test_what_a_screen_reader_is_told_as_a_run_plays_and_a_lesson_answers(bench):
    w, v = bench, bench.views[0]
    w.settle()
    assert v.snapshot.series["wa"].size
    clock = Clock()
    w.speech.clock = clock
    for an in w.speech.voices.values():
        an.clock = clock
    base = v.snapshot
    frame(w, later(base, 1))
    labels = w.findChildren(QLabel)
    texts = {lab: lab.text() for lab in labels}
    described = {lab: lab.accessibleDescription() for lab in labels}
    map_said = v.blockmap.accessibleDescription()
    frame(w, later(base, 2))  # the next frame, at once: new figures
    changed = [lab for lab in labels if lab.text() != texts[lab]]
    assert {w.status["wa"], v.tally.values["host"]} <= set(changed)
    unnamed = [lab.text() for lab in changed if not lab.accessibleName()]
    assert not unnamed, f"labels that announce a new name every frame: {unnamed}"
    assert all(lab.accessibleDescription() == described[lab] for lab in labels), \
        "a description changed before its pace allowed"
    assert v.blockmap.accessibleDescription() == map_said

    clock.now += DESCRIBE_GAP_S
    frame(w, later(base, 3))
    assert w.status["wa"].accessibleDescription() == w.status["wa"].text()
    said = v.blockmap.accessibleDescription()
    assert f"{v.snapshot.blocks:,} blocks:" in said and "free" in said and "valid" in said
    wa_chart = w.charts.views["wa"]
    assert wa_chart.accessibleDescription().startswith(wa_chart.spec.title)
    assert "cumulative 1.30" in wa_chart.accessibleDescription()  # its own line's figure
    free = w.charts.views["free"].accessibleDescription()
    assert free.startswith("Free blocks") and "free blocks" in free
    assert "write amplification" not in free.lower()  # each chart says what it draws

    # (the same window: a window costs seconds to build)
    # a status message stays until dismissed by keyboard, and is announced
    voice().flush()  # what the run said before
    statusline.say(w, "Reference kept")
    voice().flush()  # its turn, now (tests/test_speaking.py times the turns)
    assert heard()[-1] == ("Reference kept", False)
    assert w.status_message.message() == "Reference kept"
    assert w.dismiss_button.isVisibleTo(w) and w.dismiss_button.accessibleName()
    w.dismiss_button.setFocus()
    QTest.keyClick(w.dismiss_button, Qt.Key.Key_Return)  # (Space plays or pauses)
    assert w.status_message.message() == "" and not w.dismiss_button.isVisibleTo(w)
    w.notice = "Breakpoint: GC number 3: block 7, 2 valid pages"
    statusline.say(w, w.notice)
    assert heard()[-1] == (w.notice, True), "a breakpoint interrupts: assertive"

    # a lesson's verdicts are announced
    panel, lesson = w.lesson_panel, find("1")
    kinds = [s.kind for s in lesson.steps]
    panel.start(lesson, kinds.index("predict"))
    voice().flush()
    panel.predict(1)
    voice().flush()
    assert heard()[-1] == ("Prediction saved. Next: the run.", False)
    panel.show_step(len(kinds) - 1)  # the quiz on the lesson's run, not run yet
    panel.quiz_answer.setText("4.2")
    voice().flush()
    panel.check_quiz()
    voice().flush()
    assert heard()[-1] == ("Run the lesson's runs first: this quiz is about them.", False)
