"""Presentation mode is the whole app, and legible from the back row: every key of the
keyboard table works there (its menus are hidden) and has a visible control, the status line
never overprints, nothing is wider than a 1024 px screen, Reset All stays in it, a lesson
colours the map its own way, the wheel changes only a field chosen, and the projector
profile's texts and control boundaries reach WCAG contrast."""

from collections import Counter

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QKeySequence, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QStyle,
    QStyleOptionButton,
    QTableWidget,
    QToolTip,
)

from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.frame import exportall, exportdialog, runfiles, shortcuts, statusline


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of #rrggbb."""
    c = QColor(colour)
    out = []
    for v in (c.redF(), c.greenF(), c.blueF()):
        out.append(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)
    r, g, b = out
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_matches_wcag_examples():
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#0072b2", "#1a1a1a") == pytest.approx(3.3, abs=0.1)  # the figure


def press(w, text: str) -> None:
    """The key sequence `text` pressed where a user's would land (the focused widget)."""
    combo = QKeySequence(text)[0]
    target = QApplication.focusWidget() or w
    QTest.keyClick(target, combo.key(), combo.keyboardModifiers())
    QApplication.processEvents()


def presenting(bench, until) -> None:
    bench.toggle_presentation(True)
    bench.activateWindow()
    until(lambda: bench.isActiveWindow())
    bench.setFocus()
    assert bench.presentation.on and not bench.menuBar().isVisible()


def as_a_projector(bench, until) -> None:
    """Presentation mode in a 1024 x 768 window (the offscreen screen is 800 x 800). After
    showNormal the offscreen platform window can stay full screen, and later hands its
    800 x 800 back to the window: it is told to be a normal window too."""
    presenting(bench, until)
    bench.showNormal()
    until(lambda: not bench.isFullScreen())
    bench.windowHandle().setWindowState(Qt.WindowState.WindowNoState)
    hold_1024(bench, until)


def hold_1024(bench, until) -> None:
    """The window 1024 x 768, in the widget and in its platform window (a minimum taller than
    768 px never lets it: the wait then fails)."""
    def held() -> bool:
        # the offscreen screen (800 x 800) is smaller than the projector imitated here: the
        # rule that brings a window grown past its screen back to it must not apply
        bench.presentation._grown = False
        bench.setGeometry(0, 0, 1024, 768)
        QApplication.processEvents()
        handle = bench.windowHandle()
        return (bench.width(), bench.height()) == (1024, 768) and handle is not None \
            and (handle.width(), handle.height()) == (1024, 768)
    until(held)


def back_to(bench, until) -> None:
    """The window active again after a window of its own closed."""
    bench.activateWindow()
    until(lambda: bench.isActiveWindow())
    bench.setFocus()


def top_level(kind):
    return [t for t in QApplication.topLevelWidgets() if isinstance(t, kind) and t.isVisible()]


def test_every_key_of_the_table_works_in_presentation_mode(qtbot, until, bench, monkeypatch):
    """Each sequence of each entry of the keyboard table, pressed with the menu bar hidden,
    does what the help says; the table's every sequence is pressed (a new key without a
    check here fails)."""
    asked = []
    monkeypatch.setattr(runfiles, "choose", lambda w, title, *a: asked.append(title) or "")
    bench.confirm = lambda text: True
    presenting(bench, until)
    pressed: set[str] = set()

    def key(text: str) -> None:
        pressed.add(text)
        press(bench, text)

    # a visible control holds every menu (the menu bar is hidden)
    assert bench.menu_button.isVisible()
    items = {a.text() for m in bench.menu_button.menu().actions() if m.menu()
             for a in m.menu().actions()}
    for wanted in ("&Breakpoints...", "&Lessons panel", "&Glossary", "Zoom &in on the block "
                   "map", "Zoom &out", "&Whole drive", "&Export chart...", "&Open session..."):
        assert wanted in items, wanted

    for text, speed in (("4", "teach"), ("3", "fast"), ("2", "normal"), ("1", "slow")):
        key(text)
        assert bench.speed.currentData() == speed
    bench.request(workload="random", amount=1.5)  # slow: it runs while the keys act
    before = bench.segments
    key("Ctrl+Return")
    until(lambda: bench.segments > before and bench.is_running())
    key("Ctrl+Enter")  # Run on a running drive: it runs on, never from the start again
    assert bench.segments == before + 1 and bench.is_running()
    key("Space")
    until(lambda: not bench.is_running())
    for text in ("Right", "."):
        bench.settle()
        written = bench.snapshot.counters["host_writes"]
        key(text)
        until(lambda w=written: bench.snapshot.counters["host_writes"] > w)
        assert not bench.is_running()
    bench.request(speed="fast")
    key("Space")  # plays on, to the end
    until(lambda: not bench.snapshot.running and not bench.snapshot.segment)
    victims = bench.snapshot.counters["gc_victims"]
    key("G")
    until(lambda: bench.snapshot.counters["gc_victims"] > victims)
    for text in ("Ctrl+Tab", "Ctrl+Shift+Tab", "Ctrl+Backtab"):
        tab = bench.charts.currentIndex()
        key(text)
        step = 1 if text == "Ctrl+Tab" else -1
        assert bench.charts.currentIndex() == (tab + step) % bench.charts.count(), text
    key("Ctrl+K")
    assert bench.references
    key("Ctrl+Shift+K")
    assert not bench.references
    # with the reference kept, a 768-line projector showed the charts alone (stageflip.py):
    # the maps come back, and settle at their size (five looks alike), before a key zooms
    # them: a zoom sent while they were laid out again met a map a few rows tall
    sizes = []

    def settled() -> bool:
        sizes.append(bench.blockmap.size().toTuple())
        return len(sizes) >= 5 and len(set(sizes[-5:])) == 1

    until(lambda: bench.arranger.stage == "both" and bench.maps.isVisible() and settled())
    view = bench.blockmap.view
    for text, change in (("Ctrl+=", 1), ("Ctrl++", 1), ("Ctrl+-", -1)):
        level = view.level
        key(text)
        assert view.level == level + change, text
    key("Ctrl+0")
    assert not view.zoomed
    key("Ctrl+B")
    until(lambda: getattr(bench, "breakpoint_dialog", None) is not None
          and bench.breakpoint_dialog.isVisible())
    bench.breakpoint_dialog.close()
    back_to(bench, until)
    shown = bench.lesson_dock.isVisible()
    key("Ctrl+L")
    until(lambda: bench.lesson_dock.isVisible() != shown)
    key("Ctrl+L")
    until(lambda: bench.lesson_dock.isVisible() == shown)
    key("Ctrl+G")
    until(lambda: bench.glossary_window is not None and bench.glossary_window.isVisible())
    bench.glossary_window.close()
    back_to(bench, until)
    for text in ("F1", "?"):
        key(text)
        until(lambda: getattr(bench, "help_dialog", None) is not None
              and bench.help_dialog.isVisible())
        table = bench.help_dialog.findChild(QTableWidget)
        # never wider than the screen, nothing behind a sideways scroll bar
        assert bench.help_dialog.width() <= bench.screen().availableGeometry().width()
        assert not table.horizontalScrollBar().isVisible()
        bench.help_dialog.close()
        bench.help_dialog = None
        back_to(bench, until)
    key("Ctrl+,")  # the preferences, by key, with the menu bar hidden
    until(lambda: getattr(bench.presentation, "prefs_dialog", None) is not None
          and bench.presentation.prefs_dialog.isVisible())
    bench.presentation.prefs_dialog.reject()
    back_to(bench, until)
    key("Ctrl+E")
    until(lambda: bool(top_level(exportdialog.ExportDialog)))
    for d in top_level(exportdialog.ExportDialog):
        d.close()
    back_to(bench, until)
    key("Ctrl+Shift+E")
    until(lambda: bool(top_level(exportall.ExportAllDialog)))
    for d in top_level(exportall.ExportAllDialog):
        d.close()
    back_to(bench, until)
    for text in ("Ctrl+O", "Ctrl+S", "Ctrl+Shift+O", "Ctrl+Shift+S"):
        key(text)
    assert len(asked) == 4
    key("Ctrl+D")
    until(lambda: len(bench.views) == 2)
    key("Ctrl+2")
    assert bench.edited == 1
    key("Ctrl+1")
    assert bench.edited == 0
    key("Ctrl+D")
    until(lambda: len(bench.views) == 1)
    key("F9")
    until(lambda: not bench.controls_scroll.isVisible())
    key("F9")
    until(lambda: bench.controls_scroll.isVisible())
    key("F7")  # a lesson's drive or results (test_gui_lessonstage.py); here both show
    until(lambda: "nothing to flip" in bench.status_message.message())
    for text in ("PgDown", "PgUp"):  # turn a lesson's results pages (tests/
        # test_gui_results_fit.py turns them); with none shown the keys change nothing
        bench.settle()
        written = bench.snapshot.counters["host_writes"]
        key(text)
        assert bench.lesson_results.page == 0 and not bench.is_running()
        assert bench.snapshot.counters["host_writes"] == written
    for text in ("F6", "Shift+F6"):  # part to part (test_gui_partkeys.py has the order)
        before = QApplication.focusWidget()
        key(text)
        until(lambda b=before: QApplication.focusWidget() not in (None, b))
    bench.request(spare_pct=28.0)
    key("Alt+R")
    assert bench.session.settings.spare_pct == 7.0
    assert bench.presentation.on  # Reset All keeps the class's view
    key("Ctrl+R")
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    for text in ("Ctrl+Shift+Right", "Ctrl+Shift+Left", "Ctrl+Shift+Down", "Ctrl+Shift+Up"):
        statusline.say(bench, "")
        key(text)  # a divider moves (the panel's may be at its only width): the bar says so
        until(lambda: bench.status_message.message().startswith("Divider: "))
    bench.play_button.setFocus()
    key("Shift+F1")  # the focused control's tooltip, by keyboard
    until(lambda: QToolTip.isVisible() and QToolTip.text() == bench.play_button.toolTip())
    QToolTip.hideText()
    key("F11")
    assert not bench.presentation.on
    key("F11")
    assert bench.presentation.on
    bench.lesson_dock.show()  # a lesson's Next and Back (test_gui_lessonkeys.py)
    bench.lesson_panel.start(bench.lesson_panel.lessons[0], 0)
    bench.views[0].blockmap.setFocus()
    key("Alt+Right")
    until(lambda: bench.lesson_panel.index == 1)
    key("Alt+Left")
    until(lambda: bench.lesson_panel.index == 0)
    bench.lesson_panel.leave()
    key("Ctrl+Q")
    until(lambda: not bench.isVisible())
    table_keys = {k for entry in shortcuts.TABLE for k in entry.keys}
    assert table_keys == pressed, table_keys ^ pressed


def test_the_lessons_button_keeps_the_panel_in_presentation_mode(qtbot, until, bench):
    presenting(bench, until)
    bench.lessons_action.trigger()
    until(lambda: bench.lesson_dock.isVisible())
    bench.lesson_panel.start(bench.lesson_panel.lessons[0])
    bench.lesson_panel.leave_button.click()  # "Lessons": back to the list
    QApplication.processEvents()
    assert bench.lesson_dock.isVisible() and bench.lesson_panel.pages.currentIndex() == 0


def highlighted_row_colours(combo: QComboBox) -> tuple[str, str]:
    """The open list's highlighted entry as drawn: (background, text) colours."""
    combo.showPopup()
    view: QAbstractItemView = combo.view()
    QApplication.processEvents()
    index = view.currentIndex()
    rect = view.visualRect(index)
    image = view.viewport().grab(rect).toImage()
    combo.hidePopup()
    mid = image.height() // 2
    back = image.pixelColor(image.width() - 6, mid).name()  # right of any entry's text
    half = combo.fontMetrics().height() // 3
    counts = Counter(image.pixelColor(x, y).name() for x in range(4, image.width() - 8)
                     for y in range(mid - half, mid + half))
    # the text: the drawn colour furthest from the background among those of the glyphs
    text = max((c for c, n in counts.items() if n >= 5), key=lambda c: contrast(c, back))
    return back, text


@pytest.mark.parametrize("profile", ["normal", "projector"])
def test_the_highlighted_entry_of_every_drop_down_is_legible(qtbot, until, bench, profile):
    bench.toggle_presentation(profile == "projector")
    combos = [c for c in bench.findChildren(QComboBox) if c.isVisible() and c.count() > 1]
    assert len(combos) >= 4
    for combo in combos:
        back, text = highlighted_row_colours(combo)
        assert contrast(back, text) >= 4.5, (combo.currentText(), back, text)


def test_projector_texts_reach_4_5_and_control_edges_3(qtbot, until, bench):
    bench.show_glossary("")  # opened in the desk profile, then the class sees it
    presenting(bench, until)
    c = theme.current().colours
    for fore, back in (("text", "window"), ("muted_text", "window"),
                       ("input_text", "input_back"), ("link", "window"), ("link", "input_back"),
                       ("error_text", "error_back"),
                       ("input_selected_text", "input_selected")):
        assert contrast(c[fore], c[back]) >= 4.5, (fore, back)
    assert contrast(c["frame"], c["window"]) >= 3
    # the glossary's links as drawn (they stayed #0072B2 from the desk profile: 3.3:1)
    text = bench.glossary_window.text
    until(lambda: text.isVisible())
    image = text.viewport().grab().toImage()
    drawn = Counter(image.pixelColor(x, y).name() for x in range(image.width())
                    for y in range(image.height()))
    hues = Counter({colour: n for colour, n in drawn.items()
                    if QColor(colour).saturation() > 100})
    assert hues.most_common(1)[0][0] == c["link"].lower(), hues.most_common(3)
    # check boxes: large, their edge 3:1 against the page around them
    bench.controls.set_expert(True)
    bench.controls.set_fs_shown(True)
    QApplication.processEvents()
    boxes = [b for b in bench.findChildren(QCheckBox) if b.isVisible()]
    assert boxes
    for box in boxes:
        opt = QStyleOptionButton()
        box.initStyleOption(opt)
        rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box)
        assert rect.width() >= 20 and rect.height() >= 20, rect
        image = box.grab().toImage()
        edge = image.pixelColor(rect.left(), rect.center().y()).name()
        assert contrast(edge, c["window"]) >= 3, (box.text(), edge)


def wheel(widget, up: bool = False) -> None:
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(pos, widget.mapToGlobal(pos), QPoint(), QPoint(0, 120 if up else -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
    QApplication.processEvents()


def test_the_wheel_changes_only_a_field_the_person_chose(qtbot, until, bench):
    ppb = bench.controls.widgets["pages_per_block"]
    mapping = bench.controls.widgets["mapping"]
    bench.setFocus()
    for field in (ppb, mapping):
        before = field.value() if hasattr(field, "value") else field.currentIndex()
        wheel(field)
        after = field.value() if hasattr(field, "value") else field.currentIndex()
        assert after == before and not field.hasFocus(), field
        assert field.focusPolicy() == Qt.FocusPolicy.StrongFocus
    bench.activateWindow()
    ppb.setFocus()
    until(lambda: ppb.hasFocus())
    before = ppb.value()
    wheel(ppb, up=True)
    assert ppb.value() != before  # chosen: the wheel is the person's


def test_status_messages_never_overprint_and_a_breakpoint_notice_goes(qtbot, until, bench):
    as_a_projector(bench, until)
    bench.request(workload="random", amount=0.2)
    bench.run_workload()
    until(lambda: not bench.is_running() and bench.snapshot.counters["host_writes"] > 0)
    for text in ("Exported /tmp/a-rather-long-directory-name/write-amplification.png, "
                 "/tmp/a-rather-long-directory-name/write-amplification.csv", "Saved session x"):
        statusline.say(bench, text)
        QApplication.processEvents()
        label = bench.status_message
        assert label.toolTip() == text
        assert label.text() == text or "\u2026" in label.text()
        if label.text():  # in the bar: all of it fits, left of the figures
            assert label.fontMetrics().horizontalAdvance(label.text()) <= label.width()
            right = label.geometry().right()
            assert all(right < f.geometry().left() for f in bench.status.values()
                       if f.isVisible())
    bench.breakpoint_fired(bench.views[0], "GC number 1: block 0, 8 valid pages")
    assert "Breakpoint" in (bench.status_message.message() + bench.progress_label.text())
    bench.reset_drive()
    until(lambda: bench.snapshot.counters["host_writes"] == 0)
    until(lambda: "Breakpoint" not in bench.status_message.message() + bench.progress_label.text())


def test_compare_mode_fits_a_1024_screen_in_presentation_mode(qtbot, until, bench):
    bench.confirm = lambda text: True
    as_a_projector(bench, until)
    assert bench.set_compare(True)
    bench.edit_drive(1)
    bench.request(spare_pct=28.0)
    until(lambda: bench.width() <= 1024)
    # the screen's size again, once B's map is laid out: what must fit is the window's
    # minimum, not a size it passed through while the second drive appeared
    hold_1024(bench, until)
    QApplication.processEvents()
    scroll = bench.controls_scroll
    assert not scroll.horizontalScrollBar().isVisible()
    assert bench.controls.width() <= scroll.viewport().width()
    assert bench.width() <= 1024 and bench.height() <= 768


def test_a_lesson_colours_the_map_its_own_way_and_gives_the_choice_back(qtbot, until, bench):
    bench.request(heatmap="erases")
    assert bench.blockmap.mode == "erases"
    bench.lesson_panel.start(bench.lesson_panel.lessons[0])
    assert bench.blockmap.mode == "state" and bench.legend.mode == "state"
    bench.lesson_panel.leave()
    assert bench.blockmap.mode == "erases" and bench.legend.mode == "erases"
