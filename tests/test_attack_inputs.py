"""Input that used to crash, run for ever or be accepted when it should not (issue 20).

Each test pins one cause: nesting deep enough for RecursionError, files of an unexpected
shape beside a lesson, sweep results with odd fields, a session log or series missing what a
replay needs, a lesson run the model refuses or that never ends, a lesson that reads outside
its folder, true or 1.0 where a whole number is wanted, and text no TOML writer may mangle.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app.session.sessionfile import SessionFileError, read_session
from ssdlab.lessons import LessonError, parse_lesson
from ssdlab.lessons.loader import load_lesson
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.lab.charts import chart_table
from ssdlab.model.lab.plottable import PlotError, sweep_table
from ssdlab.model.lab.sweep import SweepError, load_sweep
from ssdlab.model.lab.sweeprun import ResultsError, read_results
from ssdlab.model.lab.tomlwrite import toml_text

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "ssdlab" / "assets" / "scenarios"
LESSON = (ROOT / "tests" / "test_lessons.py").read_text().split("GOOD = '''", 1)[1] \
    .split("'''", 1)[0]
SCENARIO_RUN = LESSON.replace(
    'drive = { user_pages = 4096, pages_per_block = 32, spare = 0.07 }\n'
    'warmup_drive_writes = 1.0\nmeasure_drive_writes = 0.5\nseed = 1\nwindows = 10',
    'scenario = "SCENARIO"').replace('charts = ["wa_windows"]', 'charts = ["step_seconds"]') \
    .replace('measure = "r.a.wa"', 'measure = "r.a.steps[0].wa"')


def _session(**over) -> dict:
    return {"format": "ssdlab-session", "version": 1, "settings": {}, "log": [],
            "series": {}, **over}


def _write_session(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    return path


# ---- tracebacks ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["lesson", "sweep", "session", "results"])
def test_nesting_deep_enough_to_overflow_the_parser_is_one_line(tmp_path, kind):
    deep = 100_000
    path = tmp_path / "f"
    if kind in ("lesson", "sweep"):
        path.write_text("format = 1\nx = " + "[" * deep + "]" * deep + "\n")
        load, error = (load_lesson, LessonError) if kind == "lesson" else (load_sweep,
                                                                          SweepError)
    else:
        path.write_text(("[" * deep + "]" * deep) + ("\n" if kind == "results" else ""))
        load, error = (read_session, SessionFileError) if kind == "session" else (
            read_results, ResultsError)
    with pytest.raises(error) as e:
        load(path if kind != "results" else str(path))
    assert "\n" not in str(e.value) and "deep" in str(e.value)


@pytest.mark.parametrize("body", ["version = 1\ndrive = 5\n[[steps]]\ndo = 'sync'\n",
                                  "version = 1\nsteps = 3\n", "version = 1\nsteps = [1, 2]\n",
                                  "version = 1\n[partition]\nstart_sector = [[1]]\n"])
def test_a_scenario_of_an_unexpected_shape_beside_a_lesson_is_a_lesson_error(tmp_path, body):
    (tmp_path / "odd.toml").write_text(body)
    lesson = tmp_path / "l.toml"
    lesson.write_text(SCENARIO_RUN.replace('"SCENARIO"', '"odd.toml"').replace(
        '"step_seconds"]', '"step_seconds"]\n').replace(
        'scenario = "odd.toml"', 'scenario = "odd.toml"\nset = { drive = { user_gib = 1 }, '
        'steps = { "0" = { seed = 2 } } }'))
    with pytest.raises(LessonError) as e:
        load_lesson(lesson)
    assert "\n" not in str(e.value)


_ODD = st.one_of(st.none(), st.booleans(), st.integers(-10**400, 10**400), st.text(max_size=3),
                 st.floats(), st.lists(st.integers(), max_size=2), st.dictionaries(
                     st.text(max_size=3), st.integers(), max_size=2))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({"status": st.sampled_from(["ok", "failed"]) | _ODD,
                                       "point": st.fixed_dictionaries(
                                           {"gc": st.sampled_from(["greedy", "fifo"]) | _ODD,
                                            "spare": _ODD}) | _ODD,
                                       "result": st.fixed_dictionaries(
                                           {"spare": _ODD, "wa": _ODD,
                                            "theory_wa": _ODD}) | _ODD}), max_size=6))
def test_wa_vs_spare_draws_or_skips_any_record_and_never_raises(records):
    """Any record is drawn, skipped, or refused with a PlotError that names its field (the
    command's one-line message); nothing else is ever raised."""
    try:
        table = sweep_table("wa-vs-spare", records)
    except PlotError as e:
        assert "point field" in str(e) and "must be" in str(e), e
        return
    assert all(np.isfinite(table.x))
    assert all(v.size == table.x.size for v in table.ys.values())


def test_a_file_system_log_entry_without_total_is_refused_naming_it(tmp_path):
    entry = {"fs": True, "do": "sync", "args": {}, "index": 0, "sync_after": False}
    path = _write_session(tmp_path, _session(settings={"profile": "ocz_vertex_le_100"},
                                             log=[entry]))
    with pytest.raises(SessionFileError, match=r"log\[0\]\.total is missing"):
        read_session(path)


@pytest.mark.parametrize("missing", ["drive_writes", "sim_s"])
def test_a_series_without_its_x_column_is_refused(tmp_path, missing):
    columns = {"drive_writes": [0.1, 0.2], "sim_s": [1.0, 2.0], "wa": [1.0, 1.5]}
    del columns[missing]
    with pytest.raises(SessionFileError, match=f"series has no {missing} column"):
        read_session(_write_session(tmp_path, _session(series=columns)))


def test_a_chart_of_a_series_without_a_y_column_draws_it_missing():
    table = chart_table("throughput", {"drive_writes": np.array([0.1, 0.2]),
                                       "sim_s": np.array([1.0, 2.0])}, timed=True)
    assert table.x.size == 2 and all(np.isnan(v).all() and v.size == 2
                                     for v in table.ys.values())


def test_a_lesson_run_the_model_refuses_is_a_lesson_error(monkeypatch):
    from ssdlab.lessons import player
    from ssdlab.model.lab.steps import StepError

    def refuses(*args, **kwargs):
        raise StepError("step 1 (unpack): the file system is full")

    monkeypatch.setattr(player, "run_scenario", refuses)
    lesson = parse_lesson(SCENARIO_RUN.replace("SCENARIO", "alignment_firstgen"), "t.toml")
    with pytest.raises(LessonError, match="run step r failed: .*step 1 .unpack.: the file "
                       "system is full"):
        player.play(lesson)


# ---- hangs -----------------------------------------------------------------------------------


def test_a_run_far_over_its_max_seconds_is_stopped_with_a_message():
    from ssdlab.lessons.player import TIME_LIMIT_FACTOR, LessonPlay, RunTimeLimit

    lesson = parse_lesson(LESSON.replace('charts = ["wa_windows"]',
                                         'charts = ["wa_windows"]\nmax_seconds = 2'), "t.toml")
    now = [0.0]

    def clock() -> float:  # each look at the clock is a second later: the run never ends
        now[0] += 1.0
        return now[0]

    play = LessonPlay(lesson, clock=clock)
    play.predict(lesson.steps[1], 0)
    with pytest.raises(RunTimeLimit, match=f"{TIME_LIMIT_FACTOR:g} x its max_seconds .2 s."):
        play.run(lesson.steps[2])
    # at the limit's last second the run is not stopped
    now[0], play.clock = 0.0, lambda: 0.0 + TIME_LIMIT_FACTOR * 2
    assert play.run(lesson.steps[2])[0].figures["wa"] >= 1.0


@pytest.mark.parametrize("field,total", [("total", 2**62), ("start_page", 2**40)])
def test_a_session_cannot_ask_a_replay_for_more_than_its_controls_can(tmp_path, field,
                                                                      total):
    from ssdlab.app.session.settings import Settings

    user = Settings().user_pages
    segment = {"kind": "random", "total": 10, field: total}
    with pytest.raises(SessionFileError, match=rf"log\[0\]\.{field} must be from 0 to"):
        read_session(_write_session(tmp_path, _session(log=[segment])))
    limit = 5002 * user if field == "total" else user  # both ends of the range load
    for value in (0, limit):
        read_session(_write_session(tmp_path, _session(log=[{**segment, field: value}])))
    segment[field] = limit + 1
    with pytest.raises(SessionFileError):
        read_session(_write_session(tmp_path, _session(log=[segment])))


# ---- accepted when it should not be ------------------------------------------------------------


@pytest.mark.parametrize("where", ["absolute", "dotdot", "symlink"])
def test_a_lesson_reads_only_beside_itself_and_from_the_assets(tmp_path, where):
    folder, outside = tmp_path / "lesson", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    secret = outside / "secret.toml"
    secret.write_text((SCENARIOS / "alignment_firstgen.toml").read_text())
    name = {"absolute": str(secret), "dotdot": "../outside/secret.toml",
            "symlink": "link.toml"}[where]
    if where == "symlink":
        os.symlink(secret, folder / "link.toml")
    lesson = folder / "l.toml"
    lesson.write_text(SCENARIO_RUN.replace("SCENARIO", name))
    with pytest.raises(LessonError, match="outside the lesson's folder"):
        load_lesson(lesson)
    (folder / "own.toml").write_text(secret.read_text())  # its own folder is fine
    lesson.write_text(SCENARIO_RUN.replace("SCENARIO", "own.toml"))
    assert load_lesson(lesson).steps[2].configs[0].scenario is not None


def test_an_image_outside_the_lessons_folder_is_refused(tmp_path):
    (tmp_path / "pic.png").write_bytes(b"\x89PNG")
    folder = tmp_path / "lesson"
    folder.mkdir()
    lesson = folder / "l.toml"
    lesson.write_text(LESSON.replace('text = "A [[page]]', 'text = "![x](../pic.png) A [[page]]'))
    with pytest.raises(LessonError, match="outside the lesson's folder"):
        load_lesson(lesson)


@pytest.mark.parametrize("change,field", [("format = 1", "format = 1.0"),
                                          ("format = 1", "format = true"),
                                          ("seed = 1", "seed = true"),
                                          ("windows = 10", "windows = 10.0")])
def test_true_and_one_point_zero_are_not_whole_numbers_in_a_lesson(change, field):
    with pytest.raises(LessonError):
        parse_lesson(LESSON.replace(change, field), "t.toml")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["d", "gc_low_blocks", "seed", "user_pages", "pages_per_block",
                        "spare"]), st.sampled_from([True, False, 2.0, 64.0]))
def test_the_model_refuses_true_false_and_floats_for_whole_numbers(field, value):
    if field == "spare" and not isinstance(value, bool):
        return  # a float is a number: spare takes one
    with pytest.raises(ValueError, match=field):
        if field in ("user_pages", "pages_per_block", "spare"):
            Geometry(**{"user_pages": 4096, "pages_per_block": 32, "spare": 0.1,
                        field: value})
        else:
            FtlConfig(**{field: value})


def test_a_lesson_config_with_d_true_is_refused():
    text = LESSON.replace("seed = 1\n", 'seed = 1\nftl = { gc = "random-d", d = true }\n')
    with pytest.raises(LessonError, match="d must be a whole number"):
        parse_lesson(text, "t.toml")


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(min_size=1))
def test_any_text_survives_the_toml_writer(value, key):
    assert tomllib.loads(toml_text({key: value, "t": {key: value}})) == {
        key: value, "t": {key: value}}


def test_a_scenario_named_with_an_emoji_can_be_swept(tmp_path):
    text = (SCENARIOS / "alignment_firstgen.toml").read_text()
    (tmp_path / "s.toml").write_text(text.replace('name = "', 'name = "🚀 ', 1))
    (tmp_path / "sweep.toml").write_text('format = 1\nmeasure = ["trims"]\n[scenario]\n'
                                         'file = "s.toml"\nfield = "partition.start_sector"\n'
                                         "values = [63, 2048]\n")
    sweep = load_sweep(tmp_path / "sweep.toml")
    assert len(sweep.tasks) == 2 and all("🚀" in t.scenario_text for t in sweep.tasks)


@pytest.mark.parametrize("form", ["bom", "crlf", "both"])
def test_a_lesson_reads_a_bom_or_crlf_scenario_as_run_does(tmp_path, form):
    from ssdlab.model.lab.scenario import load_scenario

    text = (SCENARIOS / "alignment_firstgen.toml").read_text()
    data = text.replace("\n", "\r\n") if form != "bom" else text
    data = ("\ufeff" + data) if form != "crlf" else data
    (tmp_path / "s.toml").write_bytes(data.encode("utf-8"))
    assert load_scenario(tmp_path / "s.toml").name  # run reads it ...
    lesson = tmp_path / "l.toml"
    lesson.write_text(SCENARIO_RUN.replace("SCENARIO", "s.toml"))
    assert load_lesson(lesson).steps[2].configs[0].scenario.name  # ... and so does a lesson


def test_a_session_past_the_size_a_saved_run_has_is_refused_at_once(tmp_path):
    from ssdlab.app.session.sessionfile import MAX_FILE_BYTES

    path = tmp_path / "big.json"
    path.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(SessionFileError, match=f"at most {MAX_FILE_BYTES:,} bytes"):
        read_session(path)


def test_a_series_longer_than_the_window_saves_is_refused_and_the_longest_loads(tmp_path):
    from ssdlab.app.session.sessionfile import MAX_ROWS

    def doc(rows: int) -> dict:
        return _session(series={"drive_writes": [0.0] * rows, "sim_s": [0.0] * rows})

    assert len(read_session(_write_session(tmp_path, doc(MAX_ROWS)))[2]["sim_s"]) == MAX_ROWS
    with pytest.raises(SessionFileError, match=f"at most {MAX_ROWS:,}"):
        read_session(_write_session(tmp_path, doc(MAX_ROWS + 1)))


@pytest.mark.parametrize("kind", ["profile", "sweep", "scenario", "glossary"])
@pytest.mark.parametrize("bad", ["1.0", "true"])
def test_a_files_version_is_a_whole_number_not_true_or_one_point_zero(tmp_path, kind, bad):
    from ssdlab.lessons.glossary import load_glossary
    from ssdlab.model.host.profiles import ProfileError, profile_from_file
    from ssdlab.model.lab.scenario import ScenarioError, load_scenario

    source, key, load, error = {
        "profile": (ROOT / "ssdlab" / "assets" / "profiles" / "intel_x25m_g1_80.toml", "version",
                    profile_from_file, ProfileError),
        "sweep": (ROOT / "ssdlab" / "assets" / "sweeps" / "wa_vs_spare.toml", "format", load_sweep,
                  SweepError),
        "scenario": (SCENARIOS / "alignment_firstgen.toml", "version", load_scenario,
                     ScenarioError),
        "glossary": (ROOT / "ssdlab" / "lessons" / "glossary.toml", "format", load_glossary,
                     LessonError)}[kind]
    text = source.read_text()
    assert f"\n{key} = 1\n" in "\n" + text
    path = tmp_path / source.name
    path.write_text(("\n" + text).replace(f"\n{key} = 1\n", f"\n{key} = {bad}\n", 1))
    with pytest.raises(error):
        load(path)


def test_a_log_longer_than_a_session_holds_is_refused_and_the_longest_loads(tmp_path):
    from ssdlab.app.session.sessionfile import MAX_LOG_ENTRIES

    entry = {"kind": "random", "total": 10}
    assert len(read_session(_write_session(
        tmp_path, _session(log=[entry] * MAX_LOG_ENTRIES)))[1]) == MAX_LOG_ENTRIES
    with pytest.raises(SessionFileError, match=f"at most {MAX_LOG_ENTRIES:,}"):
        read_session(_write_session(tmp_path, _session(log=[entry] * (MAX_LOG_ENTRIES + 1))))
