"""A lesson's documented figures and attributed claims, each traceable to its article.

A lesson file may have a top-level array of tables

    [[sources]]
    id = "vertex-discard-sync"   # a-z0-9-, unique in the lesson
    article = "000"              # the seed file's number (ssdlab/lessons/articles.toml)
    figure = "40.41"             # the number exactly as the article writes it
    unit = "s"                   # the unit as the article writes it ("" when it gives none)
    claim = "final sync after rm -rf, with discard, OCZ Vertex LE 100 GB, kernel 2.6.39"
    by = "author"                # who said it: author (default), author-reply or reader

or, for a claim without a number, quote = "a short phrase the article contains verbatim"
instead of figure and unit; a quote from an article not in English also carries
translation = "the same phrase in English, in our words". Lesson text shows a documented
figure only as {{doc:ID}}: it renders as "40.41 s (the author of the 2011 discard
article)", a quote as "(a reader's comment on the 2011 discard article: “...”)". Within one
paragraph a citation names who spoke only when the citation before it named someone else,
so a run of figures from one source names it once, at its first figure. The loader checks
that every article exists, every {{doc:ID}} names a source and every source is used;
tests/test_lesson_sources.py checks each figure and quote against the article's text (and
that what a reader said lies in the readers' comments) wherever the articles are at hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .articles import BY, articles, speaker
from .fields import Reader

DOC = re.compile(r"\{\{doc:([^{}]*)\}\}")
_SOURCE_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
SOURCE_KEYS = ("id", "article", "figure", "unit", "quote", "claim", "by", "translation")
# the keys of a step (and of its choices) whose text a student reads
TEXT_KEYS = ("title", "text", "question", "why", "varies")
CHOICE_TEXT_KEYS = ("text", "explain")


@dataclass(frozen=True)
class Source:
    id: str
    article: str  # "000": the seed file's number
    claim: str  # what the figure or quote is about, in words
    figure: str = ""  # as written in the article
    unit: str = ""  # as written in the article
    quote: str = ""  # a phrase the article contains verbatim (a claim without a number)
    line: int = 0
    by: str = "author"  # who said it: "author", "author-reply" (answering a reader), "reader"
    translation: str = ""  # the quote in English, our words (an article not in English)

    @property
    def voice(self) -> tuple[str, str]:
        """Whose words these are: a paragraph names each voice once per run of citations."""
        return self.article, self.by

    def rendered(self, named: bool = True) -> str:
        """How lesson text shows it: the figure with its unit, or the quote (and its
        translation), and, when named, who said it in which article, in words."""
        who = speaker(self.article, self.by)
        if self.quote:
            quote = f"“{self.quote}”"
            if self.translation:
                quote += f", in our translation “{self.translation}”"
            return f"({who}: {quote})" if named else f"({quote})"
        value = f"{self.figure} {self.unit}".strip()
        return f"{value} ({who})" if named else value


def read_sources(r: Reader, raw) -> tuple[Source, ...]:
    """The [[sources]] tables: ids unique, a known article, a figure or a quote."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        r.fail(("sources",), "must be a list of [[sources]] tables")
    known = articles()
    out, seen = [], {}
    for i, t in enumerate(raw):
        at = ("sources", i)
        r.table(t, at, SOURCE_KEYS)
        sid = r.text(t, "id", at)
        if not _SOURCE_ID.match(sid):
            r.fail(at + ("id",), f"must be 1 to 60 of a-z, 0-9 and -; got {sid!r}")
        if sid in seen:
            r.fail(at + ("id",), f"source ids must differ; {sid!r} is also sources[{seen[sid]}]")
        seen[sid] = i
        article = r.text(t, "article", at)
        if article not in known:
            r.fail(at + ("article",), f"must be one of the articles {', '.join(known)} "
                   f"(ssdlab/lessons/articles.toml); got {article!r}")
        by = r.one_of(t, "by", at, BY, default="author")
        if not speaker(article, by):
            r.fail(at + ("by",), f"article {article} has no "
                   f"{'readers' if by == 'reader' else 'replies by its author'} "
                   f"(ssdlab/lessons/articles.toml); got {by!r}")
        english = known[article].language == "en"
        has_figure, has_quote = "figure" in t, "quote" in t
        if "translation" in t and (english or not has_quote):
            r.fail(at + ("translation",), "only a quote from an article not in English has "
                   f"a translation; article {article} is in {known[article].language!r}")
        if has_quote and not english and "translation" not in t:
            r.fail(at + ("translation",), f"article {article} is not in English: a quote "
                   "from it carries translation = \"the phrase in English, in our words\"")
        if has_figure == has_quote:
            r.fail(at + ("figure",), "a source gives either figure (with unit) or quote, "
                   "not both and not neither")
        if has_quote and "unit" in t:
            r.fail(at + ("unit",), "a quote has no unit; unit goes with figure")
        if has_figure:
            figure = r.text(t, "figure", at)
            if not re.search(r"\d", figure) and not re.fullmatch(r"[a-z]+", figure):
                r.fail(at + ("figure",), f"must be a number as the article writes it; got "
                       f"{figure!r}")
            if "unit" not in t:
                r.fail(at + ("unit",), 'unit is required with figure ("" when the article '
                       "gives none)")
            unit = t["unit"]
            if not isinstance(unit, str):
                r.fail(at + ("unit",), f"must be a string; got {unit!r}")
            out.append(Source(sid, article, r.text(t, "claim", at), figure, unit.strip(),
                              line=r.line(at), by=by))
        else:
            out.append(Source(sid, article, r.text(t, "claim", at),
                              quote=r.text(t, "quote", at), line=r.line(at), by=by,
                              translation="" if english else r.text(t, "translation", at)))
    return tuple(out)


def _texts(data: dict):
    """(path, text) of every text a student reads: summary, step texts and choices."""
    if isinstance(data.get("summary"), str):
        yield ("summary",), data["summary"]
    for i, step in enumerate(data.get("steps") or []):
        if not isinstance(step, dict):
            continue
        for k in TEXT_KEYS:
            if isinstance(step.get(k), str):
                yield ("steps", i, k), step[k]
        for j, c in enumerate(step.get("choices") or []):
            if isinstance(c, dict):
                for k in CHOICE_TEXT_KEYS:
                    if isinstance(c.get(k), str):
                        yield ("steps", i, "choices", j, k), c[k]
        for j, c in enumerate(step.get("configs") or []):
            if isinstance(c, dict) and isinstance(c.get("label"), str):
                yield ("steps", i, "configs", j, "label"), c["label"]


def check_uses(r: Reader, data: dict, sources: tuple[Source, ...]) -> None:
    """Every {{doc:ID}} names a source of this lesson, and every source is shown."""
    ids = {s.id: s for s in sources}
    used = set()
    for at, text in _texts(data):
        left = DOC.sub("", text)
        if "{{" in left or "}}" in left:
            # {{doc:{{doc:s1}}}} would render as "{{doc:40.41 s}}": a brace pair is only
            # ever one {{doc:ID}}, never nested, never left open
            r.fail(at, "{{ and }} only enclose one source as {{doc:ID}}, never nested or "
                   f"unmatched; got {text.strip()[:80]!r}")
        for name in DOC.findall(text):
            if name.strip() not in ids:
                r.fail(at, f"{{{{doc:{name}}}}} names no [[sources]] entry of this lesson "
                       f"(sources: {', '.join(ids) or 'none'})")
            used.add(name.strip())
    for i, s in enumerate(sources):
        if s.id not in used:
            r.fail(("sources", i, "id"), f"source {s.id!r} is never shown: lesson text "
                   f"shows it as {{{{doc:{s.id}}}}}")


def render(data: dict, sources: tuple[Source, ...]) -> dict:
    """The lesson's tables with every {{doc:ID}} replaced by its rendered figure (in place
    on copies of the step tables; the caller has checked every id)."""
    by_id = {s.id: s for s in sources}

    def sub(text: str) -> str:
        return render_text(text, by_id)

    out = dict(data)
    if isinstance(out.get("summary"), str):
        out["summary"] = sub(out["summary"])
    steps = []
    for step in data.get("steps") or []:
        if isinstance(step, dict):
            step = {k: sub(v) if k in TEXT_KEYS and isinstance(v, str) else v
                    for k, v in step.items()}
            for key, keys in (("choices", CHOICE_TEXT_KEYS), ("configs", ("label",))):
                if isinstance(step.get(key), list):
                    step[key] = [{k: sub(v) if k in keys and isinstance(v, str) else v
                                  for k, v in c.items()} if isinstance(c, dict) else c
                                 for c in step[key]]
        steps.append(step)
    out["steps"] = steps
    return out


PARAGRAPH = re.compile(r"(\n[ \t]*\n)")


def render_text(text: str, by_id: dict[str, Source]) -> str:
    """text with every {{doc:ID}} rendered. In each paragraph (text between blank lines) a
    citation names who spoke only when the one before it did not name the same voice: seven
    figures from one article in a row name it once, at the first; a reader's figure between
    two of the author's names both voices again."""
    parts = PARAGRAPH.split(text)
    for i in range(0, len(parts), 2):  # odd parts are the blank lines between paragraphs
        last = None

        def one(m: re.Match) -> str:
            nonlocal last
            source = by_id[m.group(1).strip()]
            named, last = source.voice != last, source.voice
            return source.rendered(named)

        parts[i] = DOC.sub(one, parts[i])
    return "".join(parts)
