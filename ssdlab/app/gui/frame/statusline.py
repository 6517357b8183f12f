"""What the window says about the run in words: `show` fills the workbench's status bar and
progress line, for one drive or two, from each drive's RunStatus
(ssdlab/app/gui/run/runstatus.py), `say` puts a notice in it, `drop_stale` takes one away once
it is out of date (which figures show is the layout policy's: frame/layoutpolicy.py)."""

from __future__ import annotations

import math
import time

from ssdlab.app.session.settings import run_modelled
from ssdlab.app.session.wanotes import reading_of, spare_detail, wa_note, wa_status

from ..drive.breakpointdialog import armed_words
from ..run.runstatus import gc_words, pair_progress


def _shown(v):
    """The snapshot of the moment drive view v's map shows (a GC's phase at teaching pace,
    a breakpoint's GC as it found the drive), which its tally shows too."""
    return v.blockmap.snapshot if v.shows_own_drive and v.blockmap.snapshot is not None \
        else v.snapshot


def _shown_wa(v) -> float:
    """The WA of the moment drive view v's map shows, the figure its tally shows too: both
    read it from the same snapshot."""
    snap = _shown(v)
    return snap.wa if snap is not None else math.nan


def show_note(w) -> None:
    """The note under the WA chart, of the moment the map and tally show (one drive; with
    two it would name only A's figure): a breakpoint's GC, a GC stepped through after it,
    the same figure as the tally, written the same way."""
    a = w.views[0]
    snap, shown = a.snapshot, _shown(a)
    note = ""
    if len(w.views) == 1 and snap is not None and shown is not None:
        at = None if not shown.gc_phase or shown.mounted else (
            shown.counters["host_writes"] / max(1, shown.user_pages), shown.wa)
        # full: every logical page held, or GC has copied (a GC inside the host write that
        # staled a page shows one page short, and "filling copies nothing" beside a tally
        # of 53 pages copied would contradict it)
        full = float(shown.valid.sum()) >= shown.user_pages or shown.counters["gc_copies"] > 0
        note = wa_note(a.settings, reading_of(snap.series, full, at),
            modelled=run_modelled(a.settings, snap.log) or not snap.log)
    if note != w.wa_note.text():  # (each frame of a run passes here: fit only a change)
        w.wa_note.setText(note)
    w.wa_note.setToolTip(spare_detail(a.settings)
                         or "Why the write amplification shown is what it is.")
    w.wa_note.setVisible(bool(note))


def show(w) -> None:
    """The status bar and progress line of workbench w from its drives' newest snapshots
    (capacity, fill, time and speed are drive A's; the WA is each drive's)."""
    drop_stale_notice(w)
    drop_stale(w)
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
    show_wa(w)
    if len(w.views) == 1:
        progress = a.run_status.progress(snap)
        if said_under_map(w):  # the GC stepped is named under the map: not twice
            progress = progress.removesuffix(f" · {gc_words(snap)}")
        w.progress_label.setText(progress)
    else:
        b = w.views[1]
        w.progress_label.setText(pair_progress(snap, b.snapshot or snap, a.progress(),
                                               b.progress()))
    bp = getattr(w, "breakpoints", None)
    armed = armed_words(bp, short=True) if bp is not None else ""
    if armed and not w.notice:  # a breakpoint is never armed unsaid (a reset keeps it)
        w.progress_label.setText(f"{w.progress_label.text()} · {armed}")
    if w.notice and not said_under_map(w):  # a breakpoint that paused the run, until
        w.progress_label.setText(f"{w.progress_label.text()} · {w.notice}")  # the next run
    elif w.said_notice and w.said_notice == w.notice and w.status_message.message() != w.notice:
        # said on the progress line, then the map's sentence took over naming the GC (an
        # animated run plays the breakpoint's GC a moment after the notice): the bar says why
        w.status_message.set_message(w.notice)
        w.dismiss_button.show()
    show_note(w)
    w.speech.status_shown()  # a screen reader hears the figures at a listener's pace


def said_under_map(w) -> bool:
    """The sentence under the single map says what the map shows of a GC (a breakpoint on
    one, a GC stepped): the notice about it is not repeated on the progress line, whose
    second line squashed the tally beside the map at 1024 x 768 in presentation type."""
    now = w.views[0].tally.now
    return len(w.views) == 1 and now.isVisible() and bool(now.text())


def show_wa(w) -> None:
    """The status bar's WA of each drive, for the moment its map shows: called for each
    snapshot and for each phase of a GC the map plays at teaching pace, as the tally is."""
    texts = [wa_status(v.settings, _shown_wa(v)) for v in w.views]
    if len(texts) == 1:
        w.status["wa"].setText(texts[0])
        # the note beside it follows the same moment (a lesson's lower half shows its
        # results, not the note)
        if not getattr(w, "in_lesson", False):
            show_note(w)
        return
    # "(compressed)" once, at the end, when it explains both
    tail = " (compressed)" if all(t.endswith(" (compressed)") for t in texts) else ""
    texts = [t.removesuffix(tail) for t in texts]
    w.status["wa"].setText(f"A: {texts[0]}  B: {texts[1]}{tail}")


def install(w) -> None:
    """The status bar's message label: a widget in the bar's layout, left of the figures,
    so a message never paints over them (QStatusBar's own message did, at 1024 px); beside
    it a button that dismisses it (Tab to it, Space), shown while there is a message."""
    from PySide6.QtWidgets import QSizePolicy, QToolButton

    from .messagelabel import MessageLabel

    label = w.status_message = MessageLabel()
    label.setObjectName("message")
    # the bar never widens for a message: one too long for its room goes to the
    # progress line, which wraps (say)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    w.statusBar().addWidget(label, 1)
    close = w.dismiss_button = QToolButton()
    close.setText("\N{MULTIPLICATION SIGN}")
    close.setAccessibleName("Dismiss the message")
    close.setToolTip("Dismiss the message (it stays until dismissed or replaced).")
    close.clicked.connect(lambda: say(w, ""))
    # as tall as the bar the figures make, never taller: at 18 pt its frame made the bar,
    # and the window, 7 px taller than 768 px
    close.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
    close.hide()
    w.statusBar().addWidget(close)
    w.said_notice = ""


def next_work(w):
    """A message's `until` for a report of something done (saved, exported, a divider
    moved, a file opened): it goes with the next command that gives the drives work or
    resets them, when it is history."""
    sent = w.__dict__.get("_work_sent", 0)
    return lambda w: w.__dict__.get("_work_sent", 0) > sent


def work_sent(w) -> None:
    """The drives were sent work, a reset or new settings (workbench.send_all)."""
    w._work_sent = w.__dict__.get("_work_sent", 0) + 1
    drop_stale(w)


def drop_stale(w) -> None:
    """The message goes once it is out of date (its `until` says so): a fold undone, a
    reference cleared, a report of a file saved once the run has moved on. Checked on
    every snapshot, on work sent, when a reference is cleared and whenever the arranger
    applies the layout policy (a fold undone, a lesson left, a stage flipped:
    frame/arranger.py)."""
    until = w.__dict__.get("_message_until")
    if until is not None and w.status_message.message() and until(w):
        w._message_until = None
        w.status_message.set_message("")
        w.status_message.setToolTip("")
        w.dismiss_button.hide()


def say(w, text: str, until=None) -> None:
    """The window's one way to tell the person something: it stays until the next message,
    until dismissed or, with `until` (a test on the window, next_work(w) for a report of
    something done), until it is out of date; a screen reader is told it (assertively for
    a breakpoint's notice). Errors and problems the person must read have no `until`.
    It goes in the status bar where the figures leave room for it (at 18 pt
    with two drives they leave little: "Breakpoint (A): GC number 50: block 190, 56 va"
    ran into them); a breakpoint's notice too long for it goes on the progress line, its own
    row, which wraps; another is shortened in the middle. "" clears it."""
    label = w.status_message
    before = label.message()
    bar = w.statusBar()
    used = sum(lab.width() + bar.layout().spacing() for lab in w.status.values()
               if lab.isVisible())
    room = bar.width() - used - w.dismiss_button.sizeHint().width() - 24
    # a breakpoint's notice is cleared with the notice (show: a run resumed or was reset)
    w.said_notice = text if text and text == w.notice else ""
    too_long = bar.fontMetrics().horizontalAdvance(text) > room
    if w.said_notice and too_long and not said_under_map(w):
        label.set_message("")  # the progress line, which wraps, names it whole (show)
        w.progress_label.setText(text)
    else:  # shortened in the middle to the label's room, never over the figures (when the
        label.set_message(text)  # map's sentence names the GC, the bar still says why)
    label.setToolTip(text)
    w._message_until = until if text else None
    w.dismiss_button.setVisible(bool(label.message()))
    if text and text != before:
        w.speech.say(text, assertive=bool(w.said_notice), source=label)


def drop_stale_notice(w) -> None:
    """A breakpoint's message goes once the run it paused resumes or the drive is reset
    (send_all clears w.notice then)."""
    if w.said_notice and w.said_notice != w.notice:
        if w.status_message.message() == w.said_notice:
            w.status_message.set_message("")
            w.dismiss_button.hide()
        w.said_notice = ""
