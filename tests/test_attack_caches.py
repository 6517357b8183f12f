"""The caches are input (issue 34): a bad entry is rebuilt, never trusted, never waited on.

numba's files for the compiled engine (.nbi index, .nbc data) garbage, cut short, empty, a
folder, a pipe or a link to /dev/zero: every simulating command still runs (the function is
compiled again) and `prepare` loads each function before it says the engine is compiled.
The rows and tree caches keep a checksum: an altered entry is replayed or drawn again. A
cache folder that cannot be used goes to a private temporary folder with a warning, never
into the checkout, and no home at all never makes a folder named "~".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.model import cachedir, keptfile
from ssdlab.model.host import filetree, treecache
from ssdlab.model.lab import rowcache
from ssdlab.model.lab.experiments import Row

ROOT = Path(__file__).resolve().parents[1]
ROW = Row("002", "ext4", "journal share", "%", 47.3, 46.9, "predicted", "within 10 points",
          True, "because")
# small engine functions (each about 2 s to compile again): block_trim's index (.nbi) and
# foreground_gc's data (.nbc) are spoiled the same way in one cache, so one command checks both
VICTIM = "ftl.block_trim-"
VICTIMS = {".nbi": VICTIM, ".nbc": "gc.foreground_gc-"}


def _env(cache_home: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return env | {"XDG_CACHE_HOME": str(cache_home), "PYTHONPATH": str(ROOT)} | extra


@pytest.fixture
def engine_copy(compiled_engine, tmp_path):
    """A cache folder holding a copy of the compiled engine; returns (cache home, the
    folder of this checkout's engine files)."""
    import numba

    src = Path(numba.config.CACHE_DIR)
    home = tmp_path / "cache"
    shutil.copytree(src, home / "ssdlab" / src.name)
    from ssdlab.model.flash import ftl

    ours = Path(ftl.block_trim._cache.cache_path)
    return home, home / "ssdlab" / src.name / ours.name


def _spoil(folder: Path, ext: str, kind: str, victim: str = VICTIM) -> Path:
    (path,) = [p for p in folder.iterdir() if p.name.startswith(victim)
               and p.name.endswith(ext) and ".tmp." not in p.name]
    if kind == "garbage":
        path.write_bytes(os.urandom(300))
    elif kind == "truncated":
        path.write_bytes(path.read_bytes()[:40])
    elif kind == "empty":
        path.write_bytes(b"")
    else:
        path.unlink()
        if kind == "folder":
            (path / "inside").mkdir(parents=True)
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")
    return path


KINDS = ["garbage", "truncated", "empty", "folder", "fifo", "/dev/zero"]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_engine_cache_file_is_compiled_again(engine_copy, kind):
    home, folder = engine_copy
    paths = [_spoil(folder, ext, kind, victim) for ext, victim in VICTIMS.items()]
    spoiled = [p.read_bytes() if kind in ("garbage", "truncated", "empty") else None
               for p in paths]
    run = subprocess.run(
        [sys.executable, "-m", "ssdlab.app.cli.main", "simulate", "--user-pages", "4096",
         "--pages-per-block", "32", "--warmup-drive-writes", "0.2",
         "--measure-drive-writes", "0.2", "--json"],
        env=_env(home), cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert json.loads(run.stdout)["wa"] > 1
    # removed and compiled again (simulate need not load these functions: the check does)
    for path, was in zip(paths, spoiled, strict=True):
        assert path.is_file() and not path.is_symlink() and path.read_bytes() != was, path
        assert path.stat().st_size > 100, path


@pytest.mark.timeout(300)
def test_prepare_loads_each_function_before_calling_it_compiled(engine_copy):
    home, folder = engine_copy
    path = _spoil(folder, ".nbc", "garbage")
    code = ("from ssdlab.model.flash import warm; print(warm.missing()); "
            "print(warm.load_all()); print(warm.missing())")
    run = subprocess.run([sys.executable, "-c", code], env=_env(home), cwd=ROOT,
                         capture_output=True, text=True, timeout=280)
    assert run.returncode == 0, run.stderr
    # the garbage file is no compiled function: missing, removed, then compiled again
    before, removed, after = run.stdout.splitlines()
    assert before == "['block_trim']" and str(path) in removed and after == "[]"
    assert path.is_file() and path.stat().st_size > 100


@pytest.mark.parametrize("numba_dir", [False, True])
def test_an_unusable_cache_folder_never_puts_numba_into_the_checkout(tmp_path, numba_dir):
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the cache folder must go
    (tmp_path / "tmp").mkdir()
    extra = {"TMPDIR": str(tmp_path / "tmp")}
    if numba_dir:
        extra["NUMBA_CACHE_DIR"] = str(blocked / "numba")
    code = "from ssdlab.model.flash import ftl; print(ftl.run_commands._cache.cache_path)"
    run = subprocess.run([sys.executable, "-c", code], env=_env(blocked / "x", **extra),
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    where = run.stdout.strip()
    assert str(ROOT) not in where and "__pycache__" not in where
    if not numba_dir:
        assert where.startswith(str(tmp_path / "tmp" / "ssdlab-cache-"))
        assert "warning: the cache folder cannot be used" in run.stderr


def test_no_home_never_makes_a_folder_named_tilde(tmp_path, monkeypatch, capsys):
    import pwd

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.chdir(tmp_path)
    cachedir._chosen.cache_clear()  # the process may have chosen for "no folder" before
    assert cachedir.platform_cache_dir() is None
    assert rowcache.cached_rows("demo", lambda: [ROW]) == (ROW,)
    assert not (tmp_path / "~").exists()
    assert list((tmp_path / "tmp").glob("ssdlab-cache-*/experiments/demo-*.json"))
    assert "cannot be used" in capsys.readouterr().err


def test_no_home_keeps_the_settings_beside_the_caches(tmp_path, monkeypatch, capsys):
    import pwd

    from ssdlab.app.session.progress import config_dir

    for name in ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "SSDLAB_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cachedir._chosen.cache_clear()
    where = config_dir()  # was RuntimeError: Could not determine home directory
    assert where.is_absolute() and str(where).startswith(str(tmp_path / "tmp"))


@pytest.mark.parametrize(("platform", "env", "want"), [
    ("linux", {"XDG_CACHE_HOME": "/x/cache"}, "/x/cache"),
    ("linux", {"XDG_CACHE_HOME": "relative"}, "/home/u/.cache"),
    ("darwin", {}, "/home/u/Library/Caches"),
    ("win32", {"LOCALAPPDATA": "/c/Users/u/AppData/Local"}, "/c/Users/u/AppData/Local"),
])
def test_the_platforms_own_cache_folder(monkeypatch, platform, env, want):
    for name in ("XDG_CACHE_HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/home/u")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "platform", platform)
    assert cachedir.platform_cache_dir() == Path(want)


def test_a_private_fallback_folder_someone_else_made_is_passed_over(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    planted = tmp_path / f"ssdlab-cache-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)  # open to anyone: its pickles could be anyone's
    assert cachedir._fallback() != planted


# ---- rows and trees: a checksum with each entry ---------------------------------------------


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path


def _rows_file(name: str) -> Path:
    return rowcache.cache_dir() / f"{name}-{rowcache.model_version()}.json"


def _replays(name: str) -> int:
    calls = []
    rowcache.cached_rows(name, lambda: calls.append(1) or [ROW])
    return len(calls)


def test_altered_rows_are_replayed_never_shown_as_simulated(cache_home):
    assert _replays("demo") == 1 and _replays("demo") == 0
    path = _rows_file("demo")
    entry = json.loads(path.read_text())
    entry["payload"][0]["simulated"] = 1.0  # the figure changed, the checksum not
    path.write_text(json.dumps(entry))
    assert _replays("demo") == 1
    assert rowcache.cached_rows("demo", lambda: []) == (ROW,)
    # a list of rows as the old cache kept them (no checksum) is not trusted either
    path.write_text(json.dumps([ROW.as_dict()]))
    assert _replays("demo") == 1


def test_an_entry_kept_for_another_key_is_not_used(cache_home):
    _replays("demo")
    other = rowcache.cache_dir() / f"other-{rowcache.model_version()}.json"
    shutil.copy(_rows_file("demo"), other)
    assert _replays("other") == 1


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "folder", "/dev/zero"])
def test_a_rows_entry_that_is_not_a_file_is_replayed_over_at_once(cache_home, kind):
    path = _rows_file("demo")
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        (path / "inside").mkdir(parents=True)
    else:
        path.symlink_to("/dev/zero")
    assert _replays("demo") == 1
    assert path.is_file() and not path.is_symlink()
    assert _replays("demo") == 0


@pytest.mark.timeout(60)
def test_a_tree_with_zeroed_sizes_or_a_pipe_is_drawn_again(cache_home):
    filetree._TREES.clear()
    drawn = filetree.kernel_tree(0.05, 11)
    (path,) = (cache_home / "ssdlab" / "trees").glob("kernel-0.05-11-*.json")
    entry = json.loads(path.read_text())
    entry["payload"]["sizes"] = [0] * len(entry["payload"]["sizes"])
    path.write_text(json.dumps(entry))
    assert treecache.load(0.05, 11) is None
    filetree._TREES.clear()
    assert filetree.kernel_tree(0.05, 11) == drawn
    path.unlink()
    os.mkfifo(path)
    assert treecache.load(0.05, 11) is None
    filetree._TREES.clear()
    assert filetree.kernel_tree(0.05, 11) == drawn
    assert path.is_file()


def test_a_kept_entry_reads_back_only_whole(tmp_path):
    path = tmp_path / "e.json"
    keptfile.write(path, "k", {"a": [1, 2.5, None]})
    assert keptfile.read(path, "k", 1000) == {"a": [1, 2.5, None]}
    assert keptfile.read(path, "k", 10) is None  # more than the cap: not read
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    assert keptfile.read(path, "k", 1000) is None


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_a_cache_folder_that_is_not_a_folder_is_made_again(cache_home, kind):
    where = cache_home / "ssdlab" / "experiments"
    where.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(where)
    else:
        where.write_text("not a folder")
    assert _replays("demo") == 1 and _replays("demo") == 0
    assert where.is_dir()


@pytest.mark.parametrize("which", ["engine folder", "source folder"])
def test_a_file_where_numbas_folder_goes_is_replaced_by_the_folder(engine_copy, which):
    home, ours = engine_copy
    spoiled = ours if which == "source folder" else ours.parent
    shutil.rmtree(spoiled)
    spoiled.write_text("not a folder")
    code = ("from ssdlab.model.flash import ftl; c = ftl.run_commands._cache; "
            "print(type(c).__name__, c.cache_path)")
    run = subprocess.run([sys.executable, "-c", code], env=_env(home), cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["CheckedCache", str(ours)]
    assert ours.is_dir()
