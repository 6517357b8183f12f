"""The glossary: data (ssdlab/lessons/glossary.toml), each term a short definition and the lesson
that shows it. Lesson text links a term as [[term]] or [[term|the words shown]]; the
loader checks every link resolves, and check_glossary that every term names a lesson.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from ssdlab.model.inputfile import InputFileError, read_text_input

from .lesson import LessonError
from .lines import LineIndex, path_text

GLOSSARY = Path(__file__).resolve().parent / "glossary.toml"
LINK = re.compile(r"\[\[([^\[\]|]+)(?:\|([^\[\]]+))?\]\]")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


@dataclass(frozen=True)
class Term:
    term: str
    definition: str
    lesson: str  # id of the lesson that shows it
    aliases: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class Glossary:
    terms: tuple[Term, ...]
    path: str = ""

    def find(self, name: str) -> Term | None:
        """The term named name or one of its aliases (case and spacing ignored)."""
        key = " ".join(name.lower().split())
        return self._by_key.get(key)

    @cached_property
    def _by_key(self) -> dict[str, Term]:
        """Every name and alias, case and spacing folded (made once: a window looks terms
        up a few dozen times as it is built)."""
        return {" ".join(n.lower().split()): t for t in self.terms
                for n in (t.term, *t.aliases)}

    def search(self, text: str) -> list[Term]:
        """Terms whose name, alias or definition contains text (the Glossary window)."""
        needle = text.lower().strip()
        return [t for t in self.terms if needle in t.term.lower()
                or any(needle in a.lower() for a in t.aliases)
                or needle in t.definition.lower()]


def links(text: str) -> list[str]:
    """The glossary terms a Markdown text links, in order."""
    return [m.group(1).strip() for m in LINK.finditer(text)]


def render_links(text: str, href=lambda term: f"glossary:{term}") -> str:
    """Markdown with each [[term|shown]] turned into a link [shown](href(term)); a link the
    text wraps across lines reads as if on one (its line break a space, as Markdown does)."""
    return LINK.sub(lambda m: f"[{_words(m.group(2) or m.group(1))}]"
                              f"({href(_words(m.group(1))).replace(' ', '%20')})", text)


def plain(text: str) -> str:
    """Markdown with each [[term|shown]] turned into its shown words."""
    return LINK.sub(lambda m: _words(m.group(2) or m.group(1)), text)


def _words(text: str) -> str:
    return " ".join(text.split())


def parse_glossary(text: str, path: str = "<glossary>") -> Glossary:
    index = LineIndex(text)

    def fail(at: tuple, message: str):
        raise LessonError(f"{path}:{index.line_of(at)}: {path_text(at)}: {message}")

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LessonError(f"{path}: not valid TOML: {e}") from e
    except RecursionError:
        raise LessonError(f"{path}: arrays or tables nested too deeply") from None
    if type(data.get("format")) is not int or data.get("format") != 1:
        fail(("format",), f"format must be 1 (supported: 1); got {data.get('format')!r}")
    for key in data:
        if key not in ("format", "terms"):
            fail((key,), f"unknown field {key!r}; allowed: format, terms")
    terms, seen = [], {}
    raw_terms = data.get("terms", [])
    if not isinstance(raw_terms, list) or not raw_terms:
        fail(("terms",), "a glossary needs at least one [[terms]] entry")
    for i, raw in enumerate(raw_terms):
        at = ("terms", i)
        if not isinstance(raw, dict):
            fail(at, "must be a table with term, definition, lesson")
        for key in raw:
            if key not in ("term", "definition", "lesson", "aliases"):
                fail(at + (key,), f"unknown field {key!r}; allowed: aliases, definition, "
                     "lesson, term")
        for key in ("term", "definition", "lesson"):
            if not isinstance(raw.get(key), str) or not raw[key].strip():
                fail(at + (key,), f"{key} must be a non-empty string")
        aliases = raw.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip()
                                                    for a in aliases):
            fail(at + ("aliases",), "aliases must be a list of non-empty strings")
        sentences = len(_SENTENCE_END.findall(raw["definition"].strip()))
        if not 2 <= sentences <= 3:
            fail(at + ("definition",), f"a definition is 2 or 3 sentences; got {sentences}")
        for name in (raw["term"], *aliases):
            key = " ".join(name.lower().split())
            if key in seen:
                fail(at + ("term",), f"{name!r} is already defined at line {seen[key]}")
            seen[key] = index.line_of(at + ("term",))
        terms.append(Term(raw["term"].strip(), " ".join(raw["definition"].split()),
                          raw["lesson"].strip(), tuple(a.strip() for a in aliases),
                          index.line_of(at + ("term",))))
    return Glossary(tuple(terms), path)


@lru_cache(maxsize=1)
def load_glossary(path: Path = GLOSSARY) -> Glossary:
    try:
        text = read_text_input(path, what="a glossary file (TOML)")
    except InputFileError as e:
        raise LessonError(str(e)) from None
    return parse_glossary(text, str(path))


def check_glossary(glossary: Glossary, lesson_ids: set[str]) -> None:
    """Every term names a lesson that exists, and every link in a definition resolves."""
    for t in glossary.terms:
        if t.lesson not in lesson_ids:
            raise LessonError(f"{glossary.path}:{t.line}: {t.term}: lesson must be one of "
                              f"{', '.join(sorted(lesson_ids))}; got {t.lesson!r}")
        for name in links(t.definition):
            if glossary.find(name) is None:
                raise LessonError(f"{glossary.path}:{t.line}: {t.term}: the link [[{name}]] "
                                  "names no glossary term")
