"""The control panel never scrolls sideways: opening a folded section whose rows are wider
than the panel's (the file-system section with a profile chosen was 7 px wider at
1366x768) widens the panel to fit."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("size", [(1366, 768), (1024, 768)])
def test_opening_every_section_keeps_the_panel_from_scrolling_sideways(bench, until, size):
    bench.resize(*size)
    assert bench.request(profile="intel_320_120")
    controls, scroll = bench.controls, bench.controls_scroll
    for opened in ("expert", "fs"):
        getattr(controls, "set_expert" if opened == "expert" else "set_fs_shown")(True)
        until(lambda: scroll.viewport().width() >= controls.minimumSizeHint().width())
        assert scroll.horizontalScrollBar().maximum() == 0, opened
