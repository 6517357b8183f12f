"""Trace parsers report the physical line number of every request and every problem, in every
format, whatever blank lines, comments and line endings (LF, CRLF) surround them; read
from lines, from a file and from a gzip file. Tested through the public `parse` only.

One mechanism for all formats: each has a header, a line that is one request and a line
that is a problem; hypothesis interleaves them with blank and comment lines, and the
expected numbers are simply the positions where the test put them.
"""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.host import traces as T

FORMATS = {
    "tracefs": (["# tracer: nop"],
                "  dd-77 [002] ..... 1234.700000: block_rq_issue: 7,0 W 4096 () 100 + 8 "
                "none,0,0 [dd]",
                "this line is garbage"),
    "blkparse": ([],
                 "  8,0    3        2     0.000001000   697  D   W 223490 + 8 [kjournald]",
                 "  8,0    0        8     0.031000000   900  D  WS 8 + eight [broken]"),
    "fio-v2": (["fio version 2 iolog"], "/dev/sdb write 0 4096", "/dev/sdb frobnicate 0 4096"),
    "fio-v3": (["fio version 3 iolog"], "1500 f write 4096 4096", "x f write 0 4096"),
    "msr": (["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"],
            "128166372003061629,hm,1,Read,3154152448,4096,1080",
            "128166372026382155,hm,1,Write,-5,4096,1"),
}
FILLERS = {"blank": "", "spaces": "   ", "comment": "# a comment"}

BODY = st.lists(st.sampled_from(["good", "bad", "blank", "spaces", "comment"]),
                min_size=1, max_size=12).filter(lambda kinds: "good" in kinds)


def _compose(fmt: str, kinds: list[str], eol: str) -> tuple[list[str], list[int], list[int]]:
    """Lines of a trace file, and the 1-based lines of its requests and of its problems."""
    head, good, bad = FORMATS[fmt]
    lines = list(head)
    goods, bads = [], []
    for k in kinds:
        lines.append(good if k == "good" else bad if k == "bad" else FILLERS[k])
        if k == "good":
            goods.append(len(lines))
        elif k == "bad":
            bads.append(len(lines))
    return [line + eol for line in lines], goods, bads


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@settings(max_examples=40, deadline=None)
@given(kinds=BODY, eol=st.sampled_from(["\n", "\r\n"]))
def test_line_numbers_from_lines(fmt, kinds, eol):
    lines, goods, bads = _compose(fmt, kinds, eol)
    tr = T.parse(lines, fmt=fmt)
    assert [r.line for r in tr.requests] == goods
    assert [p.line for p in tr.problems] == bads
    assert all("\r" not in p.text and "\n" not in p.text for p in tr.problems)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize("gz", [False, True])
def test_line_numbers_from_a_file(tmp_path, fmt, eol, gz):
    kinds = ["blank", "comment", "good", "blank", "bad", "spaces", "good", "good", "blank"]
    lines, goods, bads = _compose(fmt, kinds, eol)
    data = "".join(lines).encode()
    path = tmp_path / ("t.gz" if gz else "t.txt")
    path.write_bytes(gzip.compress(data) if gz else data)
    tr = T.parse(path, fmt=fmt)
    assert [r.line for r in tr.requests] == goods
    assert [p.line for p in tr.problems] == bads


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_detected_format_keeps_the_numbering(fmt):
    """Format detection reads ahead; the lines it read still count."""
    lines, goods, bads = _compose(fmt, ["blank", "good", "bad", "good"], "\r\n")
    tr = T.parse(lines)
    assert tr.fmt == fmt
    assert [r.line for r in tr.requests] == goods
    assert [p.line for p in tr.problems] == bads


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_trace_of_problems_only_names_the_first_problem_line(fmt):
    lines, _, bads = _compose(fmt, ["blank", "comment", "bad", "blank", "bad"], "\r\n")
    with pytest.raises(ValueError, match=f"line {bads[0]}"):
        T.parse(lines, fmt=fmt)
