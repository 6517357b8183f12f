"""`ssdlab plot` and the WA-against-spare chart over sweeps with more than one axis: never a
wrong figure (no axis averaged away, seeds shown as a spread), any field against any other,
bad fields refused naming the field and listing the allowed ones."""

import csv
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app.cli.main import main
from ssdlab.model.lab.plottable import MAX_LINES, Facets, PlotError, plot_tables, sweep_table

HOT = (0.5, 0.9)
SPARES = (0.07, 0.2, 0.4)


def _records(seeds=(1, 2, 3), hot=HOT, policies=("greedy", "fifo")) -> list[dict]:
    """A drive sweep's records over gc x spare x hot_write_fraction x seed: WA grows with
    the hot fraction, by 0.01 per seed."""
    out = []
    for gc in policies:
        for spare in SPARES:
            for h in hot:
                for seed in seeds:
                    base = (1.0 if gc == "greedy" else 1.5) / spare ** 0.5
                    point = {"gc": gc, "spare": spare, "hot_write_fraction": h,
                             "seed": seed, "mapping": "page"}
                    out.append({"key": json.dumps(point, sort_keys=True), "status": "ok",
                                "point": point, "ssdlab_version": "0.1.0",
                                "result": {"wa": base * (1 + h) + 0.01 * seed,
                                           "theory_wa": base * (1 + h), "spare": spare,
                                           "gc_copies": 1000 * seed,
                                           "wa_windows": [1.0, 2.0]}})
    return out


def _write(tmp_path, records) -> str:
    path = tmp_path / "sweep.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_wa_vs_spare_draws_a_line_per_value_of_every_other_axis():
    t = sweep_table("wa-vs-spare", _records())
    measured = [ln for ln in t.chart.lines if not ln.dashed and np.isfinite(t.ys[ln.key]).any()]
    assert len(measured) == 4  # 2 policies x 2 hot fractions, never averaged into one
    key = "greedy_hot_write_fraction_0.9"
    np.testing.assert_allclose(t.ys[key], 1.9 / np.sqrt(SPARES) + 0.02)  # mean of 3 seeds
    np.testing.assert_allclose(t.ys[key + "_theory"], 1.9 / np.sqrt(SPARES))
    assert "90 % of writes hot" in next(ln.label for ln in t.chart.lines
                                             if ln.key == key)


def test_wa_vs_spare_shows_the_spread_over_seeds_in_the_csv():
    t = sweep_table("wa-vs-spare", _records())
    cols = t.columns()
    name = "wa_greedy_hot_write_fraction_0.5"
    np.testing.assert_allclose(cols[name + "_n"], 3)
    np.testing.assert_allclose(cols[name + "_min"], 1.5 / np.sqrt(SPARES) + 0.01)
    np.testing.assert_allclose(cols[name + "_max"], 1.5 / np.sqrt(SPARES) + 0.03)
    np.testing.assert_allclose(cols[name + "_sd"], 0.01)
    assert t.spread == "error bars: min to max over seeds"
    one = sweep_table("wa-vs-spare", _records(seeds=(1,)))
    assert one.spread == ""  # one run per point: no error bars to explain


def test_wa_vs_spare_refuses_more_lines_than_are_readable_naming_the_axes():
    many = _records(seeds=(1,), hot=(0.1, 0.3, 0.5, 0.7, 0.9))
    with pytest.raises(PlotError, match="hot_write_fraction vary beside gc and spare") as e:
        sweep_table("wa-vs-spare", many)
    assert f"more than {MAX_LINES}" in str(e.value) and "--facet hot_write_fraction" in \
        str(e.value)


def test_ssdlab_chart_refuses_an_unreadable_sweep_with_exit_2(tmp_path, capsys):
    path = _write(tmp_path, _records(seeds=(1,), hot=(0.1, 0.3, 0.5, 0.7, 0.9)))
    assert main(["chart", path, "--chart", "wa-vs-spare", "-o",
                 str(tmp_path / "x.svg")]) == 2
    err = capsys.readouterr().err.strip()
    assert "hot_write_fraction" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.svg").exists()


def test_plot_any_field_by_another_with_facets():
    got = plot_tables(_records(), "hot_write_fraction", "wa", by="gc", facet="spare")
    assert isinstance(got, Facets) and got.values == ("0.07", "0.2", "0.4")
    first = got.tables[0]
    np.testing.assert_allclose(first.x, HOT)
    greedy = next(ln.key for ln in first.chart.lines if ln.label == "greedy")
    np.testing.assert_allclose(first.ys[greedy], (1 + np.array(HOT)) / 0.07 ** 0.5 + 0.02)
    np.testing.assert_allclose(first.stats[greedy]["n"], 3)


def test_plot_refuses_a_field_that_varies_off_every_axis():
    with pytest.raises(PlotError, match=r"hot_write_fraction varies too \(.*0\.5, 0\.9\)"):
        plot_tables(_records(), "spare", "wa", by="gc")


def test_a_text_x_is_drawn_as_categories():
    t = plot_tables(_records(), "gc", "wa", by="hot_write_fraction", facet="spare").tables[0]
    assert t.labels == ("FIFO", "greedy") and list(t.x) == [1.0, 2.0]


@pytest.mark.parametrize("option, value", [("--x", "spar"), ("--y", "nope"),
                                           ("--by", "gcc"), ("--facet", "sparee")])
def test_ssdlab_plot_names_a_bad_field_and_lists_the_allowed(tmp_path, capsys, option,
                                                           value):
    path = _write(tmp_path, _records())
    argv = {"--x": "spare", "--y": "wa", option: value}
    out = tmp_path / "p.svg"
    assert main(["plot", path, *[a for k, v in argv.items() for a in (k, v)], "-o",
                 str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{option} {value!r} is no field" in err
    assert "fields: gc, spare, hot_write_fraction, seed" in err and "wa_windows" not in err
    assert not out.exists()


def test_ssdlab_plot_refuses_text_for_y(tmp_path, capsys):
    path = _write(tmp_path, _records())
    assert main(["plot", path, "--x", "spare", "--y", "mapping", "-o",
                 str(tmp_path / "p.svg")]) == 2
    assert "--y 'mapping' holds no numbers; numeric fields:" in capsys.readouterr().err


def test_ssdlab_plot_writes_every_format_with_a_sidecar(tmp_path, capsys):
    path = _write(tmp_path, _records())
    out = tmp_path / "figs"
    assert main(["plot", path, "--x", "spare", "--y", "wa", "--by", "gc", "--facet",
                 "hot_write_fraction", "--format", "pdf,svg,png,csv", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["plot.csv", "plot.json", "plot.pdf",
                                                     "plot.png", "plot.svg"]
    rows = list(csv.DictReader((out / "plot.csv").open()))
    assert rows[0]["facet"] == "hot_write_fraction = 0.5" and len(rows) == 6
    assert float(rows[0]["wa_gc_greedy_n"]) == 3
    side = json.loads((out / "plot.json").read_text())
    assert side["plot"] == {"x": "spare", "y": "wa", "by": "gc",
                            "facet": "hot_write_fraction"}
    assert side["sweep_results"]["written_by"] == ["0.1.0"]
    assert side["seed"] == [1, 2, 3] and side["facet"]["field"] == "hot_write_fraction"
    assert "min to max" in side["statistics"]["error_bars"]
    assert "spare = " not in (out / "plot.svg").read_text()  # facets: by their own field


def test_a_scenario_sweeps_steps_are_fields_and_its_value_is_named():
    recs = [{"status": "ok", "point": {"scenario": "s.toml", "field": "filesystem.discard",
                                       "value": v},
             "result": {"steps": [{"name": "fill", "wa": 1.0 + v}, {"name": "trim",
                                                                     "wa": 2.0}]}}
            for v in (False, True)]
    t = plot_tables(recs, "value", "steps[0].wa")
    assert t.labels == ("false", "true") and t.chart.x.title == "filesystem.discard (value)"
    np.testing.assert_allclose(t.ys["s0"], [1.0, 2.0])


_ODD = st.one_of(st.none(), st.booleans(), st.integers(-10**400, 10**400), st.text(max_size=3),
                 st.floats(), st.lists(st.integers(), max_size=2),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.fixed_dictionaries({
    "status": st.sampled_from(["ok", "failed"]) | _ODD,
    "point": st.fixed_dictionaries({"gc": st.sampled_from(["greedy", "fifo"]) | _ODD,
                                    "spare": _ODD, "seed": _ODD}) | _ODD,
    "result": st.fixed_dictionaries({"wa": _ODD, "steps": _ODD}) | _ODD}), max_size=6),
    st.sampled_from(["spare", "gc", "wa", "seed"]), st.sampled_from(["wa", "spare", "gc"]),
    st.sampled_from([None, "gc", "seed"]))
def test_plot_draws_or_refuses_any_records_and_never_raises_otherwise(records, x, y, by):
    try:
        got = plot_tables(records, x, y, by)
    except PlotError as e:
        assert "\n" not in str(e)
        return
    assert np.isfinite(got.x).all()
    assert all(v.size == got.x.size for v in got.ys.values())


def test_one_line_with_error_bars_still_says_what_they_are():
    from ssdlab.app.chartexport import figure

    recs = [r for r in _records() if r["point"]["gc"] == "greedy"
            and r["point"]["hot_write_fraction"] == 0.5]
    fig = figure(plot_tables(recs, "spare", "wa"))
    legend = fig.legends[0] if fig.legends else fig.axes[0].get_legend()
    heading = legend.get_title().get_text().replace("\n", " ")
    assert heading == "error bars: min to max over seeds; n = 3 runs per point"
