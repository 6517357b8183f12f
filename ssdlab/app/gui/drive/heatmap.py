"""What colour each block gets: by state (the worker's colour codes) or as a heat map of one
per-block number (valid pages, erase count, age), with the range the legend shows.

Every colouring is a uint16 code per block looked up in a table of CODES + 1 colours, so the
block map draws them all the same way: 0..255 a position on the colour bar (viridis, also
the state map's valid share of full blocks), CODE_FREE.. the block states (a heat map paints
a block with no value, such as the age of a free block, as free), BACKGROUND beyond the
last block. Nothing is simulated here: the numbers are the snapshot's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ssdlab.app.session.schema import HEAT_MODES

from ..appearance import theme
from ..run.snapshot import CODE_ERASED, CODE_FREE, CODE_OPEN, CODE_VICTIM, CODES, Snapshot

BACKGROUND = CODES  # the code of a grid cell past the last block

# mode: (combo text, what the colour bar measures, how a k x k group of blocks is shown)
MODES = {
    "state": ("state", "full block: valid 0 → 100 %", "mean"),
    "valid": ("valid pages", "valid pages per block", "mean"),
    "erases": ("erase count", "erases per block", "max"),
    "age": ("age", "age: NAND page writes since closed", "mean"),
}
assert tuple(MODES) == HEAT_MODES


@dataclass(frozen=True)
class Heat:
    """One colouring of a snapshot: codes per block and the range 0..255 spans (NaN for
    the state map and when no block has a value)."""

    mode: str
    codes: np.ndarray
    lo: float
    hi: float

    @property
    def reduce(self) -> str:
        return MODES[self.mode][2]


def fills_blocks(mode: str) -> bool:
    """A heat map fills each block with its colour at every zoom: drawn as pages, the colour
    was only a frame a pixel wide round them, unreadable from the back of a room. The
    pages themselves are the state map's to show."""
    return mode != "state"


def values(snap: Snapshot, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(value per block, which blocks have one) for a heat-map mode."""
    if mode == "valid":
        return snap.valid, np.ones(snap.blocks, dtype=bool)
    if mode == "erases":
        return snap.erases, np.ones(snap.blocks, dtype=bool)
    if mode == "age":  # only a closed block has an age
        closed = snap.close_seq >= 0
        return snap.counters["nand_writes"] - snap.close_seq, closed
    raise ValueError(f"heat map must be one of {', '.join(HEAT_MODES)}; got {mode!r}")


def heat(snap: Snapshot, mode: str) -> Heat:
    if mode == "state":
        return Heat(mode, snap.codes, float("nan"), float("nan"))
    v, has = values(snap, mode)
    codes = np.full(snap.blocks, CODE_FREE, dtype=np.uint16)
    if not has.any():
        return Heat(mode, codes, float("nan"), float("nan"))
    shown = v[has].astype(np.int64)
    lo, hi = int(shown.min()), int(shown.max())
    codes[has] = (shown - lo) * 255 // max(1, hi - lo)
    return Heat(mode, codes, float(lo), float(hi))


_LUTS: dict[tuple[str, str], np.ndarray] = {}


def lut(mode: str) -> np.ndarray:
    """uint8[CODES + 1, 4]: the colour of every code in this mode and the current theme."""
    t = theme.current()
    key = (mode, t.name)
    table = _LUTS.get(key)
    if table is None:
        table = np.empty((CODES + 1, 4), dtype=np.uint8)
        table[:256] = theme.viridis_lut()
        for code, token in ((CODE_FREE, "block_free"), (CODE_OPEN, "block_open"),
                            (CODE_VICTIM, "block_victim"), (CODE_ERASED, "block_erased")):
            table[code] = t.rgba(token if mode == "state" else "block_free")
        table[BACKGROUND] = t.rgba("map_background")
        _LUTS[key] = table
    return table


def _fold(g: np.ndarray, k: int, each, combine) -> np.ndarray:
    """combine(each(block codes)) over the k x k blocks of every group of g (shaped
    (R/k, k, C/k, k)): k*k whole-array operations on strided views. numpy's reductions over
    axes (1, 3) measured ten times slower than this."""
    acc = None
    for i in range(k):
        for j in range(k):
            part = each(g[:, i, :, j])
            acc = part if acc is None else combine(acc, part)
    return acc


def grouped(grid: np.ndarray, k: int, how: str, marks: bool = False) -> np.ndarray:
    """uint16[R, C] codes shrunk to one per k x k group of blocks sharing a pixel
    (ceil(R/k), ceil(C/k)): the mean (or max) position on the colour bar of the blocks that
    have one; else the group's highest state code; BACKGROUND only for a group wholly past
    the last block. marks (the state map): a victim, else a just-erased block, shows through."""
    if k == 1:
        return grid
    r, c = grid.shape
    rp, cp = -(-r // k) * k, -(-c // k) * k
    padded = np.full((rp, cp), BACKGROUND, dtype=np.uint16)
    padded[:r, :c] = grid
    g = padded.reshape(rp // k, k, cp // k, k)
    n = _fold(g, k, lambda s: (s < 256).astype(np.uint16), np.add)
    if how == "max":
        out = _fold(g, k, lambda s: np.where(s < 256, s, np.uint16(0)), np.maximum)
    else:
        total = _fold(g, k, lambda s: np.where(s < 256, s, np.uint16(0)).astype(np.uint32),
                      np.add)
        out = (total // np.maximum(n, 1)).astype(np.uint16)
    none = n == 0
    if none.any():  # the highest state code, background counting lowest
        other = _fold(g, k, lambda s: np.where(s == BACKGROUND, np.uint16(0), s), np.maximum)
        out[none] = np.where(other[none] >= 256, other[none], BACKGROUND)
    if marks:
        for mark in (CODE_ERASED, CODE_VICTIM):  # a victim (set last) beats an erase
            out[_fold(g, k, lambda s, m=mark: s == m, np.logical_or)] = mark
    return out
