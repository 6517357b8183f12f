"""One sweep point run, its result line, and the results file read back for --resume.

A result is one JSON object per line (JSON Lines):

    {"key": ..., "point": {...}, "status": "ok" | "failed", "result": {...} | null,
     "error": null | "one-line message", "wall_s": 12.3, "ssdlab_version": "0.1.0",
     "source_revision": "v0.1-12-gabc1234"}

`ssdlab_version` and, when the run came from a git checkout, `source_revision` say which
SSD Lab measured the point (ssdlab/model/provenance.py).

`key` is the point's canonical JSON (sweep.point_key), so a point already in the file is
never run again. `result` holds the figures the sweep measures; a drive point always carries
the simulated WA beside the analytic one (ssdlab/model/flash/theory/ via the runner), so a chart
needs nothing else. Non-finite numbers are written as null: JSON has no NaN. `wall_s` is the
run's wall-clock time in seconds and the only field that differs between two runs of a point.

run_task never raises for a point the model refuses or cannot finish: the failure is the
record. Nothing here knows about processes or clusters; the front end ships tasks to them.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass

from ssdlab.model.inputfile import InputFileError, read_input
from ssdlab.model.provenance import stamp

from .sweep import DRIVE_ALWAYS, Task, drive_spec


def _finite(value):
    """value with every non-finite float replaced by None, recursively (lists, dicts)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def record(task: Task, result: dict | None, error: str | None, wall_s: float) -> dict:
    """The result line of a task, as a dict (see the module docstring)."""
    return {"key": task.key, "point": task.point, "status": "ok" if error is None else "failed",
            "result": _finite(result), "error": error, "wall_s": round(wall_s, 3),
            **stamp()}


def failed(task: Task, error: BaseException | str, wall_s: float = 0.0) -> dict:
    """A failed task's record, with the message on one line."""
    text = error if isinstance(error, str) else (str(error) or type(error).__name__)
    return record(task, None, " ".join(text.split()), wall_s)


def _measure_drive(task: Task) -> dict:
    from ssdlab.model.flash.runner import run

    figures = run(drive_spec(task.point)[2]).as_dict()
    return {k: figures[k] for k in dict.fromkeys((*DRIVE_ALWAYS, *task.measure))}


def _measure_scenario(task: Task) -> dict:
    from .scenario import parse_scenario, run_scenario

    steps = run_scenario(parse_scenario(task.scenario_text, task.scenario_path))
    rows = [r.as_dict() for r in steps]
    return {"steps": [{"name": row["name"], **{k: row[k] for k in task.measure}}
                      for row in rows]}


def run_task(task: Task) -> dict:
    """Run one point and return its record; a failure is recorded, never raised.

    Ctrl-C (KeyboardInterrupt) is not a failure of the point: it passes through."""
    t0 = time.perf_counter()
    try:
        result = _measure_scenario(task) if task.scenario_text else _measure_drive(task)
    except (Exception, MemoryError) as e:  # the point's failure, kept with its message
        return failed(task, e, time.perf_counter() - t0)
    return record(task, result, None, time.perf_counter() - t0)


def line(rec: dict) -> str:
    """The record as one line of JSON Lines, newline included."""
    return json.dumps(rec, sort_keys=True, allow_nan=False) + "\n"


class ResultsError(ValueError):
    """A results file that cannot be resumed: one line naming the file and the line."""


@dataclass(frozen=True)
class Results:
    """A results file read back. records: the last record of each key, in file order;
    good_bytes: the length of its whole lines (a torn last line lies beyond it);
    torn: whether such a line was found."""

    records: dict[str, dict]
    good_bytes: int
    torn: bool

    def done(self) -> set[str]:
        """Keys of the points that finished ("ok"); a failed point may be tried again."""
        return {k for k, r in self.records.items() if r.get("status") == "ok"}


# line() writes keys sorted, so every record starts with this; a torn last line is only
# taken for one (and cut) when it starts so, or is a start of it, or whole lines before it
# are records: a file that is not a sweep's is never cut short.
RECORD_START = b'{"error": '
MAX_RESULTS_BYTES = 1 << 30


def _record(raw: bytes) -> dict:
    """One whole line as a sweep record; ValueError saying why it is not one."""
    try:
        rec = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if not isinstance(rec, dict) or not isinstance(rec.get("key"), str):
        raise ValueError("not a sweep record (no key)")
    if rec.get("status") not in ("ok", "failed"):
        raise ValueError("not a sweep record (status must be ok or failed)")
    return rec


def _torn_record(raw: bytes, records: dict) -> bool:
    """Whether an unfinished last line is a sweep record cut short by a kill."""
    head = raw.lstrip()
    if records:
        return head.startswith(b"{")
    return head.startswith(RECORD_START) or (bool(head) and RECORD_START.startswith(head))


def read_results(path: str) -> Results:
    """Read a results file. Only its last line may be torn (a run killed while writing it:
    the start of a record, no newline); any other unreadable line raises ResultsError
    naming the file and the line, so a file that is not a sweep's is never cut short.
    Never blocks on a FIFO nor reads a device (ssdlab/model/inputfile.py)."""
    try:
        data = read_input(path, MAX_RESULTS_BYTES)
    except InputFileError as e:
        raise ResultsError(str(e)) from None
    records: dict[str, dict] = {}
    good = 0
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        last = number == len(lines)
        if not raw.strip():
            good += len(raw) + (0 if last else 1)
            continue
        try:
            rec = _record(raw)
        except ValueError as e:
            # Each line is written whole with its newline in one call, so a run killed
            # mid-write leaves a start of a record with no newline, and nothing else.
            if last and _torn_record(raw, records):
                return Results(records, good, True)
            raise ResultsError(f"{path}:{number}: is not a sweep result line ({e}); only the "
                               "last line may be unfinished") from None
        if last:  # a whole record but no newline: cut short before it; cut and run it again
            return Results(records, good, True)
        records.pop(rec["key"], None)  # a later record of a key replaces the earlier
        records[rec["key"]] = rec
        good += len(raw) + 1
    return Results(records, good, False)
