"""The SLC cache as the user asks for it: a scenario's drive.slc_cache, a sweep axis and
`simulate`'s flags, each checked before anything runs, with the field named."""

import json
from pathlib import Path

import pytest

from ssdlab.app.cli.main import main
from ssdlab.model.lab.scenario import ScenarioError, build_machine, parse_scenario, scenario_text
from ssdlab.model.lab.sweep import SweepError, sweep_from_data

QLC = """version = 1
[drive]
profile = "qlc_slc_cache_1tb"
user_gib = 2
[[steps]]
do = "write"
name = "a"
mb = 64
"""


@pytest.mark.parametrize("mode", [None, "dynamic", "static", "none"])
def test_a_scenario_keeps_or_changes_its_profiles_cache(mode):
    text = QLC if mode is None else QLC.replace("user_gib = 2",
                                                f'user_gib = 2\nslc_cache = "{mode}"')
    s = parse_scenario(text)
    assert s.slc_cache == mode
    m = build_machine(s)
    assert m.drive.config.slc_cache == (mode or "dynamic")
    again = parse_scenario(scenario_text(s))
    assert again.slc_cache == mode and build_machine(again).drive.config == m.drive.config
    assert (m.drive.config.slc_blocks > 0) == (mode != "none")
    assert (m.drive.config.slc_dynamic_share > 0) == (mode in (None, "dynamic"))


def test_a_cache_the_profile_has_no_figures_for_is_refused_naming_the_field():
    text = QLC.replace("qlc_slc_cache_1tb", "nvme_modern_1tb").replace(
        "user_gib = 2", 'user_gib = 2\nslc_cache = "dynamic"')
    with pytest.raises(ScenarioError, match=r"drive\.slc_cache = 'dynamic': profile "
                       r"nvme_modern_1tb has no figures for that cache; allowed here: none"):
        parse_scenario(text, "x.toml")
    with pytest.raises(ScenarioError, match=r"drive\.slc_cache"):
        parse_scenario(QLC.replace("user_gib = 2", 'user_gib = 2\nslc_cache = "big"'))


SWEEP = {"format": 1, "measure": ["wa", "slc_writes", "folded_pages"],
         "drive": {"user_pages": 8192, "pages_per_block": 32, "spare": 0.15,
                   "warmup_drive_writes": 0.25, "measure_drive_writes": 0.25,
                   "slc_cache": "static", "slc_blocks": 8, "cell_bits": 4},
         "axes": {"slc_idle_every": [0, 512]}}


def test_a_sweep_varies_the_hosts_pauses_and_names_only_what_it_was_given(tmp_path):
    sweep = sweep_from_data(SWEEP, Path("s.toml"))
    assert [t.point["slc_idle_every"] for t in sweep.tasks] == [0, 512]
    out = tmp_path / "r.jsonl"
    (tmp_path / "s.toml").write_text(
        "format = 1\nmeasure = ['wa', 'slc_writes']\n[drive]\nuser_pages = 8192\n"
        "pages_per_block = 32\nspare = 0.15\nwarmup_drive_writes = 0.25\n"
        "measure_drive_writes = 0.25\nslc_cache = 'static'\nslc_blocks = 8\ncell_bits = 4\n"
        "[axes]\nslc_idle_every = [0, 512]\n")
    assert main(["sweep", str(tmp_path / "s.toml"), "-o", str(out), "--jobs", "1"]) == 0
    results = {json.loads(ln)["point"]["slc_idle_every"]: json.loads(ln)["result"]
               for ln in out.read_text().splitlines()}
    assert results[0]["slc_writes"] == 0 < results[512]["slc_writes"]
    # a sweep that names no cache field has points without them (its keys stay the same)
    plain = sweep_from_data({"format": 1, "drive": {"user_pages": 65536},
                             "axes": {"spare": [0.1, 0.2]}}, Path("p.toml"))
    assert not any(k.startswith("slc") or k == "cell_bits" for k in plain.tasks[0].point)


@pytest.mark.parametrize("drive, words", [
    ({"slc_dynamic_share": 2}, r"drive\.slc_dynamic_share must be a number from 0 to 1"),
    ({"cell_bits": 1}, r"drive\.cell_bits must be a whole number from 2 to 4"),
    ({"slc_cache": "dynamic"}, r"slc_dynamic_share above 0"),
    ({"slc_blocks": 400}, r"besides the static SLC cache"),
])
def test_a_bad_cache_in_a_sweep_is_refused_before_anything_runs(drive, words):
    with pytest.raises(SweepError, match=words):
        sweep_from_data({**SWEEP, "drive": {**SWEEP["drive"], **drive}}, Path("s.toml"))


SIM = ["simulate", "--user-pages", "8192", "--pages-per-block", "32", "--spare", "0.15",
       "--warmup-drive-writes", "0.25", "--measure-drive-writes", "0.25"]


def test_simulate_reports_the_cache_and_refuses_a_bad_one_with_status_2(capsys):
    assert main([*SIM, "--slc-cache", "static", "--slc-blocks", "8", "--cell-bits", "4",
                 "--slc-idle-every", "512"]) == 0
    out = capsys.readouterr().out
    assert "SLC cache            static; the host paused after every 512 pages" in out
    assert "analytic: no model" in out and "host pages written into the cache" in out
    for bad, words in ((["--slc-cache", "static"], "slc_blocks of at least 1"),
                       (["--slc-cache", "static", "--slc-blocks", "4", "--cell-bits", "9"],
                        "--cell-bits must be a whole number from 2 to 4"),
                       (["--slc-idle-every", "-3"], "--slc-idle-every must be a whole number")):
        assert main([*SIM, *bad]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1 and "Traceback" not in err
