"""Open any input file (scenario, lesson, session, sweep, trace, results, profile) safely.

A path given as input can name anything: a FIFO (an open() of it blocks until a writer
comes, for ever), /dev/zero (a read() of it fills memory), a directory, a socket. Every
reader in the program opens its file here: with O_NONBLOCK, so opening a FIFO returns at
once, then fstat on the open descriptor (no race with a rename), refusing anything that is
not a regular file, then reading at most a cap of bytes, refusing a larger file with a
message that names the cap. Only then is the descriptor made blocking again for reading.

Every failure is an InputFileError (a ValueError, so the loaders' own handlers keep their
one-line messages), naming the path and the reason. Qt-free: the window calls it too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

# Text inputs (scenarios, lessons, sweeps, profiles) are a few KiB; sessions and results can
# be large, so their loaders pass their own cap.
TEXT_MAX_BYTES = 4 * 2**20
BOM = "\ufeff"


class InputFileError(ValueError):
    """An input file that cannot be read: one line naming the path and why."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_input(path: str | os.PathLike, max_bytes: int | None = None) -> BinaryIO:
    """`path` opened for reading in binary, once it is known to be a regular file of at most
    max_bytes (None: any size, for streamed inputs such as traces). Never blocks on a FIFO.
    Raises InputFileError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputFileError(f"{path}: cannot be read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"{path}: cannot be read: it is {_kind(st.st_mode)}, not a "
                                 "regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise InputFileError(f"{path}: {st.st_size:,} bytes; at most {max_bytes:,} bytes "
                                 "are read from a file of this kind")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: str | os.PathLike, max_bytes: int = TEXT_MAX_BYTES) -> bytes:
    """All of a regular file of at most max_bytes (see open_input). A file that grows while
    it is read is cut at the cap and refused, never read to the end."""
    with open_input(path, max_bytes) as f:
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            raise InputFileError(f"{path}: cannot be read: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise InputFileError(f"{path}: more than {max_bytes:,} bytes; at most {max_bytes:,} "
                             "bytes are read from a file of this kind")
    return data


def read_text_input(path: str | os.PathLike, max_bytes: int = TEXT_MAX_BYTES,
                    what: str = "a text file") -> str:
    """A UTF-8 text file's text, a leading byte-order mark dropped and CRLF line ends made
    LF, so every loader reads what editors on any system write. Raises InputFileError."""
    data = read_input(path, max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{path}: is not UTF-8 text (byte {e.start} is "
                             f"0x{data[e.start]:02x}); {what} is UTF-8 text") from None
    return text.removeprefix(BOM).replace("\r\n", "\n")


def inside(path: str | os.PathLike, folders: tuple[Path, ...]) -> bool:
    """Whether path, all symbolic links and .. resolved, lies inside one of folders."""
    real = Path(os.path.realpath(path))
    return any(real == Path(os.path.realpath(f)) or Path(os.path.realpath(f)) in real.parents
               for f in folders)
