"""The bundled lessons: every lessons/*.toml file except the glossary, in lesson order."""

from __future__ import annotations

from pathlib import Path

from .glossary import GLOSSARY
from .lesson import Lesson, LessonError
from .loader import load_lesson

HERE = Path(__file__).resolve().parent


def bundled_paths() -> list[Path]:
    return sorted(p for p in HERE.glob("*.toml") if p != GLOSSARY)


def bundled() -> list[Lesson]:
    """Every bundled lesson, loaded and checked, sorted by its order field."""
    return sorted((load_lesson(p) for p in bundled_paths()), key=lambda x: x.order)


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
