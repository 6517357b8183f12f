"""What a student reads names things in words: no profile file names or internal names in
lesson text, the glossary or a report's tables; jargon is explained where a lesson first
uses it; a lesson's picture is shown in the window and linked in the report."""

from __future__ import annotations

import re
from pathlib import Path

from ssdlab.lessons import bundled, load_glossary, parse_lesson
from ssdlab.lessons.references import image_folders
from ssdlab.model.host.profiles import list_host_profiles, list_profiles

LESSONS = Path(__file__).resolve().parents[1] / "ssdlab" / "lessons"
# the project's own names (profile files, scenario steps, its tests); LVM's pe_start is
# LVM's own name for where data begins, as the ext4 developer's post writes it
INTERNAL = re.compile(r"\b(?!pe_start\b)[a-z]+_[a-z0-9_]+\b|physics check|mean-field", re.I)


def _step_texts(lesson):
    """Every text a student reads in a lesson, in step order."""
    yield lesson.summary
    for step in lesson.steps:
        for key in ("title", "text", "question", "why", "varies"):
            if isinstance(getattr(step, key, None), str):
                yield getattr(step, key)
        for c in getattr(step, "choices", ()):
            yield c.text
            yield c.explain
        for c in getattr(step, "configs", ()):
            yield c.label


def test_no_internal_name_in_lesson_text_or_glossary():
    names = set(list_profiles()) | set(list_host_profiles())
    texts = [(x.id, t) for x in bundled() for t in _step_texts(x)]
    texts += [(f"glossary {t.term}", t.definition) for t in load_glossary().terms]
    bad = [f"{where}: {m.group(0)!r}" for where, t in texts
           for m in [INTERNAL.search(t)] if m]
    bad += [f"{where}: {n!r}" for where, t in texts for n in names if n in t]
    assert not bad, "\n".join(bad)


def _first_use(term: str):
    """(lesson id, the paragraph where a lesson first uses term), for each lesson using it.
    A step's title is a heading: the text under it does the explaining."""
    for lesson in bundled():
        for text in _step_texts(lesson):
            if any(text == getattr(s, "title", None) for s in lesson.steps):
                continue
            for paragraph in text.split("\n\n"):
                if re.search(rf"\b{re.escape(term)}", paragraph, re.I):
                    yield lesson.id, " ".join(paragraph.split())
                    break
            else:
                continue
            break


# jargon a first-year student does not know, and words that explain it where it first comes
JARGON = {
    "frontier": r"\[\[write frontier|open block",
    "block group": r"block group \(ext4 divides the disk into groups",
    "stripe": r"stripe width\", a setting made for\s+disk arrays",
    "NVMe": r"\[\[NVMe\]\].*instead of a SATA cable",
}


def test_jargon_is_explained_where_a_lesson_first_uses_it():
    bad = []
    for term, explained in JARGON.items():
        uses = list(_first_use(term))
        assert uses, f"no lesson uses {term!r}: the check is out of date"
        bad += [f"{lesson}: {term!r} first comes unexplained in: {p[:160]}"
                for lesson, p in uses if not re.search(explained, p)]
    assert not bad, "\n".join(bad)


def test_lesson_3_shows_its_picture_of_the_two_frontiers():
    lesson = next(x for x in bundled() if x.id == "gc-policies")
    step = next(s for s in lesson.steps if "write-frontiers.svg" in (getattr(s, "text", "") or ""))
    src = re.search(r"!\[[^\]]+\]\(([^)]+)\)", step.text).group(1)
    found = [f / src for f in image_folders(lesson.path.parent) if (f / src).is_file()]
    assert found and found[0].read_text(encoding="utf-8").lstrip().startswith("<svg")
    # the picture explains the frontier run's outcome, so it comes after the prediction
    # about it and the run (before them it would give the answer away)
    kinds = [(s.kind, getattr(s, "id", None)) for s in lesson.steps]
    at = lesson.steps.index(step)
    assert kinds.index(("predict", "frontier-cb")) < at
    assert kinds.index(("run", "frontier")) < at


PICTURED = '''format = 1
id = "pictured"
title = "Pictured"
order = 1
minutes = 5
summary = "A picture and a scenario run."

[[steps]]
kind = "read"
title = "Look"
text = "![Two frontiers](assets/figures/write-frontiers.svg)"

[[steps]]
kind = "predict"
id = "guess"
title = "Guess"
question = "Does the fstrim take under a second?"
measure = "r.a.steps[4].seconds"
answer = 0

[[steps.choices]]
text = "yes"
explain = "a modern drive trims quickly"
range = [0.0, 1.0]

[[steps.choices]]
text = "no"
explain = "it does not"
range = [1.0, 1000.0]

[[steps]]
kind = "run"
id = "r"
title = "Run"
charts = ["step_seconds"]

[[steps.configs]]
id = "a"
label = "modern drive"
scenario = "fill_rounds_1gib"
'''


def test_a_report_names_drives_and_steps_in_words_and_links_its_pictures():
    from ssdlab.lessons.player import play
    from ssdlab.lessons.report import report_text

    lesson = parse_lesson(PICTURED, str(LESSONS / "pictured.toml"), LESSONS)
    text = report_text(lesson, play(lesson))
    assert "Modern NVMe SSD 1 TB" in text and "nvme_modern_1tb" not in text
    assert "| 0: fill files |" in text and "fill_files" not in text
    uri = (LESSONS.parent / "assets" / "figures" / "write-frontiers.svg").resolve().as_uri()
    assert f"![Two frontiers]({uri})" in text
