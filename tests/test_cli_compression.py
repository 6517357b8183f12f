"""`ssdlab simulate --data-compression C` and the sweeps' data_compression axis: the same name
a scenario's host.data_compression has, one range (0.05 to 1) checked with one line naming the
option, and the stored fraction the engine used reported beside the figures it explains."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ssdlab.app.cli.main import main
from ssdlab.model.flash import theory
from ssdlab.model.lab.sweep import load_sweep
from ssdlab.model.lab.sweepsettings import point_settings
from tests.test_sweep import ROOT, lines, write

SMALL = ["simulate", "--user-pages", "8192", "--pages-per-block", "32", "--spare", "0.1",
         "--warmup-drive-writes", "1", "--measure-drive-writes", "1"]


def test_simulate_runs_a_compressing_drive_and_says_so(capsys):
    assert main([*SMALL, "--data-compression", "0.5", "--json"]) == 0
    half = json.loads(capsys.readouterr().out)
    assert half["stored_fraction"] == 0.5
    assert half["flash_pages"] == pytest.approx(0.5 * half["nand_writes"])
    assert half["wa"] == pytest.approx(half["flash_pages"] / half["host_writes"])
    # the compressed greedy model, at the spare the run reports
    assert half["theory_wa"] == pytest.approx(
        theory.compressed_greedy_wa(half["effective_spare"], 32, 0.5), rel=1e-12)
    assert main([*SMALL, "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["stored_fraction"] == 1.0 and whole["flash_pages"] == whole["nand_writes"]
    assert half["wa"] < 0.5 * whole["wa"]  # compressed data frees flash for GC too
    assert main([*SMALL, "--data-compression", "0.3"]) == 0
    text = capsys.readouterr().out
    assert "each page stored in 0.3 of a flash page (--data-compression 0.3)" in text
    assert "flash pages" in text.split("host / NAND writes")[1].splitlines()[0]
    assert main(SMALL) == 0
    row = [x for x in capsys.readouterr().out.splitlines() if x.startswith("data compression")]
    assert len(row) == 1 and row[0].split()[2] == "none:", row


@pytest.mark.parametrize("value", ["0.04", "1.5", "abc", "nan", "0"])
def test_a_bad_data_compression_is_one_line_naming_the_option_and_range(value):
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", *SMALL,
                           "--data-compression", value], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    lines_ = done.stderr.strip().splitlines()
    assert len(lines_) == 1, done.stderr
    assert "--data-compression must be a number from 0.05 to 1" in lines_[0]


def test_compression_needs_a_page_mapped_drive(capsys):
    assert main([*SMALL, "--mapping", "block", "--data-compression", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--data-compression" in err and "page" in err


SWEEP = """format = 1
measure = ["wa", "theory_wa", "stored_fraction", "flash_pages", "nand_writes"]
[drive]
user_pages = 4096
pages_per_block = 32
spare = 0.1
warmup_drive_writes = 0.5
measure_drive_writes = 0.5
[axes]
data_compression = [0.5, 1.0]
"""


def test_a_sweep_varies_data_compression(tmp_path):
    out = tmp_path / "r.jsonl"
    assert main(["sweep", write(tmp_path, SWEEP), "-o", str(out)]) == 0
    records = {r["point"]["data_compression"]: r for r in lines(out)}
    assert set(records) == {0.5, 1.0}
    half, whole = records[0.5]["result"], records[1.0]["result"]
    assert half["stored_fraction"] == 0.5 and whole["stored_fraction"] == 1.0
    assert half["flash_pages"] == pytest.approx(0.5 * half["nand_writes"])
    assert half["wa"] < 0.5 * whole["wa"]
    shown = point_settings(lines(out))
    assert shown["varied"]["data_compression"] == [0.5, 1.0]
    assert "stored_fraction" not in shown["engine"]  # named by the points, not a default


def test_a_bad_compression_axis_names_the_field_and_range(tmp_path):
    from ssdlab.model.lab.sweep import SweepError

    with pytest.raises(SweepError, match=r"axes.data_compression\[0\] must be a number "
                       r"from 0.05 to 1"):
        load_sweep(write(tmp_path, SWEEP.replace("[0.5, 1.0]", "[0.01]")))


def test_a_sweep_that_does_not_name_compression_keeps_its_points():
    """The shipped sweep's points (and so the keys of its shipped results) are as before."""
    sweep = load_sweep(ROOT / "ssdlab/assets/sweeps/wa_vs_spare.toml")
    assert all("data_compression" not in t.point for t in sweep.tasks)
    shipped = (ROOT / "ssdlab/assets/sweeps/wa_vs_spare.results.jsonl").read_text()
    keys = {json.loads(line)["key"] for line in shipped.splitlines() if line.strip()}
    assert {t.key for t in sweep.tasks} <= keys
