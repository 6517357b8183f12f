"""Charts readable in print: series told apart without colour (marker and dash), analytic
curves dashed and above the measured lines, headroom over the largest value, whole-number
ticks for counts, no doubled units, the steps chart's labels apart at single-column width,
a title that can be left to the caption, and no CSV column that is always empty."""

import csv
import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from test_chart_export import STEPS, _records, _series

from ssdlab.app.chartexport import Export, csv_text, figure, write
from ssdlab.model.lab.charts import CHARTS, RUN_CHARTS, chart_table
from ssdlab.model.lab.plottable import sweep_table

SVG = "{http://www.w3.org/2000/svg}"


def _table(name: str, **kw):
    if CHARTS[name].source == "sweep":
        return sweep_table(name, _records())
    erases = kw.pop("erases", np.random.default_rng(1).poisson(20, 512))
    return chart_table(name, kw.pop("series", _series()), timed=kw.pop("timed", False),
                       erases=erases, theory=kw.pop("theory", 2.4),
                       steps=kw.pop("steps", STEPS), victims=np.array([0, 3, 5, 2.0]))


def _dash(line) -> tuple:
    """The line's dash pattern in line widths, () when solid (or drawn as points)."""
    if line.get_linestyle() in ("-", "None", "none", " ", ""):
        return ()
    return tuple(np.round(line._unscaled_dash_pattern[1] or (), 2))


def _three_policies() -> list[dict]:
    recs = []
    for gc, base in (("greedy", 1.0), ("fifo", 1.1), ("random-d", 1.4)):
        for spare in (0.07, 0.2, 0.4):
            recs.append({"status": "ok", "point": {"gc": gc, "spare": spare, "seed": 1},
                         "result": {"wa": base / spare ** 0.5,
                                    "theory_wa": base / spare ** 0.5, "spare": spare}})
    return recs


def test_greedy_fifo_and_random_d_differ_in_marker_and_dash_not_only_colour():
    ax = figure(sweep_table("wa-vs-spare", _three_policies())).axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    measured = [lines[f"{p} (simulated)"] for p in ("greedy", "FIFO", "random-d")]
    models = [lines[f"{p} (analytic)"] for p in ("greedy", "FIFO", "random-d")]
    assert len({ln.get_marker() for ln in measured}) == 3
    assert len({_dash(ln) for ln in models}) == 3  # each model its own dash
    for m in models:  # analytic: dashed (on-lengths above a dot), over the measured points
        on = _dash(m)[0::2]
        assert on and min(on) > 1.5 * m.get_linewidth()
        assert m.get_zorder() > max(ln.get_zorder() for ln in measured)


@pytest.mark.parametrize("name", ["wa", "throughput"])
def test_run_chart_series_each_have_their_own_marker_and_dash(name):
    ax = figure(_table(name)).axes[0]
    styles = [(ln.get_marker(), _dash(ln)) for ln in ax.get_lines() if ln.get_label()[0] != "_"]
    assert len(styles) > 1 and len({s[0] for s in styles}) == len(styles)
    assert len({s[1] for s in styles}) == len(styles)


def test_a_flat_line_is_never_on_the_top_edge():
    series = _series() | {"wa": np.full(500, 17.49)}
    ax = figure(chart_table("wa", series, timed=False, theory=None)).axes[0]
    top = ax.get_ylim()[1]
    assert top >= 17.49 * 1.03
    assert any(17.49 < t <= top for t in ax.get_yticks())  # the top is a labelled tick


@pytest.mark.parametrize("name", ["wear", "victims", "free"])
def test_counts_get_whole_number_ticks_even_when_small(name):
    series = _series() | {"free": np.linspace(1, 3, 500)}
    t = _table(name, series=series, erases=np.array([0, 1, 1, 2, 2, 2]))
    ax = figure(t).axes[0]
    lo, hi = ax.get_ylim()
    ticks = [v for v in ax.get_yticks() if lo <= v <= hi]
    assert ticks and all(float(v).is_integer() for v in ticks)


@pytest.mark.parametrize("name", list(CHARTS))
def test_no_axis_says_its_unit_twice(name):
    for timed in (False, True):
        for axis in CHARTS[name].axes(timed):
            words = axis.title.replace("(", " ").replace(")", " ").split()
            assert len(words) < 2 or words[-1] != words[-2], axis.title  # "blocks (blocks)"
    assert CHARTS["wear"].y.title == "blocks" and CHARTS["free"].y.title == "free blocks"


def _boxes(fig) -> list[tuple[str, Bbox]]:
    FigureCanvasAgg(fig).draw()  # the page as it is printed, laid out
    renderer = fig.canvas.get_renderer()
    found = {id(t): t for t in fig.findobj(lambda a: isinstance(a, Text)
                                           and a.get_visible())}
    for ax in fig.axes:  # tick labels past the axis's ends exist but are not drawn
        for axis, labels in ((ax.xaxis, ax.get_xticklabels()), (ax.yaxis,
                                                                ax.get_yticklabels())):
            lo, hi = sorted(axis.get_view_interval())
            k = 0 if axis is ax.xaxis else 1
            for t in labels:
                if not lo - 1e-9 <= t.get_position()[k] <= hi + 1e-9:
                    found.pop(id(t), None)
    return [(t.get_text(), t.get_window_extent(renderer)) for t in found.values()
            if t.get_text().strip()]


def test_steps_bars_labels_do_not_collide_at_single_column_width():
    steps = [{"step": name, "host_mb": h, "nand_mb": n} for name, h, n in (
        ("restore_image", 8589.0, 8589.0), ("user_mix", 4465.0, 10961.0),
        ("remount", 0.0, 0.0), ("write dd.bin", 2148.0, 6303.0), ("sync", 0.2, 0.2),
        ("fill_free_and_delete", 5438.0, 8155.0), ("idle", 0.0, 0.0))]
    fig = figure(chart_table("steps", _series(), timed=False, steps=steps), "single")
    boxes = _boxes(fig)
    # steps in words, the sync named by what it flushes
    assert {"restore image", "fill free and delete", "sync after write dd.bin",
            "4,465 / 10,961"} <= {t for t, _ in boxes}
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            assert not ba.overlaps(bb) or ba.width * bb.width == 0, (a, b)
    ax = fig.axes[0]
    legend = fig.legends[0].get_window_extent(fig.canvas.get_renderer())
    assert not legend.overlaps(ax.get_window_extent())  # the legend is off the data
    page = fig.bbox
    assert all(page.x0 - 1 <= b.x0 and b.x1 <= page.x1 + 1 for _, b in boxes)


def test_no_title_leaves_the_title_to_the_caption(tmp_path):
    out = tmp_path / "wa.svg"
    write(str(out), _table("wa"), Export("svg", title=False))
    words = " ".join("".join(t.itertext()) for t in ET.parse(out).getroot().iter(f"{SVG}text"))
    assert CHARTS["wa"].title not in words and "write amplification" in words
    write(str(out), _table("wa"), Export("svg"))
    assert CHARTS["wa"].title in out.read_text()


@pytest.mark.parametrize("name", [*RUN_CHARTS, "wa-vs-spare"])
def test_no_csv_column_is_always_empty(name):
    t = _table(name, theory=None)  # no analytic model known
    rows = list(csv.DictReader(io.StringIO(csv_text(t))))
    assert rows
    for column in rows[0]:
        assert any(r[column] != "" for r in rows), column
    if name == "wa":
        assert "wa_analytic" not in rows[0]
