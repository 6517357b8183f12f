"""The preferences file (ssdlab/app/gui/appearance/preferences.py): saved and read back, a bad value
replaced by its default with a message naming the field and what it may be (never a
traceback), the colour profile apart from presentation mode, the type from the desktop's
size, and reduced motion slowing the block map's flash guard. No window."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app.gui.appearance import preferences
from ssdlab.app.gui.appearance.preferences import Preferences, load, save
from ssdlab.app.gui.drive.flashguard import GAP_S, REDUCED_GAP_S, FlashGuard


def test_saved_preferences_come_back(tmp_path):
    path = tmp_path / "cfg" / "preferences.json"
    chosen = Preferences(colours="projector", reduced_motion=True, text_pct=150)
    assert save(chosen, path) == ""
    assert load(path) == (chosen, "")
    assert json.loads(path.read_text())["format"] == preferences.FORMAT


def test_no_file_means_defaults_and_no_message(tmp_path):
    assert load(tmp_path / "none.json") == (Preferences(), "")


def test_the_file_lives_in_the_config_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    assert preferences.default_path() == tmp_path / "preferences.json"


@pytest.mark.parametrize(("text", "field", "allowed"), [
    ('{"colours": "pink"}', "colours", "presentation, normal, projector"),
    ('{"text_pct": 300}', "text_pct", "100, 125, 150, 200"),
    ('{"text_pct": true}', "text_pct", "100, 125, 150, 200"),
    ('{"reduced_motion": "yes"}', "reduced_motion", "true or false"),
    ('{"colours": ["normal"]}', "colours", "presentation, normal, projector"),
])
def test_a_bad_value_is_named_and_its_default_used(tmp_path, text, field, allowed):
    path = tmp_path / "preferences.json"
    path.write_text(text)
    prefs, problem = load(path)
    assert getattr(prefs, field) == getattr(Preferences(), field)
    assert field in problem and allowed in problem and str(path) in problem
    assert "\n" not in problem


def test_good_fields_survive_a_bad_neighbour(tmp_path):
    path = tmp_path / "preferences.json"
    path.write_text('{"colours": "projector", "text_pct": 7, "colour": 1}')
    prefs, problem = load(path)
    assert prefs == Preferences(colours="projector")
    assert "text_pct" in problem and "unknown field colour" in problem


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", "\udcff", '{"format": 9}'])
def test_an_unreadable_file_gives_defaults_and_a_message(tmp_path, text):
    path = tmp_path / "preferences.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    prefs, problem = load(path)
    assert prefs == Preferences() and problem.startswith(str(path))


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=8))
@settings(max_examples=40)  # a small input space: each field checked by type and set
def test_any_json_gives_preferences_never_a_traceback(data):
    prefs, problems = preferences.parse(data)
    assert prefs.colours in preferences.COLOURS
    assert prefs.text_pct in preferences.TEXT_PCTS
    assert isinstance(prefs.reduced_motion, bool)
    assert all(isinstance(p, str) for p in problems)


def test_a_file_that_cannot_be_written_is_said(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "preferences not saved" in save(Preferences(), blocker / "preferences.json")


def test_colour_profile_apart_from_presentation_mode():
    assert [Preferences().colour_profile(on) for on in (False, True)] == ["normal", "projector"]
    for profile in ("normal", "projector"):
        assert {Preferences(colours=profile).colour_profile(on) for on in (False, True)} == {
            profile}


def test_type_follows_the_desktop_and_its_scale():
    assert Preferences().font_pt(9.0, False, 18) == 9
    assert Preferences().font_pt(11.0, False, 18) == 11  # the desktop's, not a pinned 9
    assert Preferences(text_pct=150).font_pt(10.0, False, 18) == 15
    assert Preferences(text_pct=200).font_pt(9.0, False, 18) == 18
    assert Preferences().font_pt(9.0, True, 18) == 18  # presentation: at least its own
    assert Preferences(text_pct=200).font_pt(12.0, True, 18) == 24


def test_reduced_motion_slows_the_block_map_to_one_change_a_second():
    guard = FlashGuard()
    try:
        assert guard.gap_s == GAP_S
        preferences.set_in_force(Preferences(reduced_motion=True))
        assert guard.gap_s == REDUCED_GAP_S == 1.0
        assert FlashGuard(gap_s=0.0).gap_s == 0.0  # a test's own gap wins
    finally:
        preferences.set_in_force(Preferences())
    assert guard.gap_s == GAP_S
