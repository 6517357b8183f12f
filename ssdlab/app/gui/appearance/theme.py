"""Every colour the workbench uses, as named tokens, and the type sizes that go with them.

No other module holds a colour literal: widgets ask `current()` for a token by name. Two
colour profiles exist: "normal" (a light desk theme) and "projector" (black page, high
contrast, thicker lines). The type size is separate: any profile goes with any size
(`set_current(name, font_pt)`; ssdlab/app/gui/appearance/looks.py picks both from the person's
preferences and presentation mode). Data series use the Okabe-Ito palette; the block map's
valid fraction uses viridis. Both survive the common colour blindnesses and grey-scale
printing. Contrast (WCAG 2): texts 4.5:1 (placeholders and disabled controls' text too),
control edges, selection, outlines and the block map's fills 3:1 (tests/test_contrast.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ssdlab.app.palette import CHART_PAGE, MAP, OKABE_ITO, profile_series

LARGE_PT = 14  # from this size on, layouts take their large-type form
PRESENTATION_PT = 18  # presentation mode's type: legible from the back row at 1024 x 768
ICONS = Path(__file__).resolve().parents[3] / "assets" / "icons"  # arrows of framed number boxes

# viridis (matplotlib), 9 anchors; interpolated to 256 entries below.
_VIRIDIS_ANCHORS = (
    "#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c",
    "#28ae80", "#5ec962", "#addc30", "#fde725",
)


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def viridis_lut(n: int = 256) -> np.ndarray:
    """uint8[n, 4] RGBA: viridis from 0 (dark purple) to 1 (yellow)."""
    anchors = np.array([_rgb(c) for c in _VIRIDIS_ANCHORS], dtype=float)
    x = np.linspace(0.0, 1.0, len(anchors))
    t = np.linspace(0.0, 1.0, n)
    lut = np.empty((n, 4), dtype=np.uint8)
    for ch in range(3):
        lut[:, ch] = np.round(np.interp(t, x, anchors[:, ch]))
    lut[:, 3] = 255
    return lut


@dataclass(frozen=True)
class Theme:
    """Named colour tokens (hex strings) of one colour profile, its line width, and the type
    size in force (points)."""

    name: str  # the colour profile: "normal" or "projector"
    colours: dict[str, str]
    font_pt: int
    line_width: float
    series: tuple[str, ...] = field(default=tuple(OKABE_ITO[k] for k in (
        "blue", "orange", "bluish_green", "vermillion", "sky_blue", "reddish_purple",
        "yellow", "black")))

    def colour(self, token: str) -> str:
        return self.colours[token]

    def rgba(self, token: str) -> np.ndarray:
        """uint8[4] for numpy colour buffers."""
        r, g, b = _rgb(self.colours[token])
        return np.array([r, g, b, 255], dtype=np.uint8)

    def series_colour(self, token: str) -> str:
        """Data series colours by role, all Okabe-Ito."""
        return self.colours["series_" + token]

    def palette(self):
        """A QPalette with this theme's window, input and selection colours."""
        from PySide6.QtGui import QColor, QPalette

        c, role = self.colours, QPalette.ColorRole
        pal = QPalette()
        for r, token in ((role.Window, "window"), (role.WindowText, "text"),
                         (role.Base, "input_back"), (role.AlternateBase, "window"),
                         (role.Text, "input_text"), (role.Button, "input_back"),
                         (role.ButtonText, "input_text"), (role.Highlight, "input_selected"),
                         (role.HighlightedText, "input_selected_text"),
                         (role.ToolTipBase, "input_back"), (role.ToolTipText, "input_text"),
                         (role.PlaceholderText, "muted_text"), (role.Link, "link")):
            pal.setColor(r, QColor(c[token]))
        disabled = QPalette.ColorGroup.Disabled  # a disabled control looks it
        for r in (role.WindowText, role.Text, role.ButtonText):
            pal.setColor(disabled, r, QColor(c["disabled_text"]))
        return pal

    def stylesheet(self) -> str:
        from .stylesheet import stylesheet

        return stylesheet(self, ICONS)

    @property
    def large(self) -> bool:
        """Large type: rows wrap, labels shorten, charts give their legends more room."""
        return self.font_pt >= LARGE_PT


def _profile(name: str) -> dict[str, str]:
    """The palette's colours of one profile as theme tokens: series_*, the block map's, the
    chart page."""
    series = {"series_" + token: colour for token, colour in profile_series(name).items()}
    return series | MAP[name] | {"chart_background": CHART_PAGE[name]}


NORMAL = Theme(
    name="normal",
    font_pt=9,  # until looks.py sets the desktop's size
    line_width=2.0,
    colours={
        **_profile("normal"),
        "window": "#f4f4f2",
        "text": "#1a1a1a",
        "muted_text": "#555555",
        "frame": "#b8b8b8",
        "error_text": "#9b1c00",
        "error_back": "#fde8e1",
        "input_back": "#ffffff",
        "input_text": "#1a1a1a",
        # a selection, 3:1 and more against the list round it (the pale #cfe3f3 was 1.3:1)
        "input_selected": "#005a9e",
        "input_selected_text": "#ffffff",
        "chart_grid": "#dddddd",
        "link": OKABE_ITO["blue"],
        # control edges 3:1 and more on the window and inside inputs (the platform's grey
        # was about 2:1); a disabled control's text and edge clearly fainter, its text
        # still 4.5:1 on the window: a lesson shows the settings it uses disabled, to be
        # read (#8a8a8a was 3.13:1)
        "control_edge": "#767676",
        "control_hover": "#e4ecf5",
        "disabled_text": "#6b6b6b",
        "disabled_edge": "#c8c8c8",
        # Okabe-Ito's orange and bluish green are 2.1:1 and 3.1:1 on this light page:
        # darker shades of them for outlines and text
        "lesson_used": "#a65300",
        "chosen_text": "#a65300",
        "differs_edge": "#007d5a",
    },
)

PROJECTOR = Theme(
    name="projector",
    font_pt=PRESENTATION_PT,  # until looks.py sets the size in force
    line_width=4.0,
    colours={
        **_profile("projector"),
        "window": "#000000",
        "text": "#ffffff",
        "muted_text": "#e0e0e0",
        "frame": "#ffffff",
        "error_text": "#ffd0c0",
        "error_back": "#5a1400",
        "input_back": "#1a1a1a",
        "input_text": "#ffffff",
        "input_selected": "#ffffff",
        "input_selected_text": "#000000",
        "chart_grid": "#555555",
        "link": OKABE_ITO["sky_blue"],  # dark blue vanishes on black
        "control_edge": "#c0c0c0",
        "control_hover": "#333333",
        "disabled_text": "#8c8c8c",
        "disabled_edge": "#4a4a4a",
        "lesson_used": OKABE_ITO["orange"],
        "chosen_text": OKABE_ITO["orange"],
        "differs_edge": OKABE_ITO["bluish_green"],
    },
)

THEMES = {t.name: t for t in (NORMAL, PROJECTOR)}
_current = [NORMAL]


def current() -> Theme:
    return _current[0]


def set_current(name: str, font_pt: int | None = None) -> Theme:
    """The colour profile `name` in force, with type of font_pt points (None: the profile's
    own size, 9 or 18)."""
    if name not in THEMES:
        raise ValueError(f"theme must be one of {', '.join(THEMES)}; got {name!r}")
    base = THEMES[name]
    _current[0] = replace(base, font_pt=base.font_pt if font_pt is None else int(font_pt))
    return _current[0]
