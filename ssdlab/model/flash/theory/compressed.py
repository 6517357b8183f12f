"""Greedy cleaning on a compressing drive (SandForce-style) under uniform random writes.

Derivation. The drive has N erase blocks of B flash pages, P = N * B flash pages, and the host
uses U = (1 - s) * P logical pages (s: the physical spare, a fraction of physical flash).
Every logical page is stored in a fraction c of a flash page, so one erase block holds
b' = floor(B / c) stored pages (a block is full when the next page does not fit: up to
c of a page per block stays unused). Count everything in stored pages:

* the flash holds N * b' of them, of which U are live at any time (every logical page is
  written once before the measurement and uniform overwrites keep them all live);
* a host write invalidates one stored page and programs one; greedy GC copies stored pages.

That is exactly the uncompressed drive the mean-field model describes, with U logical pages
on N * b' physical ones in blocks of b' pages, so its effective spare is

    s_eff = 1 - U / (N * b')  ~=  1 - c * (1 - s)      (b' ~= B / c),

the fraction of physical flash not holding live stored data, and it programs
greedy_wa(s_eff, b') stored pages per host page. Each stored page is c of a flash page, and
the host wrote a whole page for each, so

    WA = flash bytes programmed / host bytes written = c * greedy_wa(s_eff, b').

Compression helps twice: c shrinks every page programmed, and s_eff > s makes GC cheaper,
so WA falls faster than c. Where the simulator departs (see the closing table of issue 39 and
tests/test_compression_theory.py): the mean field's own finite-drive error, as at c = 1; the
free-block reserve and open blocks the FTL holds back (a larger share of the spare when s_eff
is small); and the stored fraction the drive really uses, round(100 c) / 100 of a page
(model/flash/geometry.py SLOTS_PER_PAGE), which the caller passes as c.
"""

from __future__ import annotations

import math

from ssdlab.model.flash.theory.checks import check_pages_per_block, check_spare, real
from ssdlab.model.flash.theory.greedy import _greedy_victim_level


def compressed_blocks(pages_per_block: int, stored_fraction: float) -> int:
    """b' = floor(B / c): stored pages one erase block of B flash pages holds."""
    return math.floor(pages_per_block / stored_fraction + 1e-9)


def compressed_effective_spare(spare: float, pages_per_block: int,
                               stored_fraction: float) -> float:
    """s_eff = 1 - U / (N * b') with U = (1 - s) P: the share of the flash, counted in the
    stored pages it can hold, that no live data takes (see the module docstring)."""
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    c = _check_fraction(stored_fraction)
    return 1.0 - (1.0 - s) * b / compressed_blocks(b, c)


def compressed_greedy_wa(spare: float, pages_per_block: int, stored_fraction: float) -> float:
    """WA = c * greedy_wa(s_eff, b') (flash bytes per host byte; below 1 when c is small).

    spare: s = (P - U) / P, physical spare in (0, 0.9]. pages_per_block: B flash pages per
    erase block. stored_fraction: c in (0, 1], the share of a page each page is stored in.
    """
    s = check_spare(spare)
    b = check_pages_per_block(pages_per_block)
    c = _check_fraction(stored_fraction)
    held = compressed_blocks(b, c)
    if held < 2:
        raise ValueError(f"pages_per_block / stored_fraction must be at least 2; got {held}")
    rho = (1.0 - s) * b / held  # U / (N b'): live stored pages per place for one
    j, p = _greedy_victim_level(rho, held)
    return c * held / (held - j - 1 + p)


def _check_fraction(stored_fraction: float) -> float:
    c = real("stored_fraction", stored_fraction)
    if not 0.0 < c <= 1.0:
        raise ValueError(f"stored_fraction must be in (0, 1]; got {stored_fraction!r}")
    return c
