"""The lessons and the glossary tell one story: each term is defined once (in the glossary)
and linked where a lesson uses it; no two lessons (or a lesson and the glossary) state
different values for the same quantity of the same drive."""

from __future__ import annotations

import re
from collections import defaultdict

from ssdlab.lessons import bundled, load_glossary
from ssdlab.lessons.glossary import LINK
from ssdlab.lessons.sources import TEXT_KEYS


def _texts(lesson):
    yield lesson.summary
    for step in lesson.steps:
        for key in (*TEXT_KEYS, "explain"):
            value = getattr(step, key, None)
            if isinstance(value, str):
                yield value
        for c in getattr(step, "choices", ()):
            yield c.text
            yield c.explain
        for c in getattr(step, "configs", ()):
            yield c.label


def test_every_term_and_alias_names_one_term():
    seen = {}
    for t in load_glossary().terms:
        for name in (t.term, *t.aliases):
            key = " ".join(name.lower().split())
            assert key not in seen, f"{name!r} names both {seen[key]!r} and {t.term!r}"
            seen[key] = t.term


def test_each_term_is_linked_by_the_lesson_that_shows_it():
    lessons = {x.id: x for x in bundled()}
    glossary = load_glossary()
    for t in glossary.terms:
        assert t.term in lessons[t.lesson].terms, (
            f"glossary term {t.term!r} says lesson {t.lesson!r} shows it, but that lesson "
            "never links it")


def test_a_lesson_that_names_a_term_links_it():
    """A term a lesson talks about is linked there at least once, so the student reaches
    the one definition instead of a second one in passing."""
    glossary = load_glossary()
    # names a lesson uses as ordinary words too, or whose mention is the glossary's own
    common = {"page", "host write", "valid page", "stale page", "logical page", "sync",
              "victim", "journal", "metadata", "wear", "spare", "block", "host", "valid",
              "stale", "theory", "skew", "flush", "sector", "sectors", "frontier", "pages",
              "aligned", "fragmented", "trimmed", "hot data", "cold data", "drive write",
              "drive writes", "erase block", "erase blocks", "fill level", "discard",
              "garbage collection", "TRIM", "spare space", "flash write", "NAND write"}
    bad = []
    for lesson in bundled():
        words = " ".join(LINK.sub("", t) for t in _texts(lesson))
        for source in lesson.sources:  # an article's own words and name are not the lesson's
            words = words.replace(source.rendered(), "").replace(source.rendered(False), "")
        for t in glossary.terms:
            if t.term in common or t.term in lesson.terms:
                continue
            if re.search(rf"(?<![\w-]){re.escape(t.term)}(?![\w-])", words, re.I):
                bad.append(f"{lesson.id} names {t.term!r} without linking it")
    assert not bad, "\n".join(bad)


DRIVES = ("X25-M", "Vertex LE", "Corsair X64", "Vertex 60", "Crucial M4", "Agility 3")
QUANTITIES = {
    "spare": re.compile(r"(\d+(?:\.\d+)?) % spare"),
    "erase block": re.compile(r"(\d+) KiB erase blocks?|erase blocks? of (\d+) KiB"),
    "page": re.compile(r"(\d+) KiB (?:flash )?pages|pages of (\d+) KiB"),
}


def _statements():
    """(drive, quantity) -> {value: [where]} for every sentence naming one drive."""
    found = defaultdict(lambda: defaultdict(list))
    texts = [(f"lesson {x.order}", t) for x in bundled() for t in _texts(x)]
    texts += [(f"glossary {t.term}", t.definition) for t in load_glossary().terms]
    for where, text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
            drives = [d for d in DRIVES if d in sentence]
            if len(drives) != 1:
                continue
            for name, pattern in QUANTITIES.items():
                for m in pattern.finditer(sentence):
                    value = next(g for g in m.groups() if g)
                    found[drives[0], name][value].append(where)
    return found


def test_no_two_places_state_different_values_for_one_drive():
    found = _statements()
    assert found, "the check found no statements at all: its patterns are out of date"
    bad = [f"{drive} {quantity}: " + "; ".join(f"{v} in {', '.join(w)}" for v, w in
                                                 values.items())
           for (drive, quantity), values in found.items() if len(values) > 1]
    assert not bad, "\n".join(bad)


def test_every_lesson_ends_with_a_quiz_and_one_computes_a_write_amplification():
    lessons = bundled()
    for lesson in lessons:
        assert lesson.steps[-1].kind == "quiz", f"{lesson.id} does not end with a quiz"
    wa = [x.id for x in lessons for s in x.steps if s.kind == "quiz" and s.measure is not None
          and s.measure.over is not None and {s.measure.figure, s.measure.over.figure} in (
              {"nand_writes", "host_writes"}, {"steps[0].nand_written_mb",
                                               "steps[0].device_written_mb"})]
    assert wa, "no lesson asks for a write amplification computed from counts"


def test_lesson_one_quiz_uses_only_what_lesson_one_teaches():
    first = next(x for x in bundled() if x.order == 1)
    tiny = [s for s in first.steps if s.kind == "quiz" and s.measure is None]
    assert tiny and all(s.frontier == "shared" for s in tiny), (
        "lesson 1 teaches one open block; a separate GC frontier comes in lesson 3")
