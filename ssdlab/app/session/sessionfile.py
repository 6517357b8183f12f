"""Session files: the workbench's settings, the log of what ran, and the recorded series, as
JSON.

Reading checks the whole file before anything is replaced: the JSON itself (UTF-8, no NaN
or Infinity, no repeated keys, no nesting deeper than a session has), every setting against
the controls' schema (ssdlab/app/session/schema.py) and the model's rules (check_settings), every
log entry (a block workload segment or a file-system step, checked as a scenario step is, its
trace or tar file present), and the series. Any fault is one SessionFileError naming the
file, where in it (`settings.capacity_mib`, `log[2].args.scale`, `series.wa[7]`), the value
and what is allowed. Writing goes to a temporary file that replaces the old one only once
it is complete, so a failed save never destroys an existing session.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

from ssdlab.app.atomicfile import write_atomic
from ssdlab.model.inputfile import InputFileError, read_input
from ssdlab.model.lab.scenario import STEP_FIELDS

from .fsjobs import FS_KINDS, FsStep
from .recorder import MAX_SERIES_ROWS, SERIES_COLUMNS
from .schema import SEED, SETTINGS, Field, check_record
from .settings import Settings, check_settings
from .streams import KINDS

FORMAT = "ssdlab-session"
VERSION = 1
# A saved run is a few MB (series thinned to at most 2 x MAX_SERIES_ROWS rows, a log entry
# per run or step): refusing more at once keeps the window from checking, drawing and
# replaying a 20 MB file for most of a minute on its own thread.
MAX_FILE_BYTES = 8 * 2**20
MAX_ROWS = 2 * MAX_SERIES_ROWS
MAX_LOG_ENTRIES = 10_000  # a run or step each; 48,000 took 3 s to check on a loaded machine
MAX_DEPTH = 8  # a session nests 5 deep (document, log, entry, args / from, value)

COUNT = Field(int, lo=0, hi=2**62)
DOCUMENT = {"format": Field(str, choices=(FORMAT,)), "version": Field(int, choices=(VERSION,)),
            "settings": Field(dict), "log": Field(list), "series": Field(dict)}
SHARE = Field(float, lo=0, hi=1, lo_open=True, hi_open=True)
# A block workload as the worker logs it (ssdlab/app/session/streams.py Segment).
SEGMENT = {"kind": Field(str, choices=tuple(KINDS)), "total": COUNT, "seed": SEED,
           "index": COUNT, "hot_lba_fraction": SHARE, "hot_write_fraction": SHARE,
           "trim_max_pages": SETTINGS["trim_max_pages"], "start_page": COUNT,
           "tag_errors": Field(float, lo=0, hi=1)}
# A file-system step: a scenario step (do, args) and what ran of it; `from` on a remount
# holds the options it replaced; `settled`: the window let modern discard's worker finish
# after it (nothing followed at once). Logs written before steps were scenario steps name the
# control (`kind`) and its value (scale, megabytes, path) instead of do and args.
FS_ENTRY = {"fs": Field(bool, choices=(True,)), "do": Field(str, choices=tuple(STEP_FIELDS)),
            "args": Field(dict), "index": COUNT, "sync_after": Field(bool), "total": COUNT,
            "done": COUNT, "from": Field(dict), "settled": Field(bool),
            "kind": Field(str, choices=(*FS_KINDS, "fstrim")),
            "scale": SETTINGS["kernel_scale"], "megabytes": SETTINGS["seq_mb"],
            "path": SETTINGS["trace_path"]}
MOUNT = {"atime": SETTINGS["atime"], "discard": SETTINGS["discard"]}
SERIES_VALUE = Field(float)
MAX_SEGMENT_DRIVE_WRITES = SETTINGS["amount"].hi + SETTINGS["fill_pct"].hi / 100
SERIES_X = ("drive_writes", "sim_s")  # every chart's x axis: a series without them is none


class SessionFileError(ValueError):
    """A session file that cannot be opened: one line, naming the file and the field."""


def _no_constants(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _no_repeats(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice in one table")
        out[key] = value
    return out


def _depth(value, limit: int) -> int:
    """How deep lists and tables nest in value (stops counting past limit)."""
    stack, deepest = [(value, 1)], 0
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            break
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def _document(path: Path) -> dict:
    """The file's JSON object, or SessionFileError saying why there is none."""
    if not path.is_file():  # stat only: a FIFO is refused unopened
        raise SessionFileError(f"{path}: not a session file (no such file, or not a "
                               f"regular file)")
    try:
        data = read_input(path, MAX_FILE_BYTES)
    except InputFileError as e:
        raise SessionFileError(f"{e}; is it a session file?") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SessionFileError(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                               f"{e.start}); is it a session file?") from None
    try:
        doc = json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_repeats)
    except json.JSONDecodeError as e:
        raise SessionFileError(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
    except RecursionError:
        raise SessionFileError(f"{path}: nested too deeply to be a session file") from None
    except ValueError as e:  # NaN/Infinity, a repeated key, a number too long to read
        raise SessionFileError(f"{path}: {e}") from None
    if _depth(doc, MAX_DEPTH) > MAX_DEPTH:
        raise SessionFileError(f"{path}: nested more than {MAX_DEPTH} deep; a session file "
                               f"is not")
    if type(doc) is not dict or doc.get("format") != FORMAT:
        raise SessionFileError(f"{path}: not an SSD Lab session (format must be {FORMAT!r})")
    return doc


def _settings(raw) -> Settings:
    values = check_record(raw, SETTINGS, "settings")  # keys left out keep their defaults
    settings = Settings(**values)
    try:
        check_settings(settings)
    except ValueError as e:
        raise ValueError(f"settings: {e}") from None
    return settings


def _log_entry(d, i: int, settings: Settings) -> dict:
    where = f"log[{i}]"
    if type(d) is dict and d.get("fs"):
        check_record(d, FS_ENTRY, where)
        if ("do" in d) == ("kind" in d):
            raise ValueError(f"{where} must name its step with do (or kind, in old files)")
        if not settings.profile:
            raise ValueError(f"{where}: file-system steps need a device profile; "
                             f"settings.profile is empty")
        if "from" in d:
            check_record(d["from"], MOUNT, f"{where}.from", required=tuple(MOUNT))
        if d.get("done", 0) > d.get("total", 0):
            raise ValueError(f"{where}.done must be at most total ({d.get('total', 0)}); "
                             f"got {d['done']}")
        try:
            step = FsStep.from_dict(d)
        except ValueError as e:  # the scenario step check names the field and its range
            raise ValueError(f"{where}.args: {str(e).removeprefix('step: ')}") from None
        for key in ("trace", "tar"):
            file = step.args.get(key)
            if (file or step.do == "replay" and key == "trace") and not Path(file).is_file():
                raise ValueError(f"{where}.args.{key}: no such file {file!r}")
        if "total" not in d:  # a replay needs it to know what ran (the window writes it)
            raise ValueError(f"{where}.total is missing")
        return d
    check_record(d, SEGMENT, where, required=("kind", "total"))
    # what the controls can ask of one segment: a fill and the largest amount, so a file can
    # never make a replay (ssdlab chart, the window) write 2^62 pages
    limit = int(MAX_SEGMENT_DRIVE_WRITES * settings.user_pages)
    for key, most, what in (("total", limit, f"{MAX_SEGMENT_DRIVE_WRITES:g} drive writes of "),
                            ("start_page", settings.user_pages, "")):
        if d.get(key, 0) > most:
            raise ValueError(f"{where}.{key} must be from 0 to {most:,} ({what}this drive's "
                             f"{settings.user_pages:,} user pages); got {d[key]:,}")
    return d


def _series(raw) -> dict:
    out, length = {}, None
    for name, column in raw.items():
        if name not in SERIES_COLUMNS:
            raise ValueError(f"series has no column {name!r}; allowed: "
                             f"{', '.join(SERIES_COLUMNS)}")
        if type(column) is not list:
            raise ValueError(f"series.{name} must be a list of numbers")
        if len(column) > MAX_ROWS:
            raise ValueError(f"series.{name} has {len(column):,} rows; a saved series has at "
                             f"most {MAX_ROWS:,}")
        if length is not None and len(column) != length:
            raise ValueError(f"series.{name} has {len(column)} rows; the others "
                             f"have {length}")
        length = len(column)
        values = []
        for j, v in enumerate(column):
            try:
                values.append(math.nan if v is None else SERIES_VALUE.check(v))
            except ValueError as e:
                raise ValueError(f"series.{name}[{j}] {e} (or null)") from None
        out[name] = values
    missing = [x for x in SERIES_X if x not in out]
    if out and missing:
        raise ValueError(f"series has no {missing[0]} column; a series holds its x axes "
                         f"{' and '.join(SERIES_X)} beside the other columns")
    return out


def read_session(path: str | Path) -> tuple[Settings, list[dict], dict]:
    """The settings, log and series of a session file, all checked; SessionFileError (one
    line: the file, the field, the value and what is allowed) for anything else."""
    path = Path(path)
    doc = _document(path)
    try:
        # the version first: another version's file may differ in every other respect
        if "version" in doc:
            check_record({"version": doc["version"]}, DOCUMENT, "session")
        check_record(doc, DOCUMENT, "session", required=("version", "settings"))
        settings = _settings(doc["settings"])
        if len(doc.get("log", [])) > MAX_LOG_ENTRIES:
            raise ValueError(f"log has {len(doc['log']):,} entries; a session holds at most "
                             f"{MAX_LOG_ENTRIES:,}")
        log = [_log_entry(d, i, settings) for i, d in enumerate(doc.get("log", []))]
        series = _series(doc.get("series", {}))
    except ValueError as e:
        raise SessionFileError(f"{path}: {e}") from None
    return settings, log, series


def session_text(settings: Settings, log: list[dict], series: dict) -> str:
    doc = {"format": FORMAT, "version": VERSION, "settings": asdict(settings), "log": log,
           "series": {k: [None if v != v else v for v in map(float, col)]
                      for k, col in series.items()}}
    return json.dumps(doc, indent=1, allow_nan=False)


def write_session(path: str | Path, settings: Settings, log: list[dict], series: dict
                  ) -> None:
    """Write the session to a temporary file beside path, then put it in path's place; on
    any error (OutputFileError, naming the path and why) path is as it was."""
    write_atomic(path, session_text(settings, log, series))
