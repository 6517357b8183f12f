"""WCAG 2 contrast of every colour pair the window draws with, in both colour profiles,
computed from the theme's tokens (issues 22 and 25): texts 4.5:1 (the chosen answer's orange
words, the glossary's links on the projector's black page), control boundaries, check boxes,
selection, "the lesson uses this" and "differs from A" outlines 3:1 (WCAG 2.1 1.4.11);
disabled controls drawn fainter than enabled ones; and the style sheet really uses these
tokens, so a check here is a check of what is drawn. No window: fast."""

from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QPalette

from ssdlab.app.colourvision import contrast
from ssdlab.app.gui.appearance import theme
from ssdlab.app.gui.appearance.stylesheet import stylesheet

PROFILES = list(theme.THEMES)


def test_contrast_matches_wcag_examples():
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0, abs=0.01)
    assert contrast("#0072b2", "#1a1a1a") == pytest.approx(3.3, abs=0.1)  # issue 22's figure
    assert contrast("#e69f00", "#ffffff") < 3  # why the desk profile darkens the orange


def pages(c: dict[str, str]) -> tuple[str, ...]:
    """What a control or text sits on: the window, a field, the chart page."""
    return c["window"], c["input_back"], c["chart_background"]


@pytest.mark.parametrize("profile", PROFILES)
def test_texts_reach_4_5(profile):
    c = theme.THEMES[profile].colours
    for fore, backs in (("text", pages(c)), ("muted_text", pages(c)),
                        ("input_text", ("input_back",)), ("link", ("window", "input_back")),
                        ("error_text", ("error_back",)),
                        ("input_selected_text", ("input_selected",)),
                        ("chosen_text", ("chart_background", "window"))):
        for back in backs:
            back = c.get(back, back)
            assert contrast(c[fore], back) >= 4.5, (profile, fore, back)


@pytest.mark.parametrize("profile", PROFILES)
def test_control_edges_selection_and_outlines_reach_3(profile):
    c = theme.THEMES[profile].colours
    for token in ("control_edge", "lesson_used", "differs_edge", "input_selected"):
        for back in (c["window"], c["input_back"]):
            assert contrast(c[token], back) >= 3, (profile, token, back)


@pytest.mark.parametrize("profile", PROFILES)
def test_disabled_controls_look_disabled(profile):
    c = theme.THEMES[profile].colours
    assert contrast(c["disabled_text"], c["text"]) >= 2  # clearly fainter than live text
    assert contrast(c["disabled_edge"], c["window"]) < contrast(c["control_edge"], c["window"])
    pal = theme.THEMES[profile].palette()
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText,
                 QPalette.ColorRole.Text):
        assert pal.color(QPalette.ColorGroup.Disabled, role).name() == c["disabled_text"]
        assert pal.color(QPalette.ColorGroup.Active, role).name() != c["disabled_text"]


def rule(sheet: str, selector: str) -> str:
    """The bodies of every rule whose selector list holds `selector`, joined."""
    bodies = [body for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", sheet)
              if selector in [s.strip() for s in sel.split(",")]]
    assert bodies, f"no rule for {selector}"
    return " ".join(bodies)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("pt", [9, 14, 18])
def test_the_style_sheet_draws_with_these_tokens(profile, pt):
    t = theme.set_current(profile, pt)
    try:
        c, sheet = t.colours, stylesheet(t, theme.ICONS)
        for selector in ("QPushButton", "QToolButton", "QComboBox", "QAbstractSpinBox",
                         "QLineEdit"):
            assert f"border: 1px solid {c['control_edge']}" in rule(sheet, selector), selector
        box = rule(sheet, "QCheckBox::indicator")
        assert f"2px solid {c['control_edge']}" in box
        side = int(re.search(r"width: (\d+)px", box).group(1))
        assert side >= 14 and side >= pt  # seen, not an 8 px speck
        assert c["lesson_used"] in rule(sheet, '*[lesson="used"]')
        assert c["differs_edge"] in rule(sheet, '*[differs="true"]')
        assert c["disabled_text"] in rule(sheet, "QWidget:disabled")
        assert c["disabled_edge"] in rule(sheet, "QPushButton:disabled")
        assert c["input_selected"] in rule(sheet, "QAbstractItemView")
        assert f"font-size: {pt}pt" in rule(sheet, "QWidget")
    finally:
        theme.set_current("normal")


def test_any_colour_profile_goes_with_any_type_size():
    for profile in PROFILES:
        for pt in (9, 18):
            t = theme.set_current(profile, pt)
            assert (t.name, t.font_pt, t.large) == (profile, pt, pt >= theme.LARGE_PT)
            assert t.colours == theme.THEMES[profile].colours
    assert theme.set_current("projector").font_pt == theme.PRESENTATION_PT  # its own size
    assert theme.set_current("normal").font_pt == 9


# --- what is drawn: widgets rendered in each profile, their ink measured (issue 38) -------

INK_PT = 24  # large type: a glyph's stems are solid pixels, not only anti-aliased edges


def ink_contrast(image, back: str, edge: int = 4) -> float:
    """The highest contrast against `back` of any pixel inside `image`'s left two thirds,
    `edge` pixels off its sides (a field's frame and a list's arrow are not its text): the
    full colour of the text drawn there."""
    seen = {image.pixelColor(x, y).name() for y in range(edge, image.height() - edge)
            for x in range(edge, image.width() * 2 // 3)}
    return max(contrast(colour, back) for colour in seen)


@pytest.fixture
def styled(qtbot):
    """Widgets in a profile's style sheet and palette, set on the application as the window
    sets them (frame/themefit.py): set on a widget instead, the palette's placeholder colour
    wins and the application's half-strength placeholder is never seen."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

    app = QApplication.instance()
    before = app.palette(), app.styleSheet()
    kept = []  # the boxes live as long as the test: their children are measured

    def make(profile: str, *children):
        t = theme.set_current(profile, INK_PT)
        app.setPalette(t.palette())
        app.setStyleSheet(t.stylesheet())
        box = QWidget()
        kept.append(box)
        qtbot.addWidget(box)
        lay = QVBoxLayout(box)
        for child in children:
            lay.addWidget(child)
        box.show()
        qtbot.waitExposed(box)
        return t.colours

    yield make
    for box in kept:  # gone before the application is restyled
        box.close()
        box.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    kept.clear()
    theme.set_current("normal")
    app.setPalette(before[0])
    app.setStyleSheet(before[1])


@pytest.mark.parametrize("profile", PROFILES)
def test_a_placeholder_is_drawn_at_4_5(styled, profile):
    """The quiz's answer format and the glossary's search: Qt's own placeholder (the text
    colour at half strength) was 3.36:1 on the light profile's white field."""
    from PySide6.QtWidgets import QLineEdit

    field = QLineEdit()
    field.setPlaceholderText("like 2.5")
    c = styled(profile, field)
    image = field.grab().toImage()
    assert ink_contrast(image, c["input_back"]) >= 4.5


@pytest.mark.parametrize("profile", PROFILES)
def test_a_read_only_setting_is_drawn_at_4_5(styled, profile):
    """A lesson shows the settings it uses disabled (controls.set_lesson): their values are
    read, so they stay 4.5:1 (they were 3.13:1), while fainter than a live field's."""
    from PySide6.QtWidgets import QComboBox, QDoubleSpinBox

    spin, combo, live = QDoubleSpinBox(), QComboBox(), QDoubleSpinBox()
    spin.setValue(7.0)
    live.setValue(7.0)
    combo.addItem("greedy")
    for w in (spin, combo):
        w.setEnabled(False)
    c = styled(profile, spin, combo, live)
    inks = []
    for w in (spin, combo, live):
        image = w.grab().toImage()
        inks.append(ink_contrast(image, c["window"] if not w.isEnabled() else c["input_back"]))
    assert min(inks[:2]) >= 4.5, inks
    assert inks[0] < inks[2]  # still looks disabled


@pytest.mark.parametrize("profile", PROFILES)
def test_a_menus_highlighted_entry_is_drawn_at_4_5(styled, qtbot, profile):
    """The Menu button's list: its highlighted entry was white on white in the projector
    profile (and near-black on blue in the light one)."""
    from PySide6.QtWidgets import QMenu, QWidget

    owner = QWidget()  # the menu goes with it: a parentless popup outlived the test
    qtbot.addWidget(owner)
    holder = QMenu(owner)
    c = styled(profile)
    first = holder.addAction("File")
    holder.addAction("View")
    holder.popup(holder.pos())
    holder.setActiveAction(first)
    image = holder.grab().toImage()
    r = holder.actionGeometry(first)
    assert image.pixelColor(r.left() + 2, r.center().y()).name() == c["input_selected"]
    assert ink_contrast(image.copy(r), c["input_selected"], edge=2) >= 4.5
    holder.close()


@pytest.mark.parametrize("profile", PROFILES)
def test_the_block_maps_fills_reach_3_on_its_background(profile):
    """What the map draws with (heatmap.lut, the page colours' theme tokens): a block full of
    valid pages was 2.73:1 on the light profile's dark grey; every fill that carries
    meaning stands 3:1 off the background, for every simulated vision. The viridis ramp's
    dark end (a full block with no valid page) is exempt: it is one end of a gradient."""
    from ssdlab.app.colourvision import VISIONS
    from ssdlab.app.gui.drive import heatmap
    from ssdlab.app.gui.run.snapshot import CODE_ERASED, CODE_FREE, CODE_OPEN, CODE_VICTIM

    t = theme.set_current(profile)
    try:
        lut = heatmap.lut("state")
        hexes = lambda row: "#{:02x}{:02x}{:02x}".format(*row[:3])  # noqa: E731
        back = hexes(lut[heatmap.BACKGROUND])
        assert back == t.colour("map_background")
        fills = {code: hexes(lut[code]) for code in (CODE_FREE, CODE_OPEN, CODE_VICTIM,
                                                      CODE_ERASED, 255)}
        fills |= {token: hexes(t.rgba(token)) for token in ("page_valid", "page_invalid",
                                                            "page_copied", "page_free")}
        for name, fill in fills.items():
            for vision in VISIONS:
                assert contrast(fill, back, vision) >= 3, (profile, name, vision)
    finally:
        theme.set_current("normal")
