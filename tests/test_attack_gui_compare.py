"""Compare mode's per-drive settings at their edge (issue 20): every setting that is a
drive's own, edited on B alone, is B's only, and stays B's when A or a shared setting is
edited afterwards. A planted bug that let one of them leak to A went unseen."""

from __future__ import annotations

from ssdlab.app.gui.frame.compare import PER_DRIVE
from ssdlab.app.session.runlabels import differing

# a valid value other than the default for each of a drive's own settings
B_VALUES = {"profile": "intel_x25m_g1_80", "capacity_mib": 128.0, "spare_pct": 20.0,
            "page_kib": 8, "pages_per_block": 128, "mapping": "fast", "gc": "fifo", "d": 4,
            "gc_low_blocks": 3, "gc_frontier": "shared", "victim_order": "newest",
            "partition_start": 63,
            "lvm_kib": 192, "journal": False, "kernel": "modern", "data_compression": 0.5,
            "atime": "strict", "discard": True, "fstrim_every_min": 30.0,
            # a scenario's format options: no controls, but each drive's own
            "extents": False, "commit_interval_s": 2.5, "stripe_width_blocks": 16,
            "max_request_kib": 64,
            # a drive with an SLC cache's figures: its cache's mode
            "slc_cache": "static", "wear_leveling_gap": 8,
            # a host that tags its hot data, and the drive's way with the tags
            "placement": "hotcold", "handle_gc": "isolated", "tag_errors_pct": 10.0}
# settings only some profiles allow: both drives take that profile first
NEEDS_PROFILE = {"data_compression": "ocz_vertex_60", "slc_cache": "qlc_slc_cache_1tb"}


def test_the_table_covers_every_per_drive_setting():
    assert set(B_VALUES) == set(PER_DRIVE)


def test_every_setting_edited_on_b_alone_stays_bs(bench, until):
    """One window for every setting (a window each cost four seconds of setup): back to two
    drives at their defaults before each."""
    for field in sorted(B_VALUES):
        bench.reset_all()
        assert bench.set_compare(True)
        until(lambda: len(bench.views) == 2 and bench.views[1].snapshot is not None)
        _b_keeps_its_own(bench, field)


def _b_keeps_its_own(pair, field: str) -> None:
    a, b = pair.views
    value = B_VALUES[field]
    if field in NEEDS_PROFILE:  # a compressing drive's, or a cached drive's, own setting
        pair.edit_drive(1)
        assert pair.request(profile=NEEDS_PROFILE[field])
        pair.edit_drive(0)
        assert pair.request(profile=NEEDS_PROFILE[field])
    before = getattr(a.settings, field)
    assert before != value, field
    pair.edit_drive(1)
    assert pair.request(**{field: value}), pair.controls.error.text()
    assert getattr(b.settings, field) == value and getattr(a.settings, field) == before, field
    changed = set(differing([a.settings, b.settings]))
    assert field in changed and changed <= PER_DRIVE, (field, changed)
    # a shared setting edited on B, then anything edited on A: B keeps its own value
    assert pair.request(amount=0.5)
    assert a.settings.amount == b.settings.amount == 0.5
    pair.edit_drive(0)
    assert pair.request(seed=7)
    assert getattr(b.settings, field) == value and getattr(a.settings, field) == before, field
    assert a.settings.seed == b.settings.seed == 7, field
