"""File > Export all charts...: every chart the run can draw, in the formats chosen, into one
folder as CHART.FORMAT, the files `ssdlab chart --chart all --format ... -o DIR` writes for the
same run (one plan, ssdlab/app/cli/figureoutputs.py, and one writer, ssdlab/app/chartexport.py).
Before, an author needed 28 dialogs for them.

Which charts: those the command line writes for the run, the steps chart only after
file-system steps. Every path is checked before anything is written (a folder that cannot be
made, a FIFO where a file goes, an input of the run, a file there that SSD Lab did not
write); files SSD Lab wrote before are replaced once the person says yes. The files are
drawn one by one under a progress dialog that can cancel between files: the files written
so far are whole, and the window says how many.
"""

from __future__ import annotations

import argparse
import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QWidget,
)

from ssdlab.model.lab.charts import RUN_CHARTS

from . import exportdialog, statusline

DEFAULT_FORMATS = ("pdf", "csv")


def charts_of_run(bench) -> list[str]:
    """The charts `chart --chart all` writes for the run drive A shows."""
    from ssdlab.app.cli.chart import drawable

    snap = bench.views[0].snapshot
    if snap is None:
        return []
    return drawable(RUN_CHARTS, len(snap.series.get("drive_writes", ())), snap.log)


def planned(bench, folder: str, formats: tuple[str, ...], width: str):
    """Every file to write, checked as the command line checks them; OutputFileError
    (naming the folder or the file) otherwise. Makes the folder if its parent exists."""
    from ssdlab.app.atomicfile import OutputFileError
    from ssdlab.app.cli.figureoutputs import plan

    charts = charts_of_run(bench)
    if len(charts) * len(formats) == 1 and not os.path.isdir(folder):
        # one file would be -o FILE to the command line: here it always goes in the folder
        if os.path.lexists(folder):
            raise OutputFileError(f"{folder}: is a file; give a folder")
        try:
            os.mkdir(folder)
        except OSError as e:
            raise OutputFileError(f"{folder}: cannot make the folder: "
                                  f"{e.strerror or e}") from None
    args = argparse.Namespace(output=folder, format=formats, width=width, overwrite=False,
                              title=True, timestamp=False)
    return plan(args, charts, exportdialog.files_read(bench))


def write_files(bench, files, width: str, go_on=lambda done, total, path: True) -> list[str]:
    """Write each planned file from the run's data (each chart computed once); go_on(done,
    total, next path) is asked before each file, and False stops there. The paths written."""
    from ssdlab.app.chartexport import Export, write

    a = bench.views[0]
    series = exportdialog.drive_clock_series(a)
    data: dict = {}
    written: list[str] = []
    for i, f in enumerate(files):
        if not go_on(i, len(files), f.path):
            break
        if f.chart not in data:
            data[f.chart] = exportdialog.chart_data(bench, f.chart, series)
        spec = Export(f.format, width, exportdialog.export_provenance(bench, data[f.chart],
                                                                      series, f.path))
        written += write(f.path, data[f.chart], spec)
    return written


class ExportAllDialog(QDialog):
    """Folder, formats and column width; accept() writes and closes only on success."""

    def __init__(self, bench, parent: QWidget | None = None):
        super().__init__(parent or bench)
        self.bench = bench
        self.setWindowTitle("Export all charts")
        self.folder = QLineEdit(os.path.join(os.getcwd(), "ssdlab-charts"))
        self.folder.setAccessibleName("Folder")
        browse = QPushButton("Browse...")
        browse.setAccessibleName("Browse for the folder")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        self.formats = {}
        boxes = QHBoxLayout()
        for key, text in exportdialog.FORMAT_NAMES.items():
            box = QCheckBox(key.upper())
            box.setToolTip(text)
            box.setAccessibleName(f"Format {key.upper()}: {text}")
            box.setChecked(key in DEFAULT_FORMATS)
            boxes.addWidget(box)
            self.formats[key] = box
        self.width = QComboBox()
        self.width.setAccessibleName("Width")
        for key, text in exportdialog.WIDTH_NAMES.items():
            self.width.addItem(text, key)
        charts = charts_of_run(bench)
        self.which = QLabel(f"{len(charts)} charts of this run: {', '.join(charts)}. The "
                            "same files as ssdlab chart --chart all writes for it.")
        self.which.setObjectName("note")
        self.which.setWordWrap(True)
        self.error = exportdialog.error_label()
        buttons = exportdialog.save_buttons(self)
        form = QFormLayout(self)
        form.addRow(self.which)
        form.addRow("Formats", boxes)
        form.addRow("Width", self.width)
        form.addRow("Folder", row)
        form.addRow(self.error)
        form.addRow(buttons)

    def chosen_formats(self) -> tuple[str, ...]:
        return tuple(k for k, box in self.formats.items() if box.isChecked())

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Export all charts into",
                                                self.folder.text())
        if path:
            self.folder.setText(path)

    def _fail(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
        self.bench.controls.show_error(f"Export: {text}")

    def accept(self) -> None:
        from ssdlab.app.atomicfile import OutputFileError

        formats, width = self.chosen_formats(), self.width.currentData()
        folder = self.folder.text().strip()
        if not charts_of_run(self.bench):
            return self._fail("nothing to export yet; run a workload first")
        if not formats:
            return self._fail("choose at least one format")
        if not folder:
            return self._fail("Folder: names no folder; give one")
        try:
            files = planned(self.bench, folder, formats, width)
        except OutputFileError as e:
            return self._fail(str(e).removeprefix("-o "))
        there = [f.path for f in files if os.path.lexists(f.path)]
        if there and not self.bench.confirm(
                f"{len(there)} of the {len(files)} files are in {folder} already, from an "
                "earlier export. Replace them?"):
            return None  # nothing written; the dialog stays open
        progress = QProgressDialog("Exporting charts...", "Cancel", 0, len(files), self)
        progress.setWindowTitle("Export all charts")
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)

        def go_on(done: int, total: int, path: str) -> bool:
            progress.setValue(done)
            progress.setLabelText(f"Writing {os.path.basename(path)} ({done + 1} of {total})")
            return not progress.wasCanceled()

        try:
            written = write_files(self.bench, files, width, go_on)
        except OutputFileError as e:
            progress.close()
            return self._fail(str(e))
        cancelled = progress.wasCanceled()
        progress.close()
        shown = len([p for p in written if not p.endswith(".json")])
        said = (f"Exported {shown} of {len(files)} files to {folder} (cancelled)" if cancelled
                else f"Exported {shown} files to {folder}")
        self.bench.controls.show_error("")
        statusline.say(self.bench, said, until=statusline.next_work(self.bench))
        super().accept()
        return None


def open_dialog(bench) -> ExportAllDialog:
    """Show the dialog (not modal: the run keeps drawing) and return it."""
    dialog = ExportAllDialog(bench)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
