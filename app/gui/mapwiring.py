"""Looking closer, wired into the workbench: the block map's zoom and heat maps, and the
breakpoints. The window calls `install` once it is built and `follow_settings` when its
settings change; everything else connects through signals here."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from model.lab.breakpoints import Breakpoints

from .breakpointdialog import BreakpointDialog

ZOOM_ACTIONS = (("Zoom &in on the block map", ("Ctrl+=", "Ctrl++"), 1),
                ("Zoom &out", ("Ctrl+-",), -1),
                ("&Whole drive", ("Ctrl+0",), 0))


def install(w) -> None:
    """Connect the map, its legend, the worker and the View menu of workbench `w`."""
    w.breakpoints = Breakpoints()
    w.blockmap.view_changed.connect(lambda blocks: w.worker.send("view", blocks))
    w.blockmap.heat_changed.connect(lambda: w.legend.show_heat(w.blockmap.heat))
    w.legend.mode_chosen.connect(lambda mode: w.request(heatmap=mode))
    w.worker.breakpoint_hit.connect(lambda text: w.statusBar().showMessage(
        f"Breakpoint: {text}"), Qt.ConnectionType.QueuedConnection)
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    view.addSeparator()
    for text, keys, steps in ZOOM_ACTIONS:
        action = QAction(text, w)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect((lambda s: lambda: zoom(w, s))(steps))
        view.addAction(action)
    action = QAction("&Breakpoints...", w)
    action.setShortcut(QKeySequence("Ctrl+B"))
    action.setToolTip("Pause the run when WA, GC, free blocks, wear or a logical page "
                      "reach what you set.")
    action.triggered.connect(lambda: open_dialog(w))
    view.addAction(action)
    w.breakpoints_action = action


def zoom(w, steps: int) -> None:
    if steps:
        w.blockmap.zoom(steps)
    else:
        w.blockmap.reset_zoom()


def follow_settings(w, s, drive_changed: bool) -> None:
    """The map colours blocks as the settings say; a new drive is shown whole."""
    w.blockmap.set_mode(s.heatmap)
    w.legend.set_mode(s.heatmap)
    if drive_changed:
        w.blockmap.reset_zoom()
        set_breakpoints(w, w.breakpoints, s.geometry())


def set_breakpoints(w, bp: Breakpoints, g) -> bool:
    """Use these breakpoints from now on; ones the drive cannot have (a logical page past
    the end of a smaller drive) are dropped, saying why."""
    try:
        bp.check(g)
    except ValueError as e:
        w.controls.show_error(f"Breakpoints: {e}")
        w.breakpoints = Breakpoints()
        w.worker.send("breakpoints", None)
        return False
    w.breakpoints = bp
    w.worker.send("breakpoints", bp)
    return True


def open_dialog(w) -> BreakpointDialog:
    """Show the breakpoint dialog (not modal); OK sets what it holds."""
    g = w.session.settings.geometry()
    dialog = BreakpointDialog(w.breakpoints, g, w)
    dialog.accepted.connect(lambda: set_breakpoints(w, dialog.result_breakpoints, g))
    w.breakpoint_dialog = dialog
    dialog.show()
    return dialog
