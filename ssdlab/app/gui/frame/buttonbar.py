"""The workbench's button bar: run, play/pause, step, GC, speed, reset, compare (A | B), keep
as reference, the panel's fold and help. Every button has its key in
ssdlab/app/gui/frame/shortcuts.py; the row wraps (FlowLayout) rather than clip in presentation type
at 1024 px."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QWidget,
)

from ssdlab.app.session.schema import SETTINGS

from ..appearance.flowlayout import FlowLayout
from ..settings.session import Settings
from . import compare


def button(text: str, tip: str, slot, longest: str = "") -> QPushButton:
    """A push button sized to its text (`longest`: a label it switches to)."""
    b = QPushButton(text)
    b.setToolTip(tip)
    b.clicked.connect(slot)
    # The style's default minimum (about 80 px) would keep the window wider than 1024;
    # the text's own width is enough. `longest` is a label the button switches to.
    fm = b.fontMetrics()
    b.setMinimumWidth(max(fm.horizontalAdvance(t) for t in (text, longest)) + 20)
    return b


def build(w) -> QWidget:
    """Make workbench w's buttons (w.run_button, w.play_button, ... w.speed) and the bar
    holding them, w.presentation's panel button among them."""
    w.run_button = button("Run", "Start the chosen workload from its beginning; a running "
                          "drive runs on (Ctrl+Enter).",
                          w.run_workload)
    w.play_button = button("Play", "Play or pause the run (Space).", w.toggle_play,
                           longest="Pause")
    w.step_button = button("Step", "Run one batch, then stop (Right arrow).", w.step)
    w.gc_button = button("GC", "Collect one victim block now and show its copies and erase "
                         "(G).", w.step_gc)
    w.reset_button = button("Reset drive", "Erase the drive and clear the charts; settings "
                            "and breakpoints stay; asks first when a run would be lost "
                            "(Ctrl+R).", w.ask_reset_drive)
    w.reset_all_button = button("Reset All", "Everything back to the start-up state: "
                                "settings, breakpoints, drive, charts; presentation "
                                "mode stays; asks first when a run would be lost "
                                "(Alt+R).", w.ask_reset_all)
    # short, and checked while on: with the rest they fit two rows at 18 pt in 1024 px
    w.compare_button = button("A | B", "Compare two drives side by side, A and B, fed the "
                              "same workload in lockstep; again for one drive (Ctrl+D).",
                              lambda: w.toggle_compare(not compare.comparing(w)))
    w.reference_button = button(
        "Ref", "Keep this run as a reference: its curves stay on the charts, faded, while "
        "you change the drive and run again (Ctrl+K); again to clear it (Ctrl+Shift+K).",
        lambda: w.clear_reference() if w.references else w.pin_reference())
    w.compare_button.setAccessibleName("Compare two drives, A and B")
    w.reference_button.setAccessibleName("Keep as reference")
    for b in (w.compare_button, w.reference_button):
        b.setCheckable(True)
        b.setObjectName("toggle")  # the style sheet marks it while on
    w.speed = QComboBox()
    for key in SETTINGS["speed"].choices:
        w.speed.addItem(key, key)
    w.speed.setCurrentIndex(w.speed.findData(Settings().speed))
    w.speed.setToolTip("Animation speed: slow and normal show every batch; fast runs flat out "
                       "and shows a frame 30 times a second; teach plays each garbage collection "
                       "phase by phase: victim, move, erase (keys 1, 2, 3, 4).")
    w.speed.currentIndexChanged.connect(lambda _i: w.request(speed=w.speed.currentData()))
    help_button = button("?", "Keyboard help (F1).", w.show_help)
    help_button.setAccessibleName("Keyboard help")
    # presentation mode hides the menu bar: this button holds its menus (fill_menu)
    w.menu_button = QToolButton()
    w.menu_button.setText("Menu")
    w.menu_button.setAccessibleName("Menu: every menu of the window")
    w.menu_button.setToolTip("Every menu of the window: files, view, zoom, breakpoints, "
                             "lessons, glossary (the menu bar is hidden in presentation "
                             "mode).")
    w.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    w.menu_button.setMenu(QMenu(w.menu_button))
    w.menu_button.hide()
    bar_widget = QWidget()
    # wraps rather than clips in large type; rows 2 px apart, so three rows (two drives in
    # presentation type) leave 768 px enough for the maps and charts
    bar = FlowLayout(bar_widget, row_spacing=2)
    speed = QWidget()  # the label stays with its list when the row wraps
    pair = QHBoxLayout(speed)
    pair.setContentsMargins(0, 0, 0, 0)
    label = QLabel("Speed")
    label.setBuddy(w.speed)  # a screen reader reads the list as "Speed", not only "normal"
    pair.addWidget(label)
    pair.addWidget(w.speed)
    for b in (w.run_button, w.play_button, w.step_button, w.gc_button, speed, w.reset_button,
              w.reset_all_button, w.compare_button, w.reference_button,
              w.presentation.panel_button, help_button, w.menu_button):
        bar.addWidget(b)
    return bar_widget


def fill_menu(w) -> None:
    """The menu button holds the menu bar's menus, once they are all made."""
    menu = w.menu_button.menu()
    for action in w.menuBar().actions():
        if action.menu() is not None:
            menu.addMenu(action.menu())


def follow_presentation(w) -> None:
    """The menu button shows while the menu bar is hidden."""
    w.menu_button.setVisible(w.presentation.on)
