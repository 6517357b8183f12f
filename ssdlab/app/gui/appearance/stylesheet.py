"""The application's style sheet for one theme (ssdlab/app/gui/appearance/theme.py): the type size,
the window's colours, and the edges of every control drawn in the theme's own colours.

The platform style (Fusion) draws button, field and check-box edges a little darker than the
window: about 2:1 on the light page and nothing at all on the projector's black one. WCAG
2.1's 1.4.11 asks 3:1 for a control's boundary, so buttons, fields, lists and check boxes get
an edge in "control_edge" here (tests/test_contrast.py checks the tokens); a disabled control
is drawn fainter, text and edge.
"""

from __future__ import annotations

from pathlib import Path

from ssdlab.app.palette import OKABE_ITO


def _icon(icons: Path, name: str, colour: str) -> str:
    return (icons / f"{name}_{colour.lstrip('#')}.svg").as_posix()


def stylesheet(t, icons: Path) -> str:
    """t: a theme.Theme (not imported: the theme imports this module); icons: the folder of
    the arrow and tick pictures."""
    c = t.colours
    return (
        f"QWidget {{ font-size: {t.font_pt}pt; color: {c['text']}; }}"
        f"QWidget:disabled {{ color: {c['disabled_text']}; }}"
        f"QMainWindow, QScrollArea, QScrollArea > QWidget > QWidget, QTabWidget::pane"
        f" {{ background: {c['window']}; }}"
        f"QLabel#error {{ color: {c['error_text']}; background: {c['error_back']};"
        f" border: 1px solid {c['error_text']}; padding: 3px; }}"
        f"QLabel#note {{ color: {c['muted_text']}; }}"
        f"QProgressBar {{ border: 1px solid {c['control_edge']}; background: {c['input_back']};"
        f" min-height: 10px; }}"
        f"QProgressBar::chunk {{ background: {OKABE_ITO['bluish_green']}; }}"
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
        f"QAbstractItemView {{ selection-background-color: {c['input_selected']};"
        f" selection-color: {c['input_selected_text']}; }}"
        # menus: "QWidget { color }" drew the highlighted entry in the text colour on the
        # selection colour, white on white in the projector profile (issue 36)
        f"QMenu {{ background: {c['input_back']}; color: {c['input_text']};"
        f" border: 1px solid {c['control_edge']}; }}"
        f"QMenu::item:selected {{ background: {c['input_selected']};"
        f" color: {c['input_selected_text']}; }}"
        f"QMenu::item:disabled {{ color: {c['disabled_text']}; }}"
        f"QMenu::separator {{ height: 1px; background: {c['frame']}; margin: 3px 6px; }}"
        f"QMenuBar::item:selected {{ background: {c['input_selected']};"
        f" color: {c['input_selected_text']}; }}"
    ) + _control_edges(t, icons) + _outlines(t) + _framed_spin_arrows(t, icons) + _indicators(
        t, icons) + (
        _compact_tabs(t) if t.large else "")


def _arrow_px(t) -> int:
    """The side of a drop-down's or number box's arrow: about as narrow as the platform's."""
    return max(10, t.font_pt * 2 // 3 + 2)


def _control_edges(t, icons: Path) -> str:
    """Buttons and fields framed 3:1 and more; a disabled one in a faint edge and text."""
    c, arrow = t.colours, _arrow_px(t)
    buttons = "QPushButton, QToolButton"
    fields = "QComboBox, QAbstractSpinBox, QLineEdit"
    return (
        f"{buttons} {{ border: 1px solid {c['control_edge']}; border-radius: 3px;"
        f" background: {c['input_back']}; color: {c['input_text']}; padding: 2px 6px; }}"
        f"QToolButton {{ padding: 2px 3px; }}"
        f"QPushButton:hover, QToolButton:hover {{ background: {c['control_hover']}; }}"
        f"QPushButton:pressed, QToolButton:pressed {{ background: {c['input_selected']};"
        f" color: {c['input_selected_text']}; }}"
        f"QPushButton#drive:checked, QPushButton#toggle:checked {{"
        f" background: {c['input_selected']}; color: {c['input_selected_text']};"
        f" font-weight: bold; }}"
        f"{fields} {{ border: 1px solid {c['control_edge']}; border-radius: 2px;"
        f" background: {c['input_back']}; color: {c['input_text']}; padding: 1px 2px;"
        # without it Qt draws a placeholder in the text colour at half strength: 3.36:1
        f" placeholder-text-color: {c['muted_text']}; }}"
        f"QComboBox {{ padding-right: {arrow + 2}px; }}"
        f"QComboBox::drop-down {{ subcontrol-origin: padding; subcontrol-position: center right;"
        f" width: {arrow}px; border: none; }}"
        f"QComboBox::down-arrow {{ image: url({_icon(icons, 'arrow_down', c['text'])});"
        f" width: {arrow - 2}px; height: {arrow // 2 + 1}px; }}"
        f"QComboBox::down-arrow:disabled {{ image: none; }}"
        f"QAbstractScrollArea#list, QListWidget, QTableWidget, QTreeView {{"
        f" border: 1px solid {c['control_edge']}; }}"
        f"QPushButton:disabled, QToolButton:disabled, QComboBox:disabled,"
        f" QAbstractSpinBox:disabled, QLineEdit:disabled {{ border-color: {c['disabled_edge']};"
        f" color: {c['disabled_text']}; background: {c['window']}; }}"
    )


def _outlines(t) -> str:
    """A setting that differs from drive A (dashed) and one the lesson uses (thick, bold)."""
    c = t.colours
    return (
        f"*[invalid=\"true\"] {{ border: 2px solid {c['error_text']};"
        f" background: {c['error_back']}; }}"
        f"*[differs=\"true\"] {{ border: 2px dashed {c['differs_edge']}; }}"
        f"*[lesson=\"used\"] {{ border: 3px solid {c['lesson_used']}; font-weight: bold; }}"
    )


def _framed_spin_arrows(t, icons: Path) -> str:
    """A number box drawn by the style sheet (every one is: its edge above) loses the
    platform's arrows and draws empty squares: draw them from small pictures in the text's
    colour (ssdlab/assets/icons)."""
    c = t.colours
    boxes = ("QAbstractSpinBox", 'QAbstractSpinBox[invalid="true"]',
             'QAbstractSpinBox[differs="true"]')
    size = _arrow_px(t)
    out = []
    for kind, corner in (("up", "top"), ("down", "bottom")):
        button = ", ".join(f"{b}::{kind}-button" for b in boxes)
        out.append(f"{button} {{ subcontrol-origin: border;"
                   f" subcontrol-position: {corner} right; width: {size}px;"
                   f" border: none; background: transparent; }}")
        sel = ", ".join(f"{b}::{kind}-arrow" for b in boxes)
        arrow = _icon(icons, "arrow_" + kind, c["text"])
        out.append(f"{sel} {{ image: url({arrow}); width: {size}px;"
                   f" height: {size // 2 + 2}px; }}")
        out.append(f"QAbstractSpinBox::{kind}-arrow:disabled, QAbstractSpinBox::{kind}-arrow:off"
                   f" {{ image: none; }}")
    return "".join(out)


def _indicators(t, icons: Path) -> str:
    """Check boxes and round choices: the platform draws them about 14 px with a grey edge
    (2:1 on the light page, gone on black); here as large as the type plus 6 px, framed in
    the control edge colour, ticked with a picture in the text colour (ssdlab/assets/icons)."""
    c = t.colours
    size = t.font_pt + 6  # px
    out = []
    for kind, picture, radius in (("QCheckBox", "check", 0), ("QRadioButton", "dot",
                                                              size // 2)):
        out.append(f"{kind}::indicator {{ width: {size}px; height: {size}px;"
                   f" border: 2px solid {c['control_edge']}; border-radius: {radius}px;"
                   f" background: {c['input_back']}; }}"
                   f"{kind}::indicator:checked {{"
                   f" image: url({_icon(icons, picture, c['text'])}); }}"
                   f"{kind}::indicator:disabled {{ border-color: {c['disabled_edge']}; }}")
    return "".join(out)


def _compact_tabs(t) -> str:
    """Chart tabs with little padding: in large type the platform's tabs are too wide for all
    seven charts in the 750 px beside the control panel, and a scrolled tab row hides the
    last ones (the selected tab stays marked by colour and a thick underline)."""
    c = t.colours
    return (
        f"QTabBar::tab {{ padding: 3px 7px; margin-right: 2px; color: {c['text']};"
        f" background: {c['input_back']}; border: 1px solid {c['control_edge']};"
        f" border-bottom: none; }}"
        f"QTabBar::tab:selected {{ background: {c['input_selected']};"
        f" color: {c['input_selected_text']}; font-weight: bold; }}"
    )
