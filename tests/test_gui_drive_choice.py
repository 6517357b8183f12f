"""The lesson panel's "Drive shown" list shows its choice whole, or cut short with "…" and
whole in its tooltip and accessible name: at a 1024 x 768 projector, beside its label in
the narrow lesson panel, it showed "28 % o" of lesson 2's "28 % of physical"."""

from __future__ import annotations

from PySide6.QtWidgets import QStyle, QStyleOptionComboBox
from test_gui_fit768 import screen_is
from test_gui_lecture import as_a_projector


def drawn_whole(box) -> bool:
    """Whether the list's current choice fits the field it is drawn in."""
    opt = QStyleOptionComboBox()
    box.initStyleOption(opt)
    field = box.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                       QStyle.SubControl.SC_ComboBoxEditField, box)
    return box.fontMetrics().horizontalAdvance(box.currentText()) <= field.width()


def test_drive_shown_says_its_choice_whole_at_a_1024_px_projector(until, bench, monkeypatch):
    screen_is(bench, monkeypatch, 1024)
    as_a_projector(bench, until)
    panel = bench.lesson_panel
    try:
        panel.start(panel.lessons[1])  # 2. Spare space: 7 % and 28 % of physical
        run = next(i for i, s in enumerate(panel.lesson.steps) if s.kind == "run")
        panel.show_step(run)
        box = panel.drive_choice.box
        until(lambda: box.isVisible() and box.count() > 1 and box.width() > 0)
        for i in range(box.count()):
            box.setCurrentIndex(i)
            text = box.currentText()
            assert text and text in box.toolTip() and text in box.accessibleName()
            assert box.accessibleName().startswith("Drive shown")
            if not drawn_whole(box):  # cut short, and saying so
                assert box.shown_text().endswith("…")
        box.setCurrentIndex(box.findText("28 % of physical"))
        assert box.currentText() == "28 % of physical"
        assert drawn_whole(box)  # the list as wide as the panel has room for it
    finally:
        panel.leave()
        bench.toggle_presentation(False)
