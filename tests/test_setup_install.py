"""setup.sh's install step, run in a sandbox (a stand-in .venv whose pip prints what a real
first install prints, and a PATH without dpkg): the newcomer sees each package as pip fetches
it, not minutes of silence, and a failed install stops setup before anything else runs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("bash", "cat", "cut", "dirname", "env", "id", "sha256sum", "rm", "grep")
PIP_SAYS = ("Collecting numpy\n"
            "  Downloading numpy-2.0.0-cp311-manylinux.whl (18.3 MB)\n"
            "Requirement already satisfied: packaging in ./.venv/lib\n"
            "Successfully installed numpy-2.0.0\n")


@pytest.fixture
def sandbox(tmp_path):
    shutil.copy(ROOT / "setup.sh", tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    # python: `-m pip --version` answers (the venv is usable); `-m pip install` says what a
    # first install says, then exits with $PIP_EXIT
    (venv / "python").write_text(
        '#!/bin/sh\ncase "$*" in\n  *"pip --version"*) exit 0;;\n'
        f'  *"pip install"*) printf "%s" "{PIP_SAYS}"; exit ${{PIP_EXIT:-0}};;\nesac\n'
        'echo "python $*"\n')
    (venv / "ssdlab").write_text('#!/bin/sh\necho "ssdlab $*"\n')
    for program in ("python", "ssdlab"):
        (venv / program).chmod(0o755)
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in TOOLS:
        (tools / tool).symlink_to(shutil.which(tool))
    (tools / "python3").symlink_to(sys.executable)

    def run(**env: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(tools / "bash"), "setup.sh", "launch", "--help"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env={"PATH": str(tools), "HOME": str(tmp_path), **env})

    return run, tmp_path


def test_a_first_install_shows_each_package_as_pip_fetches_it(sandbox):
    run, folder = sandbox
    done = run()
    assert done.returncode == 0, done.stderr
    assert "downloads about 1 GB" in done.stderr
    assert "Collecting numpy" in done.stderr and "Downloading numpy" in done.stderr
    assert "Requirement already satisfied" not in done.stderr  # thinned: nothing new there
    assert done.stdout == "ssdlab prepare\nssdlab --help\n"
    assert (folder / ".venv" / ".ssdlab-pyproject.sha256").exists()


def test_a_failed_install_stops_setup(sandbox):
    run, folder = sandbox
    done = run(PIP_EXIT="1")
    assert done.returncode != 0
    assert "Collecting numpy" in done.stderr  # it got as far as pip, and pip failed
    assert done.stdout == ""  # neither prepare nor the command ran
    assert not (folder / ".venv" / ".ssdlab-pyproject.sha256").exists()  # tried again next time
