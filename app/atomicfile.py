"""Write an output file so that a failed or interrupted write never destroys the old one.

The data goes to a temporary file in the target's own directory (so the final rename stays on
one file system), is flushed and fsynced, and only then replaces the target with os.replace.
On any error, Ctrl-C included, the temporary file is removed and the target is left exactly as
it was. Used by the command line and the window alike.

A target that is not a regular file cannot be replaced by a rename: a character device or a
pipe (/dev/null, /dev/stdout, a FIFO) is written directly, since there is no old content to
protect, and a write error there (ENOSPC from /dev/full) is still reported cleanly. A directory
or any other kind of file is refused.

Every failure is an OutputFileError whose message is one line naming the path and the reason.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


class OutputFileError(Exception):
    """An output file cannot be written; the message names the path and why, in one line."""


def _reason(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _direct_target(path: Path) -> bool:
    """True for an existing character device or FIFO, written in place; raises for the rest
    that cannot be written at all (a directory, a socket, a block device)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as e:
        raise OutputFileError(f"{path}: cannot be written: {_reason(e)}") from e
    if stat.S_ISREG(mode):
        # A rename could replace a read-only file; a plain open could not, so neither may we.
        if not os.access(path, os.W_OK):
            raise OutputFileError(f"{path}: cannot be written: permission denied")
        return False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return True
    kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
    raise OutputFileError(f"{path}: cannot be written: it is {kind}")


def check_writable(path: str | os.PathLike) -> None:
    """Check up front, creating nothing, that `path` could be written: it is not a directory
    and its directory exists and is writable. Raises OutputFileError."""
    target = Path(os.path.realpath(path))
    if _direct_target(target):
        if not os.access(target, os.W_OK):
            raise OutputFileError(f"{path}: cannot be written: permission denied")
        return
    folder = target.parent
    if not folder.is_dir():
        raise OutputFileError(f"{path}: cannot be written: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(f"{path}: cannot be written: folder {folder} is not writable")


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = None) -> Iterator[IO]:
    """Open `path` for writing ("w" text or "wb" binary); the file appears under its name,
    whole, only when the block ends without an exception."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb'; got {mode!r}")
    text = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
    # Follow a symbolic link so the file it points at is replaced, not the link itself.
    target = Path(os.path.realpath(path))
    if _direct_target(target):
        try:
            with open(target, mode, **text) as f:
                yield f
        except OSError as e:
            raise OutputFileError(f"{path}: cannot be written: {_reason(e)}") from e
        return
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                    suffix=".partial")
    except OSError as e:
        raise OutputFileError(f"{path}: cannot be written: {_reason(e)}") from e
    try:
        try:
            existing = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            existing = 0o666 & ~_umask()  # what open() would have created
        os.fchmod(fd, existing)
        with open(fd, mode, **text) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(e, OSError):
            raise OutputFileError(f"{path}: cannot be written: {_reason(e)}") from e
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable; not every file system lets a folder be fsynced."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write all of `data` to `path` atomically (see atomic_open)."""
    with atomic_open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
