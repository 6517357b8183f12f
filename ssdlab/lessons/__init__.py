"""Bundled lesson files (data, never code), the glossary, and their loader, validator and
headless player. See ssdlab/lessons/README.md for the format."""

from .catalogue import bundled, bundled_paths, find
from .glossary import Glossary, check_glossary, load_glossary
from .lesson import Lesson, LessonError
from .loader import load_lesson, parse_lesson
from .player import LessonClaimError, LessonPlay, play

__all__ = ["Glossary", "Lesson", "LessonClaimError", "LessonError", "LessonPlay", "bundled",
           "bundled_paths", "check_glossary", "find", "load_glossary", "load_lesson",
           "parse_lesson", "play"]
