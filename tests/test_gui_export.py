"""Export from the window: the File menu and each chart's right-click menu reach the dialog,
the files hold the live run's data exactly as the window has it, and a bad path is reported
with the old file untouched and the run going on."""

from __future__ import annotations

import csv
import json

import numpy as np
from PySide6.QtCore import Qt

from ssdlab.app.gui.frame import exportdialog
from ssdlab.model.lab.charts import RUN_CHARTS


def run_to_end(qtbot, until, w):
    """Run the chosen workload at full speed and wait (on conditions: a busy machine may
    take its time) until it has ended."""
    w.speed.setCurrentIndex(w.speed.findData("fast"))
    before = w.snapshot.counters["host_writes"]
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    until(lambda: w.snapshot.counters["host_writes"] > before)
    until(lambda: not w.snapshot.running and not w.snapshot.segment)


def test_every_chart_has_the_export_menu_and_file_menu_entry(bench):
    for name in RUN_CHARTS:
        menu = exportdialog.chart_menu(bench, name)
        assert [a.text() for a in menu.actions()] == ["Export PNG...", "Export SVG...",
                                                      "Export PDF...", "Export CSV..."]
        assert bench.charts.views[name].contextMenuPolicy() == \
            Qt.ContextMenuPolicy.CustomContextMenu
    file_menu = bench.menuBar().actions()[0].menu()
    (export,) = [a for a in file_menu.actions() if a.text() == "&Export chart..."]
    export.trigger()
    dialogs = [d for d in bench.findChildren(exportdialog.ExportDialog) if d.isVisible()]
    assert len(dialogs) == 1 and dialogs[0].chart.currentData() == bench.charts.current_name()
    dialogs[0].reject()


def test_dialog_exports_the_live_run(qtbot, until, bench, tmp_path):
    run_to_end(qtbot, until, bench)
    snap = bench.snapshot
    dialog = exportdialog.open_dialog(bench, "wa", "csv")
    dialog.path.setText(str(tmp_path / "wa.csv"))
    dialog.accept()
    assert not dialog.isVisible()
    rows = list(csv.DictReader((tmp_path / "wa.csv").open()))
    theory = bench.session.theory_wa_shown(snap)  # None where no analytic model applies
    # no column that is always empty: the analytic one only where a model applies
    assert list(rows[0]) == ["drive_writes", "wa", "wa_window"] + \
        ([] if theory is None else ["wa_analytic"])
    wa = np.array([float(r["wa"]) if r["wa"] else np.nan for r in rows])
    np.testing.assert_allclose(wa, snap.series["wa"], equal_nan=True)
    if theory is not None:
        assert rows[-1]["wa_analytic"] == repr(float(theory))
    side = json.loads((tmp_path / "wa.json").read_text())
    assert side["chart"] == "wa" and side["seed"] == bench.session.settings.seed
    assert side["session"]["settings"]["capacity_mib"] == bench.session.settings.capacity_mib
    if theory is not None:  # the file names the model its line is and what it assumes
        assert side["analytic"]["model"] == "Van Houdt's greedy model (2013)"
        assert side["analytic"]["wa"] == theory
        assert "random rewrites" in side["analytic"]["workload"]
    for name in RUN_CHARTS:
        for fmt in ("png", "svg", "pdf"):
            out = tmp_path / f"{name}.{fmt}"
            assert exportdialog.export_chart(bench, name, str(out), fmt, "double")
            assert out.stat().st_size > 1000


def test_bad_path_is_reported_and_the_old_file_kept(qtbot, until, bench, tmp_path):
    run_to_end(qtbot, until, bench)
    old = tmp_path / "wa.png"
    old.write_bytes(b"old")
    dialog = exportdialog.open_dialog(bench, "wa", "png")
    dialog.path.setText(str(tmp_path / "missing" / "wa.png"))
    dialog.accept()
    assert dialog.isVisible() and "does not exist" in dialog.error.text()
    assert "Export:" in bench.controls.error.text()
    dialog.path.setText(str(tmp_path / "wa"))  # no extension
    dialog.accept()
    assert "no extension" in dialog.error.text()
    assert old.read_bytes() == b"old"
    dialog.path.setText(str(old))
    bench.confirm = lambda text: True  # asked whether to replace it (issue 34): yes
    dialog.accept()
    assert not dialog.isVisible() and old.read_bytes()[:4] == b"\x89PNG"
    assert bench.controls.error.text() == ""
