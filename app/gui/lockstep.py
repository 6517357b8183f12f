"""Two drives fed the same workload in lockstep (compare mode).

Each worker runs in its own thread (the engine's loop releases the GIL, so two drives use
both cores). The frame sends both the same segments with the same seed; this gate keeps
them at the same point of them. A worker says where it is, as a position (segment number,
units of it done; a worker with nothing left to do is at the end of its last segment), and
may run its next batch only while no member is behind it. The one behind always may run,
so the two never deadlock, and the one ahead is at most one batch ahead. A worker that must
wait blocks on its command queue (pause, reset and stop are still heard at once); the
member that moves wakes it through `wake`. Batches are the same size for every member (the
smallest any of them asked for), so equal positions stay equal batch after batch.

Why a gate on positions rather than the frame granting batches: the workers need no round
trip through the GUI thread per batch (the window keeps its frame rate with both flat out),
and a worker finished with a segment never holds the other back.

No Qt here: a member is any object; wake(member) is called with the gate's lock released.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

END = math.inf  # "units done" of a worker with nothing left to run


class Lockstep:
    """The gate shared by the workers of one comparison."""

    def __init__(self):
        self._lock = threading.Lock()
        self._position: dict[int, tuple[int, float]] = {}
        self._batch: dict[int, int] = {}
        self._waiting: dict[int, Callable[[], None]] = {}
        self.largest_batch = 0  # the largest batch agreed so far: the most one may lead by

    def join(self, member) -> None:
        """A member that has not said where it is yet holds the others back (joining twice
        is joining once)."""
        with self._lock:
            self._position.setdefault(id(member), (-1, -END))

    def leave(self, member) -> None:
        """A member that stopped no longer holds anyone back."""
        with self._lock:
            self._position.pop(id(member), None)
            self._batch.pop(id(member), None)
            self._waiting.pop(id(member), None)
            woken = self._wakeable()
        for wake in woken:
            wake()

    def go(self, member, position: tuple[int, float], wants_to_run: bool,
           wake: Callable[[], None]) -> bool:
        """Record where member is; True when it may run its next batch now. When it may not,
        wake() is called once another member has moved so that it may."""
        key = id(member)
        with self._lock:
            if key not in self._position:
                return True  # not a member (left already): nothing to keep in step with
            self._position[key] = position
            woken = self._wakeable()
            allowed = not wants_to_run or self._may(key)
            if wants_to_run and not allowed:
                self._waiting[key] = wake
        for w in woken:
            w()
        return allowed

    def batch(self, member, n: int) -> int:
        """The batch to run: the smallest any member asked for (n is this one's wish)."""
        with self._lock:
            self._batch[id(member)] = n
            agreed = min(self._batch.values())
            self.largest_batch = max(self.largest_batch, agreed)
            return agreed

    def positions(self) -> list[tuple[int, float]]:
        with self._lock:
            return list(self._position.values())

    def _may(self, key: int) -> bool:
        mine = self._position[key]
        return all(mine <= p for k, p in self._position.items() if k != key)

    def _wakeable(self) -> list[Callable[[], None]]:
        ready = [k for k in self._waiting if self._may(k)]
        return [self._waiting.pop(k) for k in ready]
