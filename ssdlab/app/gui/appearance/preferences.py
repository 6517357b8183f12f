"""The person's preferences for how the window looks and moves, kept between sessions: the
colour profile, reduced motion and the text size. A small JSON file in the user's
configuration folder (ssdlab/app/session/progress.py's config_dir: $SSDLAB_CONFIG_DIR, else
$XDG_CONFIG_HOME/ssdlab, else ~/.config/ssdlab), written to a temporary name and renamed.
No Qt here.

- colours: "presentation" (projector colours in presentation mode, the light ones
  otherwise: the default, as before there were preferences), "normal" or "projector" (that
  profile whatever the mode: the projector's black page on a desk, or the light page full
  screen).
- reduced_motion: the block map changes each block's colour at most once a second (the
  flash guard's REDUCED_GAP_S, ssdlab/app/gui/drive/flashguard.py) instead of about three times,
  at every speed, teaching pace included; counters and charts still follow the run.
- text_pct: the type as a share of the desktop's own size (QApplication's general font),
  100, 125, 150 or 200 %; presentation mode's type is at least 18 pt.

A file with a bad value is never trusted for that value: its default is used and
`problem` says which field and what it may be; the file is rewritten only when the person
saves new choices. A file that cannot be read at all (not JSON, nested too deeply, a pipe or
a device in its place) is set aside beside it and defaults used (ssdlab/app/session/configfile.py).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from ssdlab.app.atomicfile import OutputFileError, write_atomic
from ssdlab.app.session.configfile import read_json
from ssdlab.app.session.progress import config_dir

FILE_NAME = "preferences.json"
FORMAT = 1
COLOURS = {"presentation": "projector colours in presentation mode only",
           "normal": "normal (light page)", "projector": "projector (black page)"}
TEXT_PCTS = (100, 125, 150, 200)


@dataclass(frozen=True)
class Preferences:
    colours: str = "presentation"
    reduced_motion: bool = False
    text_pct: int = 100

    def colour_profile(self, presenting: bool) -> str:
        """The theme's colour profile in force ("normal" or "projector")."""
        if self.colours == "presentation":
            return "projector" if presenting else "normal"
        return self.colours

    def font_pt(self, desktop_pt: float, presenting: bool, presentation_pt: int) -> int:
        """Type size in points: the desktop's, scaled; presentation mode's at least its own."""
        size = desktop_pt * self.text_pct / 100
        return round(max(size, presentation_pt) if presenting else size)


_ALLOWED = {
    "colours": (lambda v: isinstance(v, str) and v in COLOURS, f"one of {', '.join(COLOURS)}"),
    "reduced_motion": (lambda v: isinstance(v, bool), "true or false"),
    "text_pct": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v in TEXT_PCTS,
                 f"one of {', '.join(map(str, TEXT_PCTS))} (%)"),
}


def default_path() -> Path:
    return config_dir() / FILE_NAME


def parse(data: object) -> tuple[Preferences, list[str]]:
    """Preferences from a file's JSON, and the fields not used: each names its allowed
    values (defaults in their place)."""
    if not isinstance(data, dict):
        return Preferences(), ["the file must hold a JSON object"]
    problems = []
    if data.get("format", FORMAT) != FORMAT:
        problems.append(f"format must be {FORMAT}")
    chosen = {}
    for f in fields(Preferences):
        if f.name not in data:
            continue
        ok, allowed = _ALLOWED[f.name]
        value = data[f.name]
        if ok(value):
            chosen[f.name] = value
        else:
            problems.append(f"{f.name} must be {allowed}, not {json.dumps(value)}")
    unknown = sorted(set(data) - {f.name for f in fields(Preferences)} - {"format"})
    if unknown:
        problems.append(f"unknown field {', '.join(map(str, unknown))}")
    return replace(Preferences(), **chosen), problems


def load(path: Path | None = None) -> tuple[Preferences, str]:
    """The saved preferences and "" , or defaults where the file is bad and a one-line
    message saying why (naming the file, the field and the allowed values)."""
    path = default_path() if path is None else path
    data, problem = read_json(path)
    if problem:
        return Preferences(), f"{problem}; default preferences"
    if data is None:
        return Preferences(), ""
    prefs, problems = parse(data)
    if problems:
        return prefs, f"{path}: {'; '.join(problems)}; defaults used there"
    return prefs, ""


def save(prefs: Preferences, path: Path | None = None) -> str:
    """Write the file; returns "" or why it could not be written (the choice still holds
    for this session)."""
    path = default_path() if path is None else path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(str(path), json.dumps({"format": FORMAT} | asdict(prefs), indent=1) + "\n")
    except (OSError, OutputFileError) as e:
        return f"preferences not saved: {e}"
    return ""


_in_force = [Preferences()]


def in_force() -> Preferences:
    """The preferences the running window follows (the flash guard asks here)."""
    return _in_force[0]


def set_in_force(prefs: Preferences) -> None:
    _in_force[0] = prefs
