"""Keeps the block map from flashing: each block changes colour on screen at most once per
`gap_s` seconds, whatever the run does underneath. No Qt.

A fast run rewrites blocks many times a second; drawn as they are, over half the map
flickered more than three times a second, past WCAG 2.3.1's general flash threshold (three
flashes in any one second). The guard holds a block's newest colour back until its gap has
passed since its last change, so every region of the map changes at most 1 / gap_s times a
second (0.35 s: at most three changes, so fewer than two flashes, in any second); a block
that changes slowly, as at slow speed, is drawn at once. Counters and charts are not held
back: only what the map shows. The newest colours are never lost: `due_in_s` says when the
held-back ones may be drawn, and the map redraws then.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..appearance import preferences

GAP_S = 0.35  # by default: at most three colour changes per block in any one second
REDUCED_GAP_S = 1.0  # reduce motion: at most one a second
SLACK_S = 1e-6  # a timer due at exactly the gap finds it passed, whatever the rounding


class FlashGuard:
    """What each block shows, held back to one change per gap_s; clock: seconds, monotonic
    (a test gives its own). gap_s None: the preference in force (reduced motion: one a
    second, ssdlab/app/gui/appearance/preferences.py)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 gap_s: float | None = None):
        self.clock = clock
        self.gap_s = gap_s
        self.reset()

    @property
    def gap_s(self) -> float:
        if self._gap_s is not None:
            return self._gap_s
        return REDUCED_GAP_S if preferences.in_force().reduced_motion else GAP_S

    @gap_s.setter
    def gap_s(self, gap_s: float | None) -> None:
        self._gap_s = gap_s

    def reset(self) -> None:
        """Forget what was shown: the next colours are drawn at once (a new drive, another
        colouring, another zoom level: the user's own doing, not flashing)."""
        self._codes: np.ndarray | None = None
        self._codes_at: np.ndarray | None = None
        self._codes_want: np.ndarray | None = None
        self._page_blocks = np.empty(0, dtype=np.int64)
        self._pages: np.ndarray | None = None
        self._pages_at = np.empty(0)
        self._pages_due: float | None = None  # clock time a held-back page row may show

    def codes(self, new: np.ndarray) -> np.ndarray:
        """The colour code each block shows now, given the newest codes (one per block)."""
        now = self.clock()
        if self._codes is None or self._codes.shape != new.shape:
            self._codes = new.copy()
            self._codes_at = np.full(new.shape, now)
        else:
            due = (new != self._codes) & (now - self._codes_at >= self.gap_s - SLACK_S)
            self._codes[due] = new[due]
            self._codes_at[due] = now
        self._codes_want = new.copy()
        return self._codes.copy()

    def pages(self, blocks: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The page states each of `blocks` shows now (rows: their newest, one row of
        pages_per_block states per block). Blocks newly on screen show theirs at once;
        blocks that left the screen are forgotten."""
        now = self.clock()
        blocks = np.asarray(blocks, dtype=np.int64)
        shown = rows.copy()
        at = np.full(blocks.size, now)
        old = self._pages
        if old is not None and old.shape[1:] == rows.shape[1:] and self._page_blocks.size:
            pos = np.minimum(np.searchsorted(self._page_blocks, blocks),
                             self._page_blocks.size - 1)
            known = self._page_blocks[pos] == blocks
            kept = old[pos[known]]
            changed = (kept != rows[known]).any(axis=1)
            early = changed & (now - self._pages_at[pos[known]] < self.gap_s - SLACK_S)
            unchanged_or_early = ~changed | early
            shown[np.flatnonzero(known)[unchanged_or_early]] = kept[unchanged_or_early]
            at[np.flatnonzero(known)[unchanged_or_early]] = self._pages_at[pos[known]][
                unchanged_or_early]
            held_at = self._pages_at[pos[known]][early]
            self._pages_due = float(held_at.min()) + self.gap_s if held_at.size else None
        else:
            self._pages_due = None
        order = np.argsort(blocks, kind="stable")
        self._page_blocks, self._pages, self._pages_at = blocks[order], shown[order], at[order]
        return shown

    def due_in_s(self) -> float | None:
        """Seconds until a colour held back may be drawn; None when nothing is held back."""
        now = self.clock()
        waits = []
        if self._codes is not None and self._codes_want is not None:
            held = self._codes_want != self._codes
            if held.any():
                waits.append(float(self._codes_at[held].min()) + self.gap_s - now)
        if self._pages_due is not None:
            waits.append(self._pages_due - now)
        return max(0.0, min(waits)) if waits else None
