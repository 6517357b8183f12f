"""Pausing CPython's cyclic garbage collector while a scenario runs.

A run makes hundreds of thousands of small containers that live on (inodes with their
extent lists and block sets, directory entries, the kernel tree's files), and the collector
traverses them again each time they age into an older generation: about a fifth of
`ssdlab run discard_vertex_le`'s CPU, and a twentieth more in the simulator's imports before
it. Nothing in a run waits for the collector: reference counting frees what a step drops,
as before, and what is left in cycles (a machine and its last tree refer to each other) is
collected once the run is over, when the collector resumes. Peak memory of every shipped
scenario stayed the same.

This module imports nothing heavy, so a command can pause the collector before it imports
the simulator.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0  # pauses in force, in every thread
_resume = False  # whether the collector was on when the first of them began


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector paused inside, given back as it was once every pause has ended: an
    outer pause outlasts an inner one, and a pause in one thread outlasts one that began
    before it in another (the window pauses it to restyle while a drive's thread pauses it
    for a run); an exception passes through after it is given back."""
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()
