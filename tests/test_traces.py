"""Block-trace parsers (tracefs, blkparse, fio iolog v2/v3, MSR-Cambridge) and replay."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

import pytest

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host import replay as R
from ssdlab.model.host import traces as T
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.partition import Partition

SAMPLES = Path(__file__).resolve().parent.parent / "ssdlab" / "assets" / "traces"
SAMPLE_FILES = {"tracefs": "mixed.tracefs.txt", "blkparse": "mixed.blkparse.txt",
                "fio-v2": "mixed.fio2.log", "fio-v3": "mixed.fio3.log", "msr": "mixed.msr.csv"}


def _make_samples():
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ops(trace):
    return [(r.op, r.offset_bytes, r.length_bytes) for r in trace.requests]


def small_device(start_sector=0):
    drive = Drive(Geometry(user_pages=1 << 16, pages_per_block=64, spare=0.1), FtlConfig())
    return drive, BlockDevice(drive, Partition(start_sector=start_sector))


# --- tracefs ---------------------------------------------------------------------------------

TRACEFS = """\
# tracer: nop
#
  jbd2/loop0-8-123 [001] ..... 1234.567890: block_rq_issue: 7,0 WS 4096 () 123456 + 8 [jbd2/loop0-8]
jbd2/loop0-8-123 [001] ..... 1234.567900: block_rq_issue: 7,0 FWS 4096 () 123464 + 8 none,0,0 [jbd2]
  kworker/1:1H-97 [001] ..... 1234.568000: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [kworker/1:1H]
  fstrim-900 [000] ..... 1234.600000: block_rq_issue: 7,0 DS 0 () 2048 + 4096 be,0,4 [fstrim]
  dd-77 [002] d..1. 1234.700000: block_rq_issue: 8,0 W 4096 () 100 + 8 none,0,0 [dd]
  dd-77 [002] ..... 1234.700001: block_rq_issue: 7,0 R 8192 () 64 + 16 none,0,0 [dd]
this line is garbage
  dd-77 [002] ..... 1234.700002: block_rq_issue: 7,0 Q 4096 () 64 + 8 none,0,0 [dd]
  dd-77 [002] ..... 1234.700003: block_rq_complete: 7,0 R () 64 + 16 none,0,0 [0]
  Web Content-5150 [003] ..... 1234.800000: block_rq_issue: 7,0 WFS 4096 () 200 + 8 [Web Content]
  dd-77 [002] ..... 1234.900000: block_rq_issue: 7,0 W 4096 () 300 + 8 [dd]
  blkdiscard-4 [002] ..... 1234.900001: block_rq_issue: 7,0 DE 0 () 4096 + 8 none,0,0 [blkdiscard]
CPU:2 [LOST 17 EVENTS]
  old-1 [000] 99.5: block_rq_issue: 7,0 WS 0 () 512 + 8 [old]
"""


def test_tracefs_exact_requests_and_problems():
    tr = T.parse(TRACEFS.splitlines(), device="7,0")
    assert tr.fmt == "tracefs"
    assert tr.requests[0] == T.TraceRequest(1234.56789, "write", 123456 * 512, 4096, 3)
    assert ops(tr) == [
        ("write", 123456 * 512, 4096),
        ("flush", 0, 0), ("write", 123464 * 512, 4096),  # FWS: preflush, then the data
        ("flush", 0, 0),  # FF: a bare flush
        ("discard", 2048 * 512, 4096 * 512),
        ("read", 64 * 512, 16 * 512),
        ("write", 200 * 512, 4096),  # WFS: F after W is FUA, not a separate flush
        ("write", 300 * 512, 4096),
        ("discard", 4096 * 512, 8 * 512),  # DE: secure erase
        ("write", 512 * 512, 4096),  # old layout: no flags column, no ioprio
    ]
    assert [r.line for r in tr.requests[:3]] == [3, 4, 4]
    assert [(p.line, "garbage" in p.text) for p in tr.problems] == [(9, True), (10, False),
                                                                    (15, False)]
    assert "Q" in tr.problems[1].reason and "LOST" in tr.problems[2].text
    assert tr.skipped == {"comment": 2, "other device": 1,
                          "other event (block_rq_complete)": 1}


def test_tracefs_without_device_filter_keeps_everything():
    tr = T.parse(TRACEFS.splitlines())
    assert ("write", 100 * 512, 4096) in ops(tr)
    assert tr.devices == {"7,0": 10, "8,0": 1}


def test_decode_rwbs():
    assert T.decode_rwbs("F") == (True, None)
    assert T.decode_rwbs("FF") == (True, None)
    assert T.decode_rwbs("FWFSM") == (True, "write")
    assert T.decode_rwbs("RA") == (False, "read")
    assert T.decode_rwbs("N") == (False, None)
    assert T.decode_rwbs("FN") == (True, None)
    with pytest.raises(ValueError, match="unknown operation letter"):
        T.decode_rwbs("X")


# --- blkparse --------------------------------------------------------------------------------

BLKPARSE = """\
  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]
  8,0    3        2     0.000001000   697  D   W 223490 + 8 [kjournald]
  8,0    3        3     0.000300000     0  C   W 223490 + 8 [0]
  8,0    1        4     0.010000000   700  D FWS 1000 + 16 [jbd2/sda1-8]
  8,0    1        5     0.010100000   700  D FWS 0 + 0 [jbd2/sda1-8]
  8,16   0        6     0.020000000   800  D   R 64 + 8 [cat]
  8,0    0        7     0.030000000   900  D   D 4096 + 2048 [fstrim]
  8,0    0        8     0.031000000   900  D  WS 8 + eight [broken]
  8,0    0        9     0.040000000   900  m   N cfq900 slice expired
  8,0    2       10     0.050000000   901  D  RA 128 + 8 (     123) [firefox]
  8,0    2       11     0.060000000   901  D   N 0 (12 00 00 00 24 00) [sg_inq]
CPU0 (8,0):
 Reads Queued:           0,        0KiB  Writes Queued:           1,        4KiB
Total (8,0):
"""


def test_blkparse_issue_lines_only():
    tr = T.parse(BLKPARSE.splitlines(), device="8,0")
    assert tr.fmt == "blkparse"
    assert ops(tr) == [("write", 223490 * 512, 4096),
                       ("flush", 0, 0), ("write", 1000 * 512, 16 * 512),
                       ("flush", 0, 0),  # an empty preflush write is just a flush
                       ("discard", 4096 * 512, 2048 * 512),
                       ("read", 128 * 512, 8 * 512)]
    assert tr.requests[0].time_s == pytest.approx(1e-6) and tr.requests[0].line == 2
    assert [p.line for p in tr.problems] == [8]
    assert tr.skipped["action Q"] == 1 and tr.skipped["action C"] == 1
    assert tr.skipped["action m"] == 1 and tr.skipped["other device"] == 1
    assert tr.skipped["no data (N)"] == 1 and tr.skipped["blkparse summary"] == 3


def test_blkparse_other_actions():
    assert ops(T.parse(BLKPARSE.splitlines(), action="Q")) == [("write", 223490 * 512, 4096)]
    c = T.parse(BLKPARSE.splitlines(), action="C")
    assert c.requests[0].line == 3
    with pytest.raises(ValueError, match="action must be"):
        T.parse(BLKPARSE.splitlines(), action="X")


# --- fio ---------------------------------------------------------------------------------------

FIO2 = """\
fio version 2 iolog
/dev/sdb add
/dev/sdb open
/dev/sdb write 0 4096
/dev/sdb read 4096 8192
/dev/sdb trim 1048576 65536
/dev/sdb sync 0 0
/dev/sdb datasync
/dev/sdb wait 500 0
/dev/sdb write 8192
/dev/sdb frobnicate 0 4096
/dev/sdc write 0 4096
/dev/sdb close
"""


def test_fio_v2():
    tr = T.parse(FIO2.splitlines())
    assert tr.fmt == "fio-v2"
    assert tr.requests[0] == T.TraceRequest(None, "write", 0, 4096, 4)
    assert ops(tr) == [("write", 0, 4096), ("read", 4096, 8192), ("discard", 1048576, 65536),
                       ("flush", 0, 0), ("flush", 0, 0), ("write", 0, 4096)]
    assert [p.line for p in tr.problems] == [10, 11]
    assert "unknown action 'frobnicate'" in tr.problems[1].reason
    assert tr.skipped["wait"] == 1 and tr.skipped["file open"] == 1
    only_b = T.parse(FIO2.splitlines(), file="/dev/sdb")
    assert len(only_b.requests) == 5 and only_b.skipped["other file"] == 1


def test_fio_v3_timestamps():
    text = ["fio version 3 iolog", "0 f add", "0 f open", "1500 f write 4096 4096",
            "2500000 f sync 0 0", "x f write 0 4096", "2600000 f trim 0 8192", "2700000 f close"]
    tr = T.parse(text)
    assert tr.fmt == "fio-v3"
    assert [(r.time_s, r.op) for r in tr.requests] == [
        (pytest.approx(0.0015), "write"), (pytest.approx(2.5), "flush"),
        (pytest.approx(2.6), "discard")]
    assert [p.line for p in tr.problems] == [6]
    ms = T.parse(text, fio_time_unit_s=1e-3)
    assert ms.requests[0].time_s == pytest.approx(1.5)


def test_fio_without_header_needs_the_format_named():
    with pytest.raises(ValueError, match="line 1"):
        T.parse(["/dev/sdb write 0 4096"])
    assert ops(T.parse(["/dev/sdb write 0 4096"], fmt="fio-v2")) == [("write", 0, 4096)]


# --- MSR ---------------------------------------------------------------------------------------

MSR = """\
Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
128166372003061629,hm,1,Read,3154152448,4096,1080
128166372016382155,hm,1,Write,3154152448,4096,1080
128166372016382156,hm,0,Write,0,512,100
128166372026382155,hm,1,Erase,0,4096,1
128166372026382155,hm,1,Write,-5,4096,1
128166372036382155,hm,1,write,8192,65536,500
"""


def test_msr():
    tr = T.parse(MSR.splitlines(), disk=1)
    assert tr.fmt == "msr"
    assert ops(tr) == [("read", 3154152448, 4096), ("write", 3154152448, 4096),
                       ("write", 8192, 65536)]
    assert tr.requests[0].time_s == 0.0
    assert tr.requests[1].time_s == pytest.approx(1.3320526)
    assert [p.line for p in tr.problems] == [5, 6]
    assert "Type must be Read or Write" in tr.problems[0].reason
    assert "Offset" in tr.problems[1].reason
    assert tr.skipped == {"header": 1, "other disk": 1}
    assert len(T.parse(MSR.splitlines()).requests) == 4


# --- detection, files, errors ------------------------------------------------------------------

@pytest.mark.parametrize("fmt,name", sorted(SAMPLE_FILES.items()))
def test_detect_samples(fmt, name):
    with open(SAMPLES / name) as f:
        assert T.detect_format(f.readlines()[:T.DETECT_LINES]) == fmt


def test_detect_hand_written():
    assert T.detect_format(["", TRACEFS.splitlines()[2]]) == "tracefs"
    assert T.detect_format(BLKPARSE.splitlines()) == "blkparse"
    assert T.detect_format(MSR.splitlines()[1:]) == "msr"
    assert T.detect_format(["fio version 3 iolog"]) == "fio-v3"
    with pytest.raises(ValueError, match="line 2"):
        T.detect_format(["", "hello world"])


def test_gzip_is_read_transparently(tmp_path):
    plain = (SAMPLES / SAMPLE_FILES["blkparse"]).read_bytes()
    gz = tmp_path / "trace.txt.gz"
    gz.write_bytes(gzip.compress(plain))
    odd = tmp_path / "trace-no-suffix"
    odd.write_bytes(gzip.compress(plain))
    want = ops(T.parse(SAMPLES / SAMPLE_FILES["blkparse"]))
    assert ops(T.parse(gz)) == want and ops(T.parse(odd)) == want


def test_empty_and_garbage_files_raise(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match=r"empty\.txt.*empty"):
        T.parse(empty)
    junk = tmp_path / "junk.txt"
    junk.write_text("\n\nlorem ipsum\n")
    with pytest.raises(ValueError, match=r"junk\.txt.*line 3"):
        T.parse(junk)
    bad_fio = tmp_path / "bad.log"
    bad_fio.write_text("fio version 2 iolog\n/dev/sdb write zero 4096\n")
    with pytest.raises(ValueError, match=r"bad\.log.*line 2"):
        T.parse(bad_fio)
    with pytest.raises(ValueError, match="cannot read"):
        T.parse(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="fmt must be"):
        T.parse(MSR.splitlines(), fmt="csv")


# --- samples and replay ------------------------------------------------------------------------

def test_samples_are_what_the_generator_writes():
    mod = _make_samples()
    rendered = mod.render_all()
    assert set(rendered) == set(SAMPLE_FILES.values())
    for name, text in rendered.items():
        assert (SAMPLES / name).read_text() == text, f"{name} is stale: run make_samples.py"
        assert len(text.encode()) < 50_000


@pytest.mark.parametrize("fmt", sorted(SAMPLE_FILES))
def test_samples_parse_to_the_workload(fmt):
    mod = _make_samples()
    tr = T.parse(SAMPLES / SAMPLE_FILES[fmt], device="7,0" if fmt == "tracefs" else None)
    assert tr.fmt == fmt and tr.problems == []
    if fmt == "msr":
        assert ops(tr) == mod.expected_requests(with_flush=False, ops=("write", "read"))
    else:
        assert ops(tr) == mod.expected_requests()


@pytest.mark.parametrize("fmt", sorted(SAMPLE_FILES))
def test_replay_samples(fmt):
    mod = _make_samples()
    tr = T.parse(SAMPLES / SAMPLE_FILES[fmt], device="7,0" if fmt == "tracefs" else None)
    drive, dev = small_device()
    calls = []
    res = R.replay(tr, dev, batch_requests=50, progress=lambda d, n: calls.append((d, n)))
    s = res.stats
    n = len(tr.requests)
    assert calls[-1] == (n, n) and len(calls) == -(-n // 50)
    assert res.requests == n and res.skipped_out_of_range == 0 and not res.cancelled
    by_op = {op: [r for r in tr.requests if r.op == op] for op in T.OPS}
    assert s.write_requests == len(by_op["write"]) and s.read_requests == len(by_op["read"])
    assert s.trim_requests == len(by_op["discard"])
    assert s.flush_requests == len(by_op["flush"])
    assert s.write_bytes == sum(r.length_bytes for r in by_op["write"])
    assert s.trim_bytes == sum(r.length_bytes for r in by_op["discard"])
    assert s.host_pages_written >= s.write_bytes / 4096
    assert s.nand_writes >= s.host_pages_written and s.page_wa >= 1.0
    assert s.trimmed_pages <= s.trim_bytes // 4096
    if fmt == "fio-v2":  # version 2 iologs carry no timestamps
        assert res.duration_s is None
    else:
        times = [row[0] for row in mod.workload()
                 if fmt != "msr" or row[1] in ("read", "write")]
        span = max(times) - min(times)
        assert res.duration_s == pytest.approx(span, abs=1e-5)
    assert drive.counters()["host_writes"] == s.host_pages_written
    drive.check_invariants()
    text = R.summary(res, tr, page_bytes=drive.geometry.page_bytes)
    assert "WA" in text and str(len(by_op["write"])) in text


def test_out_of_range_requests_are_counted_not_fatal():
    lines = ["fio version 2 iolog",
             "d write 0 4096",
             f"d write {(1 << 16) * 4096} 4096",  # just past the end of the drive
             "d write 8192 4096",
             f"d trim {(1 << 16) * 4096 - 4096} 8192"]  # straddles the end
    tr = T.parse(lines)
    drive, dev = small_device(start_sector=2048)  # 1 MiB partition offset shrinks it too
    res = R.replay(tr, dev)
    assert res.requests == 2 and res.skipped_out_of_range == 2
    assert res.first_out_of_range_line == 3
    assert res.stats.write_requests == 2 and res.stats.trim_requests == 0
    assert res.duration_s is None
    assert res.dropped.counts == {R.PAST_END: 2} and res.dropped.lines == {R.PAST_END: (3, 5)}
    assert "2 requests dropped: 2 past the partition's end (lines 3, 5)" in \
        R.summary(res, tr)
    drive.check_invariants()


def test_replay_can_be_cancelled():
    tr = T.parse(SAMPLES / SAMPLE_FILES["fio-v2"])
    drive, dev = small_device()
    res = R.replay(tr, dev, batch_requests=10, cancel=lambda: True)
    assert res.cancelled and res.stats.write_requests + res.stats.flush_requests <= 10
    assert "cancelled" in R.summary(res, tr)
    drive.check_invariants()


def test_summary_mentions_problems_and_mixed_devices():
    tr = T.parse(TRACEFS.splitlines())
    _drive, dev = small_device()
    res = R.replay(tr, dev)
    text = R.summary(res, tr)
    assert ("3 lines unreadable: 1 not a tracefs line (line 9), 1 unknown operation "
            "(line 10), 1 events lost by the kernel (line 15)") in text
    assert "7,0 (10), 8,0 (1)" in text
