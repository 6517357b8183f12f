"""The controls of a part of a window that Tab reaches, found through the widget tree: the
order Tab takes (frame/taborder.py), where F6 lands in a part (frame/partkeys.py), and where
the lesson panel's focus goes when the control that had it is hidden with nothing better to
go to (ssdlab/app/gui/lessons/keepfocus.py).

Qt's focus chain is never read from Python (QWidget.nextInFocusChain and
previousInFocusChain). PySide records the widget such a call returns as a child of the widget
it was called on, as if the caller owned it. The chain runs sideways and back up the tree, so
a walk of it, and another after the order changed, tied wrappers of widgets Qt owns into
loops (a table's header view and its viewport each the other's "child"). Python's cyclic
garbage collector, run from whichever thread happened to allocate (in a fast run, mostly the
simulation thread), then freed such a loop: Shiboken hands a freed loop's C++ objects to
Python, and freeing the wrappers deleted widgets Qt still used (PySide queues a widget's
deletion to the GUI thread, whichever thread collected). The next restyle (F11,
the projector colours) laid out the Steps table with its deleted header and crashed in
QTableView::updateGeometries (issue 38). tests/test_gui_qt_cycles.py checks that no wrapper
of a Qt object is ever left in a cycle.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


def tab_stops(root: QWidget) -> list[QWidget]:
    """The widgets inside root (of root's window) that take focus by Tab, in the order of
    the widget tree; hidden and disabled ones too."""
    window = root.window()
    return [w for w in root.findChildren(QWidget)
            if w.window() is window and w.focusProxy() is None
            and w.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus]


def rows(widgets: list[QWidget], window: QWidget) -> list[QWidget]:
    """widgets in rows top to bottom, each row left to right; a row is the widgets whose
    middles each lie within the other's height (a tall button beside a short combo is one
    row; a scroll area is not in a row with the controls inside it)."""
    boxes = []
    for w in widgets:
        top_left = w.mapTo(window, w.rect().topLeft())
        boxes.append((top_left.y(), top_left.y() + max(1, w.height()), top_left.x(), w))
    boxes.sort(key=lambda b: (b[0], b[2]))
    out: list[QWidget] = []
    while boxes:
        top, bottom = boxes[0][0], boxes[0][1]
        middle = (top + bottom) / 2
        row = [b for b in boxes
               if b[0] <= middle < b[1] and top <= (b[0] + b[1]) / 2 < bottom]
        row_ids = {id(b[3]) for b in row}
        boxes = [b for b in boxes if id(b[3]) not in row_ids]
        out += [b[3] for b in sorted(row, key=lambda b: b[2])]
    return out


def first_control(part: QWidget) -> QWidget | None:
    """part's first control in reading order (the order Tab takes: frame/taborder.py) that
    is shown, enabled and takes Tab: not inside something being hidden (isVisibleTo the
    window: a hidden part's children keep their own flag until the hiding is done)."""
    window = part.window()
    shown = [w for w in tab_stops(part) if w.isVisibleTo(window) and w.isEnabled()]
    return rows(shown, window)[0] if shown else None
