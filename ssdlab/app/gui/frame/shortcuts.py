"""The workbench's keyboard: one table defines every shortcut; the menus, the window-wide
shortcuts and the F1 help are all made from it, so the help cannot miss one.

Shortcuts act on the window whatever has focus, with two exceptions chosen on purpose: a
focused control keeps the plain keys it uses (Return presses a button, arrows move in a tab
bar or list: ssdlab/app/gui/frame/controlkeys.py; Space, the play/pause key, stays the
window's everywhere but in the lessons panel), and while a text field (a number box,
an editable text) has focus, keys without Ctrl or Alt type into it, so a spare of 30 can be
typed. Enter or Escape ends the edit (Enter keeps the value, Escape puts the setting back)
and the keyboard goes on to the next control, as Tab does (a field may name another: a
quiz's answer goes to Next), so the next 3 is "fast" again unless that control is a field
too. It once went to the window itself, which a screen reader called "SSD Lab frame", with
no focus ring anywhere (issue 38): the focus lands only on controls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..appearance import appevents
from . import controlkeys, taborder


@dataclass(frozen=True)
class Key:
    """One entry of the keyboard table: the key sequences (QKeySequence text, portable
    form), what they do (the help text), the window's method they call, and the menu
    ("File" or "View") and item text when the action also sits in a menu. slot "": the
    keys belong to a part that makes its own action (the Lessons menu, the map's zoom and
    breakpoints: ssdlab/app/gui/drive/mapwiring.py); they are listed here so the help has them all,
    and the help test fails when a part adds a key this table lacks."""

    keys: tuple[str, ...]
    does: str
    slot: str
    menu: str = ""
    item: str = ""
    checkable: bool = False  # the slot gets the new state
    args: tuple = ()  # passed to the slot


TABLE: tuple[Key, ...] = (
    Key(("Space",), "play / pause (starts the chosen workload when none is running), "
        "whatever has focus in the workbench; in the lessons panel it presses the focused "
        "button, and in a text field it types", "toggle_play"),
    Key(("Right", "."), "step one batch", "step"),
    Key(("G",), "step one garbage collection: collect one victim now", "step_gc"),
    Key(("Ctrl+Return", "Ctrl+Enter"), "run the chosen workload from the start (a "
        "running drive runs on: pause first)", "run_workload"),
    Key(("1",), "speed: slow", "set_speed", args=("slow",)),
    Key(("2",), "speed: normal", "set_speed", args=("normal",)),
    Key(("3",), "speed: fast (flat out)", "set_speed", args=("fast",)),
    Key(("4",), "speed: teach (each GC: victim, move, erase)", "set_speed", args=("teach",)),
    Key(("Ctrl+R",), "reset the drive (keep the settings and breakpoints); asks first "
        "when a run would be lost", "ask_reset_drive"),
    Key(("Alt+R",), "Reset All: settings, breakpoints, drive and charts as at start-up "
        "(presentation mode stays); asks first when a run would be lost", "ask_reset_all"),
    Key(("Ctrl+Tab",), "next chart", "next_chart", args=(1,)),
    Key(("Ctrl+Shift+Tab", "Ctrl+Backtab"), "previous chart", "next_chart", args=(-1,)),
    Key(("Ctrl+O",), "open a session", "open_dialog", "File", "&Open session..."),
    Key(("Ctrl+S",), "save the session", "save_dialog", "File", "&Save session..."),
    Key(("Ctrl+Shift+O",), "open a scenario file and run its steps", "open_scenario_dialog",
        "File", "Open s&cenario..."),
    Key(("Ctrl+Shift+S",), "save this file-system run as a scenario file",
        "save_scenario_dialog", "File", "Save as sce&nario..."),
    Key(("Ctrl+E",), "export a chart or the block map: PNG, SVG, PDF or CSV (or right-click "
        "it)", "export_dialog", "File", "&Export chart..."),
    Key(("Ctrl+Shift+E",), "export every chart of the run into one folder, in the formats "
        "chosen: the files ssdlab chart --chart all writes", "export_all_dialog", "File",
        "Export &all charts..."),
    Key(("Ctrl+Q",), "quit", "close", "File", "&Quit"),
    Key(("F11",), "presentation mode: full screen, large type, projector colours (unless "
        "the preferences choose others)",
        "toggle_presentation", "View", "&Presentation mode", checkable=True),
    Key(("F9",), "show / hide the control panel (the map and charts take the room)",
        "toggle_panel", "View", "&Control panel", checkable=True),
    Key(("F7",), "on a short screen (768 lines in large type), in a lesson: show the "
        "lesson's drive or its results, whichever is hidden; with two drives or a kept "
        "reference: the drives or the charts", "flip_stage"),
    Key(("PgDown",), "a lesson's results in pages (a short screen in large type): the "
        "next figures, wherever the keyboard is, unless the focused control scrolls with "
        "it (the lesson's text, a list, a spin box)", "turn_results", args=(1,)),
    Key(("PgUp",), "a lesson's results in pages: the earlier figures (as Page Down)",
        "turn_results", args=(-1,)),
    Key(("Alt+Right",), "in a lesson: the next step (Next, or Finish on the last), "
        "wherever the keyboard is", ""),
    Key(("Alt+Left",), "in a lesson: the previous step (Back)", ""),
    Key(("Ctrl+D",), "compare two drives side by side (A and B, the same workload in "
        "lockstep), or back to one", "toggle_compare", "View", "Compare two &drives",
        checkable=True),
    Key(("Ctrl+1",), "compare mode: the control panel edits drive A", "edit_drive",
        args=(0,)),
    Key(("Ctrl+2",), "compare mode: the control panel edits drive B", "edit_drive",
        args=(1,)),
    Key(("Ctrl+K",), "keep this run as a reference: its curves stay on the charts, faded",
        "pin_reference", "View", "&Keep as reference"),
    Key(("Ctrl+Shift+K",), "clear the reference", "clear_reference", "View",
        "C&lear reference"),
    Key(("F1", "?"), "this list", "show_help", "View", "&Keyboard help"),
    Key(("Shift+F1",), "the focused control's tooltip (what it does, its glossary "
        "definition), as hovering shows it", ""),
    Key(("Ctrl+Shift+Left", "Ctrl+Shift+Right"), "move the divider between the control "
        "panel and the map", ""),
    Key(("Ctrl+Shift+Up", "Ctrl+Shift+Down"), "move the divider between the map and the "
        "charts", ""),
    Key(("Ctrl+=", "Ctrl++"), "zoom in on the block map", ""),
    Key(("Ctrl+-",), "zoom the block map out", ""),
    Key(("Ctrl+0",), "the whole drive on the block map", ""),
    Key(("Ctrl+B",), "breakpoints: pause on WA, Nth GC, a full victim, free blocks, wear or "
        "a page", ""),
    Key(("F6", "Shift+F6"), "to the next or previous part of the window: the control panel, "
        "the map and its buttons, the charts, the lessons panel", ""),
    Key(("Ctrl+L",), "show or hide the lessons panel", ""),
    Key(("Ctrl+G",), "the glossary, with a search", ""),
    Key(("Ctrl+,",), "preferences: colour profile, reduced motion, text size", ""),
)

# Keys a text field keeps, listed in the help so the list is the whole story.
FIELD_KEYS = (("Return or Enter", "on a focused button or tick box: press it; on a "
               "drop-down list: open it (F4 or Alt+Down too)"),
              ("Enter", "in a field: keep the value and go on to the next control"),
              ("Escape", "in a field: put the setting back and go on to the next control; "
               "in a lesson: cancel the run"),
              ("letters, digits, .", "on a lesson's quiz or estimate: type into its answer, "
               "wherever in the lesson the keyboard is (no window key fires)"),
              ("+ / - / 0, wheel, drag", "on the block map (click it first): zoom in, out, "
               "whole drive; arrows pan while zoomed"),
              ("arrows, Home, End, Page Up / Down", "on the block map reached by Tab: move "
               "the block cursor (its block's details show; + / - zoom about it; "
               "Shift+arrows pan)"))


def _native(text: str) -> str:
    return QKeySequence(text).toString(QKeySequence.SequenceFormat.NativeText)


def help_rows() -> list[tuple[str, str]]:
    """(keys, what they do) for every entry of the table, then the field keys."""
    return [(" or ".join(_native(k) for k in key.keys), key.does) for key in TABLE] + list(
        FIELD_KEYS)


def install(window: QMainWindow, revert: Callable[[], None]) -> dict[str, QAction]:
    """Make the window's menus and shortcuts from TABLE (window-wide: they fire whatever
    widget has focus) and the field rule; returns the menu actions by slot name. revert():
    puts the controls back to the settings in force (Escape in a field)."""
    menus = {name: window.menuBar().addMenu("&" + name) for name in ("File", "View")}
    actions: dict[str, QAction] = {}
    window.shortcut_objects = []  # every QShortcut made here, for the help test
    for key in TABLE:
        if not key.slot:
            continue  # made by the part it belongs to
        slot = getattr(window, key.slot)
        if key.args:
            slot = (lambda s, a: lambda: s(*a))(slot, key.args)
        sequences = [QKeySequence(k) for k in key.keys]
        if key.menu:
            action = QAction(key.item, window)
            action.setShortcuts(sequences)
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.setCheckable(key.checkable)
            (action.toggled if key.checkable else action.triggered).connect(
                slot if key.checkable else (lambda _c=False, s=slot: s()))
            menus[key.menu].addAction(action)
            window.addAction(action)  # fires while the menu bar is hidden (full screen)
            actions[key.slot] = action
            continue
        for seq in sequences:
            sc = QShortcut(seq, window)
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
            sc.activated.connect(slot)
            window.shortcut_objects.append(sc)
    window._field_keys = FieldKeys(window, revert)
    appevents.watch(window._field_keys, "keys")  # leaves with the window, its parent
    return actions


def text_field(w: QWidget | None) -> QWidget | None:
    """The text field w is (or is inside: a spin box's line edit), or None."""
    while w is not None:
        if isinstance(w, QAbstractSpinBox):
            return w
        if isinstance(w, QComboBox):
            return w if w.isEditable() else None
        if isinstance(w, QLineEdit | QTextEdit | QPlainTextEdit):
            return None if w.isReadOnly() else w
        w = w.parentWidget()
    return None


class FieldKeys(QObject):
    """The field rule, for the widgets of one window: plain keys type into a focused text
    field (no shortcut fires); Enter and Escape end the edit and take focus off the field."""

    def __init__(self, window: QWidget, revert: Callable[[], None]):
        super().__init__(window)
        self.window = window
        self.revert = revert

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        # a key event (appevents.py sorts the application's events)
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) \
                or not isinstance(obj, QWidget) or obj.window() is not self.window:
            return False
        mods = event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                    | Qt.KeyboardModifier.AltModifier
                                    | Qt.KeyboardModifier.MetaModifier)
        key = event.key()
        if not mods and kind == QEvent.Type.ShortcutOverride and controlkeys.owned(
                obj, key, self._in_lessons(obj)):
            event.accept()  # the focused control's key, not the window's shortcut
            return False
        if not mods and kind == QEvent.Type.KeyPress and controlkeys.press_on_return(obj, key):
            return True
        field = text_field(obj)
        if field is None:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            # a plain key (not a function key) belongs to the field
            if not mods and not Qt.Key.Key_F1 <= key <= Qt.Key.Key_F35:
                event.accept()
            return False
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not mods:
            QTimer.singleShot(0, lambda f=field: self._leave(f))  # after the field commits
        elif key == Qt.Key.Key_Escape:
            self.revert()
            self._leave(field)
            return True
        return False

    def _in_lessons(self, w: QWidget) -> bool:
        """w is in the lessons panel or a lesson's results (there Space presses buttons)."""
        panel = getattr(self.window, "lesson_panel", None)
        if panel is None:
            return False
        return any(part is w or part.isAncestorOf(w)
                   for part in (panel, getattr(panel, "results", None)) if part is not None)

    def _leave(self, field: QWidget) -> None:
        if field.hasFocus() or field.isAncestorOf(QApplication.focusWidget()):
            # a field may name where Enter takes the keyboard (a quiz's answer: Show answer
            # or Next); else the next control, as Tab goes
            after = getattr(field, "focus_after_enter", None)
            to = after() if after is not None else None
            to = to or taborder.neighbour(self.window, field, True)
            if to is not None and to is not field:
                taborder.focus(to)


def help_dialog(parent: QWidget) -> QDialog:
    """The keyboard help, made from TABLE (so no shortcut can be missing). Never wider than
    the screen: the "does" column wraps (at 18 pt its longest line is wider than 1024 px)."""
    rows = help_rows()
    dialog = QDialog(parent)
    dialog.setWindowTitle("Keyboard")
    table = QTableWidget(len(rows), 2, dialog)
    table.setHorizontalHeaderLabels(["key", "does"])
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setAccessibleName("Keyboard shortcuts")
    table.setTabKeyNavigation(False)  # Tab leaves the table (arrows walk its cells)
    for row, (key, text) in enumerate(rows):
        table.setItem(row, 0, QTableWidgetItem(key))
        table.setItem(row, 1, QTableWidgetItem(text))
    table.setWordWrap(True)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.resizeColumnsToContents()
    table.verticalHeader().hide()
    layout = QVBoxLayout(dialog)
    layout.addWidget(table)
    screen = parent.screen().availableGeometry() if parent.screen() else None
    width = table.horizontalHeader().length() + 40
    if screen is not None:
        width = min(width, int(screen.width() * 0.95))
    keys = table.columnWidth(0)
    table.setColumnWidth(1, width - keys - 40)
    table.horizontalHeader().setStretchLastSection(True)
    table.resizeRowsToContents()
    height = table.verticalHeader().length() + table.horizontalHeader().height() + 40
    if screen is not None:
        height = min(height, int(screen.height() * 0.9))
    dialog.resize(width, height)
    return dialog
