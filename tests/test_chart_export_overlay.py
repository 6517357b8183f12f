"""Several runs in one exported figure (ssdlab/model/lab/overlay.py, ssdlab/app/chartexport.py,
ssdlab/app/blockmapexport.py): the lines the window draws with two drives or a kept reference, the
same labels, A solid, B dashed and references dash-dotted, the x axis over every run, a CSV in
long format that loses nothing, each run's settings in the sidecar; two block maps side by
side, each titled. Checked in the files themselves."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app import blockmapexport as bm
from ssdlab.app.chartexport import Export, figure, write
from ssdlab.model.lab.charts import RUN_CHARTS, chart_table
from ssdlab.model.lab.overlay import ChartRun, Overlay, legend_text
from tests.test_chart_export import STEPS, SVG, _block_arrays, _pdf_fonts, _series


def _run_series(scale: float, n: int, span: float) -> dict[str, np.ndarray]:
    s = {k: v.copy() for k, v in _series(n).items()}
    s["drive_writes"] = np.linspace(0.0, span, n)
    s["wa"] = 1 + scale * (1 - np.exp(-s["drive_writes"]))
    return s


def _overlay(name: str, b_theory: float = 2.0, timed: bool = False) -> Overlay:
    """A (spare 7 %), B (spare 28 %) and a reference that ran further (4 drive writes)."""
    rng = np.random.default_rng(5)

    def table(scale, n, span, theory, steps):
        return chart_table(name, _run_series(scale, n, span), timed=timed,
                           erases=rng.poisson(10 * scale, 256), theory=theory, steps=steps,
                           victims=np.bincount(rng.binomial(64, 0.2 * scale, 200)))

    return Overlay((
        ChartRun("A: spare 7 %", "main", table(2.5, 400, 3.0, 3.4, STEPS), "",
                 {"settings": {"spare_pct": 7.0}, "seed": 1}),
        ChartRun("B: spare 28 %", "second", table(1.2, 300, 3.0, b_theory, STEPS), "B",
                 {"settings": {"spare_pct": 28.0}, "seed": 1}),
        ChartRun("ref: spare 14 %", "ref", table(1.8, 200, 4.0, 2.7, STEPS[:1]), "ref0",
                 {"settings": {"spare_pct": 14.0}, "seed": 1})))


def _svg_words(path) -> str:
    root = ET.parse(path).getroot()
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def _series_path(root, gid: str):
    (group,) = [g for g in root.iter(f"{SVG}g") if g.get("id") == gid]
    shapes = {id(p) for d in group.iter(f"{SVG}defs") for p in d.iter(f"{SVG}path")}
    (path,) = [p for p in group.iter(f"{SVG}path") if id(p) not in shapes]
    return path


def test_the_lines_drawn_and_their_names_follow_the_window():
    ov = _overlay("wa")
    drawn = [(run.key, line.key, text) for run, line, text in ov.drawn()]
    # references under A, B over A; A's and B's per-window WA beside their analytic level
    # (the curve it predicts); neither a level nor a per-window WA for a reference
    assert drawn == [("ref0", "wa", "ref: spare 14 %"),
                     ("", "wa", "A: spare 7 %, cumulative"),
                     ("", "wa_window", "A: spare 7 %, per window"),
                     ("", "theory", "A: analytic"),
                     ("B", "wa", "B: spare 28 %, cumulative"),
                     ("B", "wa_window", "B: spare 28 %, per window"),
                     ("B", "theory", "B: analytic")]
    # B's analytic level where it is A's: drawn once
    same = [(r.key, ln.key) for r, ln, _ in _overlay("wa", b_theory=3.4).drawn()]
    assert ("B", "theory") not in same and ("", "theory") in same
    # more than one solid line per run: each named by run and line
    texts = [t for _, _, t in _overlay("throughput").drawn()]
    assert "B: spare 28 %, NAND" in texts and "A: spare 7 %, host" in texts
    # alone: the plain chart, every line under its own name
    alone = Overlay.of(_overlay("wa").runs[0].table)
    assert [t for _, _, t in alone.drawn()] == ["cumulative", "per window", "analytic"]
    assert legend_text("", "host", 2, False) == "host"


@pytest.mark.parametrize("runs, why", [
    ((), "at least one run"),
    ((("main", ""), ("main", "B")), "only it, has the role 'main'"),
    ((("second", ""),), "only it, has the role 'main'"),
    ((("main", ""), ("best", "B")), "role must be one of"),
    ((("main", ""), ("ref", "")), "its own key"),
])
def test_a_malformed_overlay_is_refused(runs, why):
    table = _overlay("wa").runs[0].table
    with pytest.raises(ValueError, match=why):
        Overlay(tuple(ChartRun(key, role, table, key) for role, key in runs))
    other = _overlay("free").runs[1].table
    with pytest.raises(ValueError, match="same chart"):
        Overlay((ChartRun("A", "main", table), ChartRun("B", "second", other, "B")))


# the steps chart is bars, told apart by colour, hatch and edge (tested below)
@pytest.mark.parametrize("name", [c for c in RUN_CHARTS if c != "steps"])
def test_svg_names_every_run_and_tells_them_apart_by_line_style(tmp_path, name):
    ov = _overlay(name)
    out = tmp_path / f"{name}.svg"
    write(str(out), ov, Export("svg", "double"))
    words = _svg_words(out)
    root = ET.parse(out).getroot()
    dashes = {}
    for run, line, text in ov.drawn():
        if not np.isfinite(run.table.ys[line.key]).any():
            continue
        assert text in words
        gid = f"series-{run.key}-{line.key}" if run.key else f"series-{line.key}"
        style = _series_path(root, gid).get("style", "")
        dashes[run.role, line.dashed] = style.split("stroke-dasharray:")[1].split(";")[0] \
            if "stroke-dasharray" in style else "solid"
    assert dashes["main", False] == "solid"
    # B and the reference each have a dash pattern of their own, A's analytic another
    solid_lines = {k: v for k, v in dashes.items() if not k[1]}
    assert len(set(solid_lines.values())) == len(solid_lines) == 3
    assert len(set(dashes.values())) == len(dashes)


def test_x_axis_covers_every_run():
    ax = figure(_overlay("wa")).axes[0]
    lo, hi = ax.get_xlim()
    assert lo <= 0.0 and hi >= 4.0  # the reference ran to 4 drive writes, A to 3


def test_steps_axis_names_each_position_by_every_run():
    ov = _overlay("steps")
    b = ov.runs[1].table
    renamed = type(b)(b.chart, b.timed, b.x, b.ys, ("unpack", "remount discard"))
    ov = Overlay((ov.runs[0], ChartRun("B: discard", "second", renamed, "B")))
    assert ov.step_labels() == ("unpack", "sync / remount discard")
    # horizontal bars: the step names down the side
    ticks = [t.get_text() for t in figure(ov).axes[0].get_yticklabels()]
    assert ticks == ["unpack", "sync / remount discard"]


def test_steps_bars_tell_runs_apart_and_leave_a_step_a_run_did_not_take_blank(tmp_path):
    out = tmp_path / "steps.svg"
    write(str(out), _overlay("steps"), Export("svg"))
    root = ET.parse(out).getroot()
    ids = {g.get("id") for g in root.iter(f"{SVG}g") if g.get("id")}
    # A and B at both steps; the reference took only the first step: one bar per series
    for prefix, steps in (("series-host_mb", 2), ("series-B-host_mb", 2),
                          ("series-ref0-host_mb", 1)):
        assert {f"{prefix}-{j}" for j in range(1, steps + 1)} <= ids
    ax = figure(_overlay("steps")).axes[0]
    words = [t.get_text() for t in ax.texts]
    assert words.count("493") == 3 and words.count("10") == 2  # no "0" for the missing


def test_csv_long_format_keeps_every_column_of_every_run(tmp_path):
    ov = _overlay("wa")
    out = tmp_path / "wa.csv"
    assert write(str(out), ov, Export("csv")) == [str(out), str(tmp_path / "wa.json")]
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["run", "drive_writes", "wa", "wa_window", "wa_analytic"]
    for run in ov.runs:
        mine = [r for r in rows if r["run"] == run.label]
        assert len(mine) == run.table.x.size
        for column, values in run.table.columns().items():
            got = np.array([float(r[column]) if r[column] else np.nan for r in mine])
            np.testing.assert_array_equal(got, values)  # per-window WA and all: nothing lost
    side = json.loads((tmp_path / "wa.json").read_text())
    assert side["run_column"] == "run" and side["columns"] == list(rows[0])
    assert [(r["label"], r["role"], r["settings"]["spare_pct"], r["rows"])
            for r in side["runs"]] == [("A: spare 7 %", "main", 7.0, 400),
                                       ("B: spare 28 %", "second", 28.0, 300),
                                       ("ref: spare 14 %", "ref", 14.0, 200)]
    write(str(out), _overlay("steps"), Export("csv"))
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["run", "step_number", "host_mb", "nand_mb", "step"]
    assert [r["step"] for r in rows] == ["unpack", "sync", "unpack", "sync", "unpack"]


def test_pdf_and_png_of_an_overlay(tmp_path):
    ov = _overlay("throughput", timed=True)
    write(str(tmp_path / "t.pdf"), ov, Export("pdf"))
    fonts = _pdf_fonts((tmp_path / "t.pdf").read_bytes())
    assert fonts and all(f == ("CIDFontType2", b"FontFile2") for f in fonts), fonts
    write(str(tmp_path / "t.png"), ov, Export("png"))
    write(str(tmp_path / "one.png"), ov.runs[0].table, Export("png"))
    height = lambda p: int.from_bytes((tmp_path / p).read_bytes()[20:24], "big")  # noqa: E731
    assert height("t.png") > height("one.png")  # the runs' legend has room of its own


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=4), st.booleans())
def test_long_format_is_the_runs_stacked(sizes, timed):
    """However many runs of whatever lengths: one row per point of each run, in run order,
    the run column naming it, every column's values kept."""
    roles = ["main"] + ["second"] + ["ref"] * 2
    runs = []
    for i, n in enumerate(sizes):
        s = _run_series(1.0 + i, max(n, 1), 1.0 + i)
        s = {k: v[:n] for k, v in s.items()}
        runs.append(ChartRun(f"run {i}", roles[i], chart_table("throughput", s, timed=timed),
                             f"k{i}" if i else ""))
    ov = Overlay(tuple(runs))
    cols = ov.columns()
    if len(runs) == 1:
        assert "run" not in cols
        return
    assert list(cols["run"]) == [r.label for r in runs for _ in range(r.table.x.size)]
    for name in runs[0].table.columns():
        stacked = np.concatenate([r.table.columns()[name] for r in runs])
        np.testing.assert_array_equal(np.asarray(cols[name], float), stacked)


def test_two_block_maps_side_by_side_each_titled(tmp_path):
    maps = [bm.DriveMap("A: spare 7 %", *_block_arrays(300), 64, {"seed": 1}),
            bm.DriveMap("B: spare 28 %, discard", *_block_arrays(420, 3), 64, {"seed": 1})]
    for fmt in ("png", "svg", "pdf", "csv"):
        bm.write_maps(str(tmp_path / f"map.{fmt}"), maps, Export(fmt))
    words = _svg_words(tmp_path / "map.svg")
    assert "A: spare 7 %" in words and "B: spare 28 %, discard" in words
    assert "300 blocks" in words and "420 blocks" in words
    root = ET.parse(tmp_path / "map.svg").getroot()
    cells = [e for e in root.iter() if e.get("id") == "blocks"]
    assert [len(list(c.iter(f"{SVG}path"))) for c in cells] == [300, 420]
    rows = list(csv.DictReader((tmp_path / "map.csv").open()))
    assert list(rows[0]) == ["drive", "block", "state", "valid_pages", "erase_count"]
    assert [sum(r["drive"] == m.label for r in rows) for m in maps] == [300, 420]
    b_rows = [r for r in rows if r["drive"] == maps[1].label]
    assert [int(r["valid_pages"]) for r in b_rows] == maps[1].valid.tolist()
    side = json.loads((tmp_path / "map.json").read_text())
    assert [(m["label"], m["blocks"], m["seed"]) for m in side["maps"]] == \
        [("A: spare 7 %", 300, 1), ("B: spare 28 %, discard", 420, 1)]
    assert side["columns"] == list(rows[0])
    with pytest.raises(ValueError, match="at least one"):
        bm.write_maps(str(tmp_path / "none.png"), [], Export("png"))
