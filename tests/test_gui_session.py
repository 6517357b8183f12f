"""Session files: checked whole before anything is replaced, as strictly as scenario files,
by the same table the controls are built from; opened only after a yes when a run would be
lost; saved all or nothing; and files saved before these checks existed still open."""

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox

from ssdlab.app import atomicfile
from ssdlab.app.gui.settings.session import Settings
from ssdlab.app.session import sessionfile
from ssdlab.app.session.schema import SETTINGS
from ssdlab.app.session.sessionfile import SessionFileError, read_session

SESSIONS = Path(__file__).resolve().parent / "sessions"
TRACES = Path(__file__).resolve().parents[1] / "ssdlab" / "assets" / "traces"


def good_doc() -> dict:
    return json.loads((SESSIONS / "block_v1.json").read_text())


def write(tmp_path, doc, name="s.json") -> Path:
    """doc as JSON text; an infinity as the number 1e999 reads back (Infinity is no JSON)."""
    path = tmp_path / name
    text = doc if isinstance(doc, str) else json.dumps(doc).replace("Infinity", "1e999")
    path.write_text(text)
    return path


def with_(doc: dict, where: tuple, value) -> dict:
    """doc with the value at the path of keys/indices `where` replaced (or added)."""
    node = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return doc


# --- the file as saved before the checks: it still opens, and replays to the same drive ---

@pytest.mark.parametrize("name, counters", [
    ("block_v1.json", {"host_writes": 6144, "nand_writes": 14072, "erases": 299}),
    ("fs_v1.json", {"host_writes": 2730, "trims": 779}),  # 2730 since Orlov placement
])
def test_old_session_files_open_and_replay(until, bench, name, counters):
    assert bench.open(str(SESSIONS / name)), bench.controls.error.text()
    until(lambda: all(bench.snapshot.counters[k] == v for k, v in counters.items())
          and not bench.snapshot.running)
    saved = good_doc() if name == "block_v1.json" else json.loads((SESSIONS / name).read_text())
    assert bench.session.settings == Settings(**saved["settings"])
    assert not bench.controls.error.isVisible()


def test_old_session_files_pass_the_checks():
    for path in SESSIONS.glob("*.json"):
        settings, log, series = read_session(path)
        assert log and len(series["wa"]) == len(series["host"]) > 0


# --- one check, one line, for every kind of bad file -----------------------------------------

BAD_VALUES = [  # (where, value, words the message must hold)
    (("settings", "workload"), "bogus", ["settings.workload", "'bogus'", "'fill'"]),
    (("settings", "trim_max_pages"), -5, ["settings.trim_max_pages", "from 1 to 1.04858e+06",
                                          "got -5"]),
    (("settings", "capacity_mib"), 1e999, ["settings.capacity_mib", "got inf"]),
    (("settings", "seed"), True, ["settings.seed", "a whole number", "got True"]),
    (("settings", "page_kib"), 4.0, ["settings.page_kib", "one of 4, 8, 16", "got 4.0"]),
    (("settings", "page_kib"), 2, ["settings.page_kib", "one of 4, 8, 16", "got 2"]),
    (("settings", "spare_pct"), "7", ["settings.spare_pct", "a number", "got '7'"]),
    (("settings", "spare_pct"), 95.0, ["settings:", "spare must be between 0 and 0.9"]),
    (("settings", "discard"), 1, ["settings.discard", "true or false"]),
    (("settings", "start"), 63, ["settings has no field 'start'", "partition_start"]),
    (("settings",), [], ["session.settings", "a table"]),
    (("colour",), "red", ["session has no field 'colour'"]),
    (("version",), 2, ["session.version", "one of 1", "got 2"]),
    (("log",), {}, ["session.log", "a list"]),
    (("log", 0, "kind"), "bogus", ["log[0].kind", "'bogus'"]),
    (("log", 0, "trim_max_pages"), -1, ["log[0].trim_max_pages", "got -1"]),
    (("log", 0, "hot_lba_fraction"), 1.5, ["log[0].hot_lba_fraction", "below 1"]),
    (("log", 0, "extra"), 1, ["log[0] has no field 'extra'"]),
    (("log", 1), "fill", ["log[1] must be a table"]),
    (("log", 1), {"fs": True, "do": "explode", "args": {}}, ["log[1].do", "'explode'"]),
    (("log", 1), {"fs": "yes", "do": "rm", "args": {}}, ["log[1].fs", "got 'yes'"]),
    (("series", "wa", 2), "x", ["series.wa[2]", "a number", "or null"]),
    (("series", "wa", 2), 1e999, ["series.wa[2]", "got inf"]),
    (("series", "colour"), [1.0], ["series has no column 'colour'"]),
    (("series", "wa"), [1.0], ["series.wa has 1 rows; the others have 5"]),
]


@pytest.mark.parametrize("where, value, words", BAD_VALUES,
                         ids=[".".join(map(str, w)) + "=" + repr(v)[:20]
                              for w, v, _ in BAD_VALUES])
def test_a_bad_value_is_one_line_naming_the_field(tmp_path, where, value, words):
    path = write(tmp_path, with_(good_doc(), where, value))
    with pytest.raises(SessionFileError) as e:
        read_session(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path))
    for word in words:
        assert word in text, text


FS_BAD_VALUES = [  # the same, on a file-system run's log
    (("log", 0, "args", "scale"), 9.0, ["log[0].args", "scale must be a number from 0.001 to 4"]),
    (("log", 0, "args"), {"scale": 0.1, "size": 1},
     ["log[0].args", "step.size is not a known field"]),
    (("log", 0, "done"), 735, ["log[0].done must be at most total (734); got 735"]),
    (("log", 0, "settled"), "yes", ["log[0].settled"]),
    (("log", 1, "from"), {"atime": "often", "discard": True}, ["log[1].from.atime", "often"]),
    (("log", 1, "from"), {"atime": "strict"}, ["log[1].from.discard is missing"]),
    (("log", 2), {"fs": True, "do": "replay", "args": {"trace": "/no/such.log"}},
     ["log[2].args.trace", "no such file"]),
    (("log", 2), {"fs": True, "do": "replay", "args": {}}, ["log[2].args", "trace is missing"]),
    (("log", 2), {"fs": True, "do": "unpack", "args": {"tar": "/no/such.tar"}},
     ["log[2].args.tar", "no such file"]),
    (("log", 2), {"fs": True, "kind": "rmrf", "do": "rm"}, ["log[2] must name its step"]),
]


@pytest.mark.parametrize("where, value, words", FS_BAD_VALUES,
                         ids=[".".join(map(str, w)) for w, _, _ in FS_BAD_VALUES])
def test_a_bad_file_system_step_is_one_line_naming_the_field(tmp_path, where, value, words):
    doc = json.loads((SESSIONS / "fs_v1.json").read_text())
    path = write(tmp_path, with_(doc, where, value))
    with pytest.raises(SessionFileError) as e:
        read_session(path)
    for word in words:
        assert word in str(e.value), str(e.value)


def test_file_system_steps_need_a_profile(tmp_path):
    doc = json.loads((SESSIONS / "fs_v1.json").read_text())
    doc["settings"]["profile"] = ""
    doc["settings"]["workload"] = "fill"
    with pytest.raises(SessionFileError, match=r"log\[0\]: file-system steps need a device"):
        read_session(write(tmp_path, doc))


BAD_FILES = [  # (bytes, words)
    (b"", ["not JSON"]),
    (b"\xff\xfe\x00garbage\x00\x01", ["not UTF-8", "0xff"]),
    (bytes(range(256)) * 4, ["not UTF-8"]),
    (b"[" * 100_000 + b"]" * 100_000, ["nested"]),
    (b'{"a":' * 50 + b"1" + b"}" * 50, ["nested more than 8 deep"]),
    (b'{"format": "ssdlab-session", "version": NaN}', ["NaN is not a number JSON allows"]),
    (b'{"format": "ssdlab-session", "version": 1, "version": 1}', ["'version' appears twice"]),
    (b'{"format": "ssdlab-session", "version": 1, "settings": {"seed": -Infinity}}',
     ["-Infinity"]),
    (b'{"format": "ssdlab-session", "version": 1, "settings": {"seed": 1' + b"0" * 5000 + b"}}",
     ["digits"]),
    (b"[1, 2]", ["not an SSD Lab session"]),
    (b'{"format": "other"}', ["not an SSD Lab session"]),
    (b'{"format": "ssdlab-session"}', ["session.version is missing"]),
]


@pytest.mark.parametrize("data, words", BAD_FILES, ids=[repr(d[:16]) for d, _ in BAD_FILES])
def test_a_bad_file_is_one_line(tmp_path, data, words):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(SessionFileError) as e:
        read_session(path)
    assert "\n" not in str(e.value)
    for word in words:
        assert word in str(e.value), str(e.value)


def test_paths_that_are_no_session_file(tmp_path):
    for path in (tmp_path / "missing.json", tmp_path):
        with pytest.raises(SessionFileError, match="not a regular file"):
            read_session(path)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # reading it would block the window: refused unread
    with pytest.raises(SessionFileError, match="not a regular file"):
        read_session(fifo)


def test_a_utf8_bom_and_integers_for_numbers_are_accepted(tmp_path):
    doc = with_(good_doc(), ("settings", "capacity_mib"), 16)
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc).encode())
    settings, _, _ = read_session(path)
    assert settings.capacity_mib == 16.0 and type(settings.capacity_mib) is float


# --- fuzz: any text is a session or one SessionFileError, never another exception ----------

def _outcome(path: Path) -> None:
    try:
        read_session(path)
    except SessionFileError as e:
        assert "\n" not in str(e) and str(path) in str(e)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                               max_size=3),
    max_leaves=8)
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(data=st.binary(max_size=300))
def test_fuzz_bytes(tmp_path, data):
    path = tmp_path / "fuzz.json"
    path.write_bytes(data)
    _outcome(path)


@FUZZ
@given(key=st.sampled_from(sorted(SETTINGS)), value=JSON_VALUES)
def test_fuzz_a_setting(tmp_path, key, value):
    _outcome(write(tmp_path, with_(good_doc(), ("settings", key), value)))


@FUZZ
@given(index=st.integers(0, 1), key=st.sampled_from(
    ["kind", "total", "seed", "index", "hot_lba_fraction", "hot_write_fraction",
     "trim_max_pages", "start_page", "fs", "do", "args", "done", "from"]), value=JSON_VALUES)
def test_fuzz_a_log_entry(tmp_path, index, key, value):
    for name in ("block_v1.json", "fs_v1.json"):
        doc = json.loads((SESSIONS / name).read_text())
        _outcome(write(tmp_path, with_(doc, ("log", index, key), value)))


@FUZZ
@given(where=st.sampled_from([("series",), ("series", "wa"), ("log",), ("settings",), ()]),
       value=JSON_VALUES)
def test_fuzz_a_table(tmp_path, where, value):
    doc = with_(good_doc(), where, value) if where else value
    _outcome(write(tmp_path, json.dumps(doc)))


# --- what the controls allow is what a session may hold -------------------------------------

def test_controls_take_their_ranges_and_choices_from_the_schema(bench):
    for name, w in bench.controls.widgets.items():
        f = SETTINGS["partition_start" if name == "partition_custom" else name]
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            assert (w.minimum(), w.maximum()) == (f.lo, f.hi), name
        elif isinstance(w, QComboBox) and name != "partition_start":
            assert tuple(w.itemData(i) for i in range(w.count())) == f.choices, name
    speeds = tuple(bench.speed.itemData(i) for i in range(bench.speed.count()))
    assert speeds == SETTINGS["speed"].choices


@pytest.mark.parametrize("name", [n for n, f in SETTINGS.items() if f.lo is not None])
def test_a_session_may_hold_each_end_of_a_controls_range_and_nothing_past_it(tmp_path, name):
    f = SETTINGS[name]
    for value, ok in ((f.lo, True), (f.hi, True), (f.lo - 1, False), (f.hi + 1, False)):
        value = f.kind(value)
        try:
            sessionfile.check_record({name: value}, SETTINGS, "settings")
        except ValueError as e:
            assert not ok and f"settings.{name}" in str(e)
        else:
            assert ok, (name, value)


# --- opening in the window: check first, then ask, then replace ------------------------------

def run_fill(until, w):
    w.request(capacity_mib=16.0)
    w.run_workload()
    until(lambda: w.snapshot.counters["host_writes"] >= 4096 and not w.snapshot.running)


def test_a_bad_session_leaves_the_current_run_untouched(until, bench, tmp_path):
    run_fill(until, bench)
    asked = []
    bench.confirm = lambda text: asked.append(text) or True
    before, counters = bench.session.settings, bench.snapshot.counters
    path = write(tmp_path, with_(good_doc(), ("series", "wa", 1), "x"))
    assert not bench.open(str(path))
    assert "series.wa[1]" in bench.controls.error.text()
    assert not asked  # the file is checked before anyone is asked
    bench.settle()
    assert bench.session.settings == before and bench.snapshot.counters == counters


def test_opening_a_session_over_a_run_asks_first(until, bench):
    run_fill(until, bench)
    counters = bench.snapshot.counters
    asked = []
    bench.confirm = lambda text: asked.append(text) or False
    assert not bench.open(str(SESSIONS / "block_v1.json"))
    assert asked == ["Opening a session discards the current run. Continue?"]
    bench.settle()
    assert bench.snapshot.counters == counters and bench.session.settings.gc == "greedy"
    bench.confirm = lambda text: True
    assert bench.open(str(SESSIONS / "block_v1.json"))
    until(lambda: bench.snapshot.counters["erases"] == 299 and not bench.snapshot.running)
    assert bench.session.settings.gc == "fifo"


def test_opening_a_session_on_an_empty_drive_does_not_ask(until, bench):
    bench.confirm = lambda text: pytest.fail("asked: " + text)
    assert bench.open(str(SESSIONS / "block_v1.json"))
    until(lambda: bench.snapshot.counters["erases"] == 299)


# --- saving: all or nothing ------------------------------------------------------------------

def test_a_failed_save_keeps_the_old_file(until, bench, tmp_path, monkeypatch):
    run_fill(until, bench)
    path = tmp_path / "keep.json"
    path.write_text("the old session")

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomicfile.os, "fsync", full)
    assert not bench.save(str(path))
    assert "No space left on device" in bench.controls.error.text()
    assert path.read_text() == "the old session"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]  # no temporary file left
    monkeypatch.undo()
    assert bench.save(str(path))
    settings, log, _ = read_session(path)
    assert settings == bench.session.settings and log == bench.snapshot.log


def test_save_refuses_what_is_no_regular_file(until, bench, tmp_path):
    assert not bench.save(str(tmp_path))
    assert "cannot be written: it is a directory" in bench.controls.error.text()
    assert not bench.save(str(tmp_path / "no" / "such" / "dir.json"))
    assert "cannot be written" in bench.controls.error.text()
