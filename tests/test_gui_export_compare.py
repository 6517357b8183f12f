"""Export from the window in compare mode and with a kept reference: the files hold every
run the charts show, under the labels the window gives them ("A: spare 7 %", "B: spare
28 %", "ref: spare 7 %"), each run's settings in the sidecar, and both block maps side by
side, each titled. Runs at full speed; every wait is on a condition."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from ssdlab.app.gui.frame import exportdialog
from ssdlab.model.lab.charts import RUN_CHARTS

SVG = "{http://www.w3.org/2000/svg}"
A, B = "A: spare 7 %", "B: spare 28 %"


def finished(w) -> bool:
    return all(v.snapshot is not None and not v.snapshot.running and not v.snapshot.segment
               for v in w.views)


def svg_words(path) -> str:
    root = ET.parse(path).getroot()
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


@pytest.fixture
def pair(bench, until):
    """Two drives, B with 28 % spare, after the same random writes."""
    assert bench.set_compare(True)
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    bench.edit_drive(1)
    assert bench.request(spare_pct=28.0)
    bench.request(workload="random", amount=0.3)
    bench.run_workload()
    until(lambda: finished(bench) and all(v.snapshot.counters["host_writes"] > 0
                                          for v in bench.views))
    return bench


def test_chart_exports_hold_both_drives(tmp_path, pair):
    a, b = pair.views
    out = tmp_path / "wa.csv"
    assert exportdialog.export_chart(pair, "wa", str(out), "csv")
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["run", "drive_writes", "wa", "wa_window", "wa_analytic"]
    for label, view in ((A, a), (B, b)):
        wa = np.array([float(r["wa"]) if r["wa"] else np.nan for r in rows
                       if r["run"] == label])
        np.testing.assert_allclose(wa, view.snapshot.series["wa"], equal_nan=True)
    side = json.loads((tmp_path / "wa.json").read_text())
    assert [(r["label"], r["role"], r["settings"]["spare_pct"]) for r in side["runs"]] == \
        [(A, "main", 7.0), (B, "second", 28.0)]
    assert side["runs"][1]["seed"] == b.settings.seed
    # what each run did, not only its settings, and the drive it built
    assert [r["log"] for r in side["runs"]] == [a.snapshot.log, b.snapshot.log]
    assert all(r["drive"]["victim_order"] for r in side["runs"])
    for name in RUN_CHARTS:
        for fmt in ("png", "svg", "pdf"):
            path = tmp_path / f"{name}.{fmt}"
            assert exportdialog.export_chart(pair, name, str(path), fmt, "single")
            assert path.stat().st_size > 1000
    words = svg_words(tmp_path / "wa.svg")
    # each level named by its model, as the window's legend names it
    assert A in words and B in words and "A: Van Houdt's greedy model (2013)" in words
    words = svg_words(tmp_path / "throughput.svg")
    assert f"{A}, host" in words and f"{B}, NAND" in words
    assert pair.controls.error.text() == ""
    dialog = exportdialog.open_dialog(pair, "wa", "svg")  # says what the file will hold
    assert dialog.runs.isVisible() and dialog.runs.text().splitlines()[1:] == [A, B]
    dialog.chart.setCurrentIndex(dialog.chart.findData(exportdialog.BLOCK_MAP))
    assert dialog.runs.text().splitlines()[1:] == [A, B]
    dialog.reject()


def test_block_map_export_shows_both_maps_titled(tmp_path, pair):
    a, b = pair.views
    assert b.snapshot.blocks > a.snapshot.blocks  # more spare, more blocks
    svg = tmp_path / "map.svg"
    assert exportdialog.export_chart(pair, exportdialog.BLOCK_MAP, str(svg), "svg")
    words = svg_words(svg)
    assert a.title.text() == A and b.title.text() == B
    assert A in words and B in words
    assert f"{a.snapshot.blocks:,} blocks" in words and f"{b.snapshot.blocks:,} blocks" in words
    out = tmp_path / "map.csv"
    assert exportdialog.export_chart(pair, exportdialog.BLOCK_MAP, str(out), "csv")
    rows = list(csv.DictReader(out.open()))
    assert [sum(r["drive"] == t for r in rows) for t in (A, B)] == \
        [a.snapshot.blocks, b.snapshot.blocks]
    side = json.loads((tmp_path / "map.json").read_text())
    assert [m["settings"]["spare_pct"] for m in side["maps"]] == [7.0, 28.0]


def test_a_kept_reference_is_exported_with_the_run(tmp_path, bench, until):
    bench.request(workload="random", amount=0.3)
    bench.run_workload()
    until(lambda: finished(bench) and bench.snapshot.counters["host_writes"] > 0)
    bench.pin_reference()
    assert len(bench.references) == 1
    assert bench.request(spare_pct=28.0)
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    bench.run_workload()
    until(lambda: finished(bench) and bench.snapshot.counters["host_writes"] > 0)
    out = tmp_path / "free.svg"
    assert exportdialog.export_chart(bench, "free", str(out), "svg")
    words = svg_words(out)
    assert "now: spare 28 %" in words and "ref: spare 7 %" in words
    assert exportdialog.export_chart(bench, "free", str(tmp_path / "free.csv"), "csv")
    side = json.loads((tmp_path / "free.json").read_text())
    assert [(r["role"], r["settings"]["spare_pct"]) for r in side["runs"]] == \
        [("main", 28.0), ("ref", 7.0)]
    # one drive: its block map alone, as before
    assert exportdialog.export_chart(bench, exportdialog.BLOCK_MAP,
                                     str(tmp_path / "map.svg"), "svg")
    assert "Block map: " in svg_words(tmp_path / "map.svg")
    dialog = exportdialog.open_dialog(bench, exportdialog.BLOCK_MAP, "png")
    assert not dialog.runs.isVisible()  # one map: nothing more to say
    dialog.chart.setCurrentIndex(dialog.chart.findData("wa"))
    assert dialog.runs.text().splitlines()[1:] == ["now: spare 28 %", "ref: spare 7 %"]
    dialog.reject()
