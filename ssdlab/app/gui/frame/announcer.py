"""When the window speaks, at a pace a listener can follow: fed every snapshot a map shows,
an Announcer says a run's end at once, garbage collections summarised at most one sentence
every GC_GAP_S (the GCs between folded into it), and lets a description (the map's, the
charts') change at most every DESCRIBE_GAP_S, or at once when the run starts or stops. A
breakpoint, a lesson's verdict and a status message are said at once (`say`). The clock is
the caller's (tests drive it). No Qt: ssdlab/app/gui/frame/speech.py puts the sentences on the
accessibility tree."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..run.snapshot import Snapshot
from ..run.spoken import gc_summary, run_end

GC_GAP_S = 5.0  # seconds between two GC sentences at most one
DESCRIBE_GAP_S = 3.0  # seconds a description stays before it may change again


@dataclass(frozen=True)
class Announcement:
    """A sentence to speak; assertive: interrupts what is being said (a breakpoint), else
    polite (said when the reader is quiet)."""

    text: str
    assertive: bool = False
    topic: str = ""  # a drive's news: a newer sentence replaces one not yet said


class Announcer:
    """clock: seconds, monotonic (time.monotonic by default; a test's own)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, prefix: str = ""):
        self.clock = clock
        self.prefix = prefix  # "A: " / "B: " with two drives
        self._running = False
        self._seen = False  # the first snapshot's GCs are the drive's past, not news
        self._gc_said = 0  # gc_victims counter when the last GC sentence was said
        self._copied_said = 0  # gc_copies counter then
        self._gc_at = -math.inf
        self._waiting: Snapshot | None = None  # the newest snapshot with GCs not yet said
        self._described: dict[str, tuple[str, float]] = {}  # key: (text, when)

    @property
    def running(self) -> bool:
        """Whether the last snapshot followed showed a run going."""
        return self._running

    @property
    def pending(self) -> bool:
        """GCs happened that no sentence has said yet (due() says them when their gap
        has passed)."""
        return self._waiting is not None

    def say(self, text: str, assertive: bool = False, topic: str = "") -> list[Announcement]:
        """Something that happened once (a breakpoint, a verdict): said at once."""
        return [Announcement(self.prefix + text, assertive, topic)] if text else []

    @property
    def topic(self) -> str:
        """This drive's news (its GCs, its run's end): one held sentence at a time."""
        return f"drive {self.prefix}"

    def follow(self, snap: Snapshot, theory: float | None = None) -> list[Announcement]:
        """What to say now that snap is shown (theory: the analytic WA, if any)."""
        out: list[Announcement] = []
        c = snap.counters
        if not self._seen:
            self._seen = True
            self._gc_said, self._copied_said = c["gc_victims"], c["gc_copies"]
        if c["gc_victims"] < self._gc_said or c["gc_copies"] < self._copied_said:
            self._gc_said = self._copied_said = 0  # a new drive: its counters start again
            self._waiting = None
        if c["gc_victims"] > self._gc_said:
            self._waiting = snap
        stopped = self._running and not snap.running
        if stopped:  # the GCs of the run first, then its end
            out += self._gc_sentence(force=True)
            out += self.say(run_end(snap, theory), topic=self.topic)
        self._running = snap.running
        return out + self._gc_sentence()

    def told(self, snap: Snapshot) -> None:
        """snap's GCs were told another way (a lesson's teaching pace says each phase,
        ssdlab/app/gui/lessons/lessonwatch.py): no summary repeats them, under other numbers."""
        self.follow(snap)
        c = snap.counters
        self._gc_said, self._copied_said = c["gc_victims"], c["gc_copies"]
        self._waiting = None

    def due(self) -> list[Announcement]:
        """The GC sentence held back, once its gap has passed (a timer asks: the run may
        have stopped sending snapshots)."""
        return self._gc_sentence()

    def _gc_sentence(self, force: bool = False) -> list[Announcement]:
        snap, now = self._waiting, self.clock()
        if snap is None or not force and now - self._gc_at < GC_GAP_S:
            return []
        c = snap.counters
        first, last = self._gc_said + 1, c["gc_victims"]
        block = snap.gc_victim if first == last else -1
        text = gc_summary(first, last, c["gc_copies"] - self._copied_said, block)
        self._gc_said, self._copied_said = last, c["gc_copies"]
        self._gc_at, self._waiting = now, None
        return self.say(text, topic=self.topic)

    def may_describe(self, key: str) -> bool:
        """Whether DESCRIBE_GAP_S has passed since description key last changed (the
        caller then puts its words together; between times it need not)."""
        return self.clock() - self._described.get(key, ("", -math.inf))[1] >= DESCRIBE_GAP_S

    def describe(self, key: str, text: str, changed_now: bool = False) -> bool:
        """Whether description `key` may become text now: it differs from the one given,
        and DESCRIBE_GAP_S has passed since that one, or changed_now (a run started or
        stopped: said at once). Remembers text when it may."""
        said, at = self._described.get(key, ("", -math.inf))
        now = self.clock()
        if text == said or not changed_now and now - at < DESCRIBE_GAP_S:
            return False
        self._described[key] = (text, now)
        return True
