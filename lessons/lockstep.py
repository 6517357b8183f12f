"""Two runs side by side, neither ahead of the other: the window shows a lesson's two
configurations as drives A and B, both moving at once, as the workbench's comparison does.

Each run goes in a thread of its own (the engine's compiled loop releases the interpreter
lock, so two block-level runs use two cores) and reports how far it is, a fraction of its
whole run, after every chunk of work. A run that gets more than SLACK ahead of the slowest
unfinished one waits. The drives share nothing, so the results are exactly those of the
same runs one after the other; only the order in which chunks happen changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

SLACK = 0.02  # a fortieth-odd of a run: a chunk or two on the lessons' drives
POLL_S = 0.05  # how often a waiting run asks whether the lesson was cancelled


class Lockstep:
    """Where each of n runs is (0..1), and a wait for the slowest."""

    def __init__(self, n: int, slack: float = SLACK):
        self._at = [0.0] * n
        self._finished = [False] * n
        self._stopped = False
        self.slack = slack
        self._cv = threading.Condition()

    def at(self, slot: int, fraction: float, cancel: Callable[[], bool] | None = None) -> None:
        """Run `slot` has done `fraction` of its work; returns when the others are near."""
        with self._cv:
            self._at[slot] = max(self._at[slot], fraction)
            self._cv.notify_all()
            while not self._stopped and self._ahead(slot):
                if cancel is not None and cancel():
                    return  # the caller's own cancel check stops the run
                self._cv.wait(POLL_S)

    def _ahead(self, slot: int) -> bool:
        behind = [a for a, done in zip(self._at, self._finished, strict=True) if not done]
        return bool(behind) and self._at[slot] > min(behind) + self.slack

    @property
    def stopped(self) -> bool:
        """A run failed or was cancelled: the others should stop at their next chunk."""
        return self._stopped

    def finish(self, slot: int) -> None:
        with self._cv:
            self._finished[slot] = True
            self._cv.notify_all()

    def stop(self) -> None:
        """A run failed: nobody waits any more."""
        with self._cv:
            self._stopped = True
            self._cv.notify_all()


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
