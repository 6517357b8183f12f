"""The lesson panel, docked beside the workbench, wired to it: while a lesson runs, it
drives drive A's map and the lower half (its results), the workbench's own run waits and its
buttons fold away; the glossary window and lesson files open from here. The panel itself is
ssdlab/app/gui/lessons/lessonpanel.py; a lesson that runs two configurations can set the frame's
drives with Workbench.compare(settings_a, settings_b)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog

from ssdlab.app.session.progress import load_progress
from ssdlab.lessons.catalogue import bundled
from ssdlab.lessons.giveaway import asked_drives
from ssdlab.lessons.glossary import load_glossary
from ssdlab.lessons.lesson import LessonError
from ssdlab.lessons.loader import load_lesson

from ..appearance.scrollfit import ScrollFit
from ..drive import mapwiring
from ..lessons import keepfocus
from ..lessons.glossarywindow import GlossaryWindow
from ..lessons.lessonpanel import LessonPanel
from ..lessons.lessonshown import COUNTED_STEPS
from ..settings.session import Session, Settings
from . import answerkeys, compare, statusline, themefit


def install(w) -> None:
    """The lesson panel, docked beside the workbench; it opens on the welcome page."""
    lessons = bundled()
    w.glossary = load_glossary()
    w.lesson_titles = {x.id: f"{x.order}. {x.title}" for x in lessons}
    w.glossary_window: GlossaryWindow | None = None
    w.lesson_progress = load_progress()
    panel = w.lesson_panel = LessonPanel(lessons, w.lesson_progress, w.lesson_results)
    keepfocus.install(panel)  # a button that turns disabled hands focus on sensibly
    answerkeys.install(panel)  # typing on a quiz goes to its answer, not to a shortcut
    panel.focus.connect(lambda f: show_focus(w, f))
    panel.drive_snapshot.connect(lambda snap: show_drive(w, snap))
    panel.second_drive.connect(lambda snap: show_drive(w, snap, 1))
    panel.heading.connect(w.progress_label.setText)
    # the GCs a lesson plays at teaching pace, zoomed in on so their pages show
    panel.watch.following.connect(lambda on: w.views[0].blockmap.follow_gc(on))
    panel.two_drives = True  # a run of two configurations shows on maps A and B
    panel.glossary_asked.connect(w.show_glossary)
    panel.explore.connect(lambda: w.lesson_dock.hide())
    panel.open_file_asked.connect(w.open_lesson_dialog)
    panel.active_changed.connect(lambda on: set_active(w, on))
    dock = w.lesson_dock = QDockWidget("Lessons")
    dock.setObjectName("lessons")
    # its Back/Next row reachable on a small screen; kept by name: a ScrollFit only Qt held
    # was collected by Python's garbage collector, from a simulation thread, with the
    # panel and its running lesson job inside ("QThread: Destroyed while thread is still
    # running", and the program aborted)
    w.lessons_fit = ScrollFit(panel, "lessons", keep_width=True)
    dock.setWidget(w.lessons_fit)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                     | QDockWidget.DockWidgetFeature.DockWidgetMovable)
    dock.setMinimumWidth(280)
    w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    w.resizeDocks([dock], [320], Qt.Orientation.Horizontal)
    w.in_lesson = False
    w._split_before: list[int] = []  # the map / charts split before a lesson
    w.panel_folded_for_lessons = False
    dock.visibilityChanged.connect(lambda shown: make_room(w, shown))


SEPARATOR_PX = 6  # the handle between the lesson panel and the rest, about


def make_room(w, shown: bool) -> None:
    """The lesson panel, the control panel and the map with its tally were wider than the
    screen in presentation type at 1024 px (the window grew to 1,248 px, its right part
    off the screen), and at 1.5x scaling on 1366 x 768 (1,004 of 911 logical px: the map
    area scrolled sideways): while the lesson panel shows outside a lesson, the control
    panel folds away (Show panel, F9, brings it back) and returns when the lesson panel
    closes."""
    present = w.presentation
    if shown:  # measured once the dock has its width (a dock not yet laid out is 640 px)
        QTimer.singleShot(0, w, lambda: _fold_beside_lessons(w))
    elif w.panel_folded_for_lessons:
        w.panel_folded_for_lessons = False
        if not present.panel_shown():
            present.set_panel(True)


def _fold_beside_lessons(w) -> None:
    if w.lesson_dock.isVisible() and not w.in_lesson and w.presentation.panel_shown():
        _fold_or_narrow(w, tell=False)


def fold_for_lesson(w) -> None:
    """A lesson's run on one drive (its map with the tally beside it), the read-only
    control panel and the lesson panel were wider than a 1024 px screen in presentation
    type (1,176 px), and than a 1366 px screen at 1.5x scaling: the control panel folds,
    once per lesson (Show panel, F9, brings it back and it stays), and returns when the
    lesson panel closes (make_room)."""
    if not (w.in_lesson and w.presentation.panel_shown()) or w.panel_folded_for_lessons:
        narrow_lessons(w)
    else:
        _fold_or_narrow(w, tell=True)


def _fold_or_narrow(w, tell: bool) -> None:
    """Fold the control panel where the window needs more than the screen (saying so when
    tell), else let the lesson panel give the rest the room it needs."""
    if needed_width_px(w) > screen_width_px(w):
        w.panel_folded_for_lessons = True
        w.presentation.set_panel(False)
        if tell:
            statusline.say(w, "Panel folded to fit (F9 shows it)")
    else:
        narrow_lessons(w)


def narrow_lessons(w) -> None:
    """The lesson panel gives the rest of the window the width it needs: a dock keeps the
    width it was given, and on a short screen the map and charts (which scroll there)
    claim little, so at 1.5x scaling they scrolled sideways beside a lesson panel 140 px
    wider than its least. The map area's own vertical scroll bar counts too (lesson 8's
    map area was 14 px short after its run)."""
    dock, area = w.lesson_dock, w.central_fit
    least = area.least().width()
    edge = area.width() - area.viewport().width()  # its vertical scroll bar, when shown
    if dock.isVisible() and area.viewport().width() < least:
        room = w.width() - least - edge - SEPARATOR_PX
        if room >= dock_least_px(w):
            w.resizeDocks([dock], [room], Qt.Orientation.Horizontal)


def needed_width_px(w) -> int:
    """The width the window needs, px: the map, charts and control panel at their least
    width (on a short screen they scroll, and claim little: they would scroll sideways)
    beside the lesson panel at its least."""
    need = max(w.central_fit.least().width(), w.central_fit.minimumSizeHint().width())
    dock = w.lesson_dock
    if dock.isVisibleTo(w):
        need += dock_least_px(w) + SEPARATOR_PX
    return need


def dock_least_px(w) -> int:
    """The lesson panel's least width with its frame, px (its own, not the little its
    scroll area claims on a short screen)."""
    fit = w.lessons_fit
    frame = w.lesson_dock.minimumSizeHint().width() - fit.minimumSizeHint().width()
    return frame + max(fit.least().width(), fit.minimumSizeHint().width())


def screen_width_px(w) -> int:
    """The width of the screen the window is on, px (logical: scaling divides it)."""
    screen = w.screen()
    return screen.geometry().width() if screen is not None else 1 << 20


def add_menu(w) -> None:
    """The Lessons menu; its keys are listed in shortcuts.TABLE with the rest. Its actions
    are the window's too, so their keys work while the menu bar is hidden."""
    lessons = w.menuBar().addMenu("&Lessons")
    toggle = w.lessons_action = w.lesson_dock.toggleViewAction()
    toggle.setText("&Lessons panel")
    toggle.setShortcut(QKeySequence("Ctrl+L"))
    lessons.addAction(toggle)
    w.addAction(toggle)
    for text, keys, slot in (("Open lesson &file...", QKeySequence(),
                              w.open_lesson_dialog),
                             ("&Glossary", QKeySequence("Ctrl+G"),
                              lambda: w.show_glossary(""))):
        action = QAction(text, w)
        action.setShortcut(keys)
        action.triggered.connect(slot)
        lessons.addAction(action)
        w.addAction(action)


def set_active(w, on: bool) -> None:
    """A lesson drives the map and the lower half; the workbench's own run waits."""
    w.in_lesson = on
    w.lesson_colouring = None  # the person's "Colour by" in this lesson (mapwiring.colour_by)
    # a lesson colours the map its own way (by state unless it says otherwise); the
    # person's "Colour by" choice comes back after it
    colour_maps(w, Settings().heatmap if on else None)
    if on:
        if compare.comparing(w):  # a lesson runs its own drives on A's map
            w.set_compare(False)
        w.send_all("pause")
        w.views[0].shows_own_drive = False
        w.blockmap.set_snapshot(None)
        w.progress_label.setText("The drive of the lesson's run appears here when it "
                                    "runs.")
    # the lesson runs the drive: the workbench's own buttons fold away, and the controls
    # (only the settings the lesson uses) need less width than the map and results
    w.button_bar.setVisible(not on)
    if on and w.panel_folded_for_lessons:  # the lesson's own settings show in the panel
        w.panel_folded_for_lessons = False
        w.presentation.set_panel(True)
    if on:
        themefit.fit_lesson_panel(w)
    else:
        w._fit_panel()
    w.controls_scroll.setHorizontalScrollBarPolicy(
        Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    w.lower.setCurrentWidget(w.lesson_results if on else w.charts_box)
    statusline.fit(w)  # the status figures describe the workbench's own drive
    compare.map_heights(w)  # the map's least height in a lesson, or the workbench's
    if on:  # after the controls narrowed, so the window need not grow to hold it
        w.lesson_dock.show()
        QTimer.singleShot(0, w, lambda: fold_for_lesson(w))
        w._split_before = w.right_split.sizes()
        total = sum(w._split_before)
        w.right_split.setSizes([int(total * 0.42), total - int(total * 0.42)])
        left, right = w.main_split.sizes()  # no gutter beside the narrowed controls
        w.main_split.setSizes([240, left + right - 240])
    if not on:
        if w._split_before:
            w.right_split.setSizes(w._split_before)
        w.views[0].shows_own_drive = True
        w.blockmap.set_snapshot(w.snapshot)
        w._status()


def colour_maps(w, mode: str | None) -> None:
    """Every shown map (and its legend) coloured by mode; None: by each drive's settings."""
    if mode is not None:
        mapwiring.colour_all(w, mode)
        return
    for v in w.views:
        shown = mode or v.settings.heatmap
        v.blockmap.set_mode(shown)
        v.legend.set_mode(shown)


def show_focus(w, focus) -> None:
    """The controls, map and tally for a lesson step (a lessonshown.LessonFocus; None: the
    workbench's own again)."""
    if focus is None:
        compare.lesson_pair(w, None)
        w.controls.set_lesson(None)
        w.show_settings()
        w.map_area.show()
        for v in w.views:
            v.tally.set_counted("")
            v.tally.withhold_wa("")
            v.tally.show()
        return
    compare.lesson_pair(w, focus.pair)
    colour_maps(w, getattr(w, "lesson_colouring", None) or focus.settings.heatmap)
    # a run that does not draw the map (a file-system scenario) leaves its room to results
    w.map_area.setVisible(focus.blockmap)
    shown = Session(focus.settings)
    panel = w.lesson_panel
    # a question still open that asks for this drive's spare the other way (lesson 2's
    # quiz) does not find its answer in the note under the Spare field
    asked = asked_drives(panel.lesson, panel.index, panel.play.answers) \
        if panel.lesson is not None else []
    g = focus.settings.geometry()
    of_user = not any(d.user_pages == g.user_pages and abs(d.spare - g.spare) < 1e-4
                      for d in asked)
    w.controls.show_settings(focus.settings, shown.op_text(of_user), shown.alignment_note())
    w.controls.set_lesson(focus.used)
    # which of the run's drives the settings are: with several, the student can tell
    w.controls.lesson_note.setText(
        f"The lesson sets these, for \u201c{focus.label}\u201d: the highlighted ones are what "
        "its run varies. Leave the lesson to change them.")
    # the tally counts from the drive's first write; the lesson's figures count less. Two
    # drives side by side (a pair) each have their tally: both say so, and a quiz keeps
    # both WAs back (B's would be the answer, or half of it, as much as A's)
    for v in w.views if focus.pair else w.views[:1]:
        v.tally.set_counted(*focus.counted)
        v.tally.withhold_wa(focus.withheld)
    # not yet for two file systems side by side (lesson 14): their tallies counted 1.195
    # and 1.223 where the run's steps give 1.266 and 1.303 (how the drive's counts after
    # its last step differ from the steps' own is not found yet); a figure on screen that
    # disagrees with the lesson's is worse than none, and the status bar names none there
    for v in w.views:
        v.tally.setHidden(bool(focus.pair) and focus.counted == COUNTED_STEPS)
    themefit.fit_lesson_panel(w)  # as wide as the settings it now shows need
    QTimer.singleShot(0, w, lambda: fold_for_lesson(w))  # once the new step is laid out


def show_drive(w, snap, view: int = 0) -> None:
    """The lesson's drive on map A (or B: the second of two run side by side); None: no
    drive on it (a run not played yet)."""
    if view >= len(w.views):
        return
    w.views[view].blockmap.set_snapshot(snap)
    if snap is not None and snap.segment and view == 0:
        w.progress_label.setText(f"Lesson run: {snap.segment}")


def show_glossary(w, term: str = "") -> None:
    """The glossary window, at `term` when it has it."""
    if w.glossary_window is None:
        w.glossary_window = GlossaryWindow(w.glossary, w.lesson_titles, w)
        w.glossary_window.open_lesson.connect(lambda i: open_lesson_id(w, i))
    if not (term and w.glossary_window.show_term(term)):
        w.glossary_window.show()
        w.glossary_window.raise_()
        w.glossary_window.activateWindow()  # the keyboard goes with it


def open_lesson_id(w, lesson_id: str) -> None:
    lesson = next((x for x in w.lesson_panel.lessons if x.id == lesson_id), None)
    if lesson is not None:
        w.lesson_dock.show()
        w.lesson_panel.start(lesson)


def open_lesson(w, path: str) -> bool:
    """Play a lesson file from disk (a teacher's). A bad file is reported, with its
    line and field, and whatever was on screen stays."""
    try:
        lesson = load_lesson(path, w.glossary)
    except LessonError as e:
        w.lesson_dock.show()
        w.lesson_panel.home_note.setText(f"Open lesson: {e}")
        statusline.say(w, f"Open lesson: {e}")
        return False
    w.lesson_dock.show()
    w.lesson_panel.start(lesson)
    return True


def open_lesson_dialog(w) -> None:
    path, _ = QFileDialog.getOpenFileName(w, "Open lesson", "",
                                          "SSD Lab lessons (*.toml)")
    if path:
        w.open_lesson(path)
