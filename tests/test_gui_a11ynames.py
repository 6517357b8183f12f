"""Names a screen reader hears where the tree test does not look (issue 25): every
drop-down's open list is named for its drop-down (on the desktop's accessibility bus, AT-SPI,
each list is a focusable control of its own, and thirteen were nameless), and every widget
Tab stops on has a name (a chart had only a tooltip)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QComboBox, QWidget


def test_every_drop_down_list_has_a_name(bench, until):
    until(bench.isVisible)
    combos = [c for c in bench.findChildren(QComboBox) if c.accessibleName()]
    assert len(combos) >= 7  # profile, page size, mapping, GC policy, workload, speed, colour
    for combo in combos:
        assert combo.view().accessibleName() == f"{combo.accessibleName()}: choices"


def test_every_control_tab_stops_on_has_a_name(bench, until):
    """Charts, the control panel's scroll area and every other widget Tab reaches: a
    screen reader says what it is (the tree test counts controls and texts only)."""
    until(bench.isVisible)
    nameless = []
    for w in bench.findChildren(QWidget):
        if not (w.isVisible() and w.isEnabled() and w.focusPolicy() & Qt.FocusPolicy.TabFocus
                and w.focusProxy() is None) or isinstance(w, QComboBox):
            continue  # a drop-down is named by its label's relation (Qt on Linux)
        iface = QAccessible.queryAccessibleInterface(w)
        if iface is not None and not iface.text(QAccessible.Text.Name).strip():
            nameless.append(f"{type(w).__name__} {w.objectName()!r}")
    assert not nameless, nameless
