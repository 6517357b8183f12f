"""What every trace parser shares: the lines it reads, the record it makes, the log it keeps.

`TraceLines` streams a trace file (plain or gzip-compressed text) or any iterable of lines,
one line at a time, so a trace of any size is never held in memory whole:

- lines end at "\\n" only, and a CRLF line loses its "\\r": line numbers are the ones
  `grep -n` and editors show, blank lines and comments included;
- a line longer than MAX_LINE_CHARS is never read into memory whole: it is recorded as a
  problem, read past in MAX_LINE_CHARS pieces, and handed on as an empty line (so the line
  numbers after it stay right);
- a caller's cancel() is asked every CANCEL_EVERY_LINES lines, and after every piece of an
  over-long line (a piece is as much text as hundreds of lines); True raises
  TraceCancelled;
- gzip data that ends early or is damaged is recorded as a problem at the line where it
  happened and reading stops there; what was read before it is kept.

`TraceRequest` is the record every parser makes, its numbers read by `whole` (capped at 64
bits). `TraceLog` holds what parsing reports besides requests: unreadable lines (only the
first KEEP_PROBLEMS of them in full, plus a count per kind, so a file of a million bad
lines costs no memory), lines skipped on purpose, and requests seen per device.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ssdlab.model.flash.runner import Cancelled
from ssdlab.model.inputfile import InputFileError, open_input

SECTOR_BYTES = 512
OPS = ("write", "read", "discard", "flush")
WHOLE_MAX = 2**63 - 1  # offsets, lengths and timestamps are kept in 64-bit integers
MAX_LINE_CHARS = 65536  # no trace format has lines near this long
CANCEL_EVERY_LINES = 1024  # cancel() is asked this often: a few milliseconds of parsing
KEEP_PROBLEMS = 20  # unreadable lines kept in full; the rest are only counted
PROBLEM_TEXT_CHARS = 200  # of each kept line's text


@dataclass(frozen=True)
class TraceRequest:
    """One host request. time_s: seconds in the trace's own time base (None if the format
    has none). op: write, read, discard or flush. A flush has offset and length 0.
    offset_bytes, length_bytes: at most WHOLE_MAX. line: the 1-based line of the trace file
    it came from."""

    time_s: float | None
    op: str
    offset_bytes: int
    length_bytes: int
    line: int


def whole(digits: str) -> int:
    """A whole number written in decimal digits, capped at WHOLE_MAX (Python refuses to
    convert strings of thousands of digits; a trace line may hold one)."""
    if len(digits) <= 18:  # always below 2^63: the common case, quickly
        return int(digits) if digits else 0
    digits = digits.lstrip("0")
    return WHOLE_MAX if len(digits) > 19 else min(int(digits or "0"), WHOLE_MAX)


class TraceCancelled(Cancelled):
    """Reading a trace stopped because the caller's cancel() asked for it."""


@dataclass(frozen=True)
class TraceProblem:
    """A line that could not be read: its number (1-based), its text (at most
    PROBLEM_TEXT_CHARS characters), why (reason, naming what was expected) and the kind of
    problem it is (reasons that name the line's own content share one kind)."""

    line: int
    text: str
    reason: str
    kind: str = ""


class Tally:
    """Occurrences counted by kind; the first `keep` items are kept in full, in order."""

    def __init__(self, keep: int = KEEP_PROBLEMS):
        self.keep = keep
        self.first: list = []
        self.counts: Counter[str] = Counter()

    def add(self, kind: str, item) -> None:
        self.counts[kind] += 1
        if len(self.first) < self.keep:
            self.first.append(item)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class TraceLog:
    """What a parser reports besides requests: problems (a Tally of TraceProblem), skipped
    (lines left out on purpose, by reason) and devices (requests seen per device, disk or
    file, before any filter)."""

    def __init__(self, keep: int = KEEP_PROBLEMS) -> None:
        self.problems = Tally(keep)
        self.skipped: Counter[str] = Counter()
        self.devices: Counter[str] = Counter()

    def problem(self, line: int, text: str, reason: str, kind: str | None = None) -> None:
        kind = kind or reason
        self.problems.add(kind, TraceProblem(
            line, text.rstrip("\r\n")[:PROBLEM_TEXT_CHARS], reason, kind))


class TraceLines:
    """The lines of a trace file or of an iterable of lines, without their line ends.

    source: a path (plain or gzip text; UTF-8, undecodable bytes replaced) or an iterable
    of str. log: where over-long lines and damaged gzip data are recorded. cancel: asked
    every CANCEL_EVERY_LINES lines. max_lines: stop after this many lines (`complete` then
    says whether the source had more). Iterate once. A file that cannot be opened or read
    raises ValueError naming it."""

    def __init__(self, source: str | os.PathLike | Iterable[str], log: TraceLog,
                 cancel: Callable[[], bool] | None = None, max_lines: int | None = None):
        self.is_file = isinstance(source, (str, os.PathLike))
        self.name = os.fspath(source) if self.is_file else "<lines>"
        self.source = source
        self.log = log
        self.cancel = cancel
        self.max_lines = max_lines
        self.lines_read = 0
        self.complete = False
        self._ticks = 0

    def _tick(self, every: int = CANCEL_EVERY_LINES) -> None:
        self._ticks += 1
        if self.cancel is not None and self._ticks % every == 0 and self.cancel():
            raise TraceCancelled(f"{self.name}: reading the trace was cancelled at line "
                                 f"{self.lines_read:,}")

    def __iter__(self) -> Iterator[str]:
        pieces = self._file_pieces() if self.is_file else self._iterable_pieces()
        for text in pieces:
            if self.max_lines is not None and self.lines_read >= self.max_lines:
                return  # more lines follow: complete stays False
            self.lines_read += 1
            yield text
        self.complete = True

    def _iterable_pieces(self) -> Iterator[str]:
        for text in self.source:
            self._tick()
            if len(text) > MAX_LINE_CHARS:
                self._too_long(self.lines_read + 1, text)
                text = ""
            yield text.rstrip("\r\n")

    def _too_long(self, line: int, text: str) -> None:
        self.log.problem(line, text, f"line longer than {MAX_LINE_CHARS:,} characters; no "
                         "trace format has lines this long", "line too long")

    def _open(self) -> tuple[io.TextIOBase, io.BufferedReader]:
        """The trace as text, and the file under it (a gzip reader leaves it open)."""
        # never blocks on a FIFO, never reads a device: a trace is a regular file
        raw = open_input(self.source)
        magic = raw.read(2)
        raw.seek(0)
        binary = gzip.GzipFile(fileobj=raw, mode="rb") if magic == b"\x1f\x8b" else raw
        return io.TextIOWrapper(binary, encoding="utf-8", errors="replace", newline="\n"), raw

    def _file_pieces(self) -> Iterator[str]:
        try:
            f, raw = self._open()
        except InputFileError as e:
            raise ValueError(f"{self.name}: cannot read the trace: "
                             f"{str(e).split(': ', 1)[-1]}") from None
        except OSError as e:
            raise ValueError(f"{self.name}: cannot read the trace: {e.strerror or e}") from e
        with raw, f:
            while True:
                try:
                    text = self._read_line(f)
                except (EOFError, zlib.error, gzip.BadGzipFile) as e:
                    self.log.problem(self.lines_read + 1, "", "the gzip data is damaged or "
                                     f"ends early ({e}); reading stopped here",
                                     "damaged gzip data")
                    return
                except OSError as e:
                    raise ValueError(f"{self.name}: cannot read the trace at line "
                                     f"{self.lines_read + 1}: {e.strerror or e}") from e
                if text is None:
                    return
                yield text

    def _read_line(self, f: io.TextIOBase) -> str | None:
        """The next line without its end, "" for an over-long one, None at the end."""
        self._tick()
        text = f.readline(MAX_LINE_CHARS + 1)
        if not text:
            return None
        if text.endswith("\n"):
            return text[:-2] if text.endswith("\r\n") else text[:-1]
        if len(text) <= MAX_LINE_CHARS:
            return text.removesuffix("\r")  # the last line, without a line end
        self._too_long(self.lines_read + 1, text)
        while text and not text.endswith("\n"):  # read past the rest, piece by piece
            self._tick(every=1)
            text = f.readline(MAX_LINE_CHARS)
        return ""
