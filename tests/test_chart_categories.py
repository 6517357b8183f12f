"""Measurements at named categories (partition starts, GC policies, a scenario's steps) are
points, never joined by a line that would claim values between two categories, and the
series sit side by side in each category, so a series equal to another is not hidden under
it. Plain names on a plot's axes and title."""

from ssdlab.app.chartexport import figure
from ssdlab.model.lab.plottable import plot_tables


def _policies(values: dict[str, float]) -> list[dict]:
    """Sweep records: one run per (policy, mapping), WA given per mapping (equal for every
    policy, so points would coincide unless set apart)."""
    return [{"status": "ok", "point": {"gc": gc, "mapping": m, "seed": 1},
             "result": {"wa": wa}}
            for gc in ("fifo", "greedy") for m, wa in values.items()]


def test_points_at_categories_are_not_joined_and_equal_values_stay_visible():
    table = plot_tables(_policies({"page": 2.0, "block": 2.0}), x="gc", y="wa", by="mapping")
    assert table.labels == ("FIFO", "greedy")
    ax = figure(table).axes[0]
    measured = [ln for ln in ax.get_lines() if ln.get_label() in ("block-mapped",
                                                                  "page-mapped")]
    assert len(measured) == 2
    for ln in measured:
        assert ln.get_linestyle() in ("None", "none", "")  # points only
    first, second = (list(ln.get_xdata()) for ln in measured)
    for a, b in zip(first, second, strict=True):
        assert a != b and abs(a - b) < 0.5  # side by side, within the same category
    # each still centred on its category: the two straddle the category's tick
    assert [round((a + b) / 2, 9) for a, b in zip(first, second, strict=True)] == [1.0, 2.0]


def test_a_numeric_axis_keeps_its_lines_and_true_positions():
    recs = [{"status": "ok", "point": {"gc": "greedy", "spare": s, "seed": 1},
             "result": {"wa": 1 / s}} for s in (0.1, 0.2, 0.4)]
    ax = figure(plot_tables(recs, x="spare", y="wa", by="gc")).axes[0]
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == "greedy"]
    assert list(line.get_xdata()) == [0.1, 0.2, 0.4]
    assert line.get_linestyle() not in ("None", "none", "")


def test_a_plot_names_its_axes_in_plain_words():
    recs = [{"status": "ok", "point": {"gc": "greedy", "hot_write_fraction": h, "seed": 1},
             "result": {"wa": 2 + h}} for h in (0.5, 0.9)]
    table = plot_tables(recs, x="hot_write_fraction", y="wa", by="gc")
    assert table.chart.x.label == "hot share of writes"
    assert table.chart.y.label == "write amplification"
    assert table.chart.title == "Write amplification against hot share of writes"
    assert table.chart.y.title == "write amplification (NAND/host)"  # what WA measures
