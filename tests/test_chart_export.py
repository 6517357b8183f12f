"""The print exporter (ssdlab/app/chartexport.py) and `ssdlab chart`: what the issue asks of each
file, checked in the file itself: PDF fonts embedded TrueType and never Type 3, SVG text as
<text> and one path per series, PNG resolution in its pHYs chunk, CSV columns with units, the
JSON sidecar, and bad paths refused with the old file left as it was."""

from __future__ import annotations

import csv
import json
import re
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from ssdlab.app.atomicfile import OutputFileError, write_atomic
from ssdlab.app.chartexport import Export, format_of, write
from ssdlab.app.cli.main import main
from ssdlab.model.lab.charts import CHARTS, chart_table, run_series
from ssdlab.model.lab.plottable import sweep_table

SVG = "{http://www.w3.org/2000/svg}"


def _series(n: int = 500) -> dict[str, np.ndarray]:
    x = np.linspace(0.0, 3.0, n)
    wa = 1 + 1.5 * (1 - np.exp(-x))
    window = wa + 0.05 * np.sin(20 * x)
    window[:20] = np.nan  # no window complete yet, as at a run's start
    return {"drive_writes": x, "sim_s": 10 * x, "wa": wa, "wa_window": window,
            "host_rate": 200 + 10 * np.sin(x), "nand_rate": 300 + np.cos(x),
            "gc_rate": 100 * x, "free": np.maximum(5.0, 100 - 50 * x)}


STEPS = [{"step": "unpack", "host_mb": 493.0, "nand_mb": 160.0},
         {"step": "sync", "host_mb": 10.0, "nand_mb": 3.0}]


def _records() -> list[dict]:
    """A sweep's result records: two seeds per point, greedy and FIFO, one failed run."""
    out = []
    for gc, base in (("greedy", 1.0), ("fifo", 1.5)):
        for spare in (0.07, 0.2, 0.4):
            for seed in (1, 2):
                wa = base / spare ** 0.5 + 0.01 * seed
                out.append({"key": f"{gc}-{spare}-{seed}", "status": "ok",
                            "point": {"gc": gc, "spare": spare, "seed": seed},
                            "result": {"wa": wa, "theory_wa": base / spare ** 0.5,
                                       "spare": spare}})
    out.append({"key": "x", "status": "failed", "point": {"gc": "greedy", "spare": 0.9},
                "result": None, "error": "boom"})
    return out


def _table(name: str, timed: bool = False):
    if CHARTS[name].source == "sweep":
        return sweep_table(name, _records())
    erases = np.random.default_rng(1).poisson(20, 512)
    return chart_table(name, _series(), timed=timed, erases=erases, theory=2.4, steps=STEPS)


def _pdf_fonts(data: bytes) -> list[tuple[str, bytes]]:
    """(font subtype, its descriptor's embedded-file key or b"") for every font dictionary
    in a matplotlib PDF (its objects are plain text; only content streams are compressed)."""
    text = data.decode("latin-1")
    objects = dict(re.findall(r"(\d+) 0 obj\s*(.*?)endobj", text, re.S))
    fonts = []
    for body in objects.values():
        if not re.search(r"/Type /Font\s", body):  # not /FontDescriptor
            continue
        subtype = re.search(r"/Subtype /(\w+)", body).group(1)
        if subtype == "Type0":
            continue  # its descendant CIDFont dictionary is listed on its own
        desc = re.search(r"/FontDescriptor (\d+) 0 R", body)
        embedded = b""
        if desc:
            found = re.search(r"/(FontFile2?|FontFile3)\b", objects[desc.group(1)])
            embedded = found.group(1).encode() if found else b""
        fonts.append((subtype, embedded))
    return fonts


@pytest.mark.parametrize("name", list(CHARTS))
def test_pdf_embeds_every_font_as_truetype_and_no_type3(tmp_path, name):
    out = tmp_path / f"{name}.pdf"
    write(str(out), _table(name), Export("pdf"))
    fonts = _pdf_fonts(out.read_bytes())
    assert fonts, "the figure has text, so the PDF has fonts"
    assert all(kind != "Type3" for kind, _ in fonts), fonts
    assert all(embedded == b"FontFile2" for _, embedded in fonts), fonts


@pytest.mark.parametrize("name", list(CHARTS))
def test_svg_has_text_and_one_path_per_series(tmp_path, name):
    out = tmp_path / f"{name}.svg"
    write(str(out), _table(name, timed=name in ("throughput", "gc")), Export("svg"))
    root = ET.parse(out).getroot()
    texts = [t for t in root.iter(f"{SVG}text")]
    words = " ".join("".join(t.itertext()) for t in texts)
    assert CHARTS[name].title in words  # the title is real text, not glyph outlines
    assert "DejaVu Sans" in out.read_text()
    table = _table(name, timed=name in ("throughput", "gc"))
    for line in CHARTS[name].lines:
        if CHARTS[name].levels:  # the steps chart: a bar per step, each its own path
            bars = [g for g in root.iter(f"{SVG}g")
                    if (g.get("id") or "").startswith(f"series-{line.key}-")]
            assert len(bars) == table.x.size
            assert all(len(list(g.iter(f"{SVG}path"))) == 1 for g in bars)
            continue
        groups = [g for g in root.iter(f"{SVG}g") if g.get("id") == f"series-{line.key}"]
        if not np.isfinite(table.ys[line.key]).any():
            assert groups == []  # a series with no data draws nothing
            continue
        (group,) = groups
        # a marker's shape is defined once (<defs>) and placed with <use>: not a path
        shapes = {id(p) for d in group.iter(f"{SVG}defs") for p in d.iter(f"{SVG}path")}
        paths = [p for p in group.iter(f"{SVG}path") if id(p) not in shapes]
        if CHARTS[name].source == "sweep" and not line.dashed:
            # measured points beside their model's dashed curve: markers, no line
            assert paths == [] and list(group.iter(f"{SVG}use")), line.key
            continue
        assert len(paths) == 1, (line.key, len(paths))


def test_png_records_300_dpi_and_column_widths(tmp_path):
    sizes = {}
    for width in ("single", "double"):
        out = tmp_path / f"wa-{width}.png"
        write(str(out), _table("wa"), Export("png", width))
        data = out.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        i = data.index(b"pHYs")
        x_ppm, y_ppm, unit = struct.unpack(">IIB", data[i + 4:i + 13])
        assert unit == 1 and x_ppm == y_ppm == round(300 / 0.0254)
        w, h = struct.unpack(">II", data[16:24])  # IHDR
        sizes[width] = (w, h)
    assert sizes["single"][0] == 3.5 * 300 and sizes["double"][0] == 7 * 300


def test_csv_has_one_column_per_series_with_units_and_a_sidecar(tmp_path):
    out = tmp_path / "tp.csv"
    written = write(str(out), _table("throughput", timed=True),
                    Export("csv", provenance={"seed": 7, "scenario": {"file": "x.toml"}}))
    assert written == [str(out), str(tmp_path / "tp.json")]
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["sim_s", "host_mb_s", "nand_mb_s"]
    assert len(rows) == 500 and float(rows[-1]["sim_s"]) == pytest.approx(30.0)
    side = json.loads((tmp_path / "tp.json").read_text())
    assert side["chart"] == "throughput" and side["seed"] == 7
    assert side["scenario"] == {"file": "x.toml"}
    assert side["ssdlab_version"] and side["columns"] == list(rows[0])
    # untimed, the same chart says what its numbers are per
    write(str(out), _table("throughput"), Export("csv"))
    assert next(csv.reader(out.open())) == ["drive_writes", "host_pages_per_1000_programs",
                                             "nand_pages_per_1000_programs"]
    # a missing value is an empty cell, never "nan"
    write(str(out), _table("wa"), Export("csv"))
    rows = list(csv.DictReader(out.open()))
    assert rows[0]["wa_window"] == "" and rows[-1]["wa_analytic"] == "2.4"


@pytest.mark.parametrize("bad, why", [
    ("missing-folder/out.png", "does not exist"),
    ("", "no extension"),
    ("out", "no extension"),
    ("out.jpeg", "not an export format"),
])
def test_bad_names_are_refused_in_one_line(tmp_path, bad, why):
    path = str(tmp_path / bad) if bad else str(tmp_path)
    with pytest.raises(OutputFileError) as e:
        write(path, _table("wa"), Export(format_of(path)))
    assert why in str(e.value) or "directory" in str(e.value)
    assert "\n" not in str(e.value)


def test_a_failed_export_leaves_the_old_file(tmp_path, monkeypatch):
    out = tmp_path / "wa.pdf"
    out.write_bytes(b"old figure")
    import ssdlab.app.chartexport as exporter

    def broken(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(exporter, "render", lambda *a, **k: b"%PDF new")
    write_atomic(tmp_path / "probe", b"x")  # the real writer works here
    monkeypatch.setattr("os.fsync", broken)  # a full disk shows at the flush to disk
    with pytest.raises(OutputFileError, match="No space left"):
        write(str(out), _table("wa"), Export("pdf"))
    assert out.read_bytes() == b"old figure"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["probe", "wa.pdf"]


def test_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "wa.png").write_bytes(b"old")
    folder.chmod(0o500)
    try:
        import os

        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        with pytest.raises(OutputFileError, match="not writable"):
            write(str(folder / "wa.png"), _table("wa"), Export("png"))
        assert (folder / "wa.png").read_bytes() == b"old"
    finally:
        folder.chmod(0o700)


def test_run_series_matches_the_window_keys():
    rows = [{"sim_s": t, "device_written_mb": 10.0 * t, "nand_written_mb": 20.0 * t,
             "wa": 2.0, "gc_copies": 5 * t, "free_blocks": 100 - t, "write_mb_s": 10.0,
             "nand_mb_s": 20.0} for t in range(1, 11)]
    s = run_series(rows, capacity_mb=50.0)
    assert s["drive_writes"][-1] == pytest.approx(2.0)
    assert np.all(s["gc_rate"] == 5.0)
    # per-window WA appears once a window (5 % of 50 MB) has been written
    assert np.nanmax(s["wa_window"]) == pytest.approx(2.0)


TINY = """version = 1
name = "tiny"
[drive]
profile = "firstgen_block_64"
user_gib = 0.25
[filesystem]
journal = true
discard = true
[[steps]]
do = "write"
name = "a"
mb = 8
[[steps]]
do = "delete"
name = "a"
[[steps]]
do = "sync"
"""


def test_ssdlab_chart_writes_the_figure_and_its_data(tmp_path, capsys):
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    assert main(["chart", str(scenario), "--chart", "steps", "-o",
                 str(tmp_path / "steps.csv")]) == 0
    rows = list(csv.DictReader((tmp_path / "steps.csv").open()))
    assert [r["step"] for r in rows] == ["write a", "delete a", "sync"] or len(rows) == 3
    assert float(rows[0]["host_mb"]) >= 8.0
    side = json.loads((tmp_path / "steps.json").read_text())
    assert side["scenario"]["name"] == "tiny" and len(side["scenario"]["sha256"]) == 64
    assert main(["chart", str(scenario), "--chart", "wa", "--format", "svg", "--width",
                 "double", "-o", str(tmp_path / "wa.svg")]) == 0
    assert "<text" in (tmp_path / "wa.svg").read_text()


@pytest.mark.parametrize("argv, names", [
    (["--chart", "wa", "-o", "{tmp}/out"], "no extension"),
    (["--chart", "wa", "-o", "{tmp}/nowhere/out.png"], "does not exist"),
    (["--chart", "pie", "-o", "{tmp}/out.png"], "--chart"),
    (["--chart", "wa", "--format", "pdf", "-o", "{tmp}/out.png"], "does not match"),
    (["--chart", "wa", "-o", "{scenario}", "--format", "png"], "scenario being read"),
])
def test_ssdlab_chart_bad_input_exits_2_in_one_line(tmp_path, capsys, argv, names):
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    argv = [a.format(tmp=tmp_path, scenario=scenario) for a in argv]
    try:
        status = main(["chart", str(scenario), *argv])
    except SystemExit as e:  # argparse's own refusals exit from the parser
        status = e.code
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert names in err and len(err.splitlines()) == 1
    assert scenario.read_text() == TINY


def test_a_series_with_no_data_stays_out_of_the_legend():
    from ssdlab.app.chartexport import figure

    def legend(theory):
        table = chart_table("wa", _series(), timed=False, theory=theory)
        ax = figure(table).axes[0]
        return [t.get_text() for t in ax.get_legend().get_texts()]

    assert legend(2.4) == ["cumulative", "per window", "analytic"]
    assert legend(None) == ["cumulative", "per window"]


def test_sweep_table_averages_seeds_and_skips_failed_runs():
    t = sweep_table("wa-vs-spare", _records())
    np.testing.assert_allclose(t.x, [7.0, 20.0, 40.0])
    np.testing.assert_allclose(t.ys["greedy"], 1 / np.sqrt([0.07, 0.2, 0.4]) + 0.015)
    np.testing.assert_allclose(t.ys["fifo_theory"], 1.5 / np.sqrt([0.07, 0.2, 0.4]))
    assert np.all(np.isnan(t.ys["random-d"]))
    assert list(t.columns())[:7] == ["spare_pct", "wa_greedy", "wa_greedy_n", "wa_greedy_sd",
                                     "wa_greedy_min", "wa_greedy_max", "wa_analytic_greedy"]
    np.testing.assert_allclose(t.stats["greedy"]["n"], 2)
    np.testing.assert_allclose(t.stats["greedy"]["max"] - t.stats["greedy"]["min"], 0.01)
    assert "wa_random-d" not in t.columns()  # no run, no column (never an empty one)
    assert "min to max" in t.spread


def test_ssdlab_chart_draws_a_sweeps_results(tmp_path, capsys):
    results = tmp_path / "sweep.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    out = tmp_path / "spare.svg"
    assert main(["chart", str(results), "--chart", "wa-vs-spare", "-o", str(out)]) == 0
    text = out.read_text()
    # greedy's points and model, one legend entry; no runs, no legend
    assert 'id="series-greedy_theory"' in text and "random-d" not in text
    assert "points: simulated; lines: analytic" in text
    (tmp_path / "bad.jsonl").write_text("not json\n{}\n")
    assert main(["chart", str(tmp_path / "bad.jsonl"), "--chart", "wa-vs-spare", "-o",
                 str(out)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err


def test_histogram_outline_is_closed_to_zero():
    from ssdlab.model.lab.charts import histogram_outline

    x, y = histogram_outline(np.array([3.0, 5.0]))
    np.testing.assert_array_equal(x, [0, 0, 1, 1, 2, 2])
    np.testing.assert_array_equal(y, [0, 3, 3, 5, 5, 0])
    assert histogram_outline(np.empty(0))[0].size == 0


# --- charts from a session file the window saved, and the block map ---------------------------

SESSIONS = "tests/sessions"


@pytest.mark.parametrize("fixture", ["block_v1", "fs_v1"])
@pytest.mark.parametrize("name", ["wa", "throughput", "gc", "free", "wear", "victims",
                                  "steps"])
def test_ssdlab_chart_from_each_fixture_session(tmp_path, capsys, fixture, name):
    from ssdlab.app.session.sessionfile import read_session

    session = f"{SESSIONS}/{fixture}.json"
    settings, log, series = read_session(session)
    out = tmp_path / f"{name}.csv"
    status = main(["chart", session, "--chart", name, "-o", str(out)])
    err = capsys.readouterr().err.strip()
    if name == "steps" and not any(d.get("fs") for d in log):
        assert status == 2 and "log holds no file-system step" in err
        assert len(err.splitlines()) == 1 and not out.exists()
        return
    assert status == 0, err
    rows = list(csv.DictReader(out.open()))
    side = json.loads((tmp_path / f"{name}.json").read_text())
    assert side["chart"] == name and side["seed"] == settings.seed
    assert side["session"]["settings"]["capacity_mib"] == settings.capacity_mib
    assert side["session"]["replayed"] == (name in ("wear", "victims", "steps"))
    if name == "wa":  # the series as saved, the analytic WA from the settings
        got = [float(r["wa"]) if r["wa"] else np.nan for r in rows]
        np.testing.assert_allclose(got, series["wa"], equal_nan=True)
    if name == "free":
        assert [float(r["free_blocks"]) for r in rows] == series["free"]
    if name == "wear":  # the replayed drive erased what the saved run counted
        blocks = np.array([float(r["blocks"]) for r in rows])
        counts = np.array([float(r["erase_count"]) for r in rows])
        assert (blocks * counts).sum() == series["erases"][-1]
    if name == "victims":  # every page GC copied was valid in one of these victims
        victims = np.array([float(r["victims"]) for r in rows])
        valid = np.array([float(r["victim_valid_pages"]) for r in rows])
        assert (victims * valid).sum() == series["gc"][-1]
    if name == "steps":
        assert [r["step"] for r in rows][0].startswith("unpack kernel tree")
        assert float(rows[0]["host_mb"]) > 1.0
    for fmt in ("png", "svg", "pdf"):
        assert main(["chart", session, "--chart", name, "-o", str(tmp_path / f"c.{fmt}")]) == 0


def test_replayed_block_session_rebuilds_the_saved_counters():
    from ssdlab.app.session.replay import replay
    from ssdlab.app.session.sessionfile import read_session

    settings, log, series = read_session(f"{SESSIONS}/block_v1.json")
    c = replay(settings, log).drive.counters()
    assert (c["host_writes"], c["nand_writes"], c["erases"], c["gc_copies"]) == tuple(
        series[k][-1] for k in ("host", "nand", "erases", "gc"))


@pytest.mark.parametrize("edit, names", [
    (lambda d: d["settings"].update(spare_pct=99), "settings: spare"),
    (lambda d: d["log"][0].update(total=-1), "log[0].total"),
    (lambda d: d.update(format="other"), "not an SSD Lab session"),
    (lambda d: d["series"]["wa"].append(1.0), "series.wa has"),
    (lambda d: d["series"].update(wa=["x"] * len(d["series"]["wa"])), "series.wa[0]"),
])
def test_ssdlab_chart_refuses_a_bad_session_in_one_line(tmp_path, capsys, edit, names):
    doc = json.loads(open(f"{SESSIONS}/block_v1.json").read())
    edit(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    old = tmp_path / "wa.png"
    old.write_bytes(b"old")
    assert main(["chart", str(bad), "--chart", "wa", "-o", str(old)]) == 2
    err = capsys.readouterr().err.strip()
    assert names in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert old.read_bytes() == b"old"


def test_ssdlab_chart_session_refuses_truncated_json_and_its_own_sidecar(tmp_path, capsys):
    text = open(f"{SESSIONS}/block_v1.json").read()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    assert main(["chart", str(cut), "--chart", "wear", "-o", str(tmp_path / "w.png")]) == 2
    assert "not JSON" in capsys.readouterr().err
    session = tmp_path / "s.json"
    session.write_text(text)
    # the CSV's sidecar would be s.json: the session being read
    assert main(["chart", str(session), "--chart", "wa", "-o", str(tmp_path / "s.csv")]) == 2
    assert "session being read" in capsys.readouterr().err
    assert session.read_text() == text


def _block_arrays(n: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    state = rng.choice([0, 1, 2, 3], size=n, p=[0.1, 0.02, 0.87, 0.01]).astype(np.int8)
    valid = np.where(state == 2, rng.integers(0, 65, n), 0).astype(np.int32)
    return state, valid, rng.poisson(5, n).astype(np.int32)


@pytest.mark.parametrize("blocks, drawn", [(300, "rectangles"), (20_000, "image")])
def test_block_map_exports_in_every_format(tmp_path, blocks, drawn):
    from ssdlab.app import blockmapexport as bm
    from ssdlab.model.flash.state import BLOCK_STATE_NAMES

    state, valid, erases = _block_arrays(blocks)
    for fmt in ("png", "svg", "pdf", "csv"):
        bm.write(str(tmp_path / f"map.{fmt}"), state, valid, erases, 64,
                 Export(fmt, provenance={"seed": 3}))
    png = (tmp_path / "map.png").read_bytes()
    i = png.index(b"pHYs")
    assert struct.unpack(">IIB", png[i + 4:i + 13]) == (11811, 11811, 1)
    fonts = _pdf_fonts((tmp_path / "map.pdf").read_bytes())
    assert fonts and all(f == ("CIDFontType2", b"FontFile2") for f in fonts), fonts
    root = ET.parse(tmp_path / "map.svg").getroot()
    words = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert f"Block map: {blocks:,} blocks" in words and "free (" in words
    (cells,) = [e for e in root.iter() if e.get("id") == "blocks"]
    if drawn == "rectangles":  # one vector rectangle per block
        assert len(list(cells.iter(f"{SVG}path"))) == blocks
    else:  # one embedded image (the element itself), and the file stays small
        assert cells.tag == f"{SVG}image" and not list(root.iter(f"{SVG}path"))[100:]
        assert (tmp_path / "map.svg").stat().st_size < 2_000_000
        assert (tmp_path / "map.pdf").stat().st_size < 2_000_000
    rows = list(csv.DictReader((tmp_path / "map.csv").open()))
    assert list(rows[0]) == ["block", "state", "valid_pages", "erase_count"]
    assert [r["state"] for r in rows] == [BLOCK_STATE_NAMES[s] for s in state]
    assert [int(r["valid_pages"]) for r in rows] == valid.tolist()
    assert [int(r["erase_count"]) for r in rows] == erases.tolist()
    side = json.loads((tmp_path / "map.json").read_text())
    assert side["chart"] == "blockmap" and side["figure_cells"] == drawn
    assert side["blocks"] == blocks and side["seed"] == 3
    assert sum(side["states"].values()) == blocks


def test_block_map_bad_path_and_bad_arrays_leave_the_old_file(tmp_path):
    from ssdlab.app import blockmapexport as bm

    state, valid, erases = _block_arrays(50)
    old = tmp_path / "map.png"
    old.write_bytes(b"old")
    with pytest.raises(OutputFileError, match="no extension"):
        bm.write(str(tmp_path / "map"), state, valid, erases, 64, Export("png"))
    with pytest.raises(OutputFileError, match="does not exist"):
        bm.write(str(tmp_path / "no" / "map.png"), state, valid, erases, 64, Export("png"))
    with pytest.raises(ValueError, match="one value per block"):
        bm.write(str(old), state, valid[:-1], erases, 64, Export("png"))
    assert old.read_bytes() == b"old"
