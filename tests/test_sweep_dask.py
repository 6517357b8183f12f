"""`ssdlab sweep --dask`: the same points on a Dask cluster give the same lines as the local
process pool (a two-worker LocalCluster stands in for a real one)."""

import json
import sys
from pathlib import Path

import pytest

from ssdlab.app.cli.main import main

SPEC = """format = 1
[drive]
user_pages = 4096
pages_per_block = 32
warmup_drive_writes = 0.5
measure_drive_writes = 0.5
[axes]
gc = ["greedy", "fifo", "random-d"]
spare = [0.1, 0.25]
"""


def figures(path: Path) -> dict:
    """Each point's line without its wall time, by key."""
    records = [json.loads(x) for x in path.read_text().splitlines()]
    assert len(records) == len({r["key"] for r in records})
    return {r["key"]: {k: v for k, v in r.items() if k != "wall_s"} for r in records}


def test_a_two_worker_local_cluster_gives_the_local_pools_results(tmp_path):
    distributed = pytest.importorskip("distributed")
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    assert main(["sweep", str(spec), "-o", str(local), "--jobs", "2"]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert len(cluster.workers) == 2
        assert main(["sweep", str(spec), "-o", str(dask), "--dask",
                     cluster.scheduler_address]) == 0
    assert len(figures(local)) == 6
    assert figures(dask) == figures(local)
    assert all(r["status"] == "ok" for r in figures(dask).values())


def test_without_dask_installed_the_message_says_what_to_install(tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    out = tmp_path / "r.jsonl"
    assert main(["sweep", str(spec), "-o", str(out), "--dask", "tcp://127.0.0.1:8786"]) == 2
    err = capsys.readouterr().err
    assert err == ("ssdlab sweep: error: --dask needs Dask: pip install 'ssdlab[dask]' (dask "
                   "and distributed)\n")
    assert not out.exists()  # refused before the results file was touched


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path, capsys):
    pytest.importorskip("distributed")
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    # port 9 (discard) on loopback: nothing listens there, so the connection is refused
    assert main(["sweep", str(spec), "-o", str(tmp_path / "r.jsonl"), "--dask",
                 "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ssdlab sweep: error: --dask cannot reach a scheduler at "
                          "tcp://127.0.0.1:9") and err.count("\n") == 1
