"""Looking closer, wired into the workbench: the block maps' zoom and heat maps, and the
breakpoints. The window calls `install` once it is built, `wire_view` for each drive view
(one, or two side by side) and `follow_settings` when a view's settings change; everything
else connects through signals here. Zoom and breakpoints act on every drive shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from ssdlab.model.lab.breakpoints import Breakpoints

from .breakpointdialog import BreakpointDialog

ZOOM_ACTIONS = (("Zoom &in on the block map", ("Ctrl+=", "Ctrl++"), 1),
                ("Zoom &out", ("Ctrl+-",), -1),
                ("&Whole drive", ("Ctrl+0",), 0))


def install(w) -> None:
    """The View menu's zoom and breakpoint items of workbench `w`; each is the window's
    action too, so its key works while the menu bar is hidden (presentation mode)."""
    w.breakpoints = Breakpoints()
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    view.addSeparator()
    w.zoom_actions = []
    for text, keys, steps in ZOOM_ACTIONS:
        action = QAction(text, w)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect((lambda s: lambda: zoom(w, s))(steps))
        view.addAction(action)
        w.addAction(action)
        w.zoom_actions.append(action)
    action = QAction("&Breakpoints...", w)
    action.setShortcut(QKeySequence("Ctrl+B"))
    action.setToolTip("Pause the run when WA, GC, free blocks, wear or a logical page "
                      "reach what you set.")
    action.triggered.connect(lambda: open_dialog(w))
    view.addAction(action)
    w.addAction(action)
    w.breakpoints_action = action


def wire_view(w, v) -> None:
    """Connect drive view v's map, legend and worker to each other and to workbench w."""
    v.blockmap.view_changed.connect(lambda blocks: v.send("view", blocks))
    v.blockmap.heat_changed.connect(lambda: v.legend.show_heat(v.blockmap.heat))
    v.blockmap.pages_shown.connect(v.legend.show_pages)
    # the SLC cache's tab is listed while the map shows a drive with a cache (a lesson's
    # runs are drawn on this map too)
    v.blockmap.shown.connect(
        lambda snap: v.legend.show_slc(snap is not None and snap.slc is not None))
    v.blockmap.shown.connect(
        lambda snap: v.legend.show_handles(snap is not None and snap.handles is not None))
    v.legend.mode_chosen.connect(lambda mode: colour_by(w, mode))
    v.worker.breakpoint_hit.connect(lambda text: w.breakpoint_fired(v, text),
                                    Qt.ConnectionType.QueuedConnection)


def colour_by(w, mode: str) -> None:
    """The person's "Colour by" choice. During a lesson it colours the lesson's maps and
    nothing else: the workbench's own settings (its drive, paused until the lesson ends)
    stay out of sight. Asked of the workbench as a setting, it rewrote the controls and the
    map titles from free exploration's settings beside the lesson's run ("spare 7 %" where
    lesson 13 sets 12 %, 20/80 hot data where its text says 10/90)."""
    if getattr(w, "in_lesson", False):
        w.lesson_colouring = mode  # kept from step to step (dockedlessons.show_focus)
        colour_all(w, mode)
        return
    w.request(heatmap=mode)


def colour_all(w, mode: str) -> None:
    """Every shown map and its legend coloured by mode (a lesson's). B's legend shows only
    where its colours need a key of their own: a heat map's range is each drive's."""
    for i, v in enumerate(w.views):
        v.blockmap.set_mode(mode)
        v.legend.set_mode(mode)
        if i:
            v.legend.setVisible(mode != "state")


def zoom(w, steps: int) -> None:
    for v in w.views:
        if steps:
            v.blockmap.zoom(steps)
        else:
            v.blockmap.reset_zoom()


def follow_settings(w, v, s, drive_changed: bool) -> None:
    """View v's map colours blocks as the settings say; a new drive is shown whole."""
    v.blockmap.set_mode(s.heatmap)
    v.legend.set_mode(s.heatmap)
    if drive_changed:
        v.blockmap.reset_zoom()
        set_breakpoints(w, w.breakpoints, s.geometry())


def set_breakpoints(w, bp: Breakpoints, g) -> bool:
    """Use these breakpoints from now on; ones the drive cannot have (a logical page past
    the end of a smaller drive) are dropped, saying why."""
    try:
        bp.check(g)
    except ValueError as e:
        w.controls.show_error(f"Breakpoints: {e}")
        w.breakpoints = Breakpoints()
        for v in w.views:
            v.send("breakpoints", None)
        return False
    w.breakpoints = bp
    for v in w.views:
        v.send("breakpoints", bp)
    return True


def open_dialog(w) -> BreakpointDialog:
    """Show the breakpoint dialog (not modal); OK sets what it holds."""
    g = w.session.settings.geometry()
    dialog = BreakpointDialog(w.breakpoints, g, w)
    dialog.accepted.connect(lambda: set_breakpoints(w, dialog.result_breakpoints, g))
    w.breakpoint_dialog = dialog
    dialog.show()
    return dialog
