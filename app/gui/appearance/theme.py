"""Every colour the workbench uses, as named tokens, and the type sizes that go with them.

No other module holds a colour literal: widgets ask `current()` for a token by name. Two
themes exist: "normal" (a light desk theme) and "projector" (high contrast, thicker lines,
larger type). Data series use the Okabe-Ito palette; the block map's valid fraction uses
viridis. Both survive the common colour blindnesses and grey-scale printing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.palette import CHART_PAGE, MAP, OKABE_ITO, profile_series

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
    """Named colour tokens (hex strings) and sizes for one presentation profile."""

    name: str
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
        return pal

    def stylesheet(self) -> str:
        c = self.colours
        return (
            f"QWidget {{ font-size: {self.font_pt}pt; color: {c['text']}; }}"
            f"QMainWindow, QScrollArea, QScrollArea > QWidget > QWidget, QTabWidget::pane"
            f" {{ background: {c['window']}; }}"
            f"QLabel#error {{ color: {c['error_text']}; background: {c['error_back']};"
            f" border: 1px solid {c['error_text']}; padding: 3px; }}"
            f"QLabel#note {{ color: {c['muted_text']}; }}"
            f"*[invalid=\"true\"] {{ border: 2px solid {c['error_text']};"
            f" background: {c['error_back']}; }}"
            f"QProgressBar {{ border: 1px solid {c['frame']}; background: {c['input_back']};"
            f" min-height: 10px; }}"
            f"QProgressBar::chunk {{ background: {OKABE_ITO['bluish_green']}; }}"
            f"QPushButton#drive:checked, QPushButton#toggle:checked {{"
            f" background: {c['input_selected']}; color: {c['input_selected_text']};"
            f" font-weight: bold; }}"
            f"*[differs=\"true\"] {{ border: 2px dashed {OKABE_ITO['bluish_green']}; }}"
            f"*[lesson=\"used\"] {{ border: 3px solid {OKABE_ITO['orange']};"
            f" font-weight: bold; }}"
            f"QGroupBox {{ font-weight: bold; border: 1px solid {c['frame']};"
            f" margin-top: 1.1em; padding-top: 2px; }}"
            f"QGroupBox::title {{ subcontrol-origin: margin; left: 6px; }}"
            f"QStatusBar, QStatusBar QLabel {{ color: {c['text']}; background: {c['window']}; }}"
            # the open list of a drop-down: "QWidget { color }" above would draw its
            # highlighted entry in the text colour on the selection colour (white on
            # white in the projector profile)
            f"QComboBox QAbstractItemView {{ background: {c['input_back']};"
            f" color: {c['input_text']}; selection-background-color: {c['input_selected']};"
            f" selection-color: {c['input_selected_text']}; }}"
            # the platform's list draws its entries as menu items of the combo itself
            f"QComboBox {{ selection-background-color: {c['input_selected']};"
            f" selection-color: {c['input_selected_text']}; }}"
        ) + self._framed_spin_arrows() + (self._compact_tabs() + self._large_indicators()
                                          if self.name == "projector" else "")

    def _framed_spin_arrows(self) -> str:
        """A number box framed by a style sheet (invalid, or differs from drive A) loses the
        platform's arrows and draws empty squares: draw them from small pictures in the
        text's colour (assets/icons)."""
        c = self.colours
        boxes = ('QAbstractSpinBox[invalid="true"]', 'QAbstractSpinBox[differs="true"]')
        size = max(12, self.font_pt)  # px: the arrow's side
        out = []
        for kind, corner in (("up", "top"), ("down", "bottom")):
            button = ", ".join(f"{b}::{kind}-button" for b in boxes)
            out.append(f"{button} {{ subcontrol-origin: border;"
                       f" subcontrol-position: {corner} right; width: {size + 4}px;"
                       f" border: none; background: transparent; }}")
            picture = (ICONS / f"arrow_{kind}_{c['text'].lstrip('#')}.svg").as_posix()
            sel = ", ".join(f"{b}::{kind}-arrow" for b in boxes)
            out.append(f"{sel} {{ image: url({picture}); width: {size}px;"
                       f" height: {size // 2 + 2}px; }}")
        return "".join(out)

    def _large_indicators(self) -> str:
        """Check boxes and round choices seen from the back row: the platform draws them
        about 14 px with a grey edge that vanishes on black; here 24 px, framed in the text
        colour, ticked with a picture in it (assets/icons)."""
        c = self.colours
        size = self.font_pt + 6  # px
        out = []
        for kind, picture, radius in (("QCheckBox", "check", 0), ("QRadioButton", "dot",
                                                                  size // 2)):
            mark = (ICONS / f"{picture}_{c['text'].lstrip('#')}.svg").as_posix()
            out.append(f"{kind}::indicator {{ width: {size}px; height: {size}px;"
                       f" border: 2px solid {c['frame']}; border-radius: {radius}px;"
                       f" background: {c['input_back']}; }}"
                       f"{kind}::indicator:checked {{ image: url({mark}); }}"
                       f"{kind}::indicator:disabled {{ border-color: {c['muted_text']}; }}")
        return "".join(out)

    def _compact_tabs(self) -> str:
        """Chart tabs with little padding: at 18 pt the platform's tabs are too wide for all
        seven charts in the 750 px beside the control panel, and a scrolled tab row hides the
        last ones (the selected tab stays marked by colour and a thick underline)."""
        c = self.colours
        return (
            f"QTabBar::tab {{ padding: 3px 7px; margin-right: 2px; color: {c['text']};"
            f" background: {c['input_back']}; border: 1px solid {c['frame']};"
            f" border-bottom: none; }}"
            f"QTabBar::tab:selected {{ background: {c['input_selected']};"
            f" color: {c['input_selected_text']}; font-weight: bold; }}"
        )


def _profile(name: str) -> dict[str, str]:
    """The palette's colours of one profile as theme tokens: series_*, the block map's, the
    chart page."""
    series = {"series_" + token: colour for token, colour in profile_series(name).items()}
    return series | MAP[name] | {"chart_background": CHART_PAGE[name]}


NORMAL = Theme(
    name="normal",
    font_pt=9,
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
        "input_selected": "#cfe3f3",
        "input_selected_text": "#000000",
        "chart_grid": "#dddddd",
        "link": OKABE_ITO["blue"],
    },
)

PROJECTOR = Theme(
    name="projector",
    font_pt=18,  # legible from the back row, and still nothing clipped at 1024 x 768
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
    },
)

THEMES = {t.name: t for t in (NORMAL, PROJECTOR)}
_current = [NORMAL]


def current() -> Theme:
    return _current[0]


def set_current(name: str) -> Theme:
    if name not in THEMES:
        raise ValueError(f"theme must be one of {', '.join(THEMES)}; got {name!r}")
    _current[0] = THEMES[name]
    return _current[0]
