"""A figure made by `ssdlab plot` or `ssdlab chart` from a sweep's results holds everything
that makes it again (issue 37): the settings the points share and vary, the engine's fixed
values a point does not name (gc_frontier, victim_order), the command, and paths relative to
the figure's folder, never the author's absolute paths. The command read back from the
figure's own metadata, run in its folder, writes the same data and the same image; failed
runs are warned about, counted, and said on the figure."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from PIL import Image

from ssdlab.app.chartexport import figure
from ssdlab.app.chartprovenance import PNG_KEY
from ssdlab.app.cli.main import main
from ssdlab.model.lab.plottable import plot_tables
from ssdlab.model.lab.provenance import PROJECT, shown_path

SPARES = (0.07, 0.2, 0.4)
BLOCKS = (16, 64, 256)


def _records(failed: int = 0) -> list[dict]:
    """A drive sweep's records over pages_per_block x spare x seed (WA made up); the last
    `failed` of them failed."""
    out = []
    for ppb in BLOCKS:
        for spare in SPARES:
            for seed in (1, 2):
                point = {"gc": "greedy", "pages_per_block": ppb, "spare": spare,
                         "seed": seed, "user_pages": 65536, "mapping": "page"}
                wa = (1 + ppb / 1000) / spare ** 0.5 + 0.01 * seed
                out.append({"key": json.dumps(point, sort_keys=True), "status": "ok",
                            "point": point, "ssdlab_version": "0.1.0",
                            "result": {"wa": wa, "theory_wa": wa - 0.01, "spare": spare}})
    for r in out[len(out) - failed:]:
        r.update(status="failed", result=None, error="the run failed")
    return out


def _results(folder, records) -> str:
    path = folder / "sweep.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


COMMANDS = {
    "plot": ["plot", "{results}", "--x", "spare", "--y", "wa", "--by", "pages_per_block",
             "--format", "png,csv", "-o", "{out}"],
    "chart": ["chart", "{results}", "--chart", "wa-vs-spare", "--format", "png,csv", "-o",
              "{out}"],
}


@pytest.mark.parametrize("kind", COMMANDS)
def test_a_figure_is_made_again_from_the_command_in_its_own_metadata(tmp_path, monkeypatch,
                                                                     kind):
    results = _results(tmp_path, _records())
    out = tmp_path / "figures" / "made"
    out.parent.mkdir()
    words = [w.format(results=results, out=out) for w in COMMANDS[kind]]
    assert main(words) == 0
    name = "plot" if kind == "plot" else "wa-vs-spare"
    png, csv_path = out / f"{name}.png", out / f"{name}.csv"
    prov = json.loads(Image.open(png).text[PNG_KEY])
    side = json.loads((out / f"{name}.json").read_text())
    for got in (prov, side):
        # every setting: what the points share, what they vary, what the engine fixed
        assert got["settings"]["user_pages"] == 65536 and got["settings"]["gc"] == "greedy"
        assert got["varied"]["pages_per_block"] == list(BLOCKS)
        assert got["varied"]["spare"] == list(SPARES)
        assert got["engine"]["gc_frontier"] == "separate"
        assert got["engine"]["victim_order"] == "oldest"
        assert got["sweep_results"]["file"] == "../../sweep.jsonl"  # from the figure's folder
        assert got["command"][:3] == ["ssdlab", kind, "../../sweep.jsonl"]
    assert side["y"]["definition"].startswith("write amplification: what the flash")
    for path in out.iterdir():  # no absolute path: not the test's folder, nor a home
        text = path.read_bytes()
        assert str(tmp_path).encode() not in text and os.path.expanduser("~").encode() \
            not in text, path.name
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    shutil.rmtree(out)
    out.mkdir()
    monkeypatch.chdir(out)  # the command runs in the figure's folder, as it says
    assert main(prov["command"][1:]) == 0
    assert csv_path.read_text() == before[f"{name}.csv"].decode()  # the same data
    assert png.read_bytes() == before[f"{name}.png"]  # and the same figure


def test_failed_runs_are_warned_about_counted_and_said_on_the_figure(tmp_path, capsys):
    records = _records(failed=2)  # 256 pages per block at spare 0.4: both seeds failed
    results = _results(tmp_path, records)
    out = tmp_path / "p.csv"
    assert main(["plot", results, "--x", "spare", "--y", "wa", "--by", "pages_per_block",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning: 2 of 18 runs failed and are not drawn" in err
    assert "256 pages per block, spare 40 %" not in err  # in words: "40 % spare"
    assert "256 pages per block, 40 % spare, seed 1" in err
    side = json.loads((tmp_path / "p.json").read_text())
    assert side["sweep_results"]["points"] == 18
    assert side["sweep_results"]["finished"] == 16 and side["sweep_results"]["failed"] == 2
    assert len(side["sweep_results"]["failed_points"]) == 2
    fig = figure(plot_tables(records, "spare", "wa", "pages_per_block"))
    heading = fig.legends[0].get_title().get_text().replace("\n", " ")
    assert "2 of 18 runs failed and are not drawn" in heading


def test_a_point_with_fewer_runs_shows_its_n(tmp_path):
    records = _records(failed=1)  # 256 pages per block at spare 0.4: one seed of two left
    fig = figure(plot_tables(records, "spare", "wa", "pages_per_block"))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["n = 1"]
    heading = fig.legends[0].get_title().get_text().replace("\n", " ")
    assert "n = 1 to 2 runs per point" in heading


def test_a_path_is_named_from_the_project_or_the_figure_folder(tmp_path):
    scenario = os.path.join(PROJECT, "ssdlab", "assets", "scenarios", "discard_vertex_le.toml")
    assert shown_path(scenario, str(tmp_path)) == \
        "ssdlab/assets/scenarios/discard_vertex_le.toml"
    (tmp_path / "a").mkdir()
    assert shown_path(str(tmp_path / "r.jsonl"), str(tmp_path / "a")) == "../r.jsonl"
