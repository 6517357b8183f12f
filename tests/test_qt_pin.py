"""Guard against PySide6 releases that crash on Qt calls returning None.

PySide6 6.12.0 on Python 3.11 drops a reference to ``None`` on every Qt call that
returns nothing; after a few thousand calls CPython aborts with
"Fatal Python error: none_dealloc". pyproject.toml pins below 6.12 for that reason.
"""

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
BAD_RELEASE = "6.12.0"
QT_DISTRIBUTIONS = ("PySide6-Essentials", "PySide6-Addons")


def pinned_specifiers() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = [Requirement(text) for text in project["dependencies"]]
    return {r.name: r for r in requirements if r.name in QT_DISTRIBUTIONS}


def test_pin_excludes_the_crashing_release():
    pins = pinned_specifiers()
    assert set(pins) == set(QT_DISTRIBUTIONS), f"pyproject.toml must pin both; found {pins}"
    for name, requirement in pins.items():
        assert not requirement.specifier.contains(BAD_RELEASE), (
            f"{name} pin {requirement.specifier} admits {BAD_RELEASE}"
        )


def test_installed_pyside6_is_not_the_crashing_release():
    import PySide6

    if sys.version_info[:2] == (3, 11):
        assert PySide6.__version__ != BAD_RELEASE, (
            f"PySide6 {BAD_RELEASE} crashes on Python 3.11 (none_dealloc); see pyproject.toml"
        )
    for name, requirement in pinned_specifiers().items():
        installed = metadata.version(name)
        assert requirement.specifier.contains(installed), (
            f"{name} {installed} is installed but pyproject.toml asks for {requirement.specifier}"
        )


def test_many_qt_calls_returning_none_do_not_crash():
    # A subprocess, so that a crash shows up as a failure with its stderr rather than
    # taking pytest down with it.
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "_qt_none_calls.py"), "50000"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (
        f"Qt call loop exited with {result.returncode}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr[-4000:]}"
    )
