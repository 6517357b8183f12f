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
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector paused inside, given back as it was (an outer pause outlasts an inner
    one; an exception passes through after it is given back)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
