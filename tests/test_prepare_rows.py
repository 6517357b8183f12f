"""`ssdlab prepare` replays the documented experiments the lessons compare with, so a
compare step finds its rows kept instead of replaying them while a student waits."""

from ssdlab.app.cli import prepare
from ssdlab.model.lab import rowcache


def test_the_lessons_experiments_costliest_first():
    names = prepare.lesson_experiments()
    assert set(names) == {"discard", "fstrim", "journal", "alignment", "x25m", "corsair",
                          "vertex60"}
    assert names[0] == "journal"  # the longest replay starts first


def test_missing_rows_are_replayed_side_by_side_and_kept(tmp_path, monkeypatch, capsys):
    import numba

    import ssdlab.model.flash.compiled  # noqa: F401 - sets numba's cache folder from XDG_CACHE_HOME

    # The spawned workers inherit both: a fresh rows cache, and this process's compiled
    # engine (moving XDG_CACHE_HOME alone would send them to compile it again).
    monkeypatch.setenv("NUMBA_CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(prepare, "lesson_experiments", lambda: ["fstrim", "x25m"])
    assert not rowcache.is_cached("fstrim")
    assert prepare.ensure_rows(workers=2) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("ssdlab prepare: replaying the 2 documented experiments")
    assert sorted(line.split(" (")[0].strip() for line in err[1:]) == [
        "replayed 1 of 2", "replayed 2 of 2"]
    assert rowcache.is_cached("fstrim") and rowcache.is_cached("x25m")
    kept = rowcache.cached_rows("x25m", replay=lambda: [])  # read back, never replayed
    fresh = rowcache.EXPERIMENTS["x25m"]()
    assert kept and [(r.experiment, r.simulated) for r in kept] == [
        (r.experiment, r.simulated) for r in fresh]
    # Kept: the next prepare replays nothing and says nothing about it.
    assert prepare.ensure_rows(workers=2) == 2
    assert capsys.readouterr().err == ""


def test_an_unreadable_kept_file_counts_as_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = rowcache.cache_dir() / f"x25m-{rowcache.model_version()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[{\"not\": \"a row\"}]", encoding="utf-8")
    assert not rowcache.is_cached("x25m")
