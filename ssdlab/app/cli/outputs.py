"""The files a command writes besides its printout (`ssdlab run --csv/--series`).

Checked before any work, so a bad path costs nothing: each must be writable, none may be
the input being read, and no two may be the same file (the second would silently replace
the first). Written together at the end (ssdlab/app/atomicfile.py write_together), so a failed,
interrupted or out-of-space run leaves every existing file exactly as it was, none replaced
while another could not be written.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping, Sequence

from ssdlab.app.atomicfile import OutputFileError, check_writable, write_together


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False


# Step fields that name a file the run reads; an output naming one would destroy it.
INPUT_FIELDS = ("trace", "tar")


def files_read(scenario_path: str, steps) -> dict[str, str]:
    """What a scenario run reads, by name for messages: the scenario and its steps' files."""
    found = {"scenario": scenario_path}
    for i, step in enumerate(steps):
        for key in INPUT_FIELDS:
            path = step.args.get(key)
            if isinstance(path, str) and path:
                found[f"steps[{i}].{key} file"] = path
    return found


def check_outputs(inputs: Mapping[str, str], outputs: Mapping[str, str | None]) -> None:
    """inputs and outputs map a flag (or "scenario") to a path; outputs not given are None.
    Raises OutputFileError naming the flag and the path. An empty name is refused: an
    output asked for and never written would look like success."""
    for flag, path in outputs.items():
        if path is not None and not str(path).strip():
            raise OutputFileError(f"{flag} {str(path)!r}: names no file; give a file name")
    given = [(flag, path) for flag, path in outputs.items() if path]
    for n, (flag, path) in enumerate(given):
        for name, source in inputs.items():
            if _same_file(path, source):
                raise OutputFileError(f"{flag} {path}: is the {name} being read; name "
                                      "another file")
        for other, earlier in given[:n]:
            if _same_file(path, earlier):
                raise OutputFileError(f"{flag} {path}: is the file {other} writes too; "
                                      "name another file")
        try:
            check_writable(path)
        except OutputFileError as e:
            raise OutputFileError(f"{flag} {e}") from None


def csv_text(fields: Sequence[str], rows: Iterable[Mapping]) -> str:
    """A CSV table with a header row."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fields))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def write_csvs(tables: Sequence[tuple[str, str, Sequence[str], Iterable[Mapping]]]) -> None:
    """(flag, path, fields, rows) each as a CSV file, all or none: every file is whole on disk
    before any replaces the old one. OutputFileError names the flag and the path."""
    try:
        write_together([(path, csv_text(fields, rows)) for _, path, fields, rows in tables])
    except OutputFileError as e:
        flag = next((f for f, path, _, _ in tables if str(e).startswith(f"{path}:")), "")
        raise OutputFileError(f"{flag} {e}".strip()) from None
