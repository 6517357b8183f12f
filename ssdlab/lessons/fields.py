"""Typed access to a lesson's TOML tables: each getter fails with a LessonError naming the
file, the line (found by ssdlab/lessons/lines.py), the field path and the allowed values."""

from __future__ import annotations

import math
import re

from .lesson import LessonError
from .lines import LineIndex, path_text

_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


def _fmt(value) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


class Reader:
    """Typed field access that fails with file, line, field path and the allowed values."""

    def __init__(self, text: str, path: str):
        self.path = path
        self.index = LineIndex(text)

    def fail(self, at: tuple, message: str):
        raise LessonError(f"{self.path}:{self.index.line_of(at)}: {path_text(at)}: {message}")

    def line(self, at: tuple) -> int:
        return self.index.line_of(at)

    def table(self, value, at: tuple, allowed) -> dict:
        if not isinstance(value, dict):
            self.fail(at, "must be a table")
        for key in value:
            if key not in allowed:
                self.fail(at + (key,), f"unknown field {key!r}; allowed: "
                          f"{', '.join(sorted(allowed))}")
        return value

    def text(self, t: dict, key: str, at: tuple, required: bool = True,
             default: str = "") -> str:
        if key not in t:
            if required:
                self.fail(at + (key,), f"{key} is required (a non-empty string)")
            return default
        value = t[key]
        if not isinstance(value, str) or (required and not value.strip()):
            self.fail(at + (key,), f"must be a non-empty string; got {value!r}")
        return value.strip()

    def ident(self, t: dict, key: str, at: tuple) -> str:
        value = self.text(t, key, at)
        if not _ID.match(value):
            self.fail(at + (key,), "must be 1 to 40 of a-z, 0-9, - and _, starting with a "
                      f"letter or digit; got {value!r}")
        return value

    def number(self, t: dict, key: str, at: tuple, lo: float, hi: float, default=None,
               integer: bool = False):
        if key not in t:
            if default is None:
                self.fail(at + (key,), f"{key} is required (from {_fmt(lo)} to {_fmt(hi)})")
            return default
        value = t[key]
        kind = "a whole number" if integer else "a number"
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                integer and not isinstance(value, int)):
            self.fail(at + (key,), f"must be {kind} from {_fmt(lo)} to {_fmt(hi)}; got "
                      f"{value!r}")
        if not (math.isfinite(value) and lo <= value <= hi):
            self.fail(at + (key,), f"must be from {_fmt(lo)} to {_fmt(hi)}; got {value!r}")
        return value

    def flag(self, t: dict, key: str, at: tuple, default: bool) -> bool:
        value = t.get(key, default)
        if not isinstance(value, bool):
            self.fail(at + (key,), f"must be true or false; got {value!r}")
        return value

    def one_of(self, t: dict, key: str, at: tuple, allowed, default=None):
        value = t.get(key, default)
        if value not in allowed:
            self.fail(at + (key,), f"must be one of {', '.join(map(str, allowed))}; "
                      f"got {value!r}")
        return value

    def strings(self, t: dict, key: str, at: tuple) -> tuple[str, ...]:
        value = t.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip()
                                                  for v in value):
            self.fail(at + (key,), f"must be a list of non-empty strings; got {value!r}")
        return tuple(v.strip() for v in value)
