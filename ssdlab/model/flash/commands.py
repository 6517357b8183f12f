"""Host commands at block level: parallel arrays of opcode, first logical page, page count."""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from .state import OP_READ, OP_TRIM, OP_WRITE

OP_NAMES = {"write": OP_WRITE, "trim": OP_TRIM, "read": OP_READ}
_FEW = 64  # commands up to which check() reads them as Python lists


@dataclass(frozen=True)
class Commands:
    """A batch of host commands. ops: int8 opcodes; lpns: int64 first logical page;
    counts: int64 pages (>= 1). All three have the same length."""

    ops: np.ndarray
    lpns: np.ndarray
    counts: np.ndarray

    def __len__(self) -> int:
        return int(self.ops.shape[0])

    @staticmethod
    def of(rows: list[tuple[str, int, int]]) -> Commands:
        """Build from (op name, first lpn, pages) rows, e.g. [("write", 0, 8)]."""
        for op, _, _ in rows:
            if op not in OP_NAMES:
                raise ValueError(f"op must be one of write, trim, read; got {op!r}")
        return Commands(
            ops=np.array([OP_NAMES[r[0]] for r in rows], dtype=np.int8),
            lpns=np.array([r[1] for r in rows], dtype=np.int64),
            counts=np.array([r[2] for r in rows], dtype=np.int64),
        )

    @staticmethod
    def single_page(op: int, lpns: np.ndarray) -> Commands:
        n = lpns.shape[0]
        return Commands(np.full(n, op, dtype=np.int8), lpns.astype(np.int64, copy=False),
                        np.ones(n, dtype=np.int64))

    def slice(self, start: int, stop: int) -> Commands:
        return Commands(self.ops[start:stop], self.lpns[start:stop], self.counts[start:stop])

    def check(self, user_pages: int) -> None:
        """Refuse commands the engine would run out of bounds on (it does no bound checks)."""
        n = len(self)
        if self.lpns.shape[0] != n or self.counts.shape[0] != n:
            raise ValueError("commands: ops, lpns and counts must have the same length")
        if n == 0:
            return
        if n <= _FEW:  # a file system's fsync batch: plain Python beats five numpy calls
            ops, lpns, counts = self.ops.tolist(), self.lpns.tolist(), self.counts.tolist()
            op_lo, op_hi, count_lo, lpn_lo = min(ops), max(ops), min(counts), min(lpns)
            end = max(map(operator.add, lpns, counts))
        else:
            op_lo, op_hi = self.ops.min(), self.ops.max()
            count_lo, lpn_lo = self.counts.min(), self.lpns.min()
            end = int((self.lpns + self.counts).max())
        if op_lo < 0 or op_hi > OP_READ:
            raise ValueError("command op must be 0 (write), 1 (trim) or 2 (read)")
        if count_lo < 1:
            raise ValueError(f"command page count must be at least 1; got {count_lo}")
        if lpn_lo < 0:
            raise ValueError(f"command lpn must be from 0 to {user_pages - 1}; got {lpn_lo}")
        if end > user_pages:
            raise ValueError(f"command lpn + count must be at most user_pages={user_pages}; "
                             f"got {end}")
