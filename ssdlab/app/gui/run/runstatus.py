"""A drive's run in words, from its snapshots: the progress line (which step, how far, or
that a run asked for is starting; two drives' progress on one line) and the speed readout
(host page writes per wall-clock second, as the viewer sees them go by, and frames per
second). No Qt: the frame's status line (ssdlab/app/gui/frame/statusline.py) shows them."""

from __future__ import annotations

from collections import deque

from .snapshot import Snapshot

RATE_SPAN_S = 2.0  # the speed readout averages over the last this many wall-clock seconds


def count_text(n: float) -> str:
    """A count as people say it: 950, 12.3 k, 1.25 M."""
    if n >= 1e6:
        return f"{n / 1e6:.2f} M"
    if n >= 1e3:
        return f"{n / 1e3:.1f} k"
    return f"{n:.0f}"


def gc_words(snap: Snapshot) -> str:
    """The garbage collection the map shows, in a sentence ("" when it shows none)."""
    if snap.gc_victim < 0:
        return ""
    b, n = snap.gc_victim, snap.gc_valid
    to = ", ".join(str(d) for d in snap.gc_destinations)
    to_words = f" to block {to}" if len(snap.gc_destinations) == 1 else (
        f" to blocks {to}" if to else "")
    pages = f"{n} valid page{'s' if n != 1 else ''}"
    return _phase_words(snap, b, pages, to_words) + _rest_words(snap)


def _rest_words(snap: Snapshot) -> str:
    """After a GC step from a breakpoint: what else the counters now count."""
    gcs, host = snap.gc_rest if snap.gc_phase == "stepped" else (0, 0)
    if not (gcs or host):
        return ""
    parts = [f"{gcs} GC{'s' if gcs != 1 else ''}"] if gcs else []
    parts += [f"{host:,} host page{'s' if host != 1 else ''}"] if host else []
    return (" The counters also hold the rest of the paused batch: "
            f"{' and '.join(parts)}.")


def _phase_words(snap: Snapshot, b: int, pages: str, to_words: str) -> str:
    if snap.gc_kind == "merge" and snap.gc_phase == "mark":  # no GC: a block rewritten
        return f"A merge rewrites block {b}: it still holds {pages} to copy."
    return {
        "mark": f"Garbage collection picks block {b}: it still holds {pages}.",
        "move": f"Moving block {b}'s {pages}{to_words}.",
        "erase": f"Block {b} is erased: free for new writes.",
        "breakpoint": f"Breakpoint: GC victim block {b}, shown as GC found it, with {pages}.",
        "stepped": f"One GC step: block {b} cleaned, {pages} moved{to_words}.",
    }.get(snap.gc_phase, "")


class RunStatus:
    def __init__(self):
        self._asked: tuple[int, str] | None = None  # (worker ticket, what was asked)
        self._samples: deque[tuple[float, float]] = deque()  # (wall s, host page writes)

    def asked(self, ticket: int, text: str) -> str:
        """A run was sent to the worker as command `ticket`: until the worker takes it up
        (building a big drive first, say), the progress line says it is starting. Returns
        that line."""
        self._asked = (ticket, text)
        return f"starting {text}…"

    def progress(self, snap: Snapshot) -> str:
        """The progress line; after a step of one GC it names the block cleaned (the map
        outlines it; a breakpoint's own notice names the victim it fired on)."""
        text = self._progress(snap)
        if snap.gc_phase == "stepped":
            text = f"{text} · {gc_words(snap)}"
        return text

    def _progress(self, snap: Snapshot) -> str:
        if snap.segment:
            done = "" if snap.progress != snap.progress else f" {100 * snap.progress:.0f} %"
            # "random: paused", as two drives' line reads ("random: A 5 %, B 5 % running")
            return f"{snap.segment}:{done} {'running' if snap.running else 'paused'}"
        if self._asked is not None and snap.handled < self._asked[0]:
            return self.asked(*self._asked)
        if snap.counters["host_writes"] > 0 or snap.counters["trims"] > 0:
            # after a finished run "idle: choose a workload" read as if nothing had run
            return "the run has ended: press Run or Space to run again"
        return "idle: choose a workload, press Run or Space"

    def speed(self, snap: Snapshot, now: float, fps: float) -> str:
        """Host page writes per wall-clock second over the last RATE_SPAN_S, while a run
        goes; "-" when none does."""
        host = float(snap.counters["host_writes"])
        s = self._samples
        if s and host < s[-1][1]:  # a new drive: its counters start again
            s.clear()
        s.append((now, host))
        while len(s) > 2 and now - s[0][0] > RATE_SPAN_S:
            s.popleft()
        if not snap.running or len(s) < 2 or now - s[0][0] <= 0:
            return f"writes/s -, {fps:.0f} fps"
        rate = (host - s[0][1]) / (now - s[0][0])
        return f"{count_text(rate)} writes/s, {fps:.0f} fps"


def pair_progress(a: Snapshot, b: Snapshot, text_a: str, text_b: str) -> str:
    """Two drives' progress on one line: "unpack 58 % / 55 % running" when they run the
    same step (as in lockstep they do), else each drive's own words."""
    if a.segment and a.segment == b.segment and a.running == b.running:
        done = [f"{100 * s.progress:.0f} %" for s in (a, b) if s.progress == s.progress]
        shares = f" A {done[0]}, B {done[1]}" if len(done) == 2 else ""
        return f"{a.segment}:{shares} {'running' if a.running else 'paused'}"
    return text_a if text_a == text_b else f"A: {text_a}  |  B: {text_b}"
