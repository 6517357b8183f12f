"""File > Export all charts (issue 37): one action writes every chart of the run, in the
formats chosen, into one folder: the same files, with the same data, as `ssdlab chart
--chart all` writes from the session saved after the run. A bad folder is refused before
anything is written; files of an earlier export are replaced only after a yes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt

from ssdlab.app.gui.frame import exportall, runfiles

ROOT = Path(__file__).resolve().parents[1]


def test_the_window_writes_what_chart_all_writes(qtbot, until, bench, tmp_path):
    bench.request(workload="random", amount=1.5)
    bench.run_workload()
    until(lambda: not bench.snapshot.running and bench.snapshot.counters["host_writes"] > 0
          and not bench.snapshot.segment)
    dialog = exportall.open_dialog(bench)
    assert dialog.chosen_formats() == ("pdf", "csv")
    dialog.formats["pdf"].setChecked(False)
    dialog.formats["svg"].setChecked(True)
    window = tmp_path / "window"
    dialog.folder.setText(str(window))
    dialog.accept()
    assert not dialog.isVisible(), dialog.error.text()
    charts = exportall.charts_of_run(bench)
    assert "steps" not in charts and {"wa", "wear", "victims"} <= set(charts)
    made = sorted(p.name for p in window.iterdir())
    assert made == sorted([f"{c}.{f}" for c in charts for f in ("svg", "csv")]
                          + [f"{c}.json" for c in charts])
    assert "Exported" in bench.status_message.message()

    session = tmp_path / "run.json"
    assert runfiles.save(bench, str(session))
    cli = tmp_path / "cli"
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "chart", str(session),
                           "--chart", "all", "--format", "svg,csv", "-o", str(cli)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in cli.iterdir()) == made
    for c in charts:  # the same data, row for row
        assert (window / f"{c}.csv").read_text() == (cli / f"{c}.csv").read_text(), c

    # again into the same folder: the earlier files are replaced only after a yes
    asked = []
    bench.confirm = lambda text: asked.append(text) or False
    again = exportall.open_dialog(bench)
    again.folder.setText(str(window))
    before = (window / "wa.csv").stat().st_mtime_ns
    again.accept()
    assert again.isVisible() and asked and "Replace them?" in asked[0]
    assert (window / "wa.csv").stat().st_mtime_ns == before
    # a file where the folder goes: refused, nothing written, said in the dialog
    blocked = tmp_path / "file"
    blocked.write_text("mine")
    again.folder.setText(str(blocked))
    again.accept()
    assert again.isVisible() and "is a file" in again.error.text()
    assert blocked.read_text() == "mine"
    again.close()


def test_the_action_is_in_the_file_menu_with_its_key(bench):
    file_menu = bench.menuBar().actions()[0].menu()
    (action,) = [a for a in file_menu.actions() if a.text() == "Export &all charts..."]
    assert action.shortcut().toString() == "Ctrl+Shift+E"
    action.trigger()
    dialogs = [d for d in bench.findChildren(exportall.ExportAllDialog) if d.isVisible()]
    assert len(dialogs) == 1
    for box in dialogs[0].formats.values():
        assert box.accessibleName() and box.focusPolicy() & Qt.FocusPolicy.TabFocus
    dialogs[0].reject()
