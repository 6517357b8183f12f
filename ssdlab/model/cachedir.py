"""Where SSD Lab keeps what it can rebuild (the compiled engine, replayed rows, drawn trees).

The platform's cache folder, with "ssdlab" under it: on Linux and other Unix systems
$XDG_CACHE_HOME (when it is an absolute path, as the XDG spec asks), else ~/.cache; on macOS
~/Library/Caches; on Windows %LOCALAPPDATA%. The home folder comes from $HOME, else the
password database; a relative answer ("~" when neither knows, a relative $HOME) is never
used, so no folder named "~" appears in the current directory.

When that folder cannot be made or written (a file in its place, a read-only home, no home
at all), a private folder under the system's temporary folder is used instead, once, with a
warning on stderr: never the source tree, which is where numba would put its cache if it
were left to choose. The private folder must be this user's own, not a link, and closed to
others, because numba's cache holds pickles that are loaded (see ssdlab/model/flash/numbacache.py);
a folder of that name that fails this is passed over for a fresh one.

Everything under the cache folder is input, never trusted: `discard` removes an entry of the
wrong kind (a folder, a pipe, a link) without following it.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from functools import cache
from pathlib import Path


def home_dir() -> str | None:
    """The user's home folder as an absolute path, or None when there is none."""
    home = os.environ.get("HOME")
    if not home:
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError, OSError):
            return None
    return home if os.path.isabs(home) else None


def platform_cache_dir() -> Path | None:
    """The platform's per-user cache folder, or None when there is no absolute one."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA", "")
        return Path(base) if os.path.isabs(base) else None
    home = home_dir()
    if sys.platform == "darwin":
        return Path(home, "Library", "Caches") if home else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg)
    return Path(home, ".cache") if home else None


def usable(folder: Path) -> bool:
    """Whether folder is (or can be made) a real folder this process can write in."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return False
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _private(folder: Path) -> bool:
    """Whether folder is ours alone: made now with mode 0700, or already a folder (not a
    link) owned by this user that no one else may write in."""
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        return False
    return usable(folder)


def _fallback() -> Path:
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    folder = Path(tempfile.gettempdir(), f"ssdlab-cache-{user}")
    if _private(folder):
        return folder
    return Path(tempfile.mkdtemp(prefix="ssdlab-cache-"))


@cache
def _chosen(platform: Path | None) -> Path:
    if platform is not None and usable(platform / "ssdlab"):
        return platform / "ssdlab"
    folder = _fallback()
    where = f"{platform}" if platform is not None else "no cache folder is set (no home)"
    print(f"ssdlab: warning: the cache folder cannot be used ({where}); keeping the compiled "
          f"engine and replayed results in {folder} instead", file=sys.stderr, flush=True)
    return folder


def cache_root() -> Path:
    """SSD Lab's own cache folder (ssdlab/ in the platform's), or the temporary fallback.
    Chosen again when the environment names another platform folder (tests move it)."""
    return _chosen(platform_cache_dir())


def folder(path: Path) -> Path:
    """path made a real folder: a file, pipe or link in its place is removed first (a cache
    entry of the wrong kind, rebuilt rather than trusted). Failing that, path is returned as
    it is, and writing there fails later like any unwritable cache."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            discard(path)
    except OSError:
        pass
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    return path


def discard(path: Path) -> None:
    """Remove a cache entry of any kind, a folder with its contents, never following a link;
    a cache that cannot be cleaned is left as it is (its entry is then only not kept)."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass
