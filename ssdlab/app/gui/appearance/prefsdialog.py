"""The Preferences dialog (View > Preferences..., by keyboard Alt+V; in presentation mode
under the Menu button): colour profile, reduced motion and text size
(ssdlab/app/gui/appearance/preferences.py).
Every control has a label a screen reader reads and works by keyboard; OK keeps the choice
(saved for the next session), Cancel leaves things as they were.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFontDatabase, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from . import preferences as prefs_file
from .preferences import COLOURS, TEXT_PCTS, Preferences

FALLBACK_PT = 9.0  # a desktop that names its font in pixels and no resolution


def desktop_pt() -> float:
    """The desktop's general font size in points (what "100 %" means)."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
    if font.pointSizeF() > 0:
        return font.pointSizeF()
    return font.pixelSize() * 0.75 if font.pixelSize() > 0 else FALLBACK_PT


class PreferencesDialog(QDialog):
    """Shows `current`; chosen() is the person's choice once accepted."""

    def __init__(self, current: Preferences, problem: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        form = QFormLayout()
        self.colours = QComboBox()
        for key, text in COLOURS.items():
            self.colours.addItem(text, key)
        self.colours.setCurrentIndex(self.colours.findData(current.colours))
        self.colours.setToolTip("The colour profile: the light page, the projector's black "
                                "page with high contrast and thick lines, or the projector's "
                                "only in presentation mode (F11).")
        self.motion = QCheckBox("Reduce motion")
        self.motion.setChecked(current.reduced_motion)
        self.motion.setToolTip("The block map changes each block's colour at most once a "
                               "second (otherwise about three times), at every speed.")
        self.text = QComboBox()
        base = desktop_pt()
        for pct in TEXT_PCTS:
            self.text.addItem(f"{pct} % ({base * pct / 100:.3g} pt)", pct)
        self.text.setCurrentIndex(self.text.findData(current.text_pct))
        self.text.setToolTip("Text size as a share of the desktop's font size "
                             f"({base:.3g} pt); presentation mode's is at least 18 pt.")
        for label, field in (("&Colours", self.colours), ("&Motion", self.motion),
                             ("&Text size", self.text)):
            tag = QLabel(label)
            tag.setBuddy(field)  # a screen reader names the field by its label
            # a check box is named by its own words ("Reduce motion"), which say what
            # ticking it does; the row's label only groups it ("Motion")
            field.setAccessibleName(field.text() if isinstance(field, QCheckBox)
                                    else label.replace("&", ""))
            form.addRow(tag, field)
        self.problem = QLabel(problem)
        self.problem.setObjectName("error")
        self.problem.setWordWrap(True)
        self.problem.setVisible(bool(problem))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addWidget(self.problem)
        box.addLayout(form)
        box.addWidget(buttons)

    def chosen(self) -> Preferences:
        return Preferences(colours=self.colours.currentData(),
                           reduced_motion=self.motion.isChecked(),
                           text_pct=int(self.text.currentData()))


KEY = "Ctrl+,"  # the usual key for preferences; listed in the window's keyboard table


def add_to_menu(neighbour: QAction, open_dialog, window: QWidget) -> QAction:
    """"Preferences..." (Ctrl+,) in the menu that holds `neighbour` (View, beside
    presentation mode). The action is the window's too, so its key works while the menu
    bar is hidden (presentation mode), as the keyboard table's own actions do."""
    menu = next(m for m in neighbour.associatedObjects() if isinstance(m, QMenu))
    action = QAction("P&references...", menu)
    action.setToolTip("Colours, reduced motion and text size, kept for the next start.")
    action.setShortcut(QKeySequence(KEY))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.triggered.connect(lambda _checked=False: open_dialog())
    menu.addAction(action)
    window.addAction(action)
    return action


def load() -> tuple[Preferences, str]:
    """The saved preferences, made the ones in force; and why the file was not (all) used."""
    prefs, problem = prefs_file.load()
    prefs_file.set_in_force(prefs)
    return prefs, problem
