"""Write amplification, defined once for the whole program.

WA = flash bytes programmed / bytes the host asked the drive to write.

Flash bytes are whole pages: a write that covers part of a page makes the drive program the
whole page (read-modify-write), so an 8 KiB request at a 512-byte offset on a drive of 4 KiB
pages programs 3 pages, 12 KiB, for 8 KiB asked: WA 1.5, before any garbage collection.
Garbage-collection copies add their pages on top. On a compressing drive (SandForce) each
page programmed stores only `stored_fraction` of a page of flash, so WA can fall below 1;
every place that shows such a WA says so.

The page ratio (pages programmed per page the drive was asked to program) hides the
read-modify-write cost; where it is useful it is named `page_wa`, never WA.
"""

from __future__ import annotations

WA_DEFINITION = "flash bytes programmed / bytes the host wrote"


def write_amplification(nand_pages: float, page_bytes: int, host_bytes: float,
                        stored_fraction: float = 1.0) -> float:
    """WA (dimensionless) of nand_pages flash pages of page_bytes bytes each, programmed for
    host_bytes bytes the host asked to write; stored_fraction: the share of a flash page a
    compressing drive really programs per page (1.0 for drives that do not compress).
    nan when the host wrote nothing."""
    if host_bytes <= 0:
        return float("nan")
    return stored_fraction * nand_pages * page_bytes / host_bytes


def page_wa(nand_pages: float, host_pages: float) -> float:
    """Pages programmed per page the drive was asked to program (nan if none): not WA, as
    it counts a partly written page as a whole page asked for."""
    if host_pages <= 0:
        return float("nan")
    return nand_pages / host_pages
