"""Every drop-down's open list is named for its drop-down (issue 25): on the desktop's
accessibility bus (AT-SPI) each list is a focusable control of its own, and thirteen were
nameless (app/gui/appearance/accessnames.py)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox


def test_every_drop_down_list_has_a_name(bench, until):
    until(bench.isVisible)
    combos = [c for c in bench.findChildren(QComboBox) if c.accessibleName()]
    assert len(combos) >= 7  # profile, page size, mapping, GC policy, workload, speed, colour
    for combo in combos:
        assert combo.view().accessibleName() == f"{combo.accessibleName()}: choices"
