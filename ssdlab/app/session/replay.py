"""A session's log replayed headless: the drive it rebuilds and the file-system steps' totals.

The window replays a session on its worker thread (ssdlab/app/gui/run/worker.py) from the same
pieces used here: block workloads as Streams (ssdlab/app/session/streams.py) on one Drive,
file-system steps as FsJobs (ssdlab/app/session/fsjobs.py) on a Machine built from the settings,
mounted with the options the run began with. The command line (`ssdlab chart SESSION.json`) replays
to get what a session file does not store: the erase count of every block, each block's state
and valid pages, and each file-system step's host and NAND megabytes.

Block workloads run flat out (as the window's replay does); the drive's state depends only
on the pages written, never on how they were batched. Periodic fstrim is checked after
each slice of a file-system step, where the window checks after each frame's slices, so a
session with fstrim_every_min may trim a slice earlier or later than the window did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive
from ssdlab.model.host.machine import Machine
from ssdlab.model.lab.steps import Context

from .fsjobs import FsJob, FsStep, build_machine
from .settings import Settings
from .streams import Segment, Stream

BATCH_PAGES = 1 << 20  # pages (or TRIM commands) per engine call


@dataclass
class Replayed:
    """What a replay rebuilt: the drive as the log left it, and one dict per file-system
    step (step, host_mb, nand_mb: MB of 10^6 bytes) in the order they ran."""

    drive: Drive
    steps: list[dict] = field(default_factory=list)


def replay(settings: Settings, log: list[dict],
           progress: Callable[[int, str, int, int], None] | None = None) -> Replayed:
    """Run the log's entries on a new drive of `settings`, as the window's replay does.
    progress(entry index, label, units done, units in the entry) is called as it goes.
    ValueError (a step that cannot run) and OSError (a trace or tar file) pass through."""
    geometry, config = settings.geometry(), settings.config()
    drive = Drive(geometry, config)
    machine: Machine | None = None
    out = Replayed(drive)
    context = Context()
    first = next((d for d in log if d.get("do") == "remount" and "from" in d), None)
    # a run that remounted began with the options its first remount replaced
    mount = replace(settings, **first["from"]) if first else settings
    next_fstrim = float("inf")
    for i, d in enumerate(log):
        if d.get("done", d["total"]) <= 0:
            continue  # the window skips what never ran
        if not d.get("fs"):
            if machine is not None:  # block workloads start on a bare drive again
                machine, drive = None, Drive(geometry, config)
                out = Replayed(drive)
            _run_segment(drive, Segment(**d), geometry.user_pages, i, progress)
            continue
        if machine is None:
            if drive.counters()["host_writes"] > 0:
                out = Replayed(drive)  # the window starts a fresh drive: steps so far go
            machine = build_machine(mount)
            out.drive = drive = machine.drive
            every = settings.fstrim_every_min
            next_fstrim = machine.clock + 60.0 * every if every > 0 else float("inf")
        step = FsStep.from_dict(d)
        job = FsJob(machine, step, context, limit=d.get("done"))
        machine.begin(step.label)
        while not job.finished:
            job.advance(float("-inf"), lambda: 0.0)  # one slice per call
            while machine.clock >= next_fstrim:
                machine.fstrim()
                next_fstrim += 60.0 * settings.fstrim_every_min
            if progress:
                progress(i, step.label, job.done, job.total)
        r = machine.end(settle=bool(d.get("settled")))  # as the window ended the step
        out.steps.append({"step": r.name, "host_mb": r.device_written_mb,
                          "nand_mb": r.nand_written_mb})
    return out


def _run_segment(drive: Drive, segment: Segment, user_pages: int, i: int,
                 progress: Callable[[int, str, int, int], None] | None) -> None:
    stream = Stream(segment, user_pages)
    Stream.tag(segment, drive)
    while not stream.finished:
        work = stream.take(BATCH_PAGES)
        if isinstance(work, Commands):
            start = 0
            while start < len(work):
                start = drive.run(work, start)
        else:
            drive.write_pages(work)
        if progress:
            progress(i, segment.kind, stream.done, segment.total)
