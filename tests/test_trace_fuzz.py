"""Fuzzing the trace parsers: for every format, lines built from the format's own fields with
wild values, mangled lines and random text either parse (with any bad line reported as a
problem) or raise a clean ValueError; never another exception. What parses replays, drops
what does not fit, and leaves the drive consistent."""

from __future__ import annotations

import gzip
import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host import replay as R
from ssdlab.model.host import traces as T
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.partition import Partition

FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# numbers a field may hold: small, at the 64-bit edge, far past it, thousands of digits
numbers = st.one_of(st.integers(0, 4096), st.integers(0, 2**64),
                    st.integers(2**63 - 10, 10**40),
                    st.sampled_from(["9" * 5000, "0" * 30 + "7", "٣٣", "²", "-5", "1e9",
                                     "", "0x10", "nan"])).map(str)
words = st.one_of(st.sampled_from(["W", "WS", "FWS", "FF", "F", "R", "RA", "D", "DE", "N", "X",
                                   "", "Q", "read", "write", "trim", "sync", "datasync",
                                   "wait", "add", "open", "close", "frob", "Read", "Write",
                                   "block_rq_issue", "block_rq_complete", "()", "+",
                                   "[dd]", "#", "CPU:0 [LOST 3 EVENTS]", "none,0,0"]),
                  st.text(max_size=12))
noise = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)


def mangled(line: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A line as given, with a piece cut out, or with text put in."""
    def cut(args):
        text, i, j, extra = args
        i, j = sorted((i % (len(text) + 1), j % (len(text) + 1)))
        return text[:i] + extra + text[j:]
    return st.one_of(line, st.tuples(line, st.integers(0, 200), st.integers(0, 200),
                                     noise).map(cut))


tracefs_line = st.builds(
    "{}-{} [{}] {} {}: {}: {},{} {} {} () {} + {} {}[{}]".format,
    words, numbers, numbers, st.sampled_from(["....."] * 3 + ["d..1.", ""]),
    st.one_of(numbers, st.just("1234.5678")),
    st.sampled_from(["block_rq_issue", "block_rq_complete", "block:block_rq_issue"]) | words,
    numbers, numbers, words, numbers, numbers, numbers, words, words)
blkparse_line = st.builds(
    "{},{} {} {} {}.{} {} {} {} {} + {} [{}]".format,
    numbers, numbers, numbers, numbers, numbers, numbers, numbers,
    st.sampled_from(["D", "Q", "C", "m"]) | words, words, numbers, numbers, words)
fio_line = st.builds("{} {} {} {}".format, words, words, numbers, numbers) | \
    st.builds("{} {}".format, words, words)
fio3_line = st.builds("{} {}".format, numbers, fio_line)
msr_line = st.builds("{},{},{},{},{},{},{}".format, numbers, words, numbers,
                     st.sampled_from(["Read", "Write", "read", "Erase"]) | words,
                     numbers, numbers, numbers)

FORMAT_LINES = {
    "tracefs": (["# tracer: nop"], tracefs_line),
    "blkparse": ([], blkparse_line),
    "fio-v2": (["fio version 2 iolog"], fio_line),
    "fio-v3": (["fio version 3 iolog"], fio3_line),
    "msr": (["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"], msr_line),
}


def trace_lines(fmt: str) -> st.SearchStrategy[list[str]]:
    head, line = FORMAT_LINES[fmt]
    body = st.lists(st.one_of(mangled(line), line, noise, st.just(""), st.just("#")),
                    max_size=40)
    return st.tuples(st.booleans(), body).map(lambda t: (head if t[0] else []) + t[1])


def check(trace: T.Trace, n_lines: int) -> None:
    """What every parsed trace promises, whatever the input."""
    assert trace.fmt in T.FORMATS
    for r in trace.requests:
        assert 1 <= r.line <= n_lines and r.op in T.OPS
        assert 0 <= r.offset_bytes <= T.WHOLE_MAX and 0 <= r.length_bytes <= T.WHOLE_MAX
    assert len(trace.problems) <= T.KEEP_PROBLEMS
    assert trace.unreadable == sum(trace.problem_counts.values()) >= len(trace.problems)
    assert [p.line for p in trace.problems] == sorted(p.line for p in trace.problems)
    assert all(1 <= p.line <= n_lines and p.reason and p.kind for p in trace.problems)


def replay_checked(trace: T.Trace) -> None:
    drive = Drive(Geometry(user_pages=1 << 10, pages_per_block=32, spare=0.2), FtlConfig())
    dev = BlockDevice(drive, Partition(start_sector=0))
    try:
        res = R.replay(trace, dev, batch_requests=7)
    except ValueError as e:
        assert "no read, write or discard" in str(e) or "only cache flushes" in str(e)
    else:
        assert res.requests + res.dropped.total == len(trace.requests)
        assert R.headline(res, trace) and R.report(res, trace)["replayed"] == res.requests
    drive.check_invariants()


def parse_checked(source, n_lines: int, **kw) -> None:
    name = source if isinstance(source, str) else "<lines>"
    try:
        trace = T.parse(source, **kw)
    except ValueError as e:  # one line naming the trace and what is wrong
        assert str(e).startswith(f"{name}: ") and "\n" not in str(e), e
        assert "no block request" in str(e) or "cannot tell the trace format" in str(e) \
            or "the trace is empty" in str(e), e
        return
    check(trace, n_lines)
    replay_checked(trace)


@FUZZ
@given(st.sampled_from(sorted(FORMAT_LINES)).flatmap(
    lambda fmt: st.tuples(st.just(fmt), trace_lines(fmt))))
def test_lines_of_each_format_parse_or_fail_cleanly(case):
    fmt, lines = case
    parse_checked(lines, len(lines), fmt=fmt)
    parse_checked(lines, len(lines))  # told from the head


@FUZZ
@given(st.sampled_from(sorted(FORMAT_LINES)).flatmap(trace_lines),
       st.sampled_from(["\n", "\r\n"]), st.booleans(), st.binary(max_size=64))
def test_trace_files_parse_or_fail_cleanly(lines, end, packed, junk):
    """The same from a file: CRLF or LF, gzip or not, with binary junk in the middle."""
    data = end.join(lines).encode() + junk + end.encode() + b"\n".join(
        x.encode("utf-8", "replace") for x in lines[:3])
    n_lines = data.count(b"\n") + 1
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.txt")
        with open(path, "wb") as f:
            f.write(gzip.compress(data) if packed else data)
        parse_checked(path, n_lines)


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_parse_or_fail_cleanly(data):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.bin")
        with open(path, "wb") as f:
            f.write(data)
        parse_checked(path, data.count(b"\n") + 1)


VALID = {
    "tracefs": ["# tracer: nop",
                "  dd-77 [002] ..... 1234.700000: block_rq_issue: 7,0 WS 4096 () 100 + 8 [dd]"],
    "blkparse": ["  8,0    3        2     0.000001000   697  D   W 223490 + 8 [kjournald]"],
    "fio-v2": ["fio version 2 iolog", "/dev/sdb write 0 4096"],
    "fio-v3": ["fio version 3 iolog", "1500 /dev/sdb write 4096 4096"],
    "msr": ["128166372003061629,hm,1,Read,3154152448,4096,1080"],
}
NASTY = ["9" * 5000, "²", "٣", "0" * 40 + "1", str(2**63), str(2**64 * 512), "-1", ""]


def test_every_number_field_takes_every_nasty_value():
    """Each run of digits of a valid line of each format, replaced by each nasty value."""
    import re
    for fmt, lines in VALID.items():
        last = lines[-1]
        for m in re.finditer(r"\d+", last):
            for value in NASTY:
                changed = lines[:-1] + [last[:m.start()] + value + last[m.end():], last]
                parse_checked(changed, len(changed), fmt=fmt)
                parse_checked(changed, len(changed))
