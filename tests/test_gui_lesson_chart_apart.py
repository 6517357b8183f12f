"""A lesson chart tells its configurations apart without colour ("nothing told by colour
alone"): four runs of lesson 2 were solid lines with round dots, two of them blue. Each
configuration has its own dash and marker (lines) or hatching (bars), and the legend under
the chart draws the same sample beside each label."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCharts import QBarSeries, QLineSeries

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.lessons.runchartview import RunChartView
from ssdlab.lessons.charts import RunChart, Series

LABELS = ("7 % extra of user", "7 % of physical", "120 GB of 128 GiB", "28 % of physical")


def chart(kind: str) -> RunChart:
    series = tuple(Series(label, f"c{i}", (7.0 - i, 6.9 - i, 7.1 - i))
                   for i, label in enumerate(LABELS))
    if kind == "lines":
        return RunChart("wa", "Write amplification", "lines", "drive writes", "",
                        "write amplification", "", series, x=(0.1, 0.5, 1.0))
    return RunChart("wa", "Write amplification", "bars", "step", "", "write amplification",
                    "", series, categories=("fill", "rewrite", "trim"))


@pytest.mark.parametrize("profile", ["normal", "projector"])
def test_each_configuration_has_its_own_line_and_marker(qtbot, profile):
    theme.set_current(profile)
    try:
        view = RunChartView()
        qtbot.addWidget(view)
        view.show_chart(chart("lines"))
        lines = [s for s in view.chart().series() if isinstance(s, QLineSeries)]
        assert len(lines) == 4
        dashes = {tuple(s.pen().dashPattern()) if s.pen().style().name != "SolidLine"
                  else () for s in lines}
        markers = {bytes(s.lightMarker().constBits()) for s in lines}
        assert len(dashes) == 4 and len(markers) == 4
        legend = view.legend_html()
        samples = re.findall(r'<img src="data:image/png;base64,([^"]+)"', legend)
        assert len(set(samples)) == 4
        # each label kept with its sample, an entry of its own (a label that wraps wraps
        # inside its entry, never into the next)
        entries = view.legend_entries()
        assert len(entries) == 4
        for label, entry in zip(LABELS, entries, strict=True):
            assert entry.startswith("<img") and label in entry
    finally:
        theme.set_current("normal")


def test_each_configurations_bars_are_hatched_apart(qtbot):
    view = RunChartView()
    qtbot.addWidget(view)
    view.show_chart(chart("bars"))
    bars = next(s for s in view.chart().series() if isinstance(s, QBarSeries))
    assert len({b.brush().style() for b in bars.barSets()}) == 4
    samples = re.findall(r'<img src="data:image/png;base64,([^"]+)"', view.legend_html())
    assert len(set(samples)) == 4
