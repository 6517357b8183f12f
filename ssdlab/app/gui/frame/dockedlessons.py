"""The lesson panel, docked beside the workbench, wired to it: while a lesson runs, it
drives drive A's map and the lower half (its results), the workbench's own run waits and its
buttons fold away; the glossary window and lesson files open from here. The panel itself is
ssdlab/app/gui/lessons/lessonpanel.py; a lesson that runs two configurations can set the frame's
drives with Workbench.compare(settings_a, settings_b)."""

from __future__ import annotations

from PySide6.QtCore import Qt
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
from ..settings.session import Session, Settings
from . import answerkeys, arranger, compare, statusline, themefit


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
    w.resizeDocks([dock], [arranger.LESSONS_OWN_PX], Qt.Orientation.Horizontal)
    w.in_lesson = False
    w.lesson_map_shown = True  # the lesson's run draws the map (show_focus)
    w._split_before: list[int] = []  # the map / charts split before a lesson
    # the control panel may fold beside the lessons panel (the layout policy's table)
    dock.visibilityChanged.connect(lambda _shown: w.arranger.update())
    # a lesson's drive and results take turns on a short screen: the step's figure shows
    w.lesson_results.changed.connect(w.arranger.update)
    panel.watch.following.connect(lambda _on: w.arranger.update())


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
    if on:
        themefit.fit_lesson_panel(w)
    else:
        w._fit_panel()
    w.controls_scroll.setHorizontalScrollBarPolicy(
        Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    w.lower.setCurrentWidget(w.lesson_results if on else w.charts_box)
    compare.map_heights(w)  # the map's least height in a lesson, or the workbench's
    if on:  # after the controls narrowed, so the window need not grow to hold it
        w.lesson_dock.show()
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
    w.arranger.update()  # the status figures describe the workbench's own drive


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
        w.lesson_map_shown = True
        w.arranger.update()
        for v in w.views:
            v.tally.set_counted("")
            v.tally.withhold_wa("")
            v.tally.show()
        return
    compare.lesson_pair(w, focus.pair)
    colour_maps(w, getattr(w, "lesson_colouring", None) or focus.settings.heatmap)
    # a run that does not draw the map (a file-system scenario) leaves its room to results
    w.lesson_map_shown = focus.blockmap  # the arranger shows or hides it (below)
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
        "its run varies. Leave the lesson to change them."
        + (f" It also sets what no control here shows: {focus.beyond}." if focus.beyond
           else ""))
    # the tally counts from the drive's first write; the lesson's figures count less. Two
    # drives side by side (a pair) each have their tally: both say so, and a quiz keeps
    # both WAs back (B's would be the answer, or half of it, as much as A's)
    for v in w.views if focus.pair else w.views[:1]:
        v.tally.set_counted(*focus.counted)
        v.tally.withhold_wa(focus.withheld)
    # two file systems side by side (lesson 14) have theirs too: a file system's tally
    # adds up its run's steps, as the lesson's figures do (lessonrun.host_bytes_fields)
    for v in w.views:
        v.tally.show()
    themefit.fit_lesson_panel(w)  # as wide as the settings it now shows need
    w.arranger.update()  # the step's figure: its drive or its results (a short screen)


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


def open_lesson_id(w, lesson_id: str) -> bool:
    """Open a lesson the glossary links to; a lesson in progress is left only when the
    student says so (the link said it would ask). True when it opened."""
    lesson = next((x for x in w.lesson_panel.lessons if x.id == lesson_id), None)
    if lesson is None:
        return False
    now = w.lesson_panel.lesson
    if now is not None and now.id != lesson_id and not w.confirm(
            f"Leave lesson {now.order}, {now.title}, for lesson {lesson.order}, "
            f"{lesson.title}? You can come back to it where you left off."):
        return False
    w.lesson_dock.show()
    w.lesson_panel.start(lesson)
    return True


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
