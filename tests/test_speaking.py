"""Announcements at a pace a listener can follow (issue 38): a screen reader cuts short what
it says for each new announcement and for each focus change, so four sentences sent within
0.1 s at the end of a two-drive run, with the focus moving to Next, left only "Next". The
voice (ssdlab/app/gui/appearance/speaking.py) holds sentences a moment, waits while the last
is still being spoken, and says everything held as one. On a clock the test moves; no Qt."""

from __future__ import annotations

from ssdlab.app.gui.appearance.speaking import GATHER_S, LEAST_S, Turns, joined, speaking_s

END_OF_A_B_RUN = [
    "A: GC 8 to 1720: 1,713 blocks cleaned, 94,847 valid pages moved.",
    "A: Run finished (first drive write of overwrites: done): write amplification since "
    "the drive was new 3.89 (simulated).",
    "B: GC 1 to 5412: 5,412 blocks cleaned, 298,365 valid pages moved.",
    "B: Run finished (after two more drive writes: done): write amplification since the "
    "drive was new 5.55 (simulated).",
]


def test_a_two_drive_run_s_end_is_heard_whole_after_the_focus_moves():
    t = Turns()
    now = 100.0
    for i, text in enumerate(END_OF_A_B_RUN):  # within 0.1 s
        t.ask("map", text, now + 0.03 * i)
    t.focus("Next Button", now + 0.1)  # the run ended: the focus goes to Next
    assert t.due(now + 0.1) is None, "said at once, the focus change would cut it short"
    assert t.due(now + GATHER_S) is None, "said over 'Next, button', which cuts it"
    at = t.when()
    assert at >= now + 0.1 + speaking_s("Next Button")
    source, words = t.due(at)
    assert source == "map" and words == " ".join(END_OF_A_B_RUN)  # A's result first, whole
    assert t.due(at + 100) is None  # said once


def test_a_sentence_waits_for_the_one_being_spoken():
    t = Turns()
    t.ask("a", "GC 8: block 92 chosen, 54 of 64 pages still valid.", 0.0)
    _s, first = t.due(GATHER_S)
    t.ask("a", "54 moved to block 17.", 1.2)  # the next phase, 1.2 s on
    assert t.due(1.2 + GATHER_S) is None  # the first is still being spoken
    said_until = GATHER_S + speaking_s(first)
    assert t.due(said_until - 0.01) is None
    assert t.due(said_until) == ("a", "54 moved to block 17.")


def test_the_teaching_phases_are_each_heard_merged_when_they_come_faster_than_speech():
    """Lesson 1's three GCs at teaching pace: mark, move, erase at 1.2, 1.6 and 1.2 s; every
    phase's sentence is said, none while the last one said is still being spoken, and the
    announcements are fewer than the phases (merged), never more than a few seconds late."""
    t = Turns()
    asked, said, now = [], [], 0.0
    for gc in (8, 9, 10):
        for phase, stay in (("mark", 1.2), ("move", 1.6), ("erase", 1.2)):
            text = {"mark": f"GC {gc}: block {gc * 3} chosen, 40 of 64 pages still valid.",
                    "move": "40 moved to block 5.", "erase": f"Block {gc * 3} erased."}[phase]
            t.ask("note", text, now)
            asked.append(text)
            end = now + stay
            while now < end:  # the timer looks every 50 ms
                out = t.due(now)
                if out is not None:
                    said.append((now, out[1]))
                now = round(now + 0.05, 2)
    while t.when() is not None:
        now = t.when()
        said.append((now, t.due(now)[1]))
    heard = " ".join(words for _at, words in said)
    assert all(text in heard for text in asked)
    assert len(said) < len(asked)
    for (at, words), (nxt, _w) in zip(said, said[1:], strict=False):
        assert nxt - at >= speaking_s(words) - 1e-9, "cut short by the next"
    assert said[-1][0] - 12.0 < 8.0, "the last phase heard long after the GCs played"


def test_a_drive_s_newer_news_replaces_its_older_one_still_held():
    """Two drives' GC counts every few seconds, at a listener's pace, never pile up: a
    drive's newer sentence (its next count, its run's end) replaces its own still held."""
    t = Turns()
    t.ask("a", "A: GC 8 to 15: 8 blocks cleaned, 663 valid pages moved.", 0.0, "drive A: ")
    t.ask("b", "B: GC 1 to 2179: 2,179 blocks cleaned.", 0.0, "drive B: ")
    t.ask("a", "A: Run finished: write amplification 3.89 (simulated).", 0.1, "drive A: ")
    t.ask("w", "The first 3 GCs were shown.", 0.1)
    assert t.due(1.0)[1] == ("B: GC 1 to 2179: 2,179 blocks cleaned. A: Run finished: write "
                             "amplification 3.89 (simulated). The first 3 GCs were shown.")


def test_an_assertive_sentence_is_said_at_once_and_the_held_ones_after_it():
    t = Turns()
    t.ask("w", "Reference kept.", 0.0)
    t.assertive("Breakpoint: GC number 3: block 7, 2 valid pages", 0.05)
    assert t.due(GATHER_S) is None
    at = t.when()
    assert at >= 0.05 + speaking_s("Breakpoint: GC number 3: block 7, 2 valid pages")
    assert t.due(at) == ("w", "Reference kept.")


def test_joined_sentences_read_as_sentences():
    assert joined(["Step 2 of 8", "Step 2 of 8.", "Not quite:", ""]) == (
        "Step 2 of 8. Not quite:")
    assert joined(["Reference kept"]) == "Reference kept"  # one sentence as written
    assert speaking_s("OK") == LEAST_S
    assert speaking_s(" ".join(["word"] * 28)) == 10.0
