"""A figure exported from the window says what reproduces it as the command line says it for
the same run (issue 37): the run's every setting, its log and the drive it builds, field for
field as `ssdlab chart SESSION.json` writes them; and a scenario file outside the project is
named from the folder the figure goes to, never from the working folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from ssdlab.app.chartexport import figure
from ssdlab.app.gui.frame import exportdialog, runfiles
from ssdlab.app.session.wanotes import analytic_name
from ssdlab.model.lab.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"
# what only a file read from disk and a command can say: the session file, its hash, whether
# its log was replayed, and the command that writes the figure again
FROM_A_FILE = {"command", "run_in", "session.file", "session.sha256", "session.replayed"}


def fields(doc: dict, prefix: str = "") -> set[str]:
    """Every key of a JSON document, nested ones as "a.b" (the log and drive's settings to
    their last key)."""
    out = set()
    for key, value in doc.items():
        name = f"{prefix}{key}"
        out.add(name)
        if isinstance(value, dict):
            out |= fields(value, f"{name}.")
    return out


def chart_cli(*words: str, cwd: Path = ROOT) -> None:
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "chart", *words],
                          capture_output=True, text=True, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr


def ran_to_end(bench, until) -> None:
    """The window's random rewrites of 1.5 drives, run to their end."""
    bench.request(workload="random", amount=1.5)
    bench.run_workload()
    until(lambda: not bench.snapshot.running and bench.snapshot.counters["host_writes"] > 0
          and not bench.snapshot.segment)


def test_a_window_export_lists_what_the_command_line_lists_for_the_same_run(bench, until,
                                                                           tmp_path):
    ran_to_end(bench, until)
    window = tmp_path / "window-wa.csv"
    assert exportdialog.export_chart(bench, "wa", str(window), "csv"), \
        bench.controls.error.text()
    session = tmp_path / "run.json"
    assert runfiles.save(bench, str(session))
    cli = tmp_path / "cli-wa.csv"
    chart_cli(str(session), "--chart", "wa", "-o", str(cli))
    win, cmd = (json.loads(p.with_suffix(".json").read_text()) for p in (window, cli))
    assert fields(win) == fields(cmd) - FROM_A_FILE
    for key in ("session", "drive", "seed", "analytic", "chart"):
        got = {k: v for k, v in cmd[key].items() if f"{key}.{k}" not in FROM_A_FILE} \
            if isinstance(cmd[key], dict) else cmd[key]
        assert win[key] == got, key
    # what the run did, not only the settings it ended with: the random rewrites, seeded
    log = win["session"]["log"]
    assert [e["kind"] for e in log][-1] == "random" and all("seed" in e for e in log)
    assert win["drive"]["gc_frontier"] and win["drive"]["victim_order"]
    assert window.read_text() == cli.read_text()  # and the same data


def legend_words(data) -> list[str]:
    """A figure file's legend entries, each on one line again."""
    fig = figure(data)
    legend = fig.legends[0] if fig.legends else fig.axes[0].get_legend()
    return [t.get_text().replace("\n", " ") for t in legend.get_texts()]


def test_the_analytic_line_has_the_same_name_in_the_window_and_its_files(bench, until,
                                                                         tmp_path):
    ran_to_end(bench, until)
    name = analytic_name(bench.session.settings)
    assert name.startswith("Van Houdt's greedy model (2013): random rewrites, ")
    assert name.endswith("\u00a0% spare")  # the spare the model is computed at
    # the window: its legend, and the words on the level the model's
    assert bench.charts.wa.series["theory"].name() == name
    assert bench.charts.wa.level_label("theory").startswith("greedy model ")  # in a word
    # the window's file and the command line's, from the session saved, say the same
    assert legend_words(exportdialog.chart_data(bench, "wa"))[-1] == name
    session = tmp_path / "run.json"
    assert runfiles.save(bench, str(session))
    cli = tmp_path / "wa.svg"
    chart_cli(str(session), "--chart", "wa", "-o", str(cli))
    words = " ".join("".join(t.itertext()) for t in ET.parse(cli).getroot().iter(f"{SVG}text"))
    assert "analytic" not in words.split() and name in words.replace("\n", " ")
    side = tmp_path / "wa.json"
    chart_cli(str(session), "--chart", "wa", "-o", str(tmp_path / "wa.csv"))
    assert json.loads(side.read_text())["analytic"]["name"] == name


def test_a_scenario_outside_the_project_is_named_from_the_figure_folder(bench, until,
                                                                       tmp_path, monkeypatch):
    own = tmp_path / "work" / "scenarios"
    own.mkdir(parents=True)
    scenario = own / "mine.toml"
    shutil.copy(ROOT / "ssdlab" / "assets" / "scenarios" / "alignment_firstgen.toml", scenario)
    figures = tmp_path / "paper" / "figures"
    figures.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the author's working folder is neither
    steps = len(load_scenario(scenario).steps)
    bench.confirm = lambda text: True
    assert bench.open_scenario(str(scenario)), bench.controls.error.text()
    until(lambda: len(bench.views[0].snapshot.steps) >= steps
          and not bench.views[0].snapshot.running)
    window = figures / "wa.csv"
    assert exportdialog.export_chart(bench, "wa", str(window), "csv"), \
        bench.controls.error.text()
    side = json.loads(window.with_suffix(".json").read_text())
    assert side["scenario"]["file"] == "../../work/scenarios/mine.toml"
    assert str(tmp_path) not in window.with_suffix(".json").read_text()
    # the command line run from yet another folder names it the same way
    cli = figures / "cli" / "wa.csv"
    cli.parent.mkdir()
    chart_cli(str(scenario), "--chart", "wa", "-o", str(cli), cwd=elsewhere)
    got = json.loads(cli.with_suffix(".json").read_text())["scenario"]["file"]
    assert got == "../../../work/scenarios/mine.toml"
    # the window's own export, made again in the figure's folder, finds the file it names
    assert (figures / side["scenario"]["file"]).resolve() == scenario.resolve()
