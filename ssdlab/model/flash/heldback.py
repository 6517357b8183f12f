"""The share of a drive's spare that garbage collection can really use. No Qt.

The analytic models (ssdlab/model/flash/theory/) count every spare page as room for GC. The FTL
keeps `gc_low_blocks` erased blocks in hand (GC starts when the pool falls to them) and two
open blocks, the host's and GC's, which are half unwritten on average: one block's worth.
On a drive of a few hundred blocks that is a visible share of the spare, so the models are
given the spare less those blocks (runner.py's `usable_spare`, the window's analytic line).
"""

from __future__ import annotations

OPEN_BLOCKS_HELD = 1  # two open blocks (host, GC), each half empty on average


def held_back_blocks(gc_low_blocks: int) -> int:
    """Blocks' worth of flash GC cannot use: the free-block reserve and the empty halves of
    the two open blocks."""
    return gc_low_blocks + OPEN_BLOCKS_HELD


def usable_spare(spare: float, gc_low_blocks: int, pages_per_block: int,
                 physical_pages: int) -> float:
    """spare (a fraction of physical flash) less the blocks held back; may be <= 0 on a
    drive whose spare is all held back."""
    held = held_back_blocks(gc_low_blocks) * pages_per_block
    return spare - held / physical_pages
