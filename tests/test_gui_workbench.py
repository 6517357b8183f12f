"""The workbench, driven through its real window: controls, run, pause, reset, bad input,
save and reopen, and a GUI thread that keeps answering while a big drive runs flat out."""


import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer

from ssdlab.app.gui.frame.workbench import Workbench
from ssdlab.app.gui.settings.session import Settings


def choose(combo, data):
    combo.setCurrentIndex(combo.findData(data))


def written(w):
    return w.snapshot.counters["host_writes"]


def run_to_end(qtbot, until, w):
    before = written(w)
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    until(lambda: written(w) > before)
    until(lambda: not w.snapshot.running and not w.snapshot.segment)


def test_controls_then_fill_animates_page_level(qtbot, until, bench):
    c = bench.controls.widgets
    c["capacity_mib"].setValue(32)
    choose(c["gc"], "fifo")
    choose(c["workload"], "fill")
    assert bench.session.settings.capacity_mib == 32
    assert bench.session.settings.gc == "fifo"
    until(lambda: bench.snapshot.user_pages == 8192)
    assert "% of physical" in bench.controls.op_note.text()
    assert "% of user capacity" in bench.controls.op_note.text()
    choose(bench.speed, "fast")
    run_to_end(qtbot, until, bench)
    assert bench.status["fill"].text() == "fill 100.0 %"
    assert bench.blockmap.page_level
    assert "valid" in bench.blockmap.describe(0)
    assert bench.charts.wa.points("wa") > 0


def test_random_writes_draw_theory_and_charts(qtbot, until, bench):
    choose(bench.speed, "fast")
    choose(bench.controls.widgets["workload"], "fill")
    run_to_end(qtbot, until, bench)
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0.5)
    run_to_end(qtbot, until, bench)
    assert bench.charts.theory is not None and bench.charts.theory > 1
    # a level: its two ends, and the point its words are written at
    assert bench.charts.wa.points("theory") == 3
    assert bench.charts.wa.level_label("theory") == \
        f"greedy model {bench.charts.theory:.2f} (per window)"
    assert float(bench.status["wa"].text().split()[1]) > 1.0
    for i in range(bench.charts.count()):
        bench.charts.setCurrentIndex(i)
        chart = bench.charts.currentWidget()
        if chart is bench.charts.steps:
            continue
        assert all(chart.points(name) > 0 for name in chart.series), chart


def test_pause_stops_the_engine_quickly(qtbot, until, bench):
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0)  # until paused
    qtbot.keyClick(bench, Qt.Key.Key_Space)
    until(lambda: bench.snapshot.running and written(bench) > 0)
    qtbot.keyClick(bench, Qt.Key.Key_Space)
    until(lambda: not bench.snapshot.running)  # how fast: ssdlab/app/devtools/guibench.py
    before = written(bench)
    bench.settle()  # a command handled after the pause: nothing ran in between
    assert written(bench) == before
    bench.step()
    until(lambda: written(bench) > before)
    assert not bench.snapshot.running


def test_reset_all_mid_run_returns_to_start(qtbot, until, bench):
    bench.controls.widgets["spare_pct"].setValue(12)
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0)
    choose(bench.speed, "fast")
    bench.run_workload()
    until(lambda: written(bench) > 10000)
    asked = []
    bench.confirm = lambda text: asked.append(text) or True  # a run would be lost: asked
    qtbot.keyClick(bench, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    assert len(asked) == 1 and asked[0].startswith("Reset All?")
    until(lambda: written(bench) == 0 and not bench.snapshot.running)
    assert bench.session.settings == Settings()
    assert bench.controls.widgets["spare_pct"].value() == 7.0
    assert bench.speed.currentData() == "normal"


@pytest.mark.parametrize("field, value, words", [
    ("spare_pct", 95, ["Spare", "spare must be between 0 and 0.9"]),
    ("pages_per_block", 1, ["Pages per block", "from 2 to 4096"]),
    ("capacity_mib", 0, ["Capacity", "user_pages", "from 16"]),
    ("spare_pct", 1, ["spare must leave at least 6 spare erase blocks"]),
    ("d", 0, ["d must be a whole number from 1 to 1024"]),
])
def test_bad_input_names_field_and_keeps_state(qtbot, until, bench, field, value, words):
    before = bench.session.settings
    drive = bench.snapshot.blocks
    bench.controls.widgets[field].setValue(value)
    assert bench.session.settings == before
    assert bench.controls.error.isVisible()
    for word in words:
        assert word in bench.controls.error.text()
    assert bench.controls.widgets[field].value() == getattr(before, field)
    bench.settle()  # every command sent so far has been handled
    assert bench.snapshot.blocks == drive
    bench.controls.widgets["spare_pct"].setValue(10)  # a good change clears the message
    assert not bench.controls.error.isVisible()


def test_drive_change_mid_run_asks_first(qtbot, until, bench):
    choose(bench.speed, "fast")
    run_to_end(qtbot, until, bench)
    asked = []
    bench.confirm = lambda text: asked.append(text) or False
    choose(bench.controls.widgets["mapping"], "block")
    assert asked and bench.session.settings.mapping == "page"
    assert bench.controls.widgets["mapping"].currentData() == "page"
    assert written(bench) > 0
    bench.confirm = lambda text: True
    choose(bench.controls.widgets["mapping"], "block")
    assert bench.session.settings.mapping == "block"
    until(lambda: written(bench) == 0)


def test_alignment_note_follows_partition_start(bench):
    bench.controls.expert_toggle.click()
    assert bench.controls.expert.isVisible()
    choose(bench.controls.widgets["partition_start"], 63)
    assert "misaligned by 3.5 KiB to 4 KiB flash pages" in bench.controls.align_note.text()
    choose(bench.controls.widgets["partition_start"], 2048)
    choose(bench.controls.widgets["lvm_kib"], 192)
    assert "misaligned by 192 KiB" in bench.controls.align_note.text()
    choose(bench.controls.widgets["lvm_kib"], 256)
    assert bench.controls.align_note.text().startswith("aligned")


def test_save_and_reopen_gives_the_same_picture(qtbot, until, bench, tmp_path):
    choose(bench.controls.widgets["gc"], "random-d")
    choose(bench.speed, "fast")
    run_to_end(qtbot, until, bench)
    choose(bench.controls.widgets["workload"], "hotcold")
    bench.controls.widgets["amount"].setValue(0.7)
    run_to_end(qtbot, until, bench)
    saved = bench.snapshot
    path = tmp_path / "run.json"
    bench.save(str(path))
    bench.reset_all()
    until(lambda: written(bench) == 0)
    assert bench.open(str(path))
    until(lambda: written(bench) == saved.counters["host_writes"]
          and not bench.snapshot.running)
    now = bench.snapshot
    assert bench.session.settings.gc == "random-d"
    assert now.counters == saved.counters
    for name in ("state", "valid", "erases"):
        np.testing.assert_array_equal(getattr(now, name), getattr(saved, name))
    np.testing.assert_array_equal(now.series["wa"], saved.series["wa"])


def test_bad_session_file_keeps_state(bench, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "ssdlab-session", "version": 99}')
    before = bench.session.settings
    assert not bench.open(str(path))
    assert "version must be one of 1; got 99" in bench.controls.error.text()
    assert bench.session.settings == before
    assert not bench.open(str(tmp_path / "missing.json"))


def test_gui_keeps_processing_events_during_a_large_run(qtbot, until, bench):
    """While a big drive runs flat out in the worker, the window keeps handling events: a
    10 ms timer fires again and again between the engine's snapshots. (How often, on this
    machine, is a figure for `python -m ssdlab.app.devtools.guibench`, not for a test.)"""
    bench.controls.widgets["pages_per_block"].setValue(256)
    bench.controls.widgets["capacity_mib"].setValue(16384)  # 2^22 pages, flat out
    until(lambda: bench.snapshot.user_pages == 1 << 22)
    assert not bench.worker.animated
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0)  # until paused
    bench.run_workload()
    seen = []
    timer = QTimer()
    timer.timeout.connect(lambda: seen.append(written(bench)))
    timer.start(10)
    until(lambda: len(set(seen)) >= 20)  # the timer fired at 20 points of the running run
    timer.stop()
    bench.toggle_play()
    until(lambda: not bench.snapshot.running)
    assert seen == sorted(seen) and written(bench) >= seen[-1] > seen[0]
    assert bench.frame_times  # frames were drawn (fps() counts the last second: a clock)


def test_every_control_has_a_tooltip_and_help_opens(qtbot, until, bench):
    for name, w in bench.controls.widgets.items():
        assert len(w.toolTip()) > 20, name
    for b in (bench.run_button, bench.play_button, bench.step_button, bench.reset_button,
              bench.reset_all_button, bench.speed):
        assert b.toolTip()
    qtbot.keyClick(bench, Qt.Key.Key_F1)
    until(lambda: getattr(bench, "help_dialog", None) is not None
          and bench.help_dialog.isVisible())
    bench.help_dialog.close()


def test_projector_mode_and_small_window(qtbot, until, bench):
    bench.toggle_presentation(True)
    assert "18pt" in bench.styleSheet() + qtbot_app_style()
    bench.showNormal()
    bench.resize(1024, 768)
    until(lambda: bench.blockmap.width() > 200 and bench.charts.height() > 150)
    bench.toggle_presentation(False)


def qtbot_app_style():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance().styleSheet()


def test_step_one_gc_collects_a_victim(qtbot, until):
    """G collects one victim now: erases go up by one and the run is paused. (The fill runs
    at full speed: paced at "normal" it took 20.08 s on a busy machine, past a 20 s limit.)"""

    w = Workbench()
    qtbot.addWidget(w)
    w.request(capacity_mib=16.0, pages_per_block=32, spare_pct=10.0, speed="fast")
    w.request(workload="fill", fill_pct=100.0)
    w.run_workload()
    until(lambda: w.snapshot is not None and w.snapshot.counters["host_writes"] >= 4096
          and not w.snapshot.running)
    before = w.snapshot.counters["erases"]
    w.step_gc()
    until(lambda: w.snapshot.counters["erases"] == before + 1)
    w.close()
    assert w.worker.isFinished()
