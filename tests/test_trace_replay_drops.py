"""Replay never drops a request silently: each cause is counted with its lines, in the
result, the step message (the window), and `ssdlab run` (stderr and --json); a trace with
nothing usable is an error (exit 2)."""

from __future__ import annotations

import json

import pytest

from ssdlab.app.cli.main import main
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host import replay as R
from ssdlab.model.host import traces as T
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.partition import Partition
from ssdlab.model.lab.scenario import Step
from ssdlab.model.lab.steps import Context, StepError, StepRun

USER_PAGES = 1 << 12  # a 16 MiB drive
SIZE = USER_PAGES * 4096


def device():
    drive = Drive(Geometry(user_pages=USER_PAGES, pages_per_block=64, spare=0.1), FtlConfig())
    return drive, BlockDevice(drive, Partition(start_sector=0))


def fio(*lines: str) -> list[str]:
    return ["fio version 2 iolog", *lines]


def test_requests_past_the_end_are_counted_with_their_lines():
    tr = T.parse(fio("d write 0 4096", f"d write {SIZE} 4096", f"d write {SIZE - 4096} 8192",
                     "d write 4096 4096", f"d trim {SIZE * 9} 4096"))
    drive, dev = device()
    res = R.replay(tr, dev)
    assert res.requests == 2 and res.stats.write_requests == 2
    assert res.dropped.counts == {R.PAST_END: 3}
    assert res.dropped.lines == {R.PAST_END: (3, 4, 6)}
    assert R.headline(res, tr) == ("<lines> (fio-v2): 2 of 5 requests replayed; 3 requests "
                                   "dropped: 3 past the partition's end (lines 3, 4, 6)")
    drive.check_invariants()


def test_huge_lengths_are_counted_apart_from_past_the_end():
    tr = T.parse(fio("d write 0 4096", f"d write 0 {SIZE + 4096}",
                     f"d trim 0 {'9' * 40}", f"d write {'9' * 5000} 4096"))
    assert tr.requests[2].length_bytes == T.WHOLE_MAX  # kept, capped at 64 bits
    res = R.replay(tr, device()[1])
    assert res.dropped.counts == {R.TOO_LONG: 2, R.PAST_END: 1}
    assert res.dropped.lines == {R.TOO_LONG: (3, 4), R.PAST_END: (5,)}
    assert "2 longer than the whole partition (lines 3, 4), 1 past the partition's end " \
           "(line 5)" in R.headline(res, tr)


def test_dropped_lines_are_kept_for_the_first_only():
    tr = T.parse(fio("d write 0 4096", *[f"d write {SIZE} 4096"] * 1000))
    res = R.replay(tr, device()[1])
    assert res.dropped.counts == {R.PAST_END: 1000}
    assert res.dropped.lines[R.PAST_END] == tuple(range(3, 3 + T.KEEP_PROBLEMS))
    assert "1,000 past the partition's end (lines 3, 4, 5, 6, 7, ...)" in R.headline(res, tr)


def test_unreadable_lines_are_counted_by_kind():
    tr = T.parse(fio("d write 0 4096", "d frobnicate 0 1", "d write banana 4096",
                     "d write 1 2 3", "d frobnicate 0 2"))
    res = R.replay(tr, device()[1])
    assert tr.problem_counts == {"unknown action": 2, "offset and length missing": 2}
    assert res.dropped.total == 0
    assert R.notes(res, tr) == ["4 lines unreadable: 2 unknown action (lines 3, 6), 2 offset "
                                "and length missing (lines 4, 5)"]
    rep = R.report(res, tr)
    assert rep["unreadable"] == {"unknown action": {"count": 2, "first_lines": [3, 6]},
                                 "offset and length missing": {"count": 2,
                                                               "first_lines": [4, 5]}}
    assert rep["dropped"] == {} and rep["replayed"] == 1


@pytest.mark.parametrize("lines,match", [
    (fio(f"d write {SIZE} 4096", "d sync"), r"no read, write or discard of the trace fits "
     r"the partition \(0 to 16,777,216 bytes\): 1 past the partition's end \(line 2\)"),
    (fio(f"d write 0 {SIZE * 2}"), r"1 longer than the whole partition \(line 2\)"),
    (fio("d sync", "d datasync"), "holds only cache flushes"),
])
def test_a_trace_with_nothing_usable_is_an_error(lines, match):
    tr = T.parse(lines)
    drive, dev = device()
    with pytest.raises(ValueError, match=match):
        R.replay(tr, dev)
    assert drive.counters()["host_writes"] == 0


def machine_step(tmp_path, text: str):
    from ssdlab.model.host.machine import Machine
    from ssdlab.model.host.profiles import load_host_profile, load_profile
    path = tmp_path / "t.log"
    path.write_text(text)
    m = Machine(load_profile("firstgen_block_64"), load_host_profile("host_phenom2_x4_965"),
                user_pages=USER_PAGES)
    return m, Step("replay", {"trace": str(path)})


def test_the_step_message_and_context_carry_the_counts(tmp_path):
    """The window shows the step's message; `ssdlab run` reads the context's report."""
    m, step = machine_step(tmp_path, "\n".join(fio("d write 0 4096", "bad", f"d write {SIZE} 1",
                                                   "d write 8192 4096")))
    ctx = Context()
    run = StepRun(m, step, ctx)
    assert run.total == 3
    run.run()
    assert "2 of 3 requests replayed; 1 request dropped: 1 past the partition's end (line 4); " \
           "1 line unreadable: 1 too few fields (line 3)" in run.message
    assert ctx.replays[0]["dropped"] == {R.PAST_END: {"count": 1, "first_lines": [4]}}


def test_a_step_with_nothing_usable_is_a_step_error(tmp_path):
    m, step = machine_step(tmp_path, "\n".join(fio(f"d write {SIZE * 4} 4096")))
    with pytest.raises(StepError, match=r"t\.log: no read, write or discard"):
        StepRun(m, step, Context())


def test_the_window_passes_a_cancel_hook_to_the_parser(tmp_path):
    from ssdlab.app.session.fsjobs import FsJob, FsStep
    m, step = machine_step(tmp_path, "\n".join(fio(*["d write 0 4096"] * 5000)))
    asked = []
    with pytest.raises(T.TraceCancelled):
        FsJob(m, FsStep("replay", step.args), Context(), cancel=lambda: asked.append(1) or True)
    assert asked == [1]


def test_check_trace_reads_only_the_head_of_a_big_file(tmp_path):
    """check_trace runs on the GUI thread: a quick look, whatever the file's size."""
    from ssdlab.app.session.fsjobs import CHECK_LINES, check_trace
    big = tmp_path / "big.log"
    big.write_text("\n".join(fio(*["d write 0 4096"] * (3 * CHECK_LINES))))
    note = check_trace(str(big))
    assert f"{CHECK_LINES - 1:,} requests in the first {CHECK_LINES:,} lines" in note
    small = tmp_path / "small.log"
    small.write_text("\n".join(fio("d write 0 4096", "d write x 1")))
    assert check_trace(str(small)) == ("1 requests (fio-v2); 1 lines unreadable, first at line "
                                       "3: 'write' needs a byte offset and a length (whole "
                                       "numbers)")
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(fio("d write x 1")))
    with pytest.raises(ValueError, match=r"bad\.log.*line 2"):
        check_trace(str(bad))


def scenario(tmp_path, trace_lines: list[str]) -> str:
    (tmp_path / "t.log").write_text("\n".join(trace_lines) + "\n")
    path = tmp_path / "s.toml"
    path.write_text('version = 1\nname = "t"\n[drive]\nprofile = "firstgen_block_64"\n'
                    'user_gib = 1\n[[steps]]\ndo = "replay"\ntrace = "t.log"\n')
    return str(path)


def test_ssdlab_run_warns_on_stderr_and_reports_in_json(tmp_path, capsys):
    big = 1 << 40
    path = scenario(tmp_path, fio("d write 0 4096", f"d write {big} 4096", "junk",
                                  f"d write 0 {big}", "d write 4096 4096"))
    assert main(["run", path]) == 0
    err = capsys.readouterr().err
    assert ("ssdlab run: warning: step 1: t.log (fio-v2): 2 of 4 requests replayed; "
            "2 requests dropped: 1 past the partition's end (line 3), 1 longer than the whole "
            "partition (line 5); 1 line unreadable: 1 too few fields (line 4)") in err
    assert main(["run", path, "--json"]) == 0
    out, err = capsys.readouterr()
    rep = json.loads(out)["replays"]
    assert [(r["step"], r["replayed"], r["requests"]) for r in rep] == [(1, 2, 4)]
    assert rep[0]["dropped"] == {R.PAST_END: {"count": 1, "first_lines": [3]},
                                 R.TOO_LONG: {"count": 1, "first_lines": [5]}}
    assert rep[0]["unreadable"] == {"too few fields": {"count": 1, "first_lines": [4]}}
    assert "warning: step 1" in err


def test_ssdlab_run_is_quiet_when_nothing_is_dropped(tmp_path, capsys):
    path = scenario(tmp_path, fio("d write 0 4096"))
    assert main(["run", path]) == 0
    assert "warning" not in capsys.readouterr().err


def test_ssdlab_run_exits_2_when_nothing_is_usable(tmp_path, capsys):
    path = scenario(tmp_path, fio(f"d write {1 << 40} 4096", "d write 0 zero"))
    assert main(["run", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert err[0].startswith("ssdlab run: error: ") and "s.toml" in err[0]
    assert "no read, write or discard of the trace fits the partition" in err[0]
