"""Experiment rows kept on disk per model version: replayed once, read after, replayed again
when the file is unreadable."""

from __future__ import annotations

from ssdlab.model.lab import rowcache
from ssdlab.model.lab.experiments import Row

ROW = Row("002", "ext4", "journal share", "%", 47.3, 46.9, "predicted", "within 10 points",
          True, "because")


def test_replayed_once_then_read(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls = []

    def replay():
        calls.append(1)
        return [ROW]

    assert rowcache.cached_rows("demo", replay) == (ROW,)
    assert rowcache.cached_rows("demo", replay) == (ROW,)
    assert len(calls) == 1
    (path,) = (tmp_path / "ssdlab" / "experiments").glob("demo-*.json")
    assert rowcache.model_version() in path.name
    path.write_text("[{not json")
    assert rowcache.cached_rows("demo", replay) == (ROW,)
    assert len(calls) == 2


def test_a_cache_that_cannot_be_written_still_gives_the_rows(tmp_path, monkeypatch, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # a file where a folder must go
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert rowcache.cached_rows("demo", lambda: [ROW]) == (ROW,)
    # kept instead in a temporary folder of this user's, with a warning
    assert "cannot be used" in capsys.readouterr().err
    assert list((tmp_path / "tmp").glob("ssdlab-cache-*/experiments/demo-*.json"))
