"""The bundled lessons: every ssdlab/lessons/*.toml file except the glossary, in lesson order."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ssdlab.model.inputfile import InputFileError, read_text_input

from .articles import ARTICLES_FILE, parse_articles
from .giveaway import check_giveaways
from .glossary import GLOSSARY
from .lesson import Lesson, LessonError
from .loader import load_lesson

HERE = Path(__file__).resolve().parent


def bundled_paths() -> list[Path]:
    return sorted(p for p in HERE.glob("*.toml") if p not in (GLOSSARY, ARTICLES_FILE))


def bundled() -> list[Lesson]:
    """Every bundled lesson, loaded and checked, sorted by its order field. Parsed once per
    version of the files (each window and every lookup asks; parsing all of them takes
    0.15 s), as the glossary is: a lesson is frozen data, so sharing it is safe."""
    stamps = []
    for p in bundled_paths():
        try:
            st = p.stat()
            stamps.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            stamps.append((p, -1, -1))  # load_lesson says what is wrong with it
    return list(_parsed(tuple(stamps)))


@lru_cache(maxsize=4)
def _parsed(stamps: tuple) -> tuple[Lesson, ...]:
    return tuple(sorted((load_lesson(p) for p, _, _ in stamps), key=lambda x: x.order))


def find(name: str) -> Lesson:
    """A bundled lesson by id, order number or file name, or a lesson file on disk."""
    lessons = bundled()
    for lesson in lessons:
        if name in (lesson.id, str(lesson.order), lesson.path.stem, lesson.path.name):
            return lesson
    if Path(name).is_file():
        return load_lesson(name)
    raise LessonError(f"lesson must be one of {', '.join(x.id for x in lessons)} (or its "
                      f"number, or a lesson file); got {name!r}")


def check_file(path: str | Path) -> str:
    """Check a lesson file, a glossary file (one whose top level holds [[terms]]) or the
    articles file ([[articles]]);
    returns a one-line summary, raises LessonError naming file, line and field."""
    import tomllib

    from .glossary import check_glossary, parse_glossary

    try:
        text = read_text_input(path, what="a lesson file (TOML)")
    except InputFileError as e:
        raise LessonError(str(e)) from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        data = {}  # the lesson loader reports the syntax error
    is_glossary = "terms" in data
    if "articles" in data:
        return f"articles, {len(parse_articles(text, str(path)))} articles"
    if is_glossary:
        glossary = parse_glossary(text, str(path))
        check_glossary(glossary, {x.id for x in bundled()})
        return f"glossary, {len(glossary.terms)} terms"
    lesson = load_lesson(path)
    check_compare_rows(lesson)
    check_giveaways(lesson)
    return f"{lesson.id}, {len(lesson.steps)} steps, {len(lesson.terms)} glossary terms"


def check_compare_rows(lesson: Lesson) -> None:
    """Each of a compare step's rows names a row of its experiment (as the player picks
    them: a case-blind part of "experiment: quantity"); otherwise the lesson failed only
    when that step was played. The rows come from the rows cache (ssdlab/model/lab/rowcache.py),
    replayed once when missing, which is why the window's loader does not check this."""
    from .player import experiment_rows

    for i, step in enumerate(lesson.steps):
        if step.kind != "compare" or step.experiment is None or not step.rows:
            continue
        labels = [f"{r.experiment}: {r.quantity}" for r in experiment_rows(step.experiment)]
        for j, want in enumerate(step.rows):
            if not any(want.lower() in label.lower() for label in labels):
                raise LessonError(f"{lesson.path}:{step.line}: steps[{i}].rows[{j}]: no row "
                                  f"of experiment {step.experiment!r} contains {want!r}; its "
                                  f"rows: {'; '.join(labels)}")
