"""Why a write amplification on screen is what it is, in a sentence shown beside the number:
below 1 on a compressing drive; above the analytic model's on a drive with few blocks. No Qt.

The analytic models (model/flash/theory/) count every spare page as room for GC. A real
drive holds some back: the free blocks it keeps at the GC watermark and its open blocks (one
for host data, one for GC copies). On a drive of a few hundred blocks that is a visible share
of the spare, so GC works with less and WA comes out higher than the model says; the model
at the spare GC really has comes closer.
"""

from __future__ import annotations

import math
from dataclasses import replace

from model.flash.theory import wa_for
from model.host.profiles import load_profile

from .settings import Settings, theory_wa

OPEN_BLOCKS = 2  # the host stream's and the GC stream's open block (model/flash/state.py)
OPEN_EMPTY = 0.5  # an open block is half written on average: half of it is held back
NOTE_BELOW = 0.001  # blocks held back under this share of the flash need no note


def stored_share(s: Settings) -> float:
    """Flash bytes programmed per host byte: the chosen data compression, else the
    profile's, else 1 (no compression)."""
    if s.data_compression:
        return s.data_compression
    return load_profile(s.profile).compression_ratio if s.profile else 1.0


def held_back(s: Settings) -> tuple[float, float]:
    """(blocks' worth of flash the drive keeps out of GC's reach on average, their share
    of the flash): the free-block reserve and the empty half of each open block."""
    g = s.geometry()
    blocks = s.gc_low_blocks + OPEN_EMPTY * OPEN_BLOCKS
    return blocks, blocks / g.blocks


def usable_spare_wa(s: Settings) -> tuple[float, float | None]:
    """(the spare share GC can use, the analytic WA at that spare, None where no model)."""
    g = s.geometry()
    _, share = held_back(s)
    usable = g.spare_of_physical - share
    if usable <= 0 or s.mapping != "page" or s.workload not in ("random", "hotcold"):
        return usable, None
    kwargs = {}
    if s.workload == "hotcold":
        kwargs = {"hot_lba_fraction": s.hot_lba_pct / 100,
                  "hot_write_fraction": s.hot_write_pct / 100}
    try:
        return usable, wa_for(s.gc, usable, g.pages_per_block, d=s.d, **kwargs)
    except ValueError:
        return usable, None


def wa_note(s: Settings, measured: float) -> str:
    """One or two sentences on the WA shown (measured: the run's cumulative WA, NaN before
    any write), or "" when there is nothing to explain."""
    notes = []
    stored = stored_share(s)
    if stored < 1:
        notes.append(f"WA can fall below 1: this drive compresses data and programs about "
                     f"{100 * stored:.0f} % of what the host writes (SandForce-style).")
    analytic = theory_wa(s)
    blocks, share = held_back(s)
    if analytic is not None and share >= NOTE_BELOW:
        usable, closer = usable_spare_wa(replace(s))
        g = s.geometry()
        text = (f"Analytic {analytic:.2f} takes all {100 * g.spare_of_physical:.1f} % spare as "
                f"GC room; this drive holds ~{blocks:g} of {g.blocks:,} blocks back (free "
                f"reserve, open blocks), leaving {100 * usable:.1f} %")
        text += f": model {closer:.2f}." if closer is not None else "."
        if math.isfinite(measured) and measured > analytic * 1.02:
            text = f"Measured {measured:.2f} is above the model: " + text[0].lower() + text[1:]
        notes.append(text)
    return " ".join(notes)


def wa_status(s: Settings, measured: float) -> str:
    """The status bar's WA: the number, and a word when compression explains it."""
    if not math.isfinite(measured):
        return "WA -"
    return f"WA {measured:.3f}" + (" (compressed)" if stored_share(s) < 1 else "")
