"""The window says what a replay dropped, through the step message it already shows, and
refuses a trace with nothing to replay with a message instead of a row of zeros. Waits are
on conditions (conftest's `until`, whose limit is a hang guard only)."""

from __future__ import annotations

MIB = 1 << 20


def choose(combo, data):
    combo.setCurrentIndex(combo.findData(data))


def trace_drive(until, w, mib=64):
    w.confirm = lambda text: True
    c = w.controls.widgets
    choose(c["profile"], "ocz_vertex_le_100")
    c["capacity_mib"].setValue(mib)
    until(lambda: w.snapshot.user_pages == w.session.settings.user_pages)
    choose(c["workload"], "trace")


def test_the_step_message_shows_dropped_requests(until, bench, tmp_path):
    trace_drive(until, bench)
    path = tmp_path / "drops.log"
    path.write_text("fio version 2 iolog\nd write 0 4096\n"
                    f"d write {1 << 40} 4096\nd write 4096 {1 << 40}\nnonsense\n"
                    "d write 8192 4096\n")
    assert bench.choose_trace(str(path))
    bench.run_workload()
    until(lambda: "requests replayed" in bench.snapshot.message
          and not bench.snapshot.running)
    want = ("drops.log (fio-v2): 2 of 4 requests replayed; 2 requests dropped: 1 past the "
            "partition's end (line 3), 1 longer than the whole partition (line 4); 1 line "
            "unreadable: 1 too few fields (line 5)")
    assert bench.snapshot.message == want
    bench.charts.setCurrentWidget(bench.charts.steps)
    until(lambda: bench.charts.steps.message.text() == want)


def test_a_trace_with_nothing_to_replay_is_an_error_message(until, bench, tmp_path):
    trace_drive(until, bench)
    path = tmp_path / "beyond.log"
    path.write_text(f"fio version 2 iolog\nd write {1 << 40} 4096\n")
    assert bench.choose_trace(str(path))  # the quick check sees a request; the run refuses it
    bench.run_workload()
    until(lambda: "no read, write or discard" in bench.controls.error.text())
    assert "beyond.log" in bench.controls.error.text()
    assert not any(row["step"].startswith("replay") for row in bench.snapshot.steps)
