"""SSD Lab installs where its users are: the wheel built from this checkout, installed into a
fresh venv in a temporary folder (this checkout on no sys.path, the working folder elsewhere,
a home and cache folder of its own), plays a lesson headless and opens the window off screen
from there, with nothing but what the wheel carries.

Its dependencies come from a wheelhouse kept beside pip's cache, pinned to the versions this
venv runs: the first run downloads them from the package index, later runs install without
the network (--no-index). The installed copy's engine is not in numba's cache yet (the cache
is keyed by the source's path), so the lesson also shows the engine compiling on first use,
with its progress, into the cache folder and never into site-packages.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from ssdlab.model.flash.warm import ENTRY_POINTS, PREPARING_MESSAGE

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
PIP = ["-m", "pip", "--disable-pip-version-check", "--no-input"]
# Opens the window through its gui-script entry point, as a double click would, then closes
# it once the window has run the engine and drawn a snapshot (waited on, never timed).
WINDOW = textwrap.dedent("""
    import sys
    from importlib.metadata import entry_points
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication(["ssdlab-window"])
    started = []

    def check():
        for w in app.topLevelWidgets():
            if type(w).__name__ != "Workbench" or not w.isVisible():
                continue
            if not started:
                started.append(w)
                w.lesson_panel.explore.emit()
                w.request(speed="fast")
            elif w.snapshot is not None:
                print("drew a snapshot from", type(w).__module__, flush=True)
                w.close()
                app.quit()
                return
        QTimer.singleShot(20, check)

    QTimer.singleShot(0, check)
    (entry,) = entry_points(group="gui_scripts", name="ssdlab-window")
    sys.exit(entry.load()())
""")


def _run(argv: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, **kwargs)


def _builds_without_network() -> bool:
    """Whether this venv's setuptools makes wheels by itself (70.1 took bdist_wheel in)."""
    try:
        setuptools = Version(metadata.version("setuptools"))
    except metadata.PackageNotFoundError:
        return False
    has_wheel = True
    try:
        metadata.version("wheel")
    except metadata.PackageNotFoundError:
        has_wheel = False
    return setuptools >= Version("70.1") or (setuptools >= Version("61") and has_wheel)


def _build(work: Path) -> Path:
    """The wheel, built from a copy of what it is made of (the checkout stays untouched)."""
    src = work / "src"
    shutil.copytree(ROOT / "ssdlab", src / "ssdlab",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    isolation = ["--no-build-isolation"] if _builds_without_network() else []
    done = _run([sys.executable, *PIP, "wheel", "--no-deps", *isolation, "-q",
                 "-w", work / "dist", src], cwd=work, timeout=600)
    assert done.returncode == 0, f"building the wheel failed:\n{done.stdout}\n{done.stderr}"
    (wheel,) = (work / "dist").glob("ssdlab-*.whl")
    return wheel


def _pins(wheel: Path) -> list[str]:
    """The wheel's dependencies and theirs, at the versions this venv has (unpinned where
    this venv lacks one)."""
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        lines = z.read(meta).decode().splitlines()
    todo = [Requirement(line.split(":", 1)[1].strip()) for line in lines
            if line.startswith("Requires-Dist:")]
    pins: dict[str, str] = {}
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name in pins:
            continue
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            pins[name] = str(req)
            continue
        pins[name] = f"{name}=={dist.version}"
        todo += [Requirement(r) for r in dist.requires or ()]
    return sorted(pins.values())


def _wheelhouse(work: Path) -> Path:
    """A folder beside pip's own cache, kept between runs; without a pip cache (disabled),
    one for this run only."""
    done = _run([sys.executable, *PIP, "cache", "dir"], timeout=120)
    base = Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else work
    wheelhouse = base / "ssdlab-test-wheelhouse"
    wheelhouse.mkdir(parents=True, exist_ok=True)
    return wheelhouse


def _install(work: Path, wheel: Path) -> Path:
    """A fresh venv with the wheel in it; its scripts folder."""
    venv = work / "venv"
    done = _run([sys.executable, "-m", "venv", venv], timeout=300)
    assert done.returncode == 0, done.stderr
    scripts = venv / ("Scripts" if os.name == "nt" else "bin")
    python = scripts / "python"
    wheelhouse = _wheelhouse(work)
    pins = _pins(wheel)
    install = [python, *PIP, "install", "-q", "--no-compile", "--no-index",
               "--find-links", wheelhouse, wheel, *pins]
    done = _run(install, cwd=work, timeout=900)
    if done.returncode != 0:  # a dependency not in the wheelhouse yet: fetch it, once
        fetched = _run([python, *PIP, "download", "-q", "--only-binary=:all:",
                        "-d", wheelhouse, *pins], cwd=work, timeout=900)
        assert fetched.returncode == 0, (
            f"the wheel's dependencies are not in {wheelhouse} and downloading them "
            f"failed:\n{fetched.stderr}")
        done = _run(install, cwd=work, timeout=900)
    assert done.returncode == 0, f"installing the wheel failed:\n{done.stdout}\n{done.stderr}"
    return scripts


def _installed(work: Path) -> dict:
    wheel = _build(work)
    scripts = _install(work, wheel)
    elsewhere = work / "elsewhere"
    (elsewhere / "home").mkdir(parents=True)
    env = {"PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(elsewhere / "home"),
           "XDG_CACHE_HOME": str(elsewhere / "cache"),
           "XDG_CONFIG_HOME": str(elsewhere / "config"),
           "QT_QPA_PLATFORM": "offscreen"}
    for name in ("TMPDIR", "SYSTEMROOT", "LOCALAPPDATA"):  # what Windows and tempfile need
        if name in os.environ:
            env[name] = os.environ[name]
    return {"wheel": wheel, "scripts": scripts, "cwd": elsewhere, "env": env,
            "venv": work / "venv"}


def _holds_one_package_with_its_lessons_and_assets(installed: dict) -> None:
    with zipfile.ZipFile(installed["wheel"]) as z:
        names = set(z.namelist())
    tops = {n.split("/")[0] for n in names}
    dist_info = {t for t in tops if t.endswith(".dist-info")}
    assert tops - dist_info == {"ssdlab"}, tops
    # every file of the package is in the wheel, data as well as code
    shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ssdlab").rglob("*")
               if p.is_file() and not p.name.startswith(".") and "__pycache__" not in p.parts
               and p.suffix not in (".pyc", ".nbi", ".nbc")}
    assert shipped - names == set()
    assert {"ssdlab/lessons/glossary.toml", "ssdlab/assets/icons/check_ffffff.svg",
            "ssdlab/assets/scenarios/trace_replay.toml"} <= names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    with zipfile.ZipFile(installed["wheel"]) as z:
        text = z.read(entry_points).decode()
    assert re.search(r"\[console_scripts\]\s*ssdlab = ssdlab\.app\.cli\.main:main", text)
    assert re.search(r"\[gui_scripts\]\s*ssdlab-window = ssdlab\.app\.cli\.main:window", text)


def _the_installed_package_is_the_one_that_runs(installed: dict) -> None:
    probe = "import ssdlab, sys; print(ssdlab.__file__); print(sys.path)"
    done = _run([installed["scripts"] / "python", "-c", probe], cwd=installed["cwd"],
                env=installed["env"], timeout=120)
    assert done.returncode == 0, done.stderr
    where, path = done.stdout.splitlines()
    assert Path(where).resolve().is_relative_to(installed["venv"].resolve())
    assert str(ROOT) not in path


SIMULATE = ("simulate", "--user-pages", "4096", "--pages-per-block", "16", "--spare", "0.2",
            "--warmup-drive-writes", "0", "--measure-drive-writes", "0.2", "--json")


def _a_cold_engine_is_compiled_on_first_use_with_progress(installed: dict) -> None:
    """The installed copy's engine is in no cache yet: the first command that simulates says
    so at once, a line per compiled function, into the cache folder (never the venv); the
    next command finds it warm and says nothing. (The one cold compile of the suite.)"""
    def simulate():
        return _run([installed["scripts"] / "ssdlab", *SIMULATE], cwd=installed["cwd"],
                    env=installed["env"], timeout=900)

    first = simulate()
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0] == f"ssdlab simulate: {PREPARING_MESSAGE}", first.stderr
    n = len(ENTRY_POINTS)
    assert [line.split(" (")[0].strip() for line in lines[1:]] == [
        f"compiled {i} of {n}" for i in range(1, n + 1)], first.stderr
    assert '"wa"' in first.stdout
    cache = Path(installed["env"]["XDG_CACHE_HOME"]) / "ssdlab"
    assert list(cache.rglob("*.nbi")), "numba's cache is not in the cache folder"
    assert not list(installed["venv"].rglob("*.nbi")), "numba's cache went into the venv"
    second = simulate()
    assert second.returncode == 0 and second.stderr == "", second.stderr
    assert second.stdout.split('"seconds"')[0] == first.stdout.split('"seconds"')[0]


def _a_lesson_plays_headless(installed: dict) -> None:
    report = installed["cwd"] / "report"
    done = _run([installed["scripts"] / "ssdlab", "lesson", "run", "1", "--report", report],
                cwd=installed["cwd"], env=installed["env"], timeout=900)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert PREPARING_MESSAGE not in done.stderr, done.stderr  # compiled once, above
    assert [p.name for p in report.glob("*.md")], "no lesson report written"


def _the_window_opens_off_screen_and_runs(installed: dict) -> None:
    done = _run([installed["scripts"] / "python", "-c", WINDOW], cwd=installed["cwd"],
                env=installed["env"], timeout=600)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert "drew a snapshot from ssdlab.app.gui.frame.workbench" in done.stdout, done.stdout


# One test, not four: under xdist each test may land on another worker, and each would
# build and install the wheel again. About 90 s on the shared two-core machine with the
# wheelhouse filled; the timeout is only a hang guard for a cold compile under a full suite.
@pytest.mark.timeout(1200)
def test_the_wheel_installs_and_runs_away_from_the_checkout(tmp_path):
    try:
        installed = _installed(tmp_path)
        _holds_one_package_with_its_lessons_and_assets(installed)
        _the_installed_package_is_the_one_that_runs(installed)
        _a_cold_engine_is_compiled_on_first_use_with_progress(installed)
        _a_lesson_plays_headless(installed)
        _the_window_opens_off_screen_and_runs(installed)
    finally:  # a venv with Qt in it is a gigabyte: pytest would keep three of them
        shutil.rmtree(tmp_path / "venv", ignore_errors=True)
