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
