"""Runs kept in step: the one gate behind the workbench's compare mode (two workers fed the
same workload) and a lesson's two configurations run side by side (the window's drives A
and B, both moving at once).

Each run goes in a thread of its own (the engine's compiled loop releases the interpreter
lock, so two drives use both cores) and says where it is, as a position: (segment number,
units of it done). A run may go on only while no other member is more than `slack` units
behind it, so the one behind always may, the two never deadlock, and the one ahead is at
most a batch (plus the slack) ahead. The drives share nothing, so the results are exactly
those of the same runs one after the other; only the order in which chunks happen changes.

Two ways to wait, one rule:

- The workbench's workers (`join`, `go`, `batch`, `leave`) never block here: a worker that
  must wait blocks on its own command queue, so pause, reset and stop are still heard at
  once, and the member that moves wakes it through the `wake` it gave (called with the
  gate's lock released). A worker with nothing left to do is at the end of its last
  segment (END); batches are the same size for every member (the smallest any asked for),
  so equal positions stay equal batch after batch. Why a gate on positions rather than the
  frame granting batches: the workers need no round trip through the GUI thread per batch
  (the window keeps its frame rate with both flat out), and a worker finished with a
  segment never holds the other back. Their gate has no slack: a worker starts a batch
  only while no other is behind it at all (ssdlab/app/gui/frame/compare.py makes the gate).
- A lesson's runs (`Lockstep(n)`, `at`, `finish`, `side_by_side`) report the fraction of
  their whole run done after every chunk of work and wait in `at`, asking the lesson's
  cancel as they wait; a run ahead by more than SLACK waits.

No Qt here: a member is any hashable object (a worker, or a slot number).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")

END = math.inf  # "units done" of a worker with nothing left to run
SLACK = 0.02  # a fortieth-odd of a run: a chunk or two on the lessons' drives
POLL_S = 0.05  # how often a run waiting in `at` asks whether the lesson was cancelled


class Lockstep:
    """The gate shared by the runs of one comparison. `slots` members 0..slots-1 start at
    the beginning of their run; others join."""

    def __init__(self, slots: int = 0, slack: float = SLACK):
        self._cv = threading.Condition()
        self._position: dict[Hashable, tuple[int, float]] = {s: (0, 0.0) for s in range(slots)}
        self._batch: dict[Hashable, int] = {}
        self._waiting: dict[Hashable, Callable[[], None]] = {}
        self._stopped = False
        self.slack = slack
        self.largest_batch = 0  # the largest batch agreed so far: the most one may lead by

    # --- members that wait on their own queue (the workbench's workers) -------------------

    def join(self, member: Hashable) -> None:
        """A member that has not said where it is yet holds the others back (joining twice
        is joining once)."""
        with self._cv:
            self._position.setdefault(member, (-1, -END))

    def leave(self, member: Hashable) -> None:
        """A member that stopped (or finished) no longer holds anyone back."""
        with self._cv:
            self._position.pop(member, None)
            self._batch.pop(member, None)
            self._waiting.pop(member, None)
            woken = self._wakeable()
            self._cv.notify_all()
        for wake in woken:
            wake()

    def go(self, member: Hashable, position: tuple[int, float], wants_to_run: bool,
           wake: Callable[[], None]) -> bool:
        """Record where member is; True when it may run its next batch now. When it may not,
        wake() is called once another member has moved so that it may."""
        with self._cv:
            if member not in self._position:
                return True  # not a member (left already): nothing to keep in step with
            self._position[member] = position
            woken = self._wakeable()
            self._cv.notify_all()
            allowed = not wants_to_run or self._may(member)
            if wants_to_run and not allowed:
                self._waiting[member] = wake
        for w in woken:
            w()
        return allowed

    def batch(self, member: Hashable, n: int) -> int:
        """The batch to run: the smallest any member asked for (n is this one's wish)."""
        with self._cv:
            self._batch[member] = n
            agreed = min(self._batch.values())
            self.largest_batch = max(self.largest_batch, agreed)
            return agreed

    def positions(self) -> list[tuple[int, float]]:
        with self._cv:
            return list(self._position.values())

    # --- runs that wait here (a lesson's configurations) ----------------------------------

    def at(self, slot: Hashable, fraction: float,
           cancel: Callable[[], bool] | None = None) -> None:
        """Run `slot` has done `fraction` of its work; returns when the others are near."""
        with self._cv:
            if slot not in self._position:
                return  # finished already: nobody to wait for
            self._position[slot] = max(self._position[slot], (0, fraction))
            woken = self._wakeable()
            self._cv.notify_all()
            while not self._stopped and slot in self._position and not self._may(slot):
                if cancel is not None and cancel():
                    break  # the caller's own cancel check stops the run
                self._cv.wait(POLL_S)
        for w in woken:
            w()

    def finish(self, slot: Hashable) -> None:
        """A run that has finished is waited for no longer."""
        self.leave(slot)

    @property
    def stopped(self) -> bool:
        """A run failed or was cancelled: the others should stop at their next chunk."""
        return self._stopped

    def stop(self) -> None:
        """A run failed: nobody waits any more."""
        with self._cv:
            self._stopped = True
            self._cv.notify_all()

    def _may(self, member: Hashable) -> bool:
        segment, done = self._position[member]
        return all((segment, done) <= (s, d + self.slack)
                   for k, (s, d) in self._position.items() if k != member)

    def _wakeable(self) -> list[Callable[[], None]]:
        ready = [k for k in self._waiting if self._may(k)]
        return [self._waiting.pop(k) for k in ready]


def side_by_side(jobs: Sequence[Callable[[Lockstep, int], T]]) -> list[T]:
    """Run each job(lockstep, slot) in its own thread, in lockstep; their results in order.
    The first exception (a cancel included) is raised once every thread has ended."""
    step = Lockstep(len(jobs))
    results: list = [None] * len(jobs)
    errors: list[BaseException | None] = [None] * len(jobs)

    def work(slot: int) -> None:
        try:
            results[slot] = jobs[slot](step, slot)
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            errors[slot] = e
            step.stop()
        finally:
            step.finish(slot)

    threads = [threading.Thread(target=work, args=(i,), daemon=True,
                                name=f"lesson-run-{i}") for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in errors:
        if e is not None:
            raise e
    return results
