"""Export from the window: File > Export chart... and a right-click menu on every chart and on
the block map, writing the live run's data with the same exporters and chart descriptions as
`ssdlab chart` (ssdlab/app/chartexport.py, ssdlab/app/blockmapexport.py,
ssdlab/model/lab/charts.py).

With two drives side by side or a kept reference, a file shows what the window shows: every
run overlaid with its legend label, and both block maps side by side, each titled.

The dialog chooses the chart, the format (PNG, SVG, PDF, CSV with a JSON sidecar), the column
width and the file. A file already there (the file named, or a CSV's JSON sidecar beside it)
is replaced only after the person says yes. A path that cannot be written (a folder, a
FIFO, a device) is refused unopened and reported in the window's error line, and any
existing file stays as it was; the run goes on either way.
"""

from __future__ import annotations

import os
from dataclasses import asdict, replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QWidget,
)

from ssdlab.model.lab.charts import CHARTS, RUN_CHARTS, Table, chart_table, run_series
from ssdlab.model.lab.overlay import ChartRun, Overlay

from . import compare, statusline

FORMAT_NAMES = {"png": "PNG image, 300 dpi", "svg": "SVG vector (editable text)",
                "pdf": "PDF vector (fonts embedded)", "csv": "CSV data + JSON sidecar"}
BLOCK_MAP = "blockmap"  # the dialog's name for the block map, beside the charts' names
WIDTH_NAMES = {"single": "single column (3.5 in)", "double": "double column (7 in)"}


def _provenance(settings, snap=None) -> dict:
    """What reproduces one of several runs: its settings and seed, and the log of what it
    ran with the drive it built (ssdlab/app/session/runprovenance.py) when its snapshot is
    known."""
    out = {"settings": asdict(settings), "seed": getattr(settings, "seed", None)}
    if snap is not None:
        from ssdlab.app.session.runprovenance import session_provenance

        done = session_provenance(settings, snap.log)
        out |= {"log": done["session"]["log"], "drive": done["drive"]}
    return out


def played_scenario(bench, view):
    """(path, Scenario) when this view's run is exactly the scenario file opened (every one
    of its steps and no other), else None."""
    from ..settings.scenariofiles import scenario_for

    opened = getattr(bench, "opened_scenario", None)
    snap = view.snapshot
    if opened is None or snap is None or snap.running:
        return None
    path, sc = opened
    try:
        run = scenario_for(view.settings, snap.log, sc.name)
    except ValueError:  # unfinished, or no longer a scenario's run
        return None
    same = [(s.do, s.args) for s in run.steps] == [(s.do, s.args) for s in sc.steps]
    return opened if same else None


def run_provenance(bench, view, series, base: str) -> dict:
    """What reproduces the view's run, said as `ssdlab chart` says it for the same run: the
    scenario file it played (named from the project or from `base`, the folder the figure
    goes to) and the series' sampling (ssdlab/model/lab/provenance.py); else every setting,
    the log of what ran and the drive it built, as for a session file
    (ssdlab/app/session/runprovenance.py)."""
    from ssdlab.app.session.runprovenance import session_provenance
    from ssdlab.model.lab.provenance import scenario_provenance, series_provenance

    played = played_scenario(bench, view)
    out = (scenario_provenance(*played, base) if played else
           session_provenance(view.settings, view.snapshot.log))
    return out | (series_provenance(series) if series is not None else {})


def drive_clock_series(view):
    """The view's file-system run binned as `ssdlab chart` bins it, or None."""
    worker = getattr(view, "worker", None)
    return worker.run_series() if worker is not None else None


def chart_data(bench, name: str, a_series=None) -> Table | Overlay | None:
    """What chart `name` shows, from the drives' newest snapshots: drive A's run as a plain
    table when it is alone; with drive B or kept references, every run the window draws,
    labelled as its legend labels them, each with its own settings. None before any run.
    a_series: A's file-system run binned as the command line bins it (drive_clock_series);
    None: the rows the window drew."""
    a = bench.views[0]
    if a.snapshot is None:
        return None
    timed = bool(a.settings.profile)  # A's clock sets the axes, as on screen

    from ssdlab.app.session.wanotes import analytic_name

    def table(snap, theory, settings, binned=None):
        series = snap.series
        if binned is not None:  # a file-system run: the rows `ssdlab chart` draws
            g = binned.m.drive.geometry
            series = run_series(binned.as_dicts(), g.user_pages * g.page_bytes / 1e6)
        return chart_table(name, series, timed=timed, erases=snap.erases, theory=theory,
                           steps=snap.steps, victims=snap.victim_valid,
                           mapping=settings.mapping, theory_name=analytic_name(settings))

    snap = a.snapshot
    played = played_scenario(bench, a)
    if played and len(snap.steps) == len(played[1].steps):  # named as `ssdlab chart` names them
        from ssdlab.model.lab.steps import step_label

        steps = [{**d, "step": step_label(st)} for d, st in zip(snap.steps, played[1].steps,
                                                                   strict=True)]
        snap = replace(snap, steps=steps)
    main = table(snap, a.session.theory_wa_shown(a.snapshot), a.settings, a_series)
    names = compare.labels(bench)
    others = compare.others(bench, names)
    if not others:
        return main
    # the settings behind each run, by the keys compare.others gives them ("B", "ref0", ...)
    settings = {f"ref{i}": r.settings for i, r in enumerate(bench.references)}
    if compare.comparing(bench):
        settings["B"] = bench.views[1].settings
    runs = [ChartRun(names["A"], "main", main, "", _provenance(a.settings, a.snapshot))]
    runs += [ChartRun(r.label, r.role, table(r.snap, r.theory, settings[r.key]), r.key,
                      _provenance(settings[r.key], r.snap)) for r in others]
    return Overlay(tuple(runs))


def shown_maps(bench) -> list:
    """The block maps the window shows (ssdlab/app/blockmapexport.py DriveMap each): A's alone, or
    each drive's beside the other, titled as on screen ("A: spare 7 %")."""
    from ssdlab.app.blockmapexport import DriveMap  # matplotlib loads on the first export only

    several = len(bench.views) > 1
    maps = []
    for v in bench.views:
        snap = v.blockmap.snapshot
        if snap is not None:
            maps.append(DriveMap(v.title.text() if several else "", snap.state, snap.valid,
                                 snap.erases, snap.pages_per_block,
                                 _provenance(v.settings, v.snapshot) if several else None))
    return maps


def shown_labels(bench, name: str) -> list[str]:
    """The labels of the runs (or maps) chart `name` would export when there are several;
    empty for one run alone."""
    if name == BLOCK_MAP:
        maps = [v.title.text() for v in bench.views if v.blockmap.snapshot is not None]
        return maps if len(maps) > 1 else []
    names = compare.labels(bench)
    others = compare.others(bench, names)
    return [names["A"], *(r.label for r in others)] if others else []


def export_provenance(bench, data, series, path: str) -> dict | None:
    """What a file of `data` written to `path` says reproduces it: one run's scenario or
    session (and what its analytic line assumes, where it has one), paths named from the
    project or the file's folder; None for several runs, whose settings the sidecar lists
    run by run."""
    one = isinstance(data, Table) or (isinstance(data, list) and len(data) == 1)
    if not one:
        return None
    a = bench.views[0]
    provenance = run_provenance(bench, a, series, os.path.dirname(os.path.abspath(path)))
    from ssdlab.app.session.wanotes import theory_source

    analytic = theory_source(a.settings, a.snapshot.log)
    if analytic["model"] is not None:
        provenance["analytic"] = analytic
    return provenance


def export_chart(bench, name: str, path: str, fmt: str, width: str = "single") -> bool:
    """Write chart `name` as the window shows it (every run drawn, with two drives or a
    reference) to `path`; False (and the reason in the window's error line) when it cannot
    be written."""
    from ssdlab.app import blockmapexport
    from ssdlab.app.atomicfile import OutputFileError
    from ssdlab.app.chartexport import Export, sidecar_path, write
    from ssdlab.app.cli.outputs import check_outputs

    try:  # first: a FIFO or a folder is refused before any work, never opened
        check_outputs(files_read(bench), {"to": path, "its JSON sidecar":
                                          sidecar_path(path) if fmt == "csv" else None})
    except OutputFileError as e:
        bench.controls.show_error(f"Export: {e}")
        return False
    a = bench.views[0]
    series = drive_clock_series(a) if name != BLOCK_MAP else None
    data = chart_data(bench, name, series) if name != BLOCK_MAP else shown_maps(bench)
    if not data:
        bench.controls.show_error("Export: nothing to export yet; run a workload first")
        return False
    spec = Export(fmt, width, export_provenance(bench, data, series, path))
    try:
        if name == BLOCK_MAP:
            written = blockmapexport.write_maps(path, data, spec)
        else:
            written = write(path, data, spec)
    except OutputFileError as e:
        bench.controls.show_error(f"Export: {e}")
        return False
    bench.controls.show_error("")
    statusline.say(bench, f"Exported {', '.join(written)}", until=statusline.next_work(bench))
    return True


def error_label() -> QLabel:
    """A dialog's line for why it could not do what was asked, hidden until then."""
    error = QLabel()
    error.setObjectName("error")
    error.setWordWrap(True)
    error.hide()
    return error


def save_buttons(dialog: QDialog) -> QDialogButtonBox:
    """Save and Cancel, wired to the dialog's accept and reject."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                               | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


def files_read(bench) -> dict[str, str]:
    """The files the window's run came from (an export must not replace one): the session
    or scenario file opened, and the trace each drive replays."""
    found = dict(getattr(bench, "opened_files", {}))
    for v in bench.views:
        if v.settings.trace_path:
            found[f"trace file of drive {v.title.text() or 'A'}"] = v.settings.trace_path
    return found


class ExportDialog(QDialog):
    """Chart, format, column width and file; accept() exports and closes only on success."""

    def __init__(self, bench, chart: str, fmt: str = "png", parent: QWidget | None = None):
        super().__init__(parent or bench)
        self.bench = bench
        self.browsed = ""  # a file chosen in the file dialog, which asked about replacing it
        self.setWindowTitle("Export chart")
        self.chart = QComboBox()
        for spec in (CHARTS[name] for name in RUN_CHARTS):
            self.chart.addItem(spec.title, spec.name)
        self.chart.addItem("Block map", BLOCK_MAP)
        self.format = QComboBox()
        for key, text in FORMAT_NAMES.items():
            self.format.addItem(text, key)
        self.width = QComboBox()
        for key, text in WIDTH_NAMES.items():
            self.width.addItem(text, key)
        from ssdlab.app.chartexport import TYPE_PT  # matplotlib: loaded when first needed

        lo, hi = TYPE_PT
        self.width.setToolTip(f"Figures are sized for a journal column; type is {lo:g} to "
                              f"{hi:g} pt at this width. CSV ignores it.")
        self.path = QLineEdit()
        self.path.setAccessibleName("File")
        browse = QPushButton("Browse...")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        # with two drives or a reference: which runs the file will hold, by their labels
        self.runs = QLabel()
        self.runs.setObjectName("note")
        self.runs.setWordWrap(True)
        self.error = error_label()
        buttons = save_buttons(self)
        form = QFormLayout(self)
        form.addRow("Chart", self.chart)
        form.addRow("Format", self.format)
        form.addRow("Width", self.width)
        form.addRow("File", row)
        form.addRow(self.runs)
        form.addRow(self.error)
        form.addRow(buttons)
        self.chart.setCurrentIndex(self.chart.findData(chart))
        self.format.setCurrentIndex(self.format.findData(fmt))
        self.format.currentIndexChanged.connect(self._suggest)
        self.chart.currentIndexChanged.connect(self._suggest)
        self._suggest()

    def _may_replace(self, path: str, fmt: str) -> bool:
        """True when no existing file would be replaced, or the person agrees: the suggested
        name, or a CSV's sidecar, may name a file they never chose."""
        from ssdlab.app.chartexport import sidecar_path

        files = [path] if path != self.browsed else []
        files += [sidecar_path(path)] if fmt == "csv" else []
        there = [f for f in files if os.path.isfile(f)]
        if not there:
            return True
        one = len(there) == 1
        return self.bench.confirm(f"{' and '.join(there)} already exist{'s' if one else ''}."
                                  f" Replace {'it' if one else 'them'}?")

    def _suggest(self) -> None:
        """Keep the file name's extension (and, if it is still a suggestion, its stem) in
        step with the chart and format."""
        fmt, name = self.format.currentData(), self.chart.currentData()
        self.width.setEnabled(fmt != "csv")
        labels = shown_labels(self.bench, name)
        self.runs.setText("\n".join(["In the file, one run a line:", *labels]) if labels
                          else "")
        self.runs.setVisible(bool(labels))
        folder, base = os.path.split(self.path.text())
        stem = os.path.splitext(base)[0]
        if not stem or stem in CHARTS or stem == BLOCK_MAP:
            stem = name
        self.path.setText(os.path.join(folder or os.getcwd(), f"{stem}.{fmt}"))

    def _browse(self) -> None:
        fmt = self.format.currentData()
        path, _ = QFileDialog.getSaveFileName(self, "Export chart", self.path.text(),
                                              f"{FORMAT_NAMES[fmt]} (*.{fmt})")
        if path:
            self.path.setText(path)
            self.browsed = path  # the file dialog asked before replacing it

    def accept(self) -> None:
        if not self._may_replace(self.path.text(), self.format.currentData()):
            return  # the person said no: nothing written, the dialog stays open
        ok = export_chart(self.bench, self.chart.currentData(), self.path.text(),
                          self.format.currentData(), self.width.currentData())
        if ok:
            super().accept()
            return
        # the reason is in the window's error line; show it here too and stay open
        self.error.setText(self.bench.controls.error.text())
        self.error.show()


def open_dialog(bench, chart: str | None = None, fmt: str = "png") -> ExportDialog:
    """Show the dialog (not modal: the run keeps drawing) for `chart` (default: the tab
    shown) and return it."""
    dialog = ExportDialog(bench, chart or bench.charts.current_name(), fmt)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog


def chart_menu(bench, name: str) -> QMenu:
    """The right-click menu of chart `name`: one entry per format, each opening the
    dialog with that chart and format chosen."""
    menu = QMenu(bench)
    for fmt in FORMAT_NAMES:
        action = menu.addAction(f"Export {fmt.upper()}...")
        action.triggered.connect(lambda _c=False, f=fmt: open_dialog(bench, name, f))
    return menu


def install(bench) -> None:
    """Give every chart of the bench, and its block map, a right-click export menu."""
    for name, view in (*bench.charts.views.items(), (BLOCK_MAP, bench.blockmap)):
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(
            lambda pos, n=name, v=view: chart_menu(bench, n).exec(v.mapToGlobal(pos)))
