"""What the window says about the run in words: the progress line (which step, how far,
or that a run asked for is starting) and the speed readout (host page writes per
wall-clock second, as the viewer sees them go by, and frames per second); `show` fills
the workbench's status bar and progress line, for one drive or two."""

from __future__ import annotations

import math
import time
from collections import deque

from app.session.wanotes import wa_note, wa_status

from .worker import Snapshot

RATE_SPAN_S = 2.0  # the speed readout averages over the last this many wall-clock seconds


def count_text(n: float) -> str:
    """A count as people say it: 950, 12.3 k, 1.25 M."""
    if n >= 1e6:
        return f"{n / 1e6:.2f} M"
    if n >= 1e3:
        return f"{n / 1e3:.1f} k"
    return f"{n:.0f}"


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
        if snap.segment:
            done = "" if snap.progress != snap.progress else f" {100 * snap.progress:.0f} %"
            # "random: paused", as two drives' line reads ("random: A 5 %, B 5 % running")
            return f"{snap.segment}:{done} {'running' if snap.running else 'paused'}"
        if self._asked is not None and snap.handled < self._asked[0]:
            return self.asked(*self._asked)
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


def _last_wa(snap: Snapshot | None) -> float:
    return float(snap.series["wa"][-1]) if snap is not None and snap.series["wa"].size \
        else math.nan


def show(w) -> None:
    """The status bar and progress line of workbench w from its drives' newest snapshots
    (capacity, fill, time and speed are drive A's; the WA is each drive's)."""
    a = w.views[0]
    snap = a.snapshot
    if snap is None:
        return
    s = a.settings
    g = s.geometry()
    w.status["capacity"].setText(
        f"{g.user_bytes / 2**20:,.0f} MiB user, {g.physical_bytes / 2**20:,.0f} MiB flash, "
        f"{g.blocks:,} blocks")
    w.status["fill"].setText(f"fill {100 * float(snap.valid.sum()) / snap.user_pages:.1f} %")
    # with two drives the figures left of the WA are drive A's: the time says so
    who = "A " if len(w.views) > 1 else ""
    w.status["time"].setText(f"{who}sim {snap.sim_s:,.2f} s" if s.profile
                             else f"{who}sim time -")
    w.status["speed"].setText(a.run_status.speed(snap, time.perf_counter(), a.fps()))
    if len(w.views) == 1:
        w.status["wa"].setText(wa_status(s, _last_wa(snap)))
        w.progress_label.setText(a.run_status.progress(snap))
        note = wa_note(s, _last_wa(snap))
    else:
        b = w.views[1]
        # "(compressed)" once, at the end, when it explains both
        texts = [wa_status(v.settings, _last_wa(v.snapshot)) for v in w.views]
        tail = " (compressed)" if all(t.endswith(" (compressed)") for t in texts) else ""
        texts = [t.removesuffix(tail) for t in texts]
        w.status["wa"].setText(f"A: {texts[0]}  B: {texts[1]}{tail}")
        w.progress_label.setText(pair_progress(snap, b.snapshot or snap, a.progress(),
                                               b.progress()))
        note = ""  # the note explains one drive's figure: with two it would name only A's
    if w.notice:  # a breakpoint that paused the run, until the next run starts
        w.progress_label.setText(f"{w.progress_label.text()} · {w.notice}")
    w.wa_note.setText(note)
    w.wa_note.setVisible(bool(note))


def fit(w) -> None:
    """Which status figures show: at 18 pt the bar has room for the run's figures, not the
    drive's size; with two drives, for their WA and the simulated time."""
    present, two, lesson = w.presentation.on, len(w.views) > 1, w.in_lesson
    shown = {"capacity": not present, "fill": not (present and two), "wa": True,
             "time": True, "speed": not (present and two)}
    for key, label in w.status.items():  # in a lesson they would describe the wrong drive
        label.setVisible(shown[key] and not lesson)


def say(w, text: str, ms: int = 0) -> None:
    """A message in the status bar where its figures leave room for it (at 18 pt with two
    drives they leave little: "Breakpoint (A): GC number 50: block 190, 56 va" ran into
    them); else on the progress line, its own row, which wraps."""
    bar = w.statusBar()
    used = sum(lab.width() + bar.layout().spacing() for lab in w.status.values()
               if lab.isVisible())
    if bar.fontMetrics().horizontalAdvance(text) + 24 <= bar.width() - used:
        bar.showMessage(text, ms)
    else:
        bar.clearMessage()
        w.progress_label.setText(text)
