"""Figures an author prints as they are (issue 37): every series told apart by colour,
marker and dash even when a sweep draws six lines of one policy, legends in words with
units and in numeric order, series that sit on one another named, every text at least 7 pt
when a single-column figure is scaled to 8.5 cm, titles whole, the per-window WA a mid grey
in greyscale, a tick under the smallest value of a log axis, an 18-step chart a sensible
height, and an SVG that names a generic font after DejaVu Sans."""

from __future__ import annotations

import re

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.lines import Line2D
from matplotlib.text import Text
from test_chart_export import _series
from test_chart_print import _dash

from ssdlab.app.chartexport import SMALL_PT, WIDTHS_IN, figure, render
from ssdlab.app.chartstyle import colour
from ssdlab.model.lab.charts import Table, chart_table
from ssdlab.model.lab.gallery import DISCARD, DISCARD_STEPS
from ssdlab.model.lab.plottable import plot_tables, sweep_table

SCALE = 8.5 / (WIDTHS_IN["single"] * 2.54)  # a single column printed 8.5 cm wide: 0.956
BLOCKS = (16, 32, 64, 128, 256, 512)


def _blocks() -> list[dict]:
    """A pages-per-block sweep: six values, listed out of numeric order."""
    out = []
    for ppb in (256, 16, 64, 512, 32, 128):
        for spare in (0.07, 0.2, 0.4):
            wa = (1 + ppb / 600) / spare ** 0.5
            out.append({"status": "ok", "point": {"gc": "greedy", "pages_per_block": ppb,
                                                  "spare": spare, "seed": 1},
                        "result": {"wa": wa, "theory_wa": wa * 0.98, "spare": spare}})
    return out


def _grey(hex_colour: str) -> float:
    """Luminance as a greyscale print renders a colour (ITU-R 601, pdftoppm -gray)."""
    r, g, b = to_rgb(hex_colour)
    return 0.299 * r + 0.587 * g + 0.114 * b


def test_six_series_of_one_policy_each_have_their_own_colour_marker_and_dash():
    table = sweep_table("wa-vs-spare", _blocks())
    ax = figure(table).axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    measured = [lines[f"{b} pages per block (simulated)"] for b in BLOCKS]
    models = [lines[f"{b} pages per block (analytic)"] for b in BLOCKS]
    assert len({ln.get_color() for ln in measured}) == 6  # never one blue for all six
    assert len({ln.get_marker() for ln in measured}) == 6
    assert [ln.get_color() for ln in models] == [ln.get_color() for ln in measured]
    assert len({(_dash(ln), ln.get_color()) for ln in models}) == 6
    # the legend in numeric order, in words with units; the one policy in the title
    legend = ax.figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == [f"{b} pages per block"
                                                          for b in BLOCKS]
    assert table.chart.title.endswith("greedy GC")
    # each entry its series' marker on its model's dash (one entry a pair, under a line
    # saying which is which): its colour, marker and dash, as the plot draws them
    assert legend.get_title().get_text().startswith("points: simulated; lines: "
                                                    "analytic")
    samples = legend.findobj(Line2D)  # each entry's model, then its points
    assert len(samples) == 12
    for i, (points, model) in enumerate(zip(measured, models, strict=True)):
        drawn_model, drawn_points = samples[2 * i], samples[2 * i + 1]
        assert drawn_points.get_marker() == points.get_marker()
        assert drawn_points.get_color() == points.get_color() == drawn_model.get_color()
        assert _dash(drawn_model) == _dash(model) and drawn_points.get_linestyle() == "None"


def test_a_paired_sweep_at_single_width_is_a_sensible_height():
    fig = figure(sweep_table("wa-vs-spare", _blocks()))
    w, h = fig.get_size_inches()
    assert w * SCALE * 2.54 == pytest.approx(8.5, abs=0.01)
    assert h * SCALE * 2.54 < 10.0  # listed measured beside model it was 13.6 cm
    legend = fig.legends[0]
    assert legend._ncols == 2 and len(legend.get_texts()) == 6
    fig.draw_without_rendering()
    assert not legend.get_window_extent().overlaps(fig.axes[0].get_window_extent())


def test_a_plot_by_a_numeric_field_orders_and_names_its_lines_in_words():
    table = plot_tables(_blocks(), "spare", "wa", by="pages_per_block")
    assert [ln.label for ln in table.chart.lines] == [f"{b} pages per block" for b in BLOCKS]
    ax = figure(table).axes[0]
    colours = {ln.get_color() for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    assert len(colours) == 6


def test_series_on_one_another_are_named_on_the_figure():
    recs = []  # greedy, FIFO and cost-benefit the same at 28 % spare; random-d above
    for gc, base in (("greedy", 1.0), ("fifo", 1.1), ("random-d", 1.4),
                     ("cost-benefit", 0.95)):
        for spare in (0.07, 0.2, 0.28):
            wa = 2.0 if spare == 0.28 and gc != "random-d" else base / spare ** 0.5
            recs.append({"status": "ok", "point": {"gc": gc, "spare": spare, "seed": 1},
                         "result": {"wa": wa, "theory_wa": None, "spare": spare}})
    fig = figure(sweep_table("wa-vs-spare", recs))
    heading = fig.legends[0].get_title().get_text().replace("\n", " ")
    assert "greedy, FIFO and cost-benefit coincide at spare 28\u00a0%" in heading
    assert "random-d" not in heading


def _texts(fig) -> list[Text]:
    """Every text the figure draws (a tick outside the axis's view is not drawn)."""
    fig.draw_without_rendering()
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 * abs(hi - lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi - lo):
                    hidden |= {id(tick.label1), id(tick.label2)}
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
            and id(t) not in hidden]


def _steps(n: int) -> list[dict]:
    names = ("fill_files", "sync", "delete_files", "sync", "fstrim", "umount")
    return [{"step": names[i % len(names)], "host_mb": 100.0 + i, "nand_mb": 0.7 + i}
            for i in range(n)]


def _discard() -> Table:
    return Table(DISCARD, True, np.arange(1.0, 6.0),
                 {"discard": np.array([1.1, 1.6, 0.49, 40.41, np.nan]),
                  "fstrim": np.array([1.1, 1.6, 0.49, 0.17, 360.0])}, DISCARD_STEPS)


@pytest.mark.parametrize("case", ["steps", "discard", "wa", "sweep"])
def test_every_text_is_at_least_7_pt_at_8_5_cm_and_inside_the_page(case):
    data = {"steps": lambda: chart_table("steps", _series(), timed=False, steps=_steps(18)),
            "discard": _discard, "wa": lambda: chart_table("wa", _series(), timed=False,
                                                            theory=2.4),
            "sweep": lambda: sweep_table("wa-vs-spare", _blocks())}[case]()
    fig = figure(data)
    page = fig.bbox
    for text in _texts(fig):
        assert text.get_fontsize() * SCALE >= 7.0, (text.get_text(), text.get_fontsize())
        box = text.get_window_extent()
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1, text.get_text()
    assert SMALL_PT * SCALE >= 7.0


def test_the_width_option_says_the_type_sizes_figures_have():
    from ssdlab.app.chartexport import TYPE_PT
    from ssdlab.app.cli.main import build_parser

    text = " ".join(build_parser()._subparsers._group_actions[0].choices["plot"]
                    .format_help().split())
    assert f"type is {TYPE_PT[0]:g} to {TYPE_PT[1]:g} pt" in text


def test_a_long_plot_title_is_broken_not_cut():
    recs = [{"status": "ok", "point": {"gc": gc, "hot_write_fraction": h, "seed": 1},
             "result": {"wa": 2 + h}} for gc in ("greedy", "fifo") for h in (0.5, 0.9)]
    fig = figure(plot_tables(recs, "hot_write_fraction", "wa", by="gc"))
    fig.draw_without_rendering()
    title = fig.axes[0].title
    assert title.get_text().replace("\n", " ") == \
        "Write amplification against hot share of writes"
    box = title.get_window_extent()
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1


def test_the_per_window_line_is_a_mid_grey_apart_from_the_others_in_greyscale():
    ax = figure(chart_table("wa", _series(), timed=False, theory=2.4)).axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    grey = {k: _grey(ln.get_color()) for k, ln in lines.items()}
    assert grey["per window"] <= 0.55  # not a pale grey on white paper
    for other in ("cumulative", "analytic"):
        assert abs(grey["per window"] - grey[other]) >= 0.1, other
        assert _dash(lines["per window"]) != _dash(lines[other])
    assert colour("wa_window", 0, "main") != "#E69F00"


def test_a_log_axis_has_a_tick_under_its_smallest_value_and_writes_each_value():
    fig = figure(_discard())
    ax = fig.axes[0]
    low, _ = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if low <= t]
    assert low <= 0.1 and 0.1 in ticks  # the 0.17 s point sits above a labelled tick
    words = [t.get_text() for t in _texts(fig)]
    assert "0.17" in words and "40.4" in words and "360" in words
    assert not [w for w in words if "mathdefault" in w or "^" in w]  # plain numbers
    assert "sync after rm -rf" in words


def test_an_18_step_chart_is_at_most_13_cm_tall_and_names_each_sync():
    fig = figure(chart_table("steps", _series(), timed=False, steps=_steps(18)))
    assert fig.get_size_inches()[1] * 2.54 <= 13.0
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "fill_files" not in ticks and "sync" not in ticks
    assert ticks[:4] == ["fill files", "sync after fill files", "delete files",
                         "sync after delete files"]


def test_svg_names_a_generic_font_after_dejavu_sans():
    svg = render(chart_table("wa", _series(), timed=False, theory=2.4), "svg").decode()
    families = set(re.findall(r"font-family: ?([^;\"]+)", svg))
    assert families == {"'DejaVu Sans', sans-serif"}


def test_coinciding_series_are_listed_with_their_shared_words_once():
    from ssdlab.app.chartnotes import _listed

    assert _listed(("16 pages per block", "64 pages per block", "256 pages per block")) \
        == "16, 64 and 256 pages per block"
    assert _listed(("greedy, uniform", "greedy, hot/cold")) == "greedy, uniform and hot/cold"
    assert _listed(("greedy, hot/cold", "cost-benefit, hot/cold")) == \
        "greedy, hot/cold and cost-benefit, hot/cold"
