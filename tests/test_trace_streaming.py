"""Reading traces as a stream: line numbers, bounded memory for problems, long lines, damaged
gzip, a quick look at the head, and cancelling."""

from __future__ import annotations

import gzip

import pytest

from ssdlab.model.host import tracefile as F
from ssdlab.model.host import traces as T

ISSUE = "  dd-77 [002] ..... 1234.700000: block_rq_issue: 7,0 W 4096 () {sector} + 8 [dd]"


def issue(sector: int) -> str:
    return ISSUE.format(sector=sector)


def test_crlf_blank_lines_and_comments_keep_line_numbers(tmp_path):
    lines = ["# tracer: nop", "", issue(8), "#", "", "", "garbage", issue(16), "  ", issue(24)]
    path = tmp_path / "crlf.txt"
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    tr = T.parse(path)
    assert [r.line for r in tr.requests] == [3, 8, 10]
    assert [p.line for p in tr.problems] == [7] and tr.problems[0].text == "garbage"
    assert tr.lines == len(lines) and tr.complete
    lf = tmp_path / "lf.txt"
    lf.write_text("\n".join(lines))  # no line end after the last line
    assert list(T.parse(lf).requests) == list(tr.requests)


def test_a_lone_carriage_return_does_not_start_a_line(tmp_path):
    """Editors and grep -n count "\\n" only; a stray "\\r" inside a line must not shift the
    numbers of every line after it."""
    path = tmp_path / "cr.txt"
    path.write_bytes(f"{issue(8)}\nbad\rline\n{issue(16)}\n".encode())
    tr = T.parse(path)
    assert [r.line for r in tr.requests] == [1, 3]
    assert [p.line for p in tr.problems] == [2] and tr.problems[0].text == "bad\rline"


def test_a_million_bad_lines_keep_only_the_first_problems(tmp_path):
    path = tmp_path / "junk.txt"
    with open(path, "w") as f:
        f.write(issue(8) + "\n")
        f.write("not a trace line\n" * 1_000_000)
    tr = T.parse(path)
    assert len(tr.requests) == 1
    assert len(tr.problems) == F.KEEP_PROBLEMS
    assert [p.line for p in tr.problems] == list(range(2, 2 + F.KEEP_PROBLEMS))
    assert tr.problem_counts == {"not a tracefs line": 1_000_000}
    assert tr.unreadable == 1_000_000 and tr.lines == 1_000_001


def test_an_over_long_line_is_reported_and_read_past(tmp_path):
    path = tmp_path / "long.txt"
    long_line = "x" * (3 * F.MAX_LINE_CHARS + 17)
    path.write_text(f"{issue(8)}\n{long_line}\n{issue(16)}\n{'y' * (F.MAX_LINE_CHARS + 1)}")
    tr = T.parse(path)
    assert [r.line for r in tr.requests] == [1, 3]
    assert [(p.line, p.kind) for p in tr.problems] == [(2, "line too long"),
                                                       (4, "line too long")]
    assert len(tr.problems[0].text) == F.PROBLEM_TEXT_CHARS
    exact = tmp_path / "exact.txt"  # a line of exactly the limit is still read
    exact.write_text(f"{issue(8)}\n{'z' * F.MAX_LINE_CHARS}\n")
    assert T.parse(exact).problem_counts == {"not a tracefs line": 1}


def test_over_long_lines_from_an_iterable_are_reported_too():
    tr = T.parse([issue(8), "q" * (F.MAX_LINE_CHARS + 1), issue(16)])
    assert [r.line for r in tr.requests] == [1, 3]
    assert tr.problem_counts == {"line too long": 1}


def test_damaged_gzip_keeps_what_was_read_and_names_the_line(tmp_path):
    text = "".join(issue(8 * i) + "\n" for i in range(1, 3001)).encode()
    packed = gzip.compress(text)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(packed[: len(packed) // 2])  # a recording that was interrupted
    tr = T.parse(cut)
    assert 0 < len(tr.requests) < 3000
    assert tr.problem_counts == {"damaged gzip data": 1}
    assert tr.problems[0].line == len(tr.requests) + 1 or \
        tr.problems[0].line == len(tr.requests) + 2  # the last line may have been cut
    junk = tmp_path / "junk.gz"
    junk.write_bytes(b"\x1f\x8b" + b"\x00" * 64)
    with pytest.raises(ValueError, match=r"junk\.gz.*empty.*line 1: the gzip data is damaged"):
        T.parse(junk)


def test_binary_garbage_is_a_clean_error(tmp_path):
    path = tmp_path / "random.bin"
    path.write_bytes(bytes(range(256)) * 400)
    with pytest.raises(ValueError, match=r"random\.bin: cannot tell the trace format"):
        T.parse(path)


def test_a_directory_or_missing_file_is_a_clean_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read the trace"):
        T.parse(tmp_path)
    with pytest.raises(ValueError, match="cannot read the trace"):
        T.parse(tmp_path / "missing.txt")


def test_max_lines_reads_only_the_head(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("".join(issue(8 * i) + "\n" for i in range(5000)))
    head = T.parse(path, max_lines=100)
    assert len(head.requests) == 100 and head.lines == 100 and not head.complete
    whole = T.parse(path, max_lines=5000)
    assert len(whole.requests) == 5000 and whole.complete
    # a head with no request yet is not an error: the rest may hold them
    late = tmp_path / "late.txt"
    late.write_text("# tracer: nop\n" + "# comment\n" * 300 + issue(8) + "\n")
    assert len(T.parse(late, max_lines=100).requests) == 0
    assert len(T.parse(late).requests) == 1


class CountingLines:
    """An endless source of trace lines that counts how many were taken."""

    def __init__(self):
        self.taken = 0

    def __iter__(self):
        while True:
            self.taken += 1
            yield issue(8 * self.taken)


def test_cancel_stops_parsing_within_a_bounded_number_of_lines():
    source = CountingLines()
    asked = []

    def cancel() -> bool:
        asked.append(source.taken)
        return len(asked) >= 3  # stop on the third question

    with pytest.raises(T.TraceCancelled, match="cancelled at line"):
        T.parse(source, cancel=cancel)
    assert len(asked) == 3
    assert source.taken <= 3 * F.CANCEL_EVERY_LINES + 1


def test_cancel_stops_reading_a_file_and_inside_an_over_long_line(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("".join(issue(8 * i) + "\n" for i in range(1, 10 * F.CANCEL_EVERY_LINES)))
    with pytest.raises(T.TraceCancelled):
        T.parse(path, cancel=lambda: True)
    # one line of 300 pieces: cancel is asked while it is read past, not only after it
    one = tmp_path / "one-line.txt"
    one.write_text(issue(8) + "\n" + "x" * (300 * F.MAX_LINE_CHARS))
    asked = []
    with pytest.raises(T.TraceCancelled):
        T.parse(one, cancel=lambda: asked.append(1) or True)
    assert asked == [1]  # at the first piece after the line's start
    assert len(T.parse(one, cancel=lambda: False).requests) == 1


def test_tally_keeps_the_first_and_counts_all():
    t = F.Tally(keep=3)
    for i in range(10):
        t.add("even" if i % 2 == 0 else "odd", i)
    assert t.first == [0, 1, 2] and t.counts == {"even": 5, "odd": 5} and t.total == 10
