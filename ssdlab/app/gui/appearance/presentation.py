"""Presentation mode (F11): the window full screen, in large type (18 pt or more) and, unless
the person's preferences say otherwise, the projector colour profile (black page,
high-contrast colours, 4 px chart lines), its menu bar hidden (every menu item keeps its
key). The preferences (ssdlab/app/gui/appearance/preferences.py) choose colours and type in either
mode; they are read here at start and changed in the Preferences dialog. The control
panel folds away on its own key (F9) or button, in either mode, to give the block map and
charts the screen; a message about a setting unfolds it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QMainWindow, QPushButton, QWidget

from . import preferences, prefsdialog, theme
from .preferences import Preferences


class Presentation(QObject):
    """Owns the window's presentation state. apply_theme(): restyles the window after a
    theme change; panel: the control panel's container; error: the panel's message label
    (when it appears, the panel unfolds so the message is seen)."""

    def __init__(self, window: QMainWindow, panel: QWidget, error: QWidget,
                 apply_theme: Callable[[], None]):
        super().__init__(window)
        self.window = window
        self.panel = panel
        self.apply_theme = apply_theme
        self.on = False
        self._panel = True
        self._was_maximized = False
        self._geometry = None  # the window's before presentation mode
        # a plain button named for what it does: as a toggle it was heard as "Hide panel,
        # pressed", which reads as the panel hidden when it shows
        self.panel_button = QPushButton()
        self.panel_button.setToolTip("Show or hide the control panel, to give the block map "
                                     "and charts the screen (F9).")
        self.panel_button.clicked.connect(lambda: self.choose_panel(not self._panel))
        self.on_change: Callable[[], None] = lambda: None  # menu check marks follow
        # the person showed or hid the panel (F9 or its button), before it changes
        self.on_choice: Callable[[bool], None] = lambda shown: None
        self.tell: Callable[[str], None] = lambda text: None  # the window's status line
        error.installEventFilter(self)
        window.installEventFilter(self)  # its layout changes: back to the screen's size
        self._grown = False  # the window outgrew the screen with its layout (_note_growth)
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.timeout.connect(self.fill_screen)
        self._label()
        self.prefs, self.prefs_problem = prefsdialog.load()
        self.prefs_dialog: prefsdialog.PreferencesDialog | None = None
        self._set_theme()  # the window applies it once built

    def _set_theme(self) -> None:
        p = self.prefs
        theme.set_current(p.colour_profile(self.on),
                          p.font_pt(prefsdialog.desktop_pt(), self.on, theme.PRESENTATION_PT))

    def set_preferences(self, prefs: Preferences) -> str:
        """The person's new choice, in force at once and saved; returns "" or why it could
        not be saved."""
        self.prefs, self.prefs_problem = prefs, ""
        preferences.set_in_force(prefs)
        self._set_theme()
        self.apply_theme()
        if self.on:
            self._refit.start(0)
        self.on_change()
        return preferences.save(prefs)

    def open_preferences(self) -> prefsdialog.PreferencesDialog:
        """The Preferences dialog, window-modal; OK puts its choice in force."""
        dialog = self.prefs_dialog = prefsdialog.PreferencesDialog(
            self.prefs, self.prefs_problem, self.window)
        dialog.accepted.connect(lambda: self._saved(self.set_preferences(dialog.chosen())))
        dialog.open()
        return dialog

    def _saved(self, problem: str) -> None:
        if problem:  # the choice holds for this session; the person is told it was not kept
            self.prefs_problem = problem
            self.tell(problem)

    def _label(self) -> None:
        self.panel_button.setText("Hide panel" if self.panel_shown() else "Show panel")

    def panel_shown(self) -> bool:
        return self._panel

    def choose_panel(self, shown: bool) -> None:
        """The person's own choice (F9 or the panel's button): the window is told first,
        so that no rule of its own folds the panel back at once (frame/workbench.py)."""
        self.on_choice(shown)
        self.set_panel(shown)

    def set_panel(self, shown: bool) -> None:
        self._panel = shown
        self.panel.setVisible(shown)
        self._label()
        self.on_change()

    def set_on(self, on: bool) -> None:
        """Full screen in the projector profile, or back to the window as it was."""
        if on == self.on:
            return
        self.on = on
        self._grown = False
        w = self.window
        self._set_theme()
        if on:
            self._was_maximized = w.isMaximized()
            self._geometry = w.geometry()
            w.menuBar().hide()
            w.showFullScreen()
        else:
            w.menuBar().show()
            if self._was_maximized:
                w.showMaximized()
            else:
                w.showNormal()
                if self._geometry is not None:
                    w.setGeometry(self._geometry)
        self.apply_theme()
        if on:  # without a window manager nobody else sizes it
            if w.screen() is not None:
                w.setGeometry(w.screen().geometry())
            self._refit.start(0)  # again once the new type has settled
        self.on_change()

    def fill_screen(self) -> None:
        """In presentation mode the window is the screen (without a window manager nobody
        else sizes it)."""
        w, screen = self.window, self.window.screen()
        if screen is None or not self.on:
            return
        room = screen.geometry()
        # a window as wide as the screen and taller grew with its layout; one another size
        # was sized on purpose (a test showing 1920 x 1080 on a smaller screen)
        if self._grown or (w.width() == room.width() and w.height() > room.height()):
            w.setGeometry(room)
            self._grown = w.size() != room.size()  # again once its layout needs less

    def _note_growth(self, event) -> None:
        """A window that filled the screen and grew to its layout's minimum (the lesson
        panel opened beside the controls: 1248 px on a 1024 px screen) goes back to the
        screen once the layout needs less; one sized on purpose stays as it was sized."""
        w, screen = self.window, self.window.screen()
        if screen is None:
            return
        room, new, old = screen.geometry().size(), event.size(), event.oldSize()
        if old.width() <= room.width() and old.height() <= room.height() and (
                new.width() > room.width() and new.width() == w.minimumWidth()
                or new.height() > room.height() and new.height() == w.minimumHeight()):
            self._grown = True

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        kind = event.type()
        if obj is self.window:
            # a layout that needed more room grew the window past the screen; once it
            # needs less, the window goes back to the screen's size
            if self.on and kind in (QEvent.Type.LayoutRequest, QEvent.Type.Resize):
                if kind == QEvent.Type.Resize:
                    self._note_growth(event)
                self._refit.start(0)
            return False
        if kind == QEvent.Type.ShowToParent and not self.panel_shown():
            self.set_panel(True)  # a message about a setting must be seen
        return False

    def reset(self) -> None:
        """As at start-up: a window with its panel, in the desk profile."""
        self.set_on(False)
        self.set_panel(True)

