"""The workbench, driven through its real window: controls, run, pause, reset, bad input,
save and reopen, and a GUI thread that keeps answering while a big drive runs flat out."""

import time

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer

from app.gui.session import Settings
from app.gui.workbench import Workbench


def choose(combo, data):
    combo.setCurrentIndex(combo.findData(data))


def written(w):
    return w.snapshot.counters["host_writes"]


def run_to_end(qtbot, w, timeout=20000):
    before = written(w)
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: written(w) > before, timeout=timeout)
    qtbot.waitUntil(lambda: not w.snapshot.running and not w.snapshot.segment, timeout=timeout)


def test_controls_then_fill_animates_page_level(qtbot, bench):
    c = bench.controls.widgets
    c["capacity_mib"].setValue(32)
    choose(c["gc"], "fifo")
    assert bench.session.settings.capacity_mib == 32
    assert bench.session.settings.gc == "fifo"
    qtbot.waitUntil(lambda: bench.snapshot.user_pages == 8192, timeout=5000)
    assert "% of physical" in bench.controls.op_note.text()
    assert "% of user capacity" in bench.controls.op_note.text()
    choose(bench.speed, "fast")
    run_to_end(qtbot, bench)
    assert bench.status["fill"].text() == "fill 100.0 %"
    assert bench.blockmap.page_level
    assert "valid" in bench.blockmap.describe(0)
    assert bench.charts.wa.points("wa") > 0


def test_random_writes_draw_theory_and_charts(qtbot, bench):
    choose(bench.speed, "fast")
    run_to_end(qtbot, bench)
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0.5)
    run_to_end(qtbot, bench)
    assert bench.charts.theory is not None and bench.charts.theory > 1
    assert bench.charts.wa.points("theory") == 2
    assert float(bench.status["wa"].text().split()[1]) > 1.0
    for i in range(bench.charts.count()):
        bench.charts.setCurrentIndex(i)
        chart = bench.charts.currentWidget()
        if chart is bench.charts.steps:
            continue
        assert all(chart.points(name) > 0 for name in chart.series), chart


def test_pause_stops_the_engine_quickly(qtbot, bench):
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0)  # until paused
    qtbot.keyClick(bench, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: bench.snapshot.running and written(bench) > 0, timeout=5000)
    t0 = time.perf_counter()
    qtbot.keyClick(bench, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not bench.snapshot.running, timeout=2000)
    assert time.perf_counter() - t0 < 1.0  # generous; the bench quotes the real figure
    before = written(bench)
    qtbot.wait(200)
    assert written(bench) == before
    bench.step()
    qtbot.waitUntil(lambda: written(bench) > before, timeout=2000)
    assert not bench.snapshot.running


def test_reset_all_mid_run_returns_to_start(qtbot, bench):
    bench.controls.widgets["spare_pct"].setValue(12)
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0)
    choose(bench.speed, "fast")
    bench.run_workload()
    qtbot.waitUntil(lambda: written(bench) > 10000, timeout=5000)
    qtbot.keyClick(bench, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: written(bench) == 0 and not bench.snapshot.running, timeout=3000)
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
def test_bad_input_names_field_and_keeps_state(qtbot, bench, field, value, words):
    before = bench.session.settings
    drive = bench.snapshot.blocks
    bench.controls.widgets[field].setValue(value)
    assert bench.session.settings == before
    assert bench.controls.error.isVisible()
    for word in words:
        assert word in bench.controls.error.text()
    assert bench.controls.widgets[field].value() == getattr(before, field)
    qtbot.wait(100)
    assert bench.snapshot.blocks == drive
    bench.controls.widgets["spare_pct"].setValue(10)  # a good change clears the message
    assert not bench.controls.error.isVisible()


def test_drive_change_mid_run_asks_first(qtbot, bench):
    choose(bench.speed, "fast")
    run_to_end(qtbot, bench)
    asked = []
    bench.confirm = lambda text: asked.append(text) or False
    choose(bench.controls.widgets["mapping"], "block")
    assert asked and bench.session.settings.mapping == "page"
    assert bench.controls.widgets["mapping"].currentData() == "page"
    assert written(bench) > 0
    bench.confirm = lambda text: True
    choose(bench.controls.widgets["mapping"], "block")
    assert bench.session.settings.mapping == "block"
    qtbot.waitUntil(lambda: written(bench) == 0, timeout=3000)


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


def test_save_and_reopen_gives_the_same_picture(qtbot, bench, tmp_path):
    choose(bench.controls.widgets["gc"], "random-d")
    choose(bench.speed, "fast")
    run_to_end(qtbot, bench)
    choose(bench.controls.widgets["workload"], "hotcold")
    bench.controls.widgets["amount"].setValue(0.7)
    run_to_end(qtbot, bench)
    saved = bench.snapshot
    path = tmp_path / "run.json"
    bench.save(str(path))
    bench.reset_all()
    qtbot.waitUntil(lambda: written(bench) == 0, timeout=3000)
    assert bench.open(str(path))
    qtbot.waitUntil(lambda: written(bench) == saved.counters["host_writes"]
                    and not bench.snapshot.running, timeout=20000)
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
    assert "version must be 1" in bench.controls.error.text()
    assert bench.session.settings == before
    assert not bench.open(str(tmp_path / "missing.json"))


def test_gui_keeps_processing_events_during_a_large_run(qtbot, bench):
    bench.controls.widgets["pages_per_block"].setValue(256)
    bench.controls.widgets["capacity_mib"].setValue(16384)  # 2^22 pages, flat out
    qtbot.waitUntil(lambda: bench.snapshot.user_pages == 1 << 22, timeout=10000)
    assert not bench.worker.animated
    choose(bench.controls.widgets["workload"], "random")
    bench.controls.widgets["amount"].setValue(0)
    bench.run_workload()
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    qtbot.wait(2000)
    timer.stop()
    bench.toggle_play()
    gaps = np.diff(ticks)
    assert len(ticks) > 50
    assert gaps.max() < 0.5, gaps.max()
    assert written(bench) > 1 << 20
    assert bench.fps() > 0


def test_every_control_has_a_tooltip_and_help_opens(qtbot, bench):
    for name, w in bench.controls.widgets.items():
        assert len(w.toolTip()) > 20, name
    for b in (bench.run_button, bench.play_button, bench.step_button, bench.reset_button,
              bench.reset_all_button, bench.speed):
        assert b.toolTip()
    qtbot.keyClick(bench, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(bench, "help_dialog", None) is not None
                    and bench.help_dialog.isVisible(), timeout=2000)
    bench.help_dialog.close()


def test_projector_mode_and_small_window(qtbot, bench):
    bench.projector_action.setChecked(True)
    assert "13pt" in bench.styleSheet() + qtbot_app_style()
    bench.resize(1024, 768)
    qtbot.wait(50)
    assert bench.blockmap.width() > 200 and bench.charts.height() > 150
    bench.projector_action.setChecked(False)


def qtbot_app_style():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance().styleSheet()


def test_step_one_gc_collects_a_victim(qtbot):
    """G collects one victim now: erases go up by one and the run is paused."""

    w = Workbench()
    qtbot.addWidget(w)
    w.request(capacity_mib=16.0, pages_per_block=32, spare_pct=10.0)
    w.request(speed="fast")  # flat out: "normal" takes 20 s of wall clock per drive write
    w.request(workload="fill", fill_pct=100.0)
    w.run_workload()
    qtbot.waitUntil(lambda: w.snapshot is not None and w.snapshot.counters["host_writes"]
                    >= 4096 and not w.snapshot.running, timeout=20000)
    before = w.snapshot.counters["erases"]
    w.step_gc()
    qtbot.waitUntil(lambda: w.snapshot.counters["erases"] == before + 1, timeout=5000)
    w.close()
