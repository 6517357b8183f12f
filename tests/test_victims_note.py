"""An empty Victims chart says why, on the figure and in the CSV's sidecar: block-mapped and
hybrid drives merge blocks and have no GC victims (ssdlab/model/lab/charts.victims_note)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ssdlab.app.chartexport import Export, write
from ssdlab.model.lab.charts import chart_table

SERIES = {"drive_writes": np.array([0.5, 1.0])}


@pytest.mark.parametrize(("mapping", "words"), [("block", "block-mapped"),
                                                 ("fast", "hybrid"),
                                                 ("page", "has not run")])
def test_an_empty_victims_export_says_why(tmp_path, mapping, words):
    table = chart_table("victims", SERIES, timed=False, victims=np.zeros(65), mapping=mapping)
    assert words in table.note
    write(str(tmp_path / "v.csv"), table, Export("csv"))
    assert words in json.loads((tmp_path / "v.json").read_text())["note"]
    write(str(tmp_path / "v.svg"), table, Export("svg"))
    svg = (tmp_path / "v.svg").read_text()
    assert "GC victims" in svg and ("merges" in svg or "has not run" in svg)


def test_victims_drawn_carry_no_note(tmp_path):
    victims = np.zeros(65)
    victims[3] = 12
    table = chart_table("victims", SERIES, timed=False, victims=victims, mapping="page")
    assert table.note == ""
    write(str(tmp_path / "v.csv"), table, Export("csv"))
    assert "note" not in json.loads((tmp_path / "v.json").read_text())
