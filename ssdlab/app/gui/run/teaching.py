"""The worker's garbage collections made visible (ssdlab/app/gui/run/worker.py): the teaching pace,
one step of GC, and a breakpoint that fired on a GC. A mixin of Worker.

At teaching pace (speed "teach", on a drive with the engine's events: worker.EVENT_BLOCKS;
one too big for a snapshot to carry its pages plays block by block) the worker runs host
commands one at a time and stops after the first that made the drive collect garbage; that
command's GCs, read back from the engine's events phase by phase
(ssdlab/model/flash/gcepisodes.py), are held: every snapshot carries them as frames (the victim
marked, its pages moved, the erase) until the display has played them and sends "release"
(ssdlab/app/gui/run/gcpacer.py times the phases). The physics is the same as at any speed: the same
commands in the same order, only the batches are smaller (tests/test_teaching_pace.py).

After a step of one GC, or a breakpoint that fired on a GC, the snapshots name the victim
(gc_phase "stepped" or "breakpoint") until the run goes on; a breakpoint on a GC shows the
drive as the GC found it, the victim with its valid pages, when the events and the page map
before the batch allow it.

The drive itself cannot stop inside a batch, nor inside one host write (a write that needs a
block runs GCs until the free pool is refilled: seven more after the first, in rehearsal).
So after such a breakpoint the steps of one GC first play the GCs the batch already ran, from
the one shown, phase by phase as the engine's events recorded them: the first step cleans
the victim the breakpoint outlined, and the counters follow each GC in turn. Only once those
are shown does a step collect a new victim on the drive (its note then names what else the
rest of the batch ran: host writes after the last GC). Before, the first step cleaned a
block nobody had seen and the counters jumped eight GCs (issue 36).
"""

from __future__ import annotations

import numpy as np

from ssdlab.model.flash.gcepisodes import gc_phases
from ssdlab.model.flash.state import EV_VICTIM, OP_WRITE, R_FREE_COUNT, R_GC_LOW

from .snapshot import MARK_VICTIM, PAGE_LEVEL_PAGES, Snapshot, phase_snapshot

# names a breakpoint watch gives the condition that fired, that can fire again
RE_ARMED = {"victim_valid": "the next victim that full", "free_blocks":
            "the next time free blocks fall that low", "lpn": "the next write of that page"}


def series_before(snap: Snapshot) -> dict:
    """snap's recorded series up to the moment it shows, a GC inside the batch the series
    ran to the end of: the charts and the note under them then end where the map and tally
    stand (a bare drive's; a file system's series is in its own bytes, kept whole)."""
    dw = snap.series.get("drive_writes")
    if snap.mounted or dw is None or not dw.size:
        return snap.series
    keep = dw < snap.counters["host_writes"] / max(1, snap.user_pages)
    return {k: v[keep] for k, v in snap.series.items()}


class TeachingPace:
    """Worker methods for the teaching pace and the GC a step or a breakpoint names."""

    def _teach_reset(self) -> None:
        self._gc_held = None  # the GC phases waiting for the display (teaching pace)
        self._gc_serial = getattr(self, "_gc_serial", 0)
        self._gc_note = None  # ("stepped" | "breakpoint", GcPhase or (block, valid, dests))
        self._gc_rest = (0, 0)  # see Snapshot.gc_rest
        self._pre_batch = None  # the drive's arrays before the batch, when needed
        # a breakpoint's GC and those after it in its batch, phases not yet stepped through,
        # and the drive's counters they are valid for (any other change to it ends them)
        self._gc_replay: list = []
        self._gc_replay_for: dict | None = None

    def _pages_shown(self) -> bool:
        """The drive is small enough that every snapshot carries its pages."""
        return self.drive is not None and self.drive.arrays.p2l.size <= PAGE_LEVEL_PAGES

    def _teaching(self) -> bool:
        # any drive with events (worker.EVENT_BLOCKS): one too big for a snapshot's pages
        # plays its GCs block by block (the victim, where its pages went, the erase)
        return (self._speed == "teach" and self.animated and not self._replaying
                and bool(self.drive.event_capacity))

    def _may_collect(self, work) -> bool:
        """Whether running `work` may start a GC (so the page map before it is worth a copy):
        under page mapping, only once it may take the free blocks to the low-water mark
        (gc.foreground_gc); a copy of a big drive's map before every command would cost
        more than the pace allows."""
        drive = self.drive
        if drive.config.mapping != "page":
            return True
        regs, ppb = drive.arrays.regs, drive.pages_per_block
        pages = (work.size if isinstance(work, np.ndarray)  # host pages, or TRIM commands
                 else int(work.counts[work.ops == OP_WRITE].sum()))
        blocks = -(-pages // ppb)
        return int(regs[R_FREE_COUNT]) <= int(regs[R_GC_LOW]) + blocks + 1

    def _arrays_before(self) -> tuple:
        a = self.drive.arrays
        return a.p2l.copy(), a.bstate.copy(), a.valid.copy(), self.drive.counters()

    def _gc_breakpoint_armed(self) -> bool:
        bp = self._breakpoints
        return bp is not None and (bp.gc_count is not None or bp.victim_valid is not None)

    def _before_batch(self) -> None:
        """Keep the page map before a batch when a breakpoint on a GC may want to show it."""
        self._gc_note = None
        want = (self.drive is not None and self.drive.event_capacity and self._pages_shown()
                and self._gc_breakpoint_armed())
        self._pre_batch = self._arrays_before() if want else None

    def _teach_run(self, stream, n: int) -> int:
        """Up to n host commands one at a time, stopping after the first that collected
        garbage (its GCs are held for the display); returns the pages written or trimmed."""
        pages, events = 0, []
        ppb = self.drive.pages_per_block
        for _ in range(n):
            if stream.finished:
                break
            work = stream.take(1)
            before = self._arrays_before() if self._may_collect(work) else None
            self._run(work)
            pages += len(work) if stream.is_trim else work.size
            ev = (np.concatenate(self._batch_events) if self._batch_events
                  else np.empty((0, 4), dtype=np.int64))
            events.append(ev)
            if before is not None and (ev[:, 0] == EV_VICTIM).any():
                self._hold(gc_phases(*before, ev, ppb))
                break
        self._batch_events = events
        return pages

    def _hold(self, phases: list) -> None:
        if phases:
            self._gc_held = phases
            self._gc_serial += 1

    def _release(self) -> None:
        self._gc_held = None

    def _step_one_gc(self) -> None:
        """One GC now (the "gc" command): the block cleaned is named until the run goes on,
        and at teaching pace its phases are played first. After a breakpoint on a GC, the
        GCs its batch ran come first (the module docstring)."""
        if self._gc_replay and self._gc_replay_for == self.drive.counters():
            self._step_replayed()
            return
        self._gc_replay = []
        drive = self.drive
        before = self._arrays_before() if drive.event_capacity and self._pages_shown() \
            else None
        self._gc_rest = self._rest_of_paused_batch()
        self._gc_note = None
        moved = drive.collect_one()
        events = drive.take_events() if drive.event_capacity else None
        if events is not None:
            self._batch_events = []
            self._mark(events)
        if moved < 0:
            return
        if before is not None:
            phases = gc_phases(*before, events, drive.pages_per_block)
            self._gc_note = ("stepped", phases[-1])
            if self._speed == "teach" and self.animated:
                self._hold(phases)
        else:
            block, valid = drive.last_victim
            self._gc_note = ("stepped", (block, valid, ()))

    def _step_replayed(self) -> None:
        """The next GC the paused batch ran, shown as a step: the drive as that GC left it,
        its victim and where the pages went named; at teaching pace mark, move and erase."""
        phases, self._gc_replay = self._gc_replay[:3], self._gc_replay[3:]
        self._gc_note = ("replayed", phases[-1])
        self._gc_rest = (0, 0)
        if self._speed == "teach" and self.animated:
            self._hold(phases)

    def _rest_of_paused_batch(self) -> tuple[int, int]:
        """(GCs, host pages) the drive ran after the moment a breakpoint on a GC, or the
        last GC of its batch stepped through, shows: it paused after the batch. Without
        this a GC step from there seemed to copy 52 pages while it said 18 moved (lecture
        rehearsal, 64 MiB drive)."""
        note = self._gc_note
        if note is None or note[0] not in ("breakpoint", "replayed") \
                or isinstance(note[1], tuple):
            return (0, 0)
        shown, now = note[1].counters, self.drive.counters()
        return (now["erases"] - shown["erases"], now["host_writes"] - shown["host_writes"])

    def _breakpoint_on_gc(self, watch, events: np.ndarray | None) -> str:
        """A breakpoint fired: note the GC it fired on (the map keeps the victim marked, as
        the GC found it when the page map before the batch was kept); returns what the
        message adds: whether the breakpoint stays armed."""
        i = watch.victim_index
        if i is not None and events is not None:
            victims = events[events[:, 0] == EV_VICTIM]
            if self._pre_batch is not None and i < len(victims):
                phases = gc_phases(*self._pre_batch, events,
                                   self.drive.pages_per_block)
                self._gc_note = ("breakpoint", phases[3 * i])
                self._gc_replay = phases[3 * i:]  # the steps of one GC play these first
                self._gc_replay_for = self.drive.counters()
                if self._gc_held and len(self._gc_held) == len(phases):
                    # teaching pace: the GCs before it play; it and the rest wait for G
                    self._gc_held = self._gc_held[:3 * i] or None
            elif i < len(victims):
                self._gc_note = ("breakpoint", (int(victims[i, 1]), int(victims[i, 2]), ()))
        again = RE_ARMED.get(watch.fired)
        return f" · breakpoint still armed: it pauses again at {again}" if again else ""

    def _gc_view(self, snap: Snapshot) -> Snapshot:
        """The snapshot to publish: marked with the GC a step or breakpoint names, carrying
        the held phases at teaching pace."""
        from dataclasses import replace

        note = self._gc_note
        if note is not None:
            kind, what = note
            if isinstance(what, tuple):  # no page map to show: the victim block marked
                block, valid, dests = what
                marks = snap.marks.copy()
                marks[block] = MARK_VICTIM
                codes = snap.codes.copy()
                if kind == "breakpoint":  # its colour: the valid pages it held
                    codes[block] = min(255, valid * 255 // snap.pages_per_block)
                snap = replace(snap, marks=marks, codes=codes, gc_phase=kind,
                               gc_victim=block, gc_valid=valid, gc_destinations=dests)
            elif kind in ("breakpoint", "replayed"):  # a moment inside the paused batch
                snap = phase_snapshot(snap, what, "breakpoint" if kind == "breakpoint"
                                      else "stepped")  # (replayed: as the GC left it)
                snap = replace(snap, series=series_before(snap))
            else:  # stepped: the drive as it is, the block cleaned and its destination named
                snap = replace(snap, gc_phase=kind, gc_victim=what.episode.victim,
                               gc_valid=what.episode.valid_pages,
                               gc_destinations=what.episode.destinations,
                               gc_rest=self._gc_rest)
        if self._gc_held:
            frames = tuple(phase_snapshot(snap, p) for p in self._gc_held)
            snap = replace(snap, gc_frames=frames, gc_serial=self._gc_serial)
        return snap
