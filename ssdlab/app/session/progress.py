"""A student's way through the lessons, kept between sessions: which lessons are finished,
the step each lesson was left at and the predictions made in it. A small JSON file in the
user's configuration folder ($SSDLAB_CONFIG_DIR, else $XDG_CONFIG_HOME/ssdlab, else
~/.config/ssdlab), written to a temporary name and renamed. A file that cannot be read is
set aside, never trusted: the student starts afresh and is told why. No Qt here.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.app.atomicfile import OutputFileError, write_atomic
from ssdlab.app.session.configfile import read_json, unusable
from ssdlab.model.cachedir import cache_root, home_dir

FILE_NAME = "lessons.json"
FORMAT = 1


def config_dir() -> Path:
    if os.environ.get("SSDLAB_CONFIG_DIR"):
        return Path(os.environ["SSDLAB_CONFIG_DIR"])
    xdg, home = os.environ.get("XDG_CONFIG_HOME", ""), home_dir()
    if os.path.isabs(xdg):
        return Path(xdg) / "ssdlab"
    if home is None:  # no home at all: beside the caches, in the private temporary folder
        return cache_root() / "config"
    return Path(home) / ".config" / "ssdlab"


@dataclass
class Progress:
    """finished: lesson ids done; at: lesson id -> step index (0-based) last shown;
    answers: lesson id -> {predict step id -> answer (a choice index or an estimate)}."""

    finished: set[str] = field(default_factory=set)
    at: dict[str, int] = field(default_factory=dict)
    answers: dict[str, dict[str, float]] = field(default_factory=dict)
    path: Path | None = None
    problem: str = ""  # why a saved file was not used ("" when it was, or there was none)

    def visit(self, lesson_id: str, step: int) -> None:
        self.at[lesson_id] = int(step)
        self.save()

    def remember(self, lesson_id: str, step_id: str, answer: float) -> None:
        """A prediction made: a lesson reopened later shows it chosen."""
        self.answers.setdefault(lesson_id, {})[step_id] = float(answer)
        self.save()

    def forget_answers(self, lesson_id: str) -> None:
        if self.answers.pop(lesson_id, None) is not None:
            self.save()

    def finish(self, lesson_id: str) -> None:
        self.finished.add(lesson_id)
        self.at.pop(lesson_id, None)
        self.answers.pop(lesson_id, None)
        self.save()

    def forget(self) -> None:
        self.finished.clear()
        self.at.clear()
        self.answers.clear()
        self.save()

    def save(self) -> str:
        """Write the file; returns "" or why it could not be written (the lesson goes on)."""
        if self.path is None:
            return ""
        data = {"format": FORMAT, "finished": sorted(self.finished),
                "at": {k: v for k, v in sorted(self.at.items())},
                "answers": {k: dict(sorted(v.items())) for k, v in sorted(self.answers.items())}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(str(self.path), json.dumps(data, indent=1) + "\n")
        except (OSError, OutputFileError) as e:
            return f"lesson progress not saved: {e}"
        return ""


def load_progress(path: Path | None = None) -> Progress:
    """The saved progress, or a fresh one (with .problem set when the file was unusable)."""
    path = path if path is not None else config_dir() / FILE_NAME
    data, problem = read_json(path)
    if problem:
        return _afresh(path, problem)
    if data is None:
        return Progress(path=path)
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"format must be {FORMAT}")
        finished = data.get("finished", [])
        at = data.get("at", {})
        if not (isinstance(finished, list) and all(isinstance(x, str) for x in finished)):
            raise ValueError("finished must be a list of lesson ids")
        if not (isinstance(at, dict) and all(isinstance(k, str) and isinstance(v, int)
                                             and v >= 0 for k, v in at.items())):
            raise ValueError("at must map lesson ids to step numbers from 0")
        answers = data.get("answers", {})  # absent in files written before it was kept
        if not (isinstance(answers, dict) and all(
                isinstance(k, str) and isinstance(v, dict) and all(
                    isinstance(s, str) and isinstance(a, (int, float))
                    and not isinstance(a, bool) and math.isfinite(a) for s, a in v.items())
                for k, v in answers.items())):
            raise ValueError("answers must map lesson ids to {step id: number}")
    except ValueError as e:
        return _afresh(path, unusable(path, str(e)))
    return Progress(set(finished), dict(at),
                    {k: {s: float(a) for s, a in v.items()} for k, v in answers.items()}, path)


def _afresh(path: Path, problem: str) -> Progress:
    """A fresh progress for an unusable file. It was set aside (NAME.bad), so saving never
    overwrites it; where it could not be, nothing is saved this session."""
    if os.path.lexists(path):
        return Progress(path=None, problem=f"{problem}; starting afresh; progress is not "
                        "saved this session, since the file could not be set aside")
    return Progress(path=path, problem=f"{problem}; starting afresh")
