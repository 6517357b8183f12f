"""The window's two dividers moved by keyboard: Ctrl+Shift+Left / Right move the one between
the control panel and the map, Ctrl+Shift+Up / Down the one between the map and the charts
(a dragged handle was the only way). Each press moves it a STEP of the room the two sides
share, within their minimum sizes; the handles carry accessible names, and the new shares
are said in the status bar and as the handle's accessible description.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter

from . import statusline

STEP = 0.05  # of the room the two sides share

# (window attribute, its name, first side, second side, key to grow the first, to shrink it)
DIVIDERS = (
    ("main_split", "Divider between the control panel and the map", "control panel",
     "map and charts", "Ctrl+Shift+Right", "Ctrl+Shift+Left"),
    ("right_split", "Divider between the map and the charts", "map", "charts",
     "Ctrl+Shift+Down", "Ctrl+Shift+Up"),
)


def move(split: QSplitter, sign: int) -> bool:
    """Move split's first divider by STEP of the room (sign +1 grows the first side);
    True when it moved."""
    sizes = split.sizes()
    if len(sizes) < 2 or sum(sizes[:2]) <= 0:
        return False
    total = sizes[0] + sizes[1]
    step = max(8, int(total * STEP))
    lo = split.widget(0).minimumSizeHint()
    hi = split.widget(1).minimumSizeHint()
    vertical = split.orientation() == Qt.Orientation.Vertical
    min0 = max(split.widget(0).minimumHeight() if vertical else split.widget(0).minimumWidth(),
               lo.height() if vertical else lo.width(), 0)
    min1 = max(split.widget(1).minimumHeight() if vertical else split.widget(1).minimumWidth(),
               hi.height() if vertical else hi.width(), 0)
    first = min(total - min1, max(min0, sizes[0] + sign * step))
    if first == sizes[0]:
        return False
    split.setSizes([first, total - first, *sizes[2:]])
    return True


def shares(split: QSplitter, first: str, second: str) -> str:
    a, b = split.sizes()[:2]
    total = max(1, a + b)
    return f"{first} {100 * a // total} %, {second} {100 - 100 * a // total} %"


def _moved(window, split: QSplitter, first: str, second: str, sign: int) -> None:
    if not split.isVisible():
        return
    move(split, sign)
    text = shares(split, first, second)
    split.handle(1).setAccessibleDescription(text)
    # in the status line: the bar's own message painted over figures
    statusline.say(window, f"Divider: {text}", until=statusline.next_work(window))


def install(window) -> None:
    """The keys and the handles' names, for the dividers the window has."""
    for attr, name, first, second, grow, shrink in DIVIDERS:
        split = getattr(window, attr, None)
        if split is None:
            continue
        split.handle(1).setAccessibleName(name)
        split.handle(1).setToolTip(f"{name}: drag it, or {grow} / {shrink}.")
        for keys, sign in ((grow, 1), (shrink, -1)):
            sc = QShortcut(QKeySequence(keys), window)
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
            sc.activated.connect(
                lambda s=split, f=first, b=second, g=sign: _moved(window, s, f, b, g))
            getattr(window, "shortcut_objects", []).append(sc)
