"""What a file SSD Lab writes says about where it came from: the tool's version and, when
it runs from a git checkout, the source revision (`git describe`). Read by the result lines
of a sweep (ssdlab/model/lab/sweeprun.py) and every exported figure (ssdlab/app/chartprovenance.py).
"""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (or site-packages) holding ssdlab/


def version() -> str:
    """The installed ssdlab's version, or "unknown" when it runs uninstalled."""
    try:
        return metadata.version("ssdlab")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def source_revision() -> str | None:
    """`git describe --always --dirty` of the checkout SSD Lab runs from; None when it is no
    git checkout (an installed wheel) or git is missing: the field is then left out."""
    if not (ROOT / ".git").exists() or not (ROOT / "ssdlab" / "model").is_dir():
        return None
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty",
                               "--tags"], capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.strip()
    return text if done.returncode == 0 and text else None


def stamp() -> dict:
    """{"ssdlab_version": ..., "source_revision": ...}, the revision only when known."""
    rev = source_revision()
    return {"ssdlab_version": version(), **({"source_revision": rev} if rev else {})}
