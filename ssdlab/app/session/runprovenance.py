"""What reproduces a figure of a workbench run that is not a scenario file's: said one way by
the window's exports (File > Export chart, Export all charts) and by `ssdlab chart
SESSION.json`, so a file says the same whichever made it. No Qt.

Settings alone do not make a run again: the log does (each workload segment with its seed
and length, each file-system step with its arguments), on the drive the settings build,
whose every part (gc_frontier and victim_order included) is written out so no engine
default goes unsaid. The command line adds the session file it read (named from the
project or the figure's folder, never an absolute path, and its sha256), whether it
replayed the log, and the command that writes the figure again.
"""

from __future__ import annotations

from dataclasses import asdict

from ssdlab.model.lab.provenance import file_sha256, json_safe, part_settings, shown_path

from .settings import Settings


def session_provenance(settings: Settings, log: list[dict], path: str | None = None,
                       base: str | None = None, replayed: bool | None = None) -> dict:
    """Every setting of the run, its log and the drive it builds, and its seed; path: the
    session file it was read from (named by shown_path from `base`, the figure's folder,
    with its sha256); replayed: whether the log was run again to draw the figure."""
    session: dict = {}
    if path is not None:
        session |= {"file": shown_path(path, base), "sha256": file_sha256(path)}
    session |= {"settings": asdict(settings), "log": json_safe(log), "log_entries": len(log)}
    if replayed is not None:
        session["replayed"] = replayed
    return {"session": session,
            "drive": part_settings(settings.geometry(), settings.config()),
            "seed": settings.seed}
