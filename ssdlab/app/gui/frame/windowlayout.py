"""The workbench's layout (ssdlab/app/gui/frame/workbench.py): the control panel on the left, the
button bar and progress line over the drives' block maps and legends, the charts (or a
lesson's results) below, the status bar, and the menus, keys, lesson panel, export and map
tools installed into it. A mixin of Workbench: it builds the window's widgets once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..appearance import prefsdialog, wheelguard
from ..appearance.fullnote import FullNote
from ..appearance.presentation import Presentation
from ..appearance.scrollfit import ScrollFit
from ..charts.charts import Charts
from ..drive import mapwiring
from ..drive.driveview import DriveView
from ..lessons.lessonresults import LessonResults
from ..settings.controls import Controls
from . import (
    buttonbar,
    dockedlessons,
    exportdialog,
    partkeys,
    shortcuts,
    splitterkeys,
    statusline,
    taborder,
    tipkey,
)
from .arranger import Arranger
from .splitfit import SplitFit


class WindowLayout:
    """Workbench's _build: the widgets of the window, made once."""

    def _size_lower_pages(self) -> None:
        """The hidden page of the lower half ignored in height and width (its own policy
        kept for when it shows): in a lesson the workbench's hidden charts, 954 px at least
        in projector type, made the window 1,480 px wide on a 1024 px screen."""
        own = self.__dict__.setdefault("_lower_policies", {})
        for i in range(self.lower.count()):
            page = self.lower.widget(i)
            policy = page.sizePolicy()
            own.setdefault(page, (policy.horizontalPolicy(), policy.verticalPolicy()))
            shown = page is self.lower.currentWidget()
            ignored = QSizePolicy.Policy.Ignored
            policy.setHorizontalPolicy(own[page][0] if shown else ignored)
            policy.setVerticalPolicy(own[page][1] if shown else ignored)
            page.setSizePolicy(policy)
        self.lower.updateGeometry()

    def _build(self, a: DriveView) -> None:
        self.views.append(a)
        wheelguard.install(QApplication.instance())
        # The frame first, then each part put in its place as soon as it is made: a part
        # moved under another is restyled whole (the application's style sheet), so parts
        # built apart and moved up a level at a time were restyled once per level, about
        # two thirds of the time it took to build the window.
        split = self.main_split = QSplitter(Qt.Orientation.Horizontal)
        # scrolls on a small screen; kept by name, as the lesson panel's (dockedlessons.py)
        self.central_fit = ScrollFit(split, "central")
        self.setCentralWidget(self.central_fit)
        scroll = QScrollArea()
        split.addWidget(scroll)
        stage = self.stage = QWidget()  # the map and charts, or a lesson's drive and results
        split.addWidget(stage)
        split.setStretchFactor(1, 1)
        self.controls = Controls(self.request)
        self.controls.on_fstrim = self.fstrim_now
        self.controls.on_browse = self.choose_trace
        self.controls.on_drive = self.edit_drive
        # the file-system section's rows were 7 px wider than the panel fitted with it
        # folded: opened, the panel scrolled sideways (1366x768, a profile chosen)
        self.controls.on_fold = lambda: self._fit_panel() if hasattr(self, "arranger") else None
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        # Tab stops on it when a lesson disables every setting in it: say what it is
        scroll.setAccessibleName("Control panel")
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.controls_scroll = scroll

        self.presentation = Presentation(self, scroll, self.controls.error, self._apply_theme)
        self.arranger = Arranger(self)  # the one place the arrangement is applied
        self.stage_flip = self.arranger.stage_button  # F7's button, a part of its own by Tab
        sv = QVBoxLayout(stage)
        sv.setContentsMargins(0, 0, 0, 0)
        sv.setSpacing(2)
        sv.addWidget(self.arranger.stage_button, 0, Qt.AlignmentFlag.AlignLeft)
        right = self.right_split = QSplitter(Qt.Orientation.Vertical)
        sv.addWidget(right, 1)
        top = self.map_area = QWidget()
        right.addWidget(top)
        v = QVBoxLayout(top)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(2)  # at 18 pt on a 768-line screen every line counts
        self.button_bar = buttonbar.build(self)
        v.addWidget(self.button_bar)
        # On its own row: a long status line must never widen the window.
        self.progress_label = QLabel()
        self.progress_label.setToolTip("What the worker is doing now.")
        self.progress_label.setWordWrap(True)
        v.addWidget(self.progress_label)
        self.maps = QWidget()  # the drives' maps, side by side
        v.addWidget(self.maps, 1)
        self.maps_layout = QHBoxLayout(self.maps)
        self.maps_layout.setContentsMargins(0, 0, 0, 0)
        self.maps_layout.addWidget(a.widget, 1)
        self.legends = QWidget()  # A's legend across both maps; B's beside it in heat maps
        v.addWidget(self.legends)
        self.legends_layout = QHBoxLayout(self.legends)
        self.legends_layout.setContentsMargins(0, 0, 0, 0)
        self.legends_layout.addWidget(a.legend, 1)

        self.lower = QStackedWidget()  # the workbench's charts, or a lesson's results
        right.addWidget(self.lower)
        charts_box = self.charts_box = QWidget()
        self.lower.addWidget(charts_box)
        cv = QVBoxLayout(charts_box)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.setSpacing(2)
        self.charts = Charts()
        cv.addWidget(self.charts, 1)
        cv.addWidget(self.charts.run_legend)
        # why the WA shown is what it is (compression, the blocks a small drive holds back)
        self.wa_note = FullNote()  # its height the words' at its width: an honest minimum
        self.wa_note.setObjectName("note")
        self.wa_note.setWordWrap(True)
        self.wa_note.setToolTip("Why the write amplification shown differs from 1 or from "
                                "the analytic model.")
        cv.addWidget(self.wa_note)
        self.lesson_results = LessonResults()
        self.lower.addWidget(self.lesson_results)
        # only the page shown sets the half's minimum: the charts' (legend and note too)
        # kept a lesson's map legend cut off under the splitter at 768 lines
        self.lower.currentChanged.connect(lambda _i: self._size_lower_pages())
        self._size_lower_pages()
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 1)
        right.setSizes([500, 400])
        self.split_fit = SplitFit(right)  # the map half gets the height its words need

        self.status: dict[str, QLabel] = {}
        statusline.install(self)
        for key, tip in (("capacity", "User capacity and physical flash."),
                         ("fill", "Share of logical pages holding data."),
                         ("wa", "Write amplification since the drive was erased (of A "
                                "and B in compare mode)."),
                         ("time", "Simulated time (needs a device profile)."),
                         ("speed", "Host page writes per wall-clock second while a run "
                                   "goes (as you see them go by), and frames shown per "
                                   "second.")):
            lab = QLabel()
            lab.setToolTip(tip)
            self.statusBar().addPermanentWidget(lab)
            self.status[key] = lab
        dockedlessons.install(self)
        self.actions_by_slot = shortcuts.install(self, revert=self.show_settings)
        prefsdialog.add_to_menu(self.actions_by_slot["toggle_presentation"],
                                self.presentation.open_preferences, self)
        dockedlessons.add_menu(self)
        self.presentation.on_change = self._presentation_changed
        self._presentation_changed()
        exportdialog.install(self)
        mapwiring.install(self)  # zoom, heat maps, breakpoints
        buttonbar.fill_menu(self)
        splitterkeys.install(self)  # the dividers by keyboard
        tipkey.install(self)  # Shift+F1: the focused control's tooltip
        taborder.install(self)  # Tab in reading order, not the order widgets were made
        partkeys.install(self)  # F6: from one part of the window to the next
