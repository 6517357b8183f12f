"""The simulator and the lessons never depend on Qt or on the GUI package."""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT_MODULES = ("PySide6", "shiboken6")


def test_import_linter_contracts_hold():
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    lint_imports = lint_imports or shutil.which("lint-imports")
    assert lint_imports, "lint-imports not found; install the test extra: pip install -e '.[test]'"
    result = subprocess.run(
        [lint_imports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"import-linter:\n{result.stdout}\n{result.stderr}"


# Imports every module of one package in turn and names the first module after whose
# import a Qt module appears in sys.modules.
IMPORT_ALL = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    package = importlib.import_module({package!r})
    names = [package.__name__] + [
        info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    ]
    for name in names:
        importlib.import_module(name)
        loaded = sorted(m for m in {qt!r} if m in sys.modules)
        if loaded:
            sys.exit(f"importing {{name}} loaded {{loaded}}")
    """
)


@pytest.mark.parametrize("package", ["model", "lessons"])
def test_package_imports_without_qt(package):
    # A fresh interpreter per package, so nothing imported earlier can hide or cause a leak.
    script = IMPORT_ALL.format(package=package, qt=QT_MODULES)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{package}:\n{result.stdout}\n{result.stderr}"
