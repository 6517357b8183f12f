"""Two drives side by side and runs kept as references, through the real window (offscreen):
compare mode opens and closes, B's settings differ only where set, both drives end a
workload at the same point (lockstep), the charts overlay both runs with labels naming what
differs, the Steps table has A and B columns, a pinned reference survives a drive change,
and the keys work while a text field has focus."""

import errno

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.gui.charts.runlegend import RunLegend
from ssdlab.app.palette import DASHES, dash
from ssdlab.app.session.runlabels import differing
from ssdlab.app.session.wanotes import analytic_name


def key(k, mods=Qt.KeyboardModifier.NoModifier) -> None:
    """A key press where a user's would land: on the widget with focus."""
    QTest.keyClick(QApplication.focusWidget(), k, mods)
    QApplication.processEvents()


CTRL = Qt.KeyboardModifier.ControlModifier


def finished(w, runs: int | None = None) -> bool:
    """Every drive shows no run going. With runs: and each drive's newest snapshot logs that
    many workloads, so it was taken after the last one ended; without, a drive whose last
    frame is still on its way (B's, when A's is in first) passes on the frame it showed
    before the run."""
    return all(v.snapshot is not None and not v.snapshot.running and not v.snapshot.segment
               and (runs is None or len(v.snapshot.log) == runs) for v in w.views)


@pytest.fixture
def pair(bench, until):
    """The workbench comparing two drives, both built and shown."""
    assert bench.set_compare(True)
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    return bench


def test_compare_opens_and_closes_with_its_button_and_key(until, bench):
    bench.activateWindow()
    bench.compare_button.click()
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    b = bench.views[1]
    assert b.blockmap.isVisible() and b.title.isVisible()
    assert bench.actions_by_slot["toggle_compare"].isChecked()
    assert bench.compare_button.isChecked() and bench.controls.drive_row.isVisible()
    assert b.settings == bench.views[0].settings  # B starts as a copy of A
    assert b.title.text() == "B" and bench.views[0].title.text() == "A"
    until(lambda: bench.status["time"].text().startswith("A sim"))  # the time is A's
    bench.setFocus()
    until(lambda: QApplication.focusWidget() is not None)
    key(Qt.Key.Key_D, CTRL)
    until(lambda: len(bench.views) == 1)
    assert b.worker.isFinished()  # its thread ended with it
    assert not bench.views[0].title.isVisible() and not bench.controls.drive_row.isVisible()
    assert not bench.actions_by_slot["toggle_compare"].isChecked()
    assert not bench.compare_button.isChecked()
    until(lambda: bench.status["time"].text().startswith("sim"))


def test_b_differs_only_where_set_and_the_workload_is_shared(until, pair):
    a, b = pair.views
    pair.edit_drive(1)
    assert pair.controls.drive_buttons[1].isChecked()
    assert pair.request(spare_pct=28.0, discard=True)
    assert pair.session is b.session
    assert differing([a.settings, b.settings]) == ["spare_pct", "discard"]
    assert pair.request(workload="random", amount=0.5)  # shared: both drives get it
    assert differing([a.settings, b.settings]) == ["spare_pct", "discard"]
    assert a.settings.workload == b.settings.workload == "random"
    marked = {n for n, w in pair.controls.widgets.items() if w.property("differs")}
    assert marked == {"spare_pct", "discard"}
    assert b.title.text() == "B: spare 28 %, discard"
    assert a.title.text() == "A: spare 7 %"
    pair.edit_drive(0)
    assert pair.controls.widgets["spare_pct"].value() == 7.0
    pair.edit_drive(1)
    assert pair.controls.widgets["spare_pct"].value() == 28.0


def test_both_drives_end_a_fill_at_the_same_host_write_count(until, pair):
    a, b = pair.views
    pair.edit_drive(1)
    pair.request(spare_pct=28.0)
    until(lambda: b.snapshot.blocks > a.snapshot.blocks)
    pair.request(workload="fill", fill_pct=100.0)
    pair.run_workload()
    until(lambda: finished(pair, runs=1))
    assert a.snapshot.counters["host_writes"] == b.snapshot.counters["host_writes"] \
        == a.settings.user_pages
    pair.request(workload="random", amount=0.5)
    pair.run_workload()
    until(lambda: finished(pair, runs=2))
    writes = {v.snapshot.counters["host_writes"] for v in pair.views}
    assert writes == {a.settings.user_pages + a.settings.user_pages // 2}
    # the same writes, more spare: B amplifies less, and the status line says both
    wa_a, wa_b = (v.snapshot.series["wa"][-1] for v in pair.views)
    assert wa_b < wa_a
    assert pair.status["wa"].text() == f"A: WA {wa_a:.3f}  B: WA {wa_b:.3f}"


def test_charts_overlay_both_runs_labelled_with_what_differs(until, pair):
    pair.edit_drive(1)
    pair.request(spare_pct=28.0)
    pair.request(workload="random", amount=0.3)
    pair.run_workload()
    until(lambda: finished(pair, runs=1))
    pair.charts.setCurrentWidget(pair.charts.wa)
    until(lambda: pair.charts.wa.points("B:wa") > 1)
    names = {k: s.name() for k, s in pair.charts.wa.series.items()}
    assert names["wa"] == "A: spare 7 %, cumulative"
    assert names["B:wa"] == "B: spare 28 %, cumulative"
    # each level named by its model and what it assumes, as a file's legend names it
    models = [f"{k}: {analytic_name(v.settings)}" for k, v in zip("AB", pair.views,
                                                                 strict=True)]
    assert models[0].startswith("A: Van Houdt's greedy model (2013): random rewrites, ")
    assert names["theory"] == models[0] and names["B:theory"] == models[1]
    assert pair.charts.run_legend.isVisible()
    assert pair.charts.run_legend.labels == [
        "A: spare 7 %, cumulative", "A: spare 7 %, per window", models[0],
        "B: spare 28 %, cumulative", "B: spare 28 %, per window", models[1]]
    a_pen, b_pen = (pair.charts.wa.series[k].pen() for k in ("wa", "B:wa"))
    assert a_pen.color() != b_pen.color() and a_pen.style() == Qt.PenStyle.SolidLine
    assert b_pen.dashPattern() == list(dash("second", False))  # B dashed
    for view in (pair.charts.free, pair.charts.wear, pair.charts.throughput):
        pair.charts.setCurrentWidget(view)
        until(lambda v=view: any(k.startswith("B:") and v.points(k) > 1 for k in v.series))
        labels = {s.name() for s in view.series.values()}
        assert any(t.startswith("A: spare 7 %") for t in labels), labels
        assert any(t.startswith("B: spare 28 %") for t in labels), labels
    pair.set_compare(False)  # one run again: the lines' own names
    pair.charts.setCurrentWidget(pair.charts.wa)
    until(lambda: set(pair.charts.wa.series) == {"wa", "wa_window", "theory"})
    assert pair.charts.wa.series["wa"].name() == "cumulative"


def test_pinned_reference_stays_when_the_spare_changes(until, bench):
    bench.request(workload="random", amount=0.3)
    bench.run_workload()
    until(lambda: finished(bench) and bench.snapshot.counters["host_writes"] > 0)
    bench.charts.setCurrentWidget(bench.charts.wa)
    bench.activateWindow()
    bench.setFocus()
    until(lambda: QApplication.focusWidget() is not None)
    key(Qt.Key.Key_K, CTRL)
    assert len(bench.references) == 1 and bench.reference_button.isChecked()
    pinned = bench.references[0].snap.counters["host_writes"]
    # no question: the reference keeps what was shown (bench.confirm fails the test if asked)
    assert bench.request(spare_pct=28.0)
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    wa = bench.charts.wa
    until(lambda: wa.points("ref0:wa") > 1)
    assert wa.series["ref0:wa"].name() == "ref: spare 7 %"
    assert wa.series["wa"].name() == "now: spare 28 %, cumulative"
    bench.run_workload()
    until(lambda: finished(bench) and bench.snapshot.counters["host_writes"] > 0)
    assert wa.points("ref0:wa") > 1 and wa.points("wa") > 1
    assert bench.references[0].snap.counters["host_writes"] == pinned
    key(Qt.Key.Key_K, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert bench.references == [] and not bench.reference_button.isChecked()
    until(lambda: "ref0:wa" not in wa.series)
    assert wa.series["wa"].name() == "cumulative"


def _dash_signature(swatch) -> tuple[int, ...]:
    """The lengths of the drawn and empty stretches along a legend stroke's middle row
    (the ends left out: a stroke may begin or end in the middle of a dash)."""
    image = swatch.pixmap().toImage()
    row = [image.pixelColor(x, image.height() // 2).alpha() > 60 for x in range(image.width())]
    runs, n = [], 1
    for before, here in zip(row, row[1:], strict=False):
        if here == before:
            n += 1
        else:
            runs.append(n)
            n = 1
    runs.append(n)
    return tuple(runs[1:-1]) if len(runs) > 2 else (len(runs),)


@pytest.mark.parametrize("profile", ["normal", "projector"])
def test_b_references_and_analytic_lines_differ_in_style_and_legend(until, bench, profile):
    """A solid, B dashed, a reference dash-dotted, analytic levels dotted (A's dots closer
    than B's): no two kinds of line share a dash pattern, and the legend's strokes show each
    pattern (B was dashed like the analytic level, and a legend of colours alone could not
    tell them apart on a grey projector)."""
    from PySide6.QtWidgets import QLabel

    from ssdlab.app.gui.appearance import theme

    # one pattern each, but for a reference's analytic level, never drawn (it repeats A's)
    drawn = {k: v for k, v in DASHES.items() if k != ("ref", True)}
    assert len(set(drawn.values())) == len(drawn)
    bench.toggle_presentation(profile == "projector")
    try:
        bench.request(workload="random", amount=0.3)
        bench.run_workload()
        until(lambda: finished(bench) and bench.snapshot.counters["host_writes"] > 0)
        bench.pin_reference()
        assert bench.set_compare(True)
        until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
        bench.edit_drive(1)
        assert bench.request(spare_pct=28.0)
        bench.run_workload()
        wa = bench.charts.wa
        bench.charts.setCurrentWidget(wa)
        until(lambda: finished(bench) and all(wa.points(k) > 1 for k in ("wa", "B:wa")))
        # each drive's per-window WA is drawn too (the curve its analytic level predicts),
        # in its run's pattern: its name and colour set it apart from the cumulative
        kinds = {"wa": ("main", False), "wa_window": ("main", False),
                 "theory": ("main", True), "B:wa": ("second", False),
                 "B:wa_window": ("second", False), "B:theory": ("second", True),
                 "ref0:wa": ("ref", False)}
        patterns = {}
        for name, kind in kinds.items():
            pen = wa.series[name].pen()
            assert (pen.dashPattern() if pen.style() != Qt.PenStyle.SolidLine else None) \
                == (list(DASHES[kind]) if DASHES[kind] else None), name
            patterns[name] = tuple(pen.dashPattern()) if DASHES[kind] else ()
        assert len(set(patterns.values())) == len(set(kinds.values()))
        legend = bench.charts.run_legend

        def swatches():  # a legend's new entries are shown by a queued call: wait for them
            return [lab for lab in legend.findChildren(QLabel)
                    if lab.isVisible() and not lab.pixmap().isNull()]

        until(lambda: legend.isVisible() and len(legend.labels) == len(kinds)
              and len(swatches()) == len(kinds))
        swatches = swatches()
        signatures = [_dash_signature(s) for s in swatches]
        assert len(set(signatures)) == len(set(kinds.values())), signatures
        assert isinstance(legend, RunLegend) and theme.current().name == profile
    finally:
        bench.presentation.reset()


def test_keys_switch_drives_while_a_text_field_has_focus(until, pair):
    spare = pair.controls.widgets["spare_pct"]
    pair.activateWindow()
    spare.setFocus()
    until(lambda: spare.hasFocus())
    key(Qt.Key.Key_2, CTRL)  # Ctrl keys are the window's, whatever has focus
    assert pair.edited == 1 and pair.controls.drive_buttons[1].isChecked()
    spare.selectAll()
    for k in (Qt.Key.Key_2, Qt.Key.Key_8):  # plain keys type into the field
        key(k)
    key(Qt.Key.Key_Return)
    until(lambda: pair.views[1].settings.spare_pct == 28.0)
    assert pair.views[0].settings.spare_pct == 7.0
    spare.setFocus()
    until(lambda: spare.hasFocus())
    key(Qt.Key.Key_1, CTRL)
    assert pair.edited == 0 and spare.value() == 7.0
    key(Qt.Key.Key_D, CTRL)
    until(lambda: len(pair.views) == 1)


def test_steps_table_has_a_and_b_columns(until, pair):
    pair.confirm = lambda text: True
    a, b = pair.views
    c = pair.controls.widgets
    for drive in (0, 1):
        pair.edit_drive(drive)
        c["profile"].setCurrentIndex(c["profile"].findData("ocz_vertex_le_100"))
        c["capacity_mib"].setValue(256)
    until(lambda: b.snapshot.user_pages == b.settings.user_pages
          and a.snapshot.user_pages == a.settings.user_pages)
    assert pair.request(discard=True)  # B: discard; A: none
    pair.request(workload="unpack", kernel_scale=0.02)
    pair.run_workload()
    until(lambda: finished(pair) and len(a.snapshot.steps) == 1 and len(b.snapshot.steps) == 1)
    pair.request(workload="rmrf")
    pair.run_workload()
    until(lambda: finished(pair) and len(a.snapshot.steps) == 2 and len(b.snapshot.steps) == 2)
    pair.charts.setCurrentWidget(pair.charts.steps)
    table = pair.charts.steps.table
    heads = [table.horizontalHeaderItem(i).text() for i in range(table.columnCount())]
    assert heads == ["step", "WA A", "WA B", "sim s A", "sim s B", "TRIMs A",
                     "TRIMs B", "MB/s A", "MB/s B", "host MB A", "host MB B", "NAND MB A",
                     "NAND MB B"]
    rows = pair.charts.steps.rows()
    assert len(rows) == 2
    trims_a, trims_b = (rows[1][heads.index(h)] for h in ("TRIMs A", "TRIMs B"))
    assert trims_a == "0" and int(trims_b.replace(",", "")) > 0  # discard TRIMs what rm frees
    assert pair.charts.steps.message.text().startswith("A: no discard; B: discard")


def test_paused_mid_run_the_drives_are_within_one_batch(until, pair):
    """Lockstep while running: B (more spare) is faster, yet never more than one batch of
    the size both agreed on ahead of A."""
    a, b = pair.views
    pair.edit_drive(1)
    pair.request(spare_pct=40.0, gc="fifo")
    pair.request(workload="random", amount=0.0)  # until paused
    pair.run_workload()
    until(lambda: min(v.snapshot.counters["host_writes"] for v in pair.views)
          > 2 * a.settings.user_pages)
    pair.settle()
    gap = abs(a.snapshot.counters["host_writes"] - b.snapshot.counters["host_writes"])
    assert 0 < pair.lockstep.largest_batch and gap <= pair.lockstep.largest_batch
    assert not pair.is_running()


DISCARD_SCENARIO = """version = 1
name = "small discard run"
[drive]
profile = "ocz_vertex_le_100"
user_gib = 0.25
[filesystem]
discard = true
[[steps]]
do = "unpack"
scale = 0.02
[[steps]]
do = "sync"
[[steps]]
do = "rm"
[[steps]]
do = "sync"
"""


def test_a_scenario_runs_on_both_drives_b_keeping_its_differences(until, pair, tmp_path):
    """A teacher's discard-against-none: B set apart first, then the scenario opened."""
    pair.confirm = lambda text: True
    pair.edit_drive(1)
    assert pair.request(gc="fifo")  # B's own: kept when the scenario sets the drive
    path = tmp_path / "discard.toml"
    path.write_text(DISCARD_SCENARIO)
    assert pair.open_scenario(str(path))
    a, b = pair.views
    assert a.settings.discard and b.settings.discard and b.settings.gc == "fifo"
    assert differing([a.settings, b.settings]) == ["gc"]
    until(lambda: finished(pair) and len(a.snapshot.steps) == 4 and len(b.snapshot.steps) == 4)
    assert [r["step"] for r in a.snapshot.steps] == [r["step"] for r in b.snapshot.steps]
    assert a.snapshot.counters["host_writes"] == b.snapshot.counters["host_writes"]
    pair.charts.setCurrentWidget(pair.charts.steps)
    assert pair.charts.steps.message.text().startswith("A: greedy GC; B: FIFO GC")


def test_opening_a_session_goes_back_to_one_drive(until, pair, tmp_path):
    pair.confirm = lambda text: True
    pair.request(workload="random", amount=0.1)
    pair.run_workload()
    until(lambda: finished(pair, runs=1))
    path = str(tmp_path / "run.ssdlab.json")
    assert pair.save(path)
    b = pair.views[1]
    assert pair.open(path)
    assert len(pair.views) == 1 and b.worker.isFinished()
    until(lambda: finished(pair) and pair.snapshot.counters["host_writes"] > 0)


def test_a_lesson_can_set_up_a_and_b(until, bench):
    """Workbench.compare(settings_a, settings_b): the API a lesson running two
    configurations uses; bad settings are refused with the field named, nothing changes."""
    from dataclasses import replace

    from ssdlab.app.gui.settings.session import Settings

    base = replace(Settings(), speed="fast")
    assert not bench.compare(base, replace(base, spare_pct=95.0))
    assert len(bench.views) == 1 and "drive B" in bench.controls.error.text()
    assert "spare" in bench.controls.error.text().lower()
    assert bench.compare(replace(base, gc="fifo"), replace(base, gc="greedy"))
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    assert [v.settings.gc for v in bench.views] == ["fifo", "greedy"]
    assert [v.title.text() for v in bench.views] == ["A: FIFO GC", "B: greedy GC"]


def test_both_drives_step_times_in_sight_on_a_projector(qtbot):
    """In presentation type the Steps table beside the panel at 1024 x 768 is about 680 px
    wide: B's time (the figure discard against fstrim turns on) is in sight unscrolled."""
    from ssdlab.app.gui.appearance import theme
    from ssdlab.app.gui.charts.steptable import StepTable

    app = QApplication.instance()
    theme.set_current("projector")
    app.setStyleSheet(theme.current().stylesheet())
    try:
        steps = StepTable()
        qtbot.addWidget(steps)
        steps.resize(680, 300)
        steps.show()
        row = {"step": "unpack kernel tree x0.2", "wa": 0.6, "seconds": 8.09, "trims": 7773,
               "mb_s": 0.5, "host_mb": 4.0, "nand_mb": 2.4}
        steps.show_pair([row], [row], ("A: discard", "B: fstrim every 10 min"), "")
        QApplication.processEvents()
        table = steps.table
        heads = [table.horizontalHeaderItem(i).text() for i in range(table.columnCount())]
        col = heads.index("sim s B")
        assert table.columnViewportPosition(col) + table.columnWidth(col) \
            <= table.viewport().width()
    finally:
        theme.set_current("normal")
        app.setStyleSheet(theme.current().stylesheet())


def test_a_failure_in_one_drive_pauses_both_and_a_new_run_starts_both(until, pair,
                                                                      monkeypatch):
    """The message names the drive that failed; the other does not run on alone, nor wait
    for it forever; Run starts both again."""
    a, b = pair.views
    pair.request(workload="random", amount=0.0)  # until paused
    tick = type(b.worker)._tick
    failures = []

    def fail_once(worker, *args, **kwargs):
        if worker is b.worker and not failures:
            failures.append(1)
            raise RuntimeError("flash on fire")
        return tick(worker, *args, **kwargs)

    monkeypatch.setattr(type(b.worker), "_tick", fail_once)
    pair.run_workload()
    # the failure reaches the window as a queued signal: wait for its message, not only
    # for the drives to stop (a snapshot from before the run also says "not running")
    until(lambda: pair.controls.error.text() == "Engine: B: flash on fire")
    until(lambda: not pair.is_running())
    pair.settle()
    held = [v.snapshot.counters["host_writes"] for v in pair.views]
    pair.settle()  # nothing runs on while paused
    assert [v.snapshot.counters["host_writes"] for v in pair.views] == held
    pair.run_workload()
    until(lambda: all(v.snapshot.counters["host_writes"] > 2 * v.settings.user_pages
                      for v in pair.views))
    pair.settle()


def test_a_drive_whose_file_system_fills_ends_both_runs(until, pair, monkeypatch):
    """B's unpack fails part-way (its file system reports itself full; the settings' checks
    keep a tree that cannot fit from being chosen, so the failure is injected). The message
    names B, A's run ends with it rather than waiting on B for ever, the Steps table says
    which step failed and which stopped, and Play, Reset and a new run work on both."""
    pair.confirm = lambda text: True
    for drive in (1, 0):
        pair.edit_drive(drive)
        assert pair.request(profile="ocz_vertex_le_100", capacity_mib=512.0)
    assert pair.request(workload="unpack", kernel_scale=0.2)
    a, b = pair.views
    tick = type(b.worker)._tick_fs
    slices = []
    # B fails at its first slice of the unpack, and A unpacks nothing meanwhile: with the
    # tree cache warm a whole unpack can take one slice, and A's had ended before B's
    # failure on an idle machine (a race, not a rule). A's idle slices leave the drives
    # level, so the lockstep still lets B take its slice; A's run then ends with B's.

    def full_after_a_while(worker, *args, **kwargs):
        if worker is not b.worker:
            return None  # A is still unpacking, a slice that does nothing
        slices.append(1)
        if len(slices) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return tick(worker, *args, **kwargs)

    monkeypatch.setattr(type(b.worker), "_tick_fs", full_after_a_while)
    pair.run_workload()
    until(lambda: pair.controls.error.text().startswith("Engine: B: "))
    assert "No space left on device" in pair.controls.error.text()
    until(lambda: not pair.is_running() and not any(v.snapshot.segment for v in pair.views))
    pair.settle()
    assert a.snapshot.steps[-1]["step"].endswith("(stopped)"), a.snapshot.steps
    assert b.snapshot.steps[-1]["step"].endswith("(failed)"), b.snapshot.steps
    assert pair.play_button.text() == "Play"
    held = [v.snapshot.counters["host_writes"] for v in pair.views]
    pair.settle()  # nothing runs on
    assert [v.snapshot.counters["host_writes"] for v in pair.views] == held
    slices.clear()
    monkeypatch.setattr(type(b.worker), "_tick_fs", tick)
    pair.toggle_play()  # Space: nothing is left to resume, so the chosen step runs anew
    until(lambda: finished(pair) and all(len(v.snapshot.steps) == 2 for v in pair.views))
    assert not b.snapshot.steps[-1]["step"].endswith(")")
    pair.reset_all()
    until(lambda: all(v.snapshot.counters["host_writes"] == 0 and not v.snapshot.steps
                      for v in pair.views))
    assert pair.request(workload="random", amount=0.2)  # block workloads run on both again
    pair.run_workload()
    until(lambda: finished(pair) and all(v.snapshot.counters["host_writes"]
                                         >= 0.2 * v.settings.user_pages for v in pair.views))
