"""Every setting behind a figure of a sweep's results, for its provenance: the values all
the points share, the values of those they vary, and what a drive point does not name but
the run used (the FTL's and geometry's fixed values in this version: gc_frontier,
victim_order, honour_trim, page size), so the figure can be made again without guessing an
engine default. No Qt here."""

from __future__ import annotations

import json
from dataclasses import MISSING, fields

from ssdlab.model.flash.geometry import FtlConfig, Geometry


def _order(value) -> tuple:
    """Numbers first in numeric order, then anything else by its JSON."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return (not number, value if number else 0, json.dumps(value, sort_keys=True))


def point_settings(records: list[dict]) -> dict:
    """{"settings": fields every point shares, "varied": {field: its values}, "engine":
    the fixed values a drive point leaves to the model} over the records' points."""
    points = [r["point"] for r in records if isinstance(r, dict)
              and isinstance(r.get("point"), dict)]
    shared, varied = {}, {}
    for name in dict.fromkeys(k for p in points for k in p):
        values = {json.dumps(p.get(name), sort_keys=True): p.get(name) for p in points}
        if len(values) == 1:
            shared[name] = next(iter(values.values()))
        else:
            varied[name] = sorted(values.values(), key=_order)
    out = {"settings": shared, "varied": varied}
    if points and not any("file" in p for p in points):  # a drive sweep's points
        named = {k for p in points for k in p}
        if "data_compression" in named:  # the point's name for FtlConfig.stored_fraction
            named.add("stored_fraction")
        out["engine"] = {f.name: f.default for cls in (Geometry, FtlConfig)
                         for f in fields(cls) if f.name not in named
                         and f.default is not MISSING and f.init}
    return out
