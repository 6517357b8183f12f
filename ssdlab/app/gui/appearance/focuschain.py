"""The controls of a part of a window that Tab can reach now, in reading order (rows top to
bottom, each row left to right): what Tab and F6 walk in the workbench (frame/taborder.py,
frame/partkeys.py), and where the lesson panel's focus goes when the control that had it is
hidden with nothing better to go to (lessons/keepfocus.py).

Qt's own focus chain is not used: the chain is the order the widgets were made in, and
moving widgets about in it (QWidget.setTabOrder, as this module's first version did on every
Tab) stranded the widgets that hand their focus to another (the charts' tab widget to its
tab bar): Qt's Tab still stopped at them, so after one lap it jumped from the lesson panel
to the charts and never came back to the control panel or the map (issue 38). The widget
tree, read afresh on each key, has no such history."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

TAB = Qt.FocusPolicy.TabFocus.value


def takes_tab(w: QWidget, window: QWidget) -> bool:
    """w is a control Tab can stop at now: in window, shown (not inside something hidden:
    isVisibleTo; a part being hidden has children that keep their own flag until the hiding
    is done), enabled, taking focus by Tab and not handing it on to another widget (a spin
    box's line edit, the charts' tab widget: the one it hands to is the control)."""
    # the policy first, as a plain int: most widgets take no focus, and the enum's own
    # operators were half the time of a Tab press (9 of 18 ms over the window's 460 widgets)
    return w.focusPolicy().value & TAB == TAB and w.focusProxy() is None \
        and w.isEnabled() and w.window() is window and w.isVisibleTo(window)


def controls(root: QWidget, also: QWidget | None = None) -> list[QWidget]:
    """The controls inside root Tab can stop at (root itself too), in the order the widgets
    were made; also: one more widget to place among them, whatever its state (the focused
    one while it is being hidden or disabled, to know where the focus was)."""
    window = root.window()
    found = [w for w in (root, *root.findChildren(QWidget)) if takes_tab(w, window)]
    if also is not None and also not in found and (also is root or root.isAncestorOf(also)):
        found.append(also)
    return found


def place(w: QWidget, window: QWidget) -> tuple[int, int]:
    """(x, y) of w's top left corner in window, px, as if every scroll area round it were
    scrolled to its start: the order must not change as Tab scrolls a panel (scrolled down,
    "Profile" lay above the control panel's top and Tab went to it, not the panel, first)."""
    x = y = 0
    while w is not None and w is not window:
        parent = w.parentWidget()
        area = parent.parentWidget() if parent is not None else None
        scrolled = isinstance(area, QAbstractScrollArea) and area.viewport() is parent
        if not scrolled:  # a scroll area's content sits at minus its scroll offset
            x, y = x + w.x(), y + w.y()
        w = parent
    return x, y


def rows(widgets: list[QWidget], window: QWidget) -> list[QWidget]:
    """widgets in rows top to bottom, each row left to right; a row is the widgets whose
    middles each lie within the other's height (a tall button beside a short combo is one
    row; a scroll area is not in a row with the controls inside it)."""
    boxes = []
    for w in widgets:
        x, y = place(w, window)
        boxes.append((y, y + max(1, w.height()), x, w))
    boxes.sort(key=lambda b: (b[0], b[2]))
    out: list[QWidget] = []
    while boxes:
        top, bottom, _x, head = boxes[0]
        middle = (top + bottom) / 2
        # never a row with what it holds: the control panel's middle lay in "Workload",
        # which Tab then reached second, before "Profile"
        row = [b for b in boxes
               if b[0] <= middle < b[1] and top <= (b[0] + b[1]) / 2 < bottom
               and (b[3] is head or not (head.isAncestorOf(b[3])
                                         or b[3].isAncestorOf(head)))]
        row_ids = {id(b[3]) for b in row}
        boxes = [b for b in boxes if id(b[3]) not in row_ids]
        out += [b[3] for b in sorted(row, key=lambda b: b[2])]
    return out


def first_control(part: QWidget) -> QWidget | None:
    """part's first control in reading order that can take the focus now, or None."""
    found = rows(controls(part), part.window())
    return found[0] if found else None
