"""The workbench's time controls as its keys and buttons use them (the keys:
ssdlab/app/gui/frame/shortcuts.py): Run, play/pause, the two steps and the two resets, with
the rules that keep them from surprising a lecturer in front of a class.

- Run never restarts a running drive. In rehearsal Space on a Run button that had taken the
  focus by itself took a run from 52 % back to 4 %; now the run goes on and the status line
  says how to start again (pause, then Run).
- A reset that would lose a run asks first. A question, not an undo: the room sees what is
  about to go before it goes, nothing needs remembering afterwards (an undo is a key the
  lecturer must know at the moment they notice the loss), and an undo would have to keep a
  copy of every page of one or two drives. Nothing to lose (an empty drive): no question.
  The question's safe answer is the default (QMessageBox's No), so a stray Return keeps the
  run; Y resets.
- Breakpoints are settings: Reset drive keeps them, as it keeps the rest, and says they are
  still armed; Reset All puts them back to none, as at start-up. While any is armed the
  progress line says so (statusline.show).
- In a lesson the lesson runs the drive (its Run button, Escape cancels): the workbench's own
  run keys would drive a hidden drive, so they only say so.
"""

from __future__ import annotations

from ..drive import breakpointdialog, mapwiring
from ..run.runstatus import count_text
from . import statusline

IN_LESSON = ("In a lesson the lesson runs the drive: its Run button starts each run, "
             "Escape cancels one, Ctrl+L leaves the lesson panel")


def in_lesson(w) -> bool:
    """True (and said) when a lesson holds the drive."""
    if getattr(w, "in_lesson", False):
        statusline.say(w, IN_LESSON, until=lambda w: not w.in_lesson)
        return True
    return False


def run(w) -> None:
    """Run: the chosen workload from its beginning, unless the drive runs already."""
    if in_lesson(w):
        return
    if w.is_running():
        statusline.say(w, "Run: the run goes on (Run never starts a running drive over). "
                       "Space pauses it; Run after a pause starts the workload afresh.",
                       until=lambda w: not w.is_running())
        return
    if w._send_workload():
        w.play_button.setText("Pause")


def toggle_play(w) -> None:
    if in_lesson(w):
        return
    if w.is_running():
        w.send_all("pause")
        w.play_button.setText("Play")
    elif any(v.snapshot is not None and v.snapshot.segment for v in w.views):
        w.send_all("play")
        w.play_button.setText("Pause")
    else:
        run(w)


def step(w) -> None:
    if in_lesson(w):
        return
    snap = w.snapshot
    if snap is None or not snap.segment:
        if not w._send_workload():
            return
        w.send_all("pause")
    w.send_all("step")
    w.play_button.setText("Play")


def step_gc(w) -> None:
    """One garbage collection now (the run pauses)."""
    if in_lesson(w):
        return
    w.send_all("gc")
    w.play_button.setText("Play")


def _run_words(w) -> str:
    """What a reset would lose, in a few words ("" when nothing)."""
    snap = w.snapshot
    host = 0 if snap is None else int(snap.counters["host_writes"])
    parts = []
    if w.is_running():
        parts.append("the run going now")
    if host:
        parts.append(f"{count_text(host)} host page writes so far")
    return " and ".join(parts) or ("the drive's contents" if w.has_data() else "")


def ask_reset_drive(w) -> None:
    """Ctrl+R and the Reset drive button: asks first when a run would be lost."""
    lost = _run_words(w)
    if lost and not w.confirm(f"Reset the drive? This erases {lost}; the settings and "
                              f"breakpoints stay.\n\nYes resets; No keeps the run."):
        return
    w.reset_drive()


def ask_reset_all(w) -> None:
    """Alt+R and the Reset All button: asks first when a run, a kept reference or a lesson
    under way would be lost."""
    lost = [x for x in (_run_words(w), "the kept reference" if w.references else "",
                        "this lesson's answers and runs" if getattr(w, "in_lesson", False)
                        else "") if x]
    if lost and not w.confirm(f"Reset All? This erases {' and '.join(lost)}, and puts every "
                              f"setting and breakpoint back as at start-up.\n\nYes resets; "
                              f"No keeps everything."):
        return
    w.reset_all()


def after_reset_drive(w) -> None:
    """Reset drive kept the breakpoints: say so, they fire again on the new run."""
    armed = breakpointdialog.armed_words(w.breakpoints)
    if armed:
        later = statusline.next_work(w)  # true until the next run, or the breakpoints change
        statusline.say(w, f"Drive reset; {armed}, still (Ctrl+B changes it)",
                       until=lambda w: later(w) or breakpointdialog.armed_words(w.breakpoints)
                       != armed)


def after_reset_all(w) -> None:
    """Reset All clears the breakpoints, as at start-up."""
    if w.breakpoints.active():
        mapwiring.set_breakpoints(w, type(w.breakpoints)(), w.session.settings.geometry())
