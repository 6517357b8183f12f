"""A watched run names what its drive does: a block-mapped (or hybrid) drive frees a block
by merging it, not by garbage collection, and the run note after it said "watching its
GCs" where the map had played merges (lesson 8's block-mapped drive, lesson 5's hybrid
one); the Skip button's words name them too, as a listener hears them."""

from __future__ import annotations

from ssdlab.app.gui.lessons.lessonruns import done_words
from ssdlab.app.session.progress import Progress
from ssdlab.lessons.loader import parse_lesson

MERGING = """format = 1
id = "merging"
title = "A drive that merges"
order = 30
minutes = 5
summary = "A small block-mapped drive, watched."

[[steps]]
kind = "predict"
id = "guess"
title = "Guess"
question = "How many pages does the drive program for each page written?"
measure = "merge.block.wa"
answer = 1

[[steps.choices]]
text = "Fewer than 4"
explain = "A merge copies the block's valid pages."
range = [0.0, 4.0]

[[steps.choices]]
text = "4 or more"
explain = "A merge copies the block's valid pages."
range = [4.0, 1000.0]

[[steps]]
kind = "run"
id = "merge"
title = "A block-mapped drive"
blockmap = true
charts = ["wa_windows"]
max_seconds = 60

[[steps.configs]]
id = "block"
label = "block-mapped (simulated)"
drive = { user_pages = 2048, pages_per_block = 16, spare = 0.1 }
ftl = { mapping = "block" }
warmup_drive_writes = 0.0
measure_drive_writes = 0.5
"""


def test_done_words_name_what_was_watched():
    assert done_words((0.4, 24.2)).endswith("of watching its GCs play slowly. ")
    assert done_words((0.4, 24.2), "merges").endswith("of watching its merges play slowly. ")


def test_the_run_note_names_the_merges_it_watched(qtbot, tmp_path, compiled_engine, until):
    from ssdlab.app.gui.lessons.lessonpanel import LessonPanel
    from ssdlab.app.gui.lessons.lessonresults import LessonResults

    lesson = parse_lesson(MERGING, "merging.toml")
    results = LessonResults()
    p = LessonPanel([lesson], Progress(path=tmp_path / "progress.json"), results)
    qtbot.addWidget(p)
    qtbot.addWidget(results)
    now = [100.0]
    p.clock = lambda: now[0]
    p.show()
    p.start(lesson, 0)
    p.predict(1)
    p.next()
    assert p.step.pace == "teach"
    p.start_job()
    until(lambda: p.watch.playing)  # the first merge, held
    assert "merges" in p.watch.button.toolTip() and "GC" not in p.watch.button.toolTip()
    assert "merges" in p.watch.button.accessibleDescription()
    now[0] = 112.0
    p.watch.skip()
    until(lambda: p.job is None)
    note = p.run_note.text()
    assert "12 s of watching its merges play slowly" in note, note
    assert "GC" not in note, note
