"""Presentation mode, the keyboard, and nothing clipped: the classroom issue's "Present"
items, checked on the real window (offscreen)."""

import time

import pytest
import shiboken6
from PySide6.QtCharts import QChartView
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QGraphicsTextItem,
    QLabel,
    QScrollArea,
    QTabBar,
    QWidget,
)

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.frame import shortcuts


def key(w: QWidget, k, mods=Qt.KeyboardModifier.NoModifier) -> None:
    """A key press where a user's would land: on the widget with focus."""
    from PySide6.QtTest import QTest

    target = QApplication.focusWidget() or w
    QTest.keyClick(target, k, mods)
    QApplication.processEvents()


def test_plain_keys_type_into_a_field_and_enter_gives_focus_back(qtbot, until, bench):
    spare = bench.controls.widgets["spare_pct"]
    bench.activateWindow()
    spare.setFocus()
    until(lambda: spare.hasFocus())
    spare.selectAll()
    before = bench.speed.currentData()
    for k in (Qt.Key.Key_3, Qt.Key.Key_0):
        key(bench, k)
    assert bench.speed.currentData() == before  # 3 typed, not "fast"
    assert spare.text().startswith("30")
    key(bench, Qt.Key.Key_Return)
    until(lambda: not spare.hasFocus())
    assert bench.session.settings.spare_pct == 30.0
    key(bench, Qt.Key.Key_1)  # the field gave focus up: 1 is "slow" again
    assert bench.speed.currentData() == "slow"


def test_escape_in_a_field_puts_the_setting_back(qtbot, until, bench):
    spare = bench.controls.widgets["spare_pct"]
    bench.activateWindow()
    spare.setFocus()
    until(lambda: spare.hasFocus())
    spare.selectAll()
    for k in (Qt.Key.Key_4, Qt.Key.Key_5):
        key(bench, k)
    key(bench, Qt.Key.Key_Escape)
    until(lambda: not spare.hasFocus())
    assert bench.session.settings.spare_pct == 7.0
    assert spare.value() == 7.0


def test_shortcuts_act_whatever_widget_has_focus(qtbot, until, bench):
    bench.activateWindow()
    for holder in (bench.run_button, bench.speed, bench.charts.tabBar(),
                   bench.controls.widgets["journal"], bench.controls.widgets["gc"]):
        holder.setFocus()
        until(lambda h=holder: h.hasFocus() or not h.isVisible())
        key(bench, Qt.Key.Key_1)
        assert bench.speed.currentData() == "slow", holder
        key(bench, Qt.Key.Key_2)
        assert bench.speed.currentData() == "normal", holder
        tab = bench.charts.currentIndex()
        key(bench, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
        assert bench.charts.currentIndex() == (tab + 1) % bench.charts.count(), holder
        key(bench, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ControlModifier
            | Qt.KeyboardModifier.ShiftModifier)
        assert bench.charts.currentIndex() == tab, holder


def test_help_lists_every_shortcut_the_window_has(qtbot, until, bench):
    """Every key sequence of every QShortcut and QAction in the window is in the F1 list,
    Ctrl+Shift+O among them."""
    listed = " | ".join(k for k, _ in shortcuts.help_rows())
    sequences = [s.key() for s in bench.shortcut_objects]
    sequences += [seq for a in bench.findChildren(type(bench.actions_by_slot["show_help"]))
                  for seq in a.shortcuts()]
    assert len(sequences) >= 20
    for seq in sequences:
        text = seq.toString(QKeySequence.SequenceFormat.NativeText)
        assert text and text in listed, text
    assert "Ctrl+Shift+O" in listed
    key(bench, Qt.Key.Key_F1)
    until(lambda: getattr(bench, "help_dialog", None) is not None
          and bench.help_dialog.isVisible())
    table = bench.help_dialog.findChild(type(bench.charts.steps.table))
    assert table.rowCount() == len(shortcuts.help_rows())
    bench.help_dialog.close()


def pen_widths(bench) -> list[float]:
    return [s.pen().widthF() for view in bench.charts.views.values()
            for s in getattr(view, "series", {}).values()]


def test_presentation_mode_full_screen_large_type_thick_lines(qtbot, until, bench):
    key(bench, Qt.Key.Key_F11)
    assert bench.presentation.on and bench.isFullScreen()
    assert theme.current().name == "projector"
    assert bench.controls.font().pointSizeF() >= 18
    assert bench.run_button.font().pointSizeF() >= 18
    assert min(pen_widths(bench)) >= 3
    assert bench.actions_by_slot["toggle_presentation"].isChecked()
    key(bench, Qt.Key.Key_F9)  # the panel folds away, the map and charts get wider
    until(lambda: not bench.controls_scroll.isVisible())
    bench.controls.show_error("Spare: must be 0 to 90 %", "spare_pct")  # a message unfolds it
    assert bench.controls_scroll.isVisible()
    key(bench, Qt.Key.Key_F11)
    assert not bench.presentation.on and not bench.isFullScreen()
    assert theme.current().name == "normal"
    bench.presentation.set_panel(False)
    bench.reset_all()
    assert bench.presentation.panel_shown() and not bench.presentation.on


def clipped(window: QWidget) -> list[str]:
    """Buttons, labels, lists and number boxes of the window that are cut: narrower or lower
    than their text, or partly outside what their parents show (in the scrolling control
    panel, only sideways: scrolling down is how a long panel is read); and charts' titles,
    tick labels and legends that QtCharts cut short."""
    bad = []
    for w in window.findChildren(QWidget):
        if not w.isVisible() or not isinstance(w, QAbstractButton | QLabel | QComboBox
                                               | QAbstractSpinBox):
            continue
        name = f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r}"
        fm = w.fontMetrics()
        if isinstance(w, QLabel) and w.text():
            if w.wordWrap():
                if w.heightForWidth(w.width()) > w.height():
                    bad.append(f"{name}: wrapped text taller than the label")
            elif w.sizeHint().width() > w.width() or fm.height() > w.height():
                bad.append(f"{name}: {w.sizeHint().width()} px of text in {w.width()}")
        elif isinstance(w, QAbstractButton) and w.text():
            if fm.horizontalAdvance(w.text().replace("&", "")) + 8 > w.width():
                bad.append(f"{name}: text wider than the button ({w.width()} px)")
        elif isinstance(w, QComboBox | QAbstractSpinBox):
            if w.minimumSizeHint().width() > w.width():
                bad.append(f"{name}: narrower than its minimum")
            if isinstance(w, QComboBox) and _cut_mid_letter(w):
                bad.append(f"{name}: {w.currentText()!r} cut mid-letter")
        has_text = bool(getattr(w, "text", lambda: "x")())  # an icon button has none
        if has_text and fm.height() > w.height() + 1:
            bad.append(f"{name}: lower than its text")
        scroll = next((p for p in _parents(w) if isinstance(p, QScrollArea)), None)
        if scroll is not None:
            left = w.mapTo(scroll.viewport(), QPoint(0, 0)).x()
            if left < 0 or left + w.width() > scroll.viewport().width():
                bad.append(f"{name}: cut at the panel's side")
        else:
            shown = w.visibleRegion().boundingRect()
            if shown.width() < w.width() or shown.height() < w.height():
                bad.append(f"{name}: only {shown.width()}x{shown.height()} of "
                           f"{w.width()}x{w.height()} shown")
    return bad + _cut_chart_texts(window) + _cut_tabs(window)


def _cut_mid_letter(combo: QComboBox) -> bool:
    """A list's current choice wider than its box, drawn cut (not ended with "…")."""
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    from ssdlab.app.gui.appearance.elidedcombo import ElidedCombo

    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    wide = combo.fontMetrics().horizontalAdvance(combo.currentText()) > field.width()
    return wide and not (isinstance(combo, ElidedCombo)
                         and combo.shown_text().endswith("\u2026"))


def chart_texts(view: QChartView) -> list[str]:
    """The texts a chart shows: title, axis titles, tick labels, legend entries (QtCharts
    draws them as QGraphicsTextItems, which it cuts short with "..." where they do not fit)."""
    texts = []
    for item in view.scene().items():
        if item.type() != 8 or not item.isVisible():  # QGraphicsTextItem::Type
            continue
        obj = item.toGraphicsObject()
        text_item = shiboken6.wrapInstance(shiboken6.getCppPointer(obj)[0], QGraphicsTextItem)
        texts.append(text_item.toPlainText())
    return texts


def _cut_chart_texts(window: QWidget) -> list[str]:
    return [f"chart {v.chart().title() or v.toolTip()[:30]!r}: {t!r} cut short"
            for v in window.findChildren(QChartView) if v.isVisible()
            for t in chart_texts(v) if t.endswith(("...", "\u2026"))]


def _cut_tabs(window: QWidget) -> list[str]:
    """Tab rows that scroll (a tab out of sight behind the arrows) or cut a tab's name."""
    bad = []
    for bar in window.findChildren(QTabBar):
        if not bar.isVisible():
            continue
        for i in range(bar.count()):
            rect, text = bar.tabRect(i), bar.tabText(i)
            if rect.left() < 0 or rect.right() > bar.width():
                bad.append(f"tab {text!r}: outside its row of {bar.width()} px")
            elif bar.fontMetrics().horizontalAdvance(text) > rect.width():
                bad.append(f"tab {text!r}: narrower than its name")
    return bad


def _parents(w: QWidget):
    p = w.parentWidget()
    while p is not None:
        yield p
        p = p.parentWidget()


def settled(bench, guard_s: float = 30.0) -> None:
    """Until nothing is clipped, or the guard runs out (the caller's assertion then says
    what stayed cut): where the main area scrolls (a 768-line screen in large type) a chart
    tab taller by a few px brings its scroll bar, which narrows it and rewraps it, over
    several passes. Twenty passes of the event loop were not always enough on a busy
    machine (the Throughput chart's axis title was still cut at the last one)."""
    deadline = time.monotonic() + guard_s
    while clipped(bench) and time.monotonic() < deadline:
        QTest.qWait(20)


def shown_at(bench, until, size: tuple[int, int], monkeypatch) -> None:
    """Presentation mode as on a screen of `size` (the offscreen screen is 800 x 800): the
    layout policy is told that screen, and the window and its platform window take the
    size (left full screen, the platform window kept 800 px and the parts were laid out
    in that, narrower than the window)."""
    import test_gui_fit768

    test_gui_fit768.screen_is(bench, monkeypatch, *size)
    bench.showNormal()
    until(lambda: not bench.isFullScreen())
    bench.windowHandle().setWindowState(Qt.WindowState.WindowNoState)

    def held() -> bool:
        bench.presentation._grown = False
        bench.setGeometry(0, 0, *size)
        QApplication.processEvents()
        handle = bench.windowHandle()
        return (bench.width(), bench.height()) == size and \
            (handle.width(), handle.height()) == size
    until(held)


@pytest.mark.parametrize(("size", "present", "panel", "expert"), [
    ((1024, 768), False, True, True),
    ((1024, 768), True, True, True),
    ((1024, 768), True, False, False),
    ((1920, 1080), False, True, True),
    ((1920, 1080), True, True, True),
])
def test_nothing_is_clipped(qtbot, until, bench, size, present, panel, expert, monkeypatch):
    bench.request(workload="random")  # the WA note under the charts shows (a model exists)
    bench.toggle_presentation(present)
    bench.presentation.set_panel(panel)
    bench.controls.set_expert(expert)
    bench.controls.set_fs_shown(expert)
    if present:  # the offscreen screen is one size: the geometry full screen would have
        shown_at(bench, until, size, monkeypatch)
    bench.setGeometry(0, 0, *size)
    until(lambda: (bench.width(), bench.height()) == size)
    until(lambda: bench.wa_note.isVisible())
    for tab in range(bench.charts.count()):
        bench.charts.setCurrentIndex(tab)
        settled(bench)
        assert clipped(bench) == [], (size, present, panel, tab)
    assert not bench.controls_scroll.horizontalScrollBar().isVisible()
    bench.presentation.reset()


def test_a_runs_model_is_named_whole_in_presentation_type(qtbot, until, bench, monkeypatch):
    """After a run its analytic level is drawn: beside the chart in presentation type the
    legend named the model with its assumptions and cut it short ("Van Houdt's greedy
    mod..."), and the words on the level ran past both ends of the plot; the model is named
    in a word there (in full at the desk and in files). One run, shown on each screen in
    turn (a window and a run for each screen cost about 4 s of processor time apiece)."""
    bench.request(workload="random", amount=1.5)
    bench.run_workload()
    until(lambda: not bench.is_running() and bench.charts.wa.points("theory") == 3)
    bench.toggle_presentation(True)
    for size in ((1024, 768), (1366, 768)):
        shown_at(bench, until, size, monkeypatch)
        bench.charts.setCurrentIndex(0)
        until(lambda: bench.charts.wa.series["theory"].name() == "greedy model")
        settled(bench)
        assert clipped(bench) == [], size
        assert bench.charts.wa.level_label("theory").startswith("greedy model ")
        assert level_words_outside_the_plot(bench.charts.wa) == [], size
    bench.presentation.reset()


def test_a_levels_words_stay_whole_in_a_narrow_chart(qtbot, until, bench, monkeypatch):
    """At 1024 x 768 in presentation type with the panel shown the WA plot is about 400 px,
    and the words on the level ("greedy model 7.40 (per window)") about as wide: centred
    on the middle of the span, QtCharts cut them at both ends ("reedy model 2.71 (per
    window"). They are shortened until whole, and stay inside the plot, at each width of
    the chart (one run serves them all: the words follow the chart's width)."""
    bench.request(workload="random", amount=1.5)
    bench.run_workload()
    until(lambda: not bench.is_running() and bench.charts.wa.points("theory") == 3)
    bench.toggle_presentation(True)
    bench.presentation.set_panel(True)
    shown_at(bench, until, (1024, 768), monkeypatch)
    bench.charts.setCurrentIndex(0)
    chart = bench.charts.wa
    for width in (420, 330, 250):
        chart.setMaximumWidth(width)  # a narrower chart than the window gives it
        until(lambda w=width: chart.width() <= w)

        def whole() -> bool:  # a number ends the words, and no word runs past the plot
            number = chart.level_label("theory").replace(" (per window)", "").split(" ")[-1]
            return number.replace(".", "").isdigit() and not level_words_outside_the_plot(chart)
        # waited on, not on nothing being clipped: the chart held narrower than the window
        # gives it stays cut by design, and that wait ran its 30 s guard out at each width
        until(whole)
    chart.setMaximumWidth(16777215)
    bench.presentation.reset()


TWO_DRIVE_SCREENS = [  # (size, presentation mode, panel shown), checked in this order
    ((1024, 768), False, True),
    ((1024, 768), True, True),
    ((1024, 768), True, False),
    ((1920, 1080), True, True),
]


def test_nothing_is_clipped_with_two_drives(qtbot, until, bench, monkeypatch):
    """Compare mode: two maps side by side, the A | B choice in the panel, the WA of both
    in the status bar, and a reference on the charts (on a short screen the drives and
    the charts in turn, each checked). The two runs are made once and shown on each screen
    of TWO_DRIVE_SCREENS in turn: a window and its two runs for each screen cost about 3 s
    of processor time apiece."""
    bench.request(workload="random", amount=0.05)
    bench.run_workload()
    until(lambda: not bench.is_running() and bench.snapshot.counters["host_writes"] > 0)
    bench.pin_reference()
    assert bench.set_compare(True)
    until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
    bench.edit_drive(1)
    bench.request(spare_pct=28.0)
    bench.run_workload()
    until(lambda: not bench.is_running()
          and all(v.snapshot.counters["host_writes"] > 0 for v in bench.views))
    for size, present, panel in TWO_DRIVE_SCREENS:
        _two_drives_unclipped(bench, until, monkeypatch, size, present, panel)


def _two_drives_unclipped(bench, until, monkeypatch, size, present, panel) -> None:
    bench.toggle_presentation(present)
    bench.presentation.set_panel(panel)
    if present:
        shown_at(bench, until, size, monkeypatch)
    bench.setGeometry(0, 0, *size)
    until(lambda: (bench.width(), bench.height()) == size)
    flips = bench.arranger.stage != "both"  # a short screen: drives and charts take turns
    if flips:
        until(lambda: bench.arranger.stage == "results")  # the runs have ended
        bench.flip_stage()  # F7: the drives
    until(lambda: bench.views[1].title.isVisible())
    if flips:
        settled(bench)
        bad = clipped(bench)
        assert bad == [], (size, present, panel, "drives", bad)
        bench.flip_stage()  # F7: the charts
        until(lambda: bench.charts.isVisible())
    for tab in range(bench.charts.count()):
        bench.charts.setCurrentIndex(tab)
        settled(bench)
        bad = clipped(bench)
        assert bad == [], (size, present, panel, tab, bad)
    bench.charts.setCurrentIndex(0)
    until(lambda: level_words_above_the_plot(bench.charts.wa) == [])
    assert level_words_outside_the_plot(bench.charts.wa) == []
    assert not bench.controls_scroll.horizontalScrollBar().isVisible()
    bench.presentation.reset()


def level_words_above_the_plot(chart) -> list[str]:
    """The levels of chart whose words, written above the level, would stand above the
    plot (into the chart's title: A's level near the top of A | B's short chart)."""
    from PySide6.QtGui import QFontMetrics

    top = chart._chart.plotArea().top()
    bad = []
    for name, series in chart.series.items():
        words = chart.level_label(name)
        if not words or not series.isVisible():
            continue
        y = chart._chart.mapToPosition(series.at(1), series).y()
        if y - QFontMetrics(series.pointLabelsFont()).height() < top:
            bad.append(f"{words!r} at {y:.0f} px, the plot's top at {top:.0f}")
    return bad


def level_words_outside_the_plot(chart) -> list[str]:
    """The levels of chart whose words, centred on the level's middle point, run past the
    plot's left or right end (QtCharts clips them there: "reedy model 2.71 (per window" at
    1024 px), or that write over another level's words."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QFontMetrics

    plot = chart._chart.plotArea()
    bad, boxes = [], []
    for name, series in chart.series.items():
        words = chart.level_label(name)
        if not words or not series.isVisible():
            continue
        fm = QFontMetrics(series.pointLabelsFont())
        at = chart._chart.mapToPosition(series.at(1), series)
        half = fm.horizontalAdvance(words) / 2
        if at.x() - half < plot.left() or at.x() + half > plot.right():
            bad.append(f"{words!r} from {at.x() - half:.0f} to {at.x() + half:.0f} px, "
                       f"the plot {plot.left():.0f} to {plot.right():.0f}")
        box = QRectF(at.x() - half, at.y() - fm.height(), 2 * half, fm.height())
        bad += [f"{words!r} over {other!r}" for other, b in boxes if b.intersects(box)]
        boxes.append((words, box))
    return bad


@pytest.mark.parametrize("profile", ["normal", "projector"])
def test_every_map_legend_swatch_stands_out_from_the_page(qtbot, profile):
    """"just erased" is white: on the desk profile's near-white page its swatch needs its
    frame to be seen at all."""
    from ssdlab.app.colourvision import difference
    from ssdlab.app.gui.drive.legend import Legend

    theme.set_current(profile)
    try:
        legend = Legend()
        qtbot.addWidget(legend)
        page = theme.current().colour("window")
        swatches = [lab.pixmap().toImage() for lab in legend.findChildren(QLabel)
                    if not lab.pixmap().isNull() and lab.pixmap().width() == 12]
        # and the SLC cache's tab and the tagged blocks' flag, listed for a drive with a
        # cache or with placement handles
        assert len(swatches) == len(Legend.STATE_ENTRIES) + len(Legend.PAGE_ENTRIES) + 2
        for image in swatches:
            edge = image.pixelColor(0, 0).name()
            assert difference(edge, page) >= 20, (edge, page)
    finally:
        theme.set_current("normal")


@pytest.mark.parametrize("name", list(theme.THEMES))
def test_framed_number_boxes_keep_drawn_arrows(qtbot, name):
    """A number box framed as differing (or invalid) is drawn by the style sheet, which has
    no arrows of its own (they showed as empty squares): each theme names arrow pictures in
    its text colour, and they load."""
    from PySide6.QtGui import QImage

    t = theme.THEMES[name]
    sheet = t.stylesheet()
    for kind in ("up", "down"):
        path = theme.ICONS / f"arrow_{kind}_{t.colours['text'].lstrip('#')}.svg"
        assert f'QAbstractSpinBox[differs="true"]::{kind}-arrow' in sheet
        assert f"url({path.as_posix()})" in sheet
        image = QImage(str(path))
        assert not image.isNull() and image.pixelColor(6, 6).name() == t.colours["text"]
