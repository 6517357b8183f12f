"""Write an output file so that a failed or interrupted write never destroys the old one.

The data goes to a temporary file in the target's own directory (so the final rename stays on
one file system; named by ssdlab/model/partialfiles.py, which also removes those a killed process
left), is flushed and fsynced, and only then replaces the target with os.replace. On any
error, Ctrl-C included, the temporary file is removed and the target is left exactly as it
was. Used by the command line and the window alike.

Several files that belong together (a CSV and its JSON sidecar, a gallery figure's files and
its index) are written with write_together: every one is complete in its temporary file
before the first is renamed into place, so a full disk changes none of them.

Only a regular file (or a new name) is ever written. A path that exists as anything else, a
FIFO, a device (/dev/null included), a socket or a directory, is refused before anything is
opened: opening a FIFO for writing waits for a reader, for ever if none comes.

Every failure is an OutputFileError whose message is one line naming the path and the reason.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from ssdlab.model.partialfiles import make_temp


class OutputFileError(Exception):
    """An output file cannot be written; the message names the path and why, in one line."""


def _reason(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def _check_existing(path: Path, named: str | os.PathLike) -> None:
    """Nothing when `path` does not exist or is a regular file that may be replaced; raises
    for anything else, opening nothing (os.stat never blocks on a FIFO)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as e:
        raise OutputFileError(f"{named}: cannot be written: {_reason(e)}") from e
    if not stat.S_ISREG(mode):
        raise OutputFileError(f"{named}: cannot be written: it is {_kind(mode)}; name a "
                              "regular file")
    # A rename could replace a read-only file; a plain open could not, so neither may we.
    if not os.access(path, os.W_OK):
        raise OutputFileError(f"{named}: cannot be written: permission denied")


def check_writable(path: str | os.PathLike) -> None:
    """Check up front, creating nothing, that `path` could be written: it is a regular file
    or a new name, and its directory exists and is writable. Raises OutputFileError."""
    target = Path(os.path.realpath(path))
    _check_existing(target, path)
    folder = target.parent
    if not folder.is_dir():
        raise OutputFileError(f"{path}: cannot be written: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(f"{path}: cannot be written: folder {folder} is not writable")


def _new_mode(target: Path) -> int:
    """The permission bits the written file gets: the old file's, else what open() gives."""
    try:
        return os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


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
    _check_existing(target, path)
    try:
        fd, temp = make_temp(target)
    except OSError as e:
        raise OutputFileError(f"{path}: cannot be written: {_reason(e)}") from e
    try:
        os.fchmod(fd, _new_mode(target))
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


def write_together(files: Sequence[tuple[str | os.PathLike, str | bytes]]) -> None:
    """Write several files that belong together (path, data), none or all: each is written
    whole to its temporary file first, and only then are they renamed into place, one after
    another with Ctrl-C held back until the last. OutputFileError names the file that failed;
    then every target is as it was."""
    temps: list[tuple[str, Path]] = []
    targets = [Path(os.path.realpath(named)) for named, _ in files]
    current: str | os.PathLike = ""  # the file being written, for the message
    try:
        for (current, _), target in zip(files, targets, strict=True):
            _check_existing(target, current)
        for (named, data), target in zip(files, targets, strict=True):
            current = named
            fd, temp = make_temp(target)
            temps.append((temp, target))
            os.fchmod(fd, _new_mode(target))
            with open(fd, "wb") as f:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
                f.flush()
                os.fsync(f.fileno())
        with _interrupt_after():
            for n, (temp, target) in enumerate(list(temps)):
                current = files[n][0]
                os.replace(temp, target)
                temps.remove((temp, target))
    except BaseException as e:
        for temp, _ in temps:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        if isinstance(e, OSError):
            raise OutputFileError(f"{current}: cannot be written: {_reason(e)}") from e
        raise
    for folder in {t.parent for t in targets}:
        _sync_folder(folder)


@contextlib.contextmanager
def _interrupt_after() -> Iterator[None]:
    """Ctrl-C inside waits for the block's end, then interrupts as usual; only the main
    thread receives signals, so elsewhere the block just runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def open_append(path: str | os.PathLike) -> int:
    """A descriptor for appending to the regular file `path` (made if missing), opened
    without ever waiting on a FIFO swapped in after the caller's check. OutputFileError."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as e:
        raise OutputFileError(f"{path}: cannot be written: {_reason(e)}") from e
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise OutputFileError(f"{path}: cannot be written: it is {_kind(mode)}; name a "
                              "regular file")
    os.set_blocking(fd, True)
    return fd


def append_whole(fd: int, path: str | os.PathLike, data: bytes) -> None:
    """Append all of `data` and fsync, or cut the file back to its length before: a full disk
    never leaves part of a line. OutputFileError names the path."""
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise OutputFileError(f"{path}: cannot be written: {_reason(e)}") from e
