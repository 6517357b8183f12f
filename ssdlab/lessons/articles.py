"""The source articles, named once in words (ssdlab/lessons/articles.toml), and where their text
is: ../shared/seeds/NNN_*.txt beside the project, where a checkout has them.

A lesson names an article by its number ("000"); a student reads its short name ("the 2011
discard article"), and a citation says who spoke: the article's author, the author answering a
reader, or a reader (speaker()). A compare row's source is one or more numbers joined by "/",
optionally followed by " reader" for a reader's comment on the article.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ARTICLES_FILE = Path(__file__).resolve().parent / "articles.toml"
ROOT = Path(__file__).resolve().parents[2]  # the checkout holding ssdlab/


def seeds_folder(root: Path = ROOT) -> Path:
    """../shared/seeds beside the checkout; for a git worktree, beside its main checkout
    (the worktree's .git file names the main repository's git folder)."""
    here = root.parent / "shared" / "seeds"
    git = root / ".git"
    if not here.is_dir() and git.is_file():
        m = re.match(r"gitdir:\s*(.+)", git.read_text(encoding="utf-8").strip())
        if m:  # MAIN/.git/worktrees/NAME -> MAIN
            main = Path(m.group(1)).resolve().parents[2]
            if (main.parent / "shared" / "seeds").is_dir():
                return main.parent / "shared" / "seeds"
    return here


SEEDS = seeds_folder()


@dataclass(frozen=True)
class Article:
    id: str  # the seed file's number, "000"
    title: str  # as written in the article
    author: str  # as the article names them; "" where it does not
    short: str  # how lesson text names it, in words
    about: str
    language: str = "en"  # "no": quotes from it are shown with a translation
    comments_from: str = ""  # the words where its readers' comments begin ("" for none)
    author_says: str = ""  # who spoke, in words, for the author's own text
    reply_says: str = ""  # ... for the author answering a reader ("" when they never do)
    reader_says: str = ""  # ... for a reader's comment ("" when the page has none)


@cache
def articles() -> dict[str, Article]:
    return {a.id: a for a in parse_articles(ARTICLES_FILE.read_text(encoding="utf-8"),
                                            str(ARTICLES_FILE))}


def parse_articles(text: str, path: str = "<articles>") -> tuple[Article, ...]:
    """Read and check an articles file; LessonError names file, line and field."""
    from .fields import Reader
    from .lesson import LessonError

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LessonError(f"{path}: not valid TOML: {e}") from e
    r = Reader(text, path)
    r.table(data, (), ("format", "articles"))
    if data.get("format") != 1:
        r.fail(("format",), f"format must be 1; got {data.get('format')!r}")
    raw = data.get("articles")
    if not isinstance(raw, list) or not raw:
        r.fail(("articles",), "needs at least one [[articles]] entry")
    out, seen = [], {}
    for i, t in enumerate(raw):
        at = ("articles", i)
        r.table(t, at, ("id", "title", "author", "short", "about", *_VOICE_KEYS))
        a = Article(r.text(t, "id", at), r.text(t, "title", at),
                    r.text(t, "author", at, required=False), r.text(t, "short", at),
                    r.text(t, "about", at), r.text(t, "language", at, required=False,
                                                   default="en"),
                    *(r.text(t, k, at, required=False) for k in _VOICE_KEYS[1:]))
        if not re.fullmatch(r"[a-z]{2}", a.language):
            r.fail(at + ("language",), f"must be a two-letter language code such as en or "
                   f"no; got {a.language!r}")
        if not a.author_says:
            r.fail(at + ("author_says",), "author_says is required: who wrote the article, "
                   "in words")
        if (a.reply_says or a.reader_says) and not a.comments_from:
            r.fail(at + ("comments_from",), "an article with replies or readers' comments "
                   "names the words where its comments begin")
        if not re.fullmatch(r"\d{3}", a.id):
            r.fail(at + ("id",), f"must be the seed file's three-digit number; got {a.id!r}")
        for key in ("id", "short"):
            value = getattr(a, key)
            if (key, value) in seen:
                r.fail(at + (key,), f"{key} must differ between articles; {value!r} is also "
                       f"articles[{seen[key, value]}]")
            seen[key, value] = i
        out.append(a)
    return tuple(out)


BY = ("author", "author-reply", "reader")  # who said a cited figure or quote
_VOICE_KEYS = ("language", "comments_from", "author_says", "reply_says", "reader_says")


def speaker(article: str, by: str) -> str:
    """Who spoke, in words: "a reader's comment on the 2011 discard article" ("" when the
    article has no such voice)."""
    a = articles().get(article)
    if a is None:
        return f"an unknown article ({article})"
    return {"author": a.author_says, "author-reply": a.reply_says,
            "reader": a.reader_says}[by]


def short_name(article: str) -> str:
    a = articles().get(article)
    return a.short if a else f"an unknown article ({article})"


def source_words(source: str) -> str:
    """A compare row's source ("000/001", "000 reader", "analytic model") in words."""
    if source == "analytic model":
        return "the published analytic model"
    reader = source.endswith(" reader")
    ids = source.removesuffix(" reader").split("/")
    names = list(dict.fromkeys(short_name(i.strip()) for i in ids))
    words = " and ".join(names)
    return f"a reader's comment on {words}" if reader else words


def article_text(article: str, seeds: Path = SEEDS) -> str | None:
    """The article's text from seeds/NNN_*.txt, or None where the seeds are not here."""
    found = sorted(seeds.glob(f"{article}_*.txt")) if seeds.is_dir() else []
    return found[0].read_text(encoding="utf-8") if found else None
