"""Names of runs shown together (ssdlab/app/session/runlabels.py): only the settings that differ,
in plain words with units; "A"/"B" alone when nothing does."""

from dataclasses import fields, replace

from hypothesis import given
from hypothesis import strategies as st

from ssdlab.app.session.runlabels import VIEW_FIELDS, describe, differing, run_labels, words
from ssdlab.app.session.schema import SETTINGS
from ssdlab.app.session.settings import Settings

BASE = Settings()


def test_discard_against_fstrim_names_each_by_what_it_does():
    a, b = replace(BASE, discard=True), replace(BASE, fstrim_every_min=10.0)
    assert run_labels("AB", [a, b]) == ["A: discard", "B: fstrim every 10 min"]


def test_spares_with_units():
    assert run_labels("AB", [BASE, replace(BASE, spare_pct=28.0)]) == \
        ["A: spare 7 %", "B: spare 28 %"]


def test_nothing_differs_gives_the_tags_alone():
    assert run_labels("AB", [BASE, BASE]) == ["A", "B"]
    assert run_labels("AB", [BASE, replace(BASE, speed="fast", heatmap="age")]) == ["A", "B"]


def test_an_option_off_is_named_when_it_is_all_that_differs():
    assert run_labels("AB", [BASE, replace(BASE, discard=True)]) == \
        ["A: no discard", "B: discard"]


def test_more_than_one_difference_and_a_reference():
    runs = [BASE, replace(BASE, gc="fifo"), replace(BASE, partition_start=63)]
    assert run_labels(["A", "B", "ref"], runs) == [
        "A: greedy GC, start sector 2048", "B: FIFO GC, start sector 2048",
        "ref: greedy GC, start sector 63"]


CHOICE_FIELDS = [n for n, f in SETTINGS.items() if f.choices and len(f.choices) > 1
                 and n not in VIEW_FIELDS and n in {f.name for f in fields(Settings)}]


@given(st.sampled_from(CHOICE_FIELDS), st.data())
def test_one_setting_changed_names_that_setting_only(name, data):
    choices = SETTINGS[name].choices
    va, vb = data.draw(st.lists(st.sampled_from(choices), min_size=2, max_size=2,
                                unique=True))
    a, b = replace(BASE, **{name: va}), replace(BASE, **{name: vb})
    assert differing([a, b]) == [name]
    assert describe([a, b]) == [words(name, va), words(name, vb)]
    assert all(text for text in describe([a, b]))


@given(st.floats(0, 90).map(lambda v: round(v, 2)), st.floats(0, 90).map(lambda v: round(v, 2)))
def test_spare_labels_carry_the_percent_sign(x, y):
    labels = run_labels("AB", [replace(BASE, spare_pct=x), replace(BASE, spare_pct=y)])
    if x == y:
        assert labels == ["A", "B"]
    else:
        assert labels == [f"A: spare {x:g} %", f"B: spare {y:g} %"]
