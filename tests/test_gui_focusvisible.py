"""What has keyboard focus in the lesson panel is seen (issue 25): the glossary link Tab is
on gets a frame in the focus ring's colour (ssdlab/app/gui/appearance/linkring.py), and every
kind of control the panel focuses (an answer option, the quiz field, Show answer, Back,
Next) gets the ring; both measured on the drawn picture, in both colour profiles, at least
3:1 against what was there before focus and against the page around it."""

from __future__ import annotations

import pytest
from _lesson_panel import lesson_panel
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ssdlab.app.colourvision import contrast
from ssdlab.app.gui.appearance import announce, focusring, theme

PROFILES = list(theme.THEMES)


@pytest.fixture
def themed(request):
    """The application drawn in one profile (palette and style sheet), put back after."""
    app = QApplication.instance()
    sheet, palette = app.styleSheet(), app.palette()

    def use(name: str) -> None:
        t = theme.set_current(name)
        app.setPalette(t.palette())
        app.setStyleSheet(t.stylesheet())

    yield use
    app.setStyleSheet(sheet)
    app.setPalette(palette)
    theme.set_current("normal")


@pytest.fixture
def panel(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    focusring.install()
    return lesson_panel(qtbot)


def hexof(image, x: int, y: int) -> str:
    return QColor(image.pixel(x, y)).name()


@pytest.mark.parametrize("profile", PROFILES)
def test_the_focused_glossary_link_is_framed_3_to_1(qtbot, panel, themed, profile):
    themed(profile)
    p = panel
    p.show_step(0)  # "Writing on flash": its text has glossary links
    p.back_button.setFocus()  # disabled on step 0: focus starts before the text
    p.body.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(p.body.hasFocus)
    plain = p.body.viewport().grab().toImage()
    announce.voice().flush()  # what was said before
    QTest.keyClick(p.body, Qt.Key.Key_Tab)  # Tab in the text goes to its first link
    qtbot.waitUntil(lambda: bool(p.body.focused_link()))
    assert p.body.focused_link() in p.body.toPlainText()
    announce.voice().flush()  # its turn, now (tests/test_speaking.py times the turns)
    assert announce.heard()[-1][0].startswith(f"Link: {p.body.focused_link()}")
    rect = p.body.link_rects()[0]
    framed = p.body.viewport().grab().toImage()
    ring = focusring.COLOUR[profile]
    # the frame's left side, level with the middle of the words
    x, y = rect.left() - focusring.WIDTH_PX // 2 - 1, rect.center().y()
    assert hexof(framed, x, y) == ring, (profile, rect)
    assert contrast(hexof(framed, x, y), hexof(plain, x, y)) >= 3  # focused vs not
    page = hexof(framed, 1, 1)  # the text's page (its margin)
    assert page == theme.current().colours["input_back"]
    assert contrast(ring, page) >= 3, (profile, page)
    # Enter on it opens its glossary entry, as a click does
    with qtbot.waitSignal(p.glossary_asked, timeout=2000):
        QTest.keyClick(p.body, Qt.Key.Key_Return)


def ring_contrasts(qtbot, p, widget) -> tuple[float, float]:
    """(focused vs unfocused, ring vs the page around it) at the ring's left side."""
    p.leave_button.setFocus()
    qtbot.waitUntil(p.leave_button.hasFocus)
    corner = widget.mapTo(p, QPoint(0, 0))
    x, y = corner.x() - focusring.WIDTH_PX // 2 - 1, corner.y() + widget.height() // 2
    before = p.grab().toImage()
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    ring = p.findChild(focusring.Ring)
    qtbot.waitUntil(lambda: ring.isVisible() and ring.target is widget
                    and ring.geometry().topLeft() + QPoint(3, 3) == corner)
    after = p.grab().toImage()
    seen = hexof(after, x, y)
    return (contrast(seen, hexof(before, x, y)),
            contrast(seen, hexof(after, x - focusring.WIDTH_PX, y)))


def step_of(p, kind: str) -> int:
    return next(i for i, s in enumerate(p.lesson.steps) if s.kind == kind)


@pytest.mark.parametrize("profile", PROFILES)
def test_every_control_the_panel_focuses_is_ringed_3_to_1(qtbot, panel, themed, profile):
    themed(profile)
    p = panel
    p.show_step(step_of(p, "predict"))
    p.choices.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(p.choices.hasFocus)
    QTest.keyClick(p.choices, Qt.Key.Key_Down)  # the first answer option, by keyboard
    item = p.choices.visualItemRect(p.choices.currentItem())
    picture = p.choices.viewport().grab().toImage()
    chosen = hexof(picture, item.left() + 1, item.top() + 1)
    assert contrast(chosen, theme.current().colours["input_back"]) >= 3, (profile, chosen)
    QTest.keyClick(p.choices, Qt.Key.Key_Return)  # chosen: Next is enabled
    assert p.next_button.isEnabled()
    checked = [("answer options", p.choices), ("Back", p.back_button),
               ("Next", p.next_button)]
    for what, widget in checked:
        changed, around = ring_contrasts(qtbot, p, widget)
        assert changed >= 3 and around >= 3, (profile, what, changed, around)
    p.show_step(step_of(p, "quiz"))
    p.quiz_answer.setText("nonsense")
    p.check_quiz()
    p.reveal_button.setEnabled(True)  # as a readable wrong answer leaves it
    for what, widget in (("quiz field", p.quiz_answer), ("Show answer", p.reveal_button)):
        changed, around = ring_contrasts(qtbot, p, widget)
        assert changed >= 3 and around >= 3, (profile, what, changed, around)
