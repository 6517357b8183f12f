"""In the window, the writers' faults of issue 34: an export never replaces a file the person
did not agree to replace (the suggested name, a CSV's JSON sidecar), and a FIFO given to Save
session, Save as scenario or Export is refused at once, never opened, with the reason in the
window."""

from __future__ import annotations

import os

import pytest

from ssdlab.app.gui.frame import exportdialog
from tests.test_gui_export import run_to_end


@pytest.mark.timeout(300)
@pytest.mark.parametrize("fmt", ["png", "csv"])
def test_an_export_asks_before_replacing_a_file_and_no_keeps_it(qtbot, until, bench, tmp_path,
                                                               fmt):
    run_to_end(qtbot, until, bench)
    # png: the suggested file itself is there; csv: the new CSV's sidecar is someone's file
    there = tmp_path / ("wa.png" if fmt == "png" else "wa.json")
    there.write_text("the person's own file")
    asked = []
    bench.confirm = lambda text: asked.append(text) or False
    dialog = exportdialog.open_dialog(bench, "wa", fmt)
    dialog.path.setText(str(tmp_path / f"wa.{fmt}"))
    dialog.accept()
    assert len(asked) == 1 and str(there) in asked[0] and "Replace" in asked[0]
    assert there.read_text() == "the person's own file"
    assert dialog.isVisible() and not (tmp_path / "wa.csv").exists()
    bench.confirm = lambda text: asked.append(text) or True  # yes: replaced
    dialog.accept()
    assert not dialog.isVisible() and there.read_bytes() != b"the person's own file"


@pytest.mark.timeout(300)
def test_an_export_to_a_new_file_asks_nothing(qtbot, until, bench, tmp_path):
    run_to_end(qtbot, until, bench)
    dialog = exportdialog.open_dialog(bench, "wa", "csv")  # bench.confirm fails if asked
    dialog.path.setText(str(tmp_path / "new.csv"))
    dialog.accept()
    assert not dialog.isVisible() and (tmp_path / "new.json").exists()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("what", ["save session", "save scenario", "export", "export csv"])
def test_a_fifo_given_to_a_save_is_refused_at_once(bench, until, tmp_path, what):
    fifo = tmp_path / ("out.json" if what != "export" else "out.png")
    os.mkfifo(fifo)  # opening it for writing would wait for a reader: the window frozen
    if what == "save session":
        assert not bench.save(str(fifo))
    elif what == "save scenario":  # a file-system run a scenario can hold, as in
        c = bench.controls.widgets   # test_gui_scenario's saves
        c["profile"].setCurrentIndex(c["profile"].findData("crucial_m4_128"))
        c["capacity_mib"].setValue(256)
        until(lambda: bench.snapshot.user_pages == bench.session.settings.user_pages)
        c["workload"].setCurrentIndex(c["workload"].findData("unpack"))
        c["kernel_scale"].setValue(0.03)
        bench.run_workload()
        until(lambda: len(bench.snapshot.steps) >= 1 and not bench.snapshot.running)
        assert not bench.save_scenario(str(fifo))
    else:  # "export csv": the FIFO is where the sidecar goes
        path = str(fifo) if what == "export" else str(tmp_path / "out.csv")
        assert not exportdialog.export_chart(bench, "wa", path,
                                             "png" if what == "export" else "csv")
    error = bench.controls.error.text()
    assert str(fifo) in error and "it is a pipe (FIFO), not a regular file" in error
