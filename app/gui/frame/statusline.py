"""What the window says about the run in words: `show` fills the workbench's status bar and
progress line, for one drive or two, from each drive's RunStatus
(app/gui/run/runstatus.py), `fit` sizes it, `say` puts a notice in it."""

from __future__ import annotations

import math
import time

from app.session.wanotes import reading_of, spare_detail, wa_note, wa_status

from ..run.runstatus import pair_progress
from ..run.snapshot import Snapshot


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
        note = wa_note(s, reading_of(snap.series, float(snap.valid.sum()) >= snap.user_pages))
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
    w.wa_note.setToolTip(spare_detail(s) or "Why the write amplification shown is what it is.")
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
