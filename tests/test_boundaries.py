"""The layers hold: flash under host under lab under lessons under the front ends; the
simulator, the lessons and the command line never load Qt."""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT_MODULES = ("PySide6", "shiboken6")
# Contract names as pyproject.toml spells them.
LAYERS = "layers: front ends > lessons > lab > host > flash"
FRONT_ENDS = "front ends: devtools > gui > cli"
HEADLESS = "the command line is headless (Qt only to open the window)"
COMPONENTS = "window components: frame > lessons | drive | charts > settings > run | appearance"


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    lint_imports = lint_imports or shutil.which("lint-imports")
    assert lint_imports, "lint-imports not found; install the test extra: pip install -e '.[test]'"
    return subprocess.run(
        [lint_imports, "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_import_linter_contracts_hold():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, f"import-linter:\n{result.stdout}\n{result.stderr}"


@pytest.mark.parametrize(
    ("planted", "statement", "contract"),
    [
        ("ssdlab/model/flash/_planted.py", "import ssdlab.model.host.machine", LAYERS),
        ("ssdlab/model/host/_planted.py", "from ssdlab.model.lab import scenario", LAYERS),
        ("ssdlab/model/lab/_planted.py", "from ssdlab import lessons", LAYERS),
        ("ssdlab/app/cli/_planted.py", "import PySide6.QtCore", HEADLESS),
        ("ssdlab/app/gui/_planted.py", "import ssdlab.app.devtools.screenshot", FRONT_ENDS),
        ("ssdlab/app/gui/run/_planted.py", "from ssdlab.app.gui.frame import workbench",
         COMPONENTS),
        ("ssdlab/app/gui/drive/_planted.py", "import ssdlab.app.gui.charts.charts", COMPONENTS),
        # not in a layer
        ("ssdlab/app/gui/_planted.py", "import ssdlab.app.gui.run.worker", COMPONENTS),
    ],
)
def test_an_upward_import_breaks_the_contracts(tmp_path, planted, statement, contract):
    # The contracts are only worth having if they catch a violation: plant one in a copy.
    for name in ("ssdlab",):
        shutil.copytree(ROOT / name, tmp_path / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / planted).write_text(statement + "\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    # Long contract names wrap; compare with the whitespace folded.
    report = " ".join(result.stdout.split())
    assert f"{contract} BROKEN" in report, result.stdout


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


@pytest.mark.parametrize("package", ["ssdlab.model", "ssdlab.lessons", "ssdlab.app.cli"])
def test_package_imports_without_qt(package):
    # A fresh interpreter per package, so nothing imported earlier can hide or cause a leak.
    script = IMPORT_ALL.format(package=package, qt=QT_MODULES)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{package}:\n{result.stdout}\n{result.stderr}"
