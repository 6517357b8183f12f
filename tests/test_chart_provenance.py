"""Every figure says where it came from (version, source revision when known, the scenario
file and its sha256, the seeds) in the file itself, PDF and SVG repeat byte for byte unless
a timestamp is asked for, every sweep line carries the version, and one `ssdlab chart`
writes every chart and format from a single play of the scenario."""

import json
import re
import zlib

import numpy as np
import pytest
from test_chart_export import TINY, _records, _series
from test_chart_export import test_ssdlab_chart_bad_input_exits_2_in_one_line as refused

import ssdlab.model.lab.scenario as scenario_module
from ssdlab.app.chartexport import Export, render, write
from ssdlab.app.cli.main import main
from ssdlab.model.lab.charts import RUN_CHARTS, chart_table
from ssdlab.model.lab.plottable import sweep_table
from ssdlab.model.lab.sweep import Task
from ssdlab.model.lab.sweeprun import failed, line, record
from ssdlab.model.provenance import source_revision, version

PROV = {"scenario": {"file": "/x/tiny.toml", "sha256": "ab" * 32, "name": "tiny"},
        "seed": {"steps[0]": 7}}


def _wa():
    return chart_table("wa", _series(), timed=False, theory=2.4)


@pytest.mark.parametrize("fmt", ["pdf", "svg"])
def test_pdf_and_svg_repeat_byte_for_byte_even_with_source_date_epoch(fmt, monkeypatch):
    first = render(_wa(), fmt, provenance=PROV)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")
    assert render(_wa(), fmt, provenance=PROV) == first
    assert render(sweep_table("wa-vs-spare", _records()), fmt) == \
        render(sweep_table("wa-vs-spare", _records()), fmt)
    assert b"CreationDate" not in first and b"<dc:date>" not in first


def test_timestamp_is_opt_in(tmp_path):
    pdf = render(_wa(), "pdf", timestamp=True)
    assert b"/CreationDate (D:20" in pdf
    svg = render(_wa(), "svg", timestamp=True)
    assert b"<dc:date>20" in svg


def test_pdf_keywords_and_subject_hold_the_provenance():
    text = render(_wa(), "pdf", provenance=PROV).decode("latin-1")
    keywords = re.search(r"/Keywords \((.*)\)\n", text).group(1)
    got = json.loads(keywords.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\"))
    assert got["ssdlab_version"] == version() and got["chart"] == "wa"
    assert got["scenario"]["sha256"] == "ab" * 32 and got["seed"] == {"steps[0]": 7}
    if source_revision():
        assert got["source_revision"] == source_revision()
    assert "/Subject (SSD Lab" in text and "ab" * 32 in text


def test_svg_metadata_holds_the_provenance():
    svg = render(_wa(), "svg", provenance=PROV).decode()
    desc = re.search(r"<dc:description>(.*?)</dc:description>", svg, re.S).group(1)
    got = json.loads(desc.replace("&quot;", '"').replace("&amp;", "&"))
    assert got["scenario"]["file"] == "/x/tiny.toml" and got["ssdlab_version"] == version()


def _png_text(data: bytes) -> dict[str, str]:
    out, i = {}, 8
    while i < len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        if kind == b"tEXt":
            k, v = body.split(b"\0", 1)
            out[k.decode("latin-1")] = v.decode("latin-1")
        elif kind == b"zTXt":
            k, v = body.split(b"\0", 1)
            out[k.decode("latin-1")] = zlib.decompress(v[1:]).decode("latin-1")
        elif kind == b"iTXt":
            k, rest = body.split(b"\0", 1)
            out[k.decode("latin-1")] = rest.split(b"\0", 3)[-1].decode()
        i += 12 + n
    return out


def test_png_text_chunks_hold_the_provenance():
    chunks = _png_text(render(_wa(), "png", provenance=PROV))
    got = json.loads(chunks["ssdlab-provenance"])
    assert got["seed"] == {"steps[0]": 7} and chunks["Software"] == f"SSD Lab {version()}"


def test_csv_sidecar_has_the_version_and_revision(tmp_path):
    write(str(tmp_path / "wa.csv"), _wa(), Export("csv", provenance=PROV))
    side = json.loads((tmp_path / "wa.json").read_text())
    assert side["ssdlab_version"] == version() and side["scenario"]["name"] == "tiny"
    assert ("source_revision" in side) == bool(source_revision())


def test_every_sweep_line_carries_the_version():
    task = Task("k", {"gc": "greedy"}, ("wa",))
    for rec in (record(task, {"wa": 2.0}, None, 1.0), failed(task, "boom")):
        got = json.loads(line(rec))
        assert got["ssdlab_version"] == version()
        assert got.get("source_revision") == source_revision()


def test_chart_all_in_every_format_plays_the_scenario_once(tmp_path, monkeypatch, capsys):
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    plays = []
    real = scenario_module.run_scenario
    monkeypatch.setattr(scenario_module, "run_scenario",
                        lambda *a, **k: plays.append(1) or real(*a, **k))
    out = tmp_path / "figs"
    assert main(["chart", str(scenario), "--chart", "all", "--format", "pdf,svg,csv",
                 "-o", str(out)]) == 0
    assert len(plays) == 1
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{c}.{f}" for c in RUN_CHARTS for f in ("pdf", "svg", "csv",
                                                                     "json"))
    side = json.loads((out / "steps.json").read_text())
    assert side["scenario"]["name"] == "tiny" and side["series"]["interval_s"] > 0
    assert b"tiny.toml" in (out / "wa.pdf").read_bytes()


@pytest.mark.parametrize("argv, names", [
    (["--chart", "all", "-o", "{tmp}/figs"], "give the formats too"),
    (["--chart", "wa", "--format", "pdf,svg", "-o", "{scenario}"], "is a file"),
    (["--chart", "all", "--format", "pdf,gif", "-o", "{tmp}/figs"], "--format"),
    (["--chart", "all", "--format", "pdf", "-o", "{tmp}/no/figs"], "does not exist"),
])
def test_several_outputs_need_a_folder_and_formats(tmp_path, capsys, argv, names):
    refused(tmp_path, capsys, argv, names)  # exit 2, one line, the scenario untouched


def test_a_timestamped_file_differs_only_in_its_date():
    a = render(_wa(), "svg", timestamp=True).decode()
    b = render(_wa(), "svg").decode()
    strip = re.sub(r"\s*<dc:date>.*?</dc:date>", "", a)
    assert strip == b
    assert np.isfinite(_wa().ys["wa"]).all()


def test_chart_all_from_a_session_replays_its_log_once(tmp_path, monkeypatch, capsys):
    import ssdlab.app.session.replay as replay_module

    calls = []
    real = replay_module.replay
    monkeypatch.setattr(replay_module, "replay",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    out = tmp_path / "figs"
    session = "tests/sessions/block_v1.json"
    assert main(["chart", session, "--chart", "all", "--format", "csv", "-o", str(out)]) == 0
    assert len(calls) == 1
    # a block-level session has no file-system step: every chart but the steps chart
    assert sorted(p.stem for p in out.glob("*.csv")) == sorted(c for c in RUN_CHARTS
                                                               if c != "steps")
    side = json.loads((out / "wear.json").read_text())
    assert side["session"]["replayed"] and len(side["session"]["sha256"]) == 64


def test_the_same_command_twice_writes_the_same_pdf_and_svg_bytes(tmp_path, capsys):
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    for out in ("one", "two"):
        assert main(["chart", str(scenario), "--chart", "wa", "--format", "pdf,svg", "-o",
                     str(tmp_path / out)]) == 0
    for name in ("wa.pdf", "wa.svg"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
