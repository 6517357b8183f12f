"""The worker's file-system steps (ssdlab/app/gui/run/worker.py): mount a file system on a fresh
drive, remount it with new options (logged as a step), run a step (unpack, build, a trace...)
in slices of BATCH_S of engine time with fstrim every N simulated minutes, and end it with
its row in the Steps table. A mixin of Worker: it uses the worker's state and signals.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ssdlab.app.session.fsjobs import FsJob, FsStep, build_machine, remount

BATCH_S = 0.02  # engine time per flat-out batch (a file-system slice or block writes)


class FileSystemSteps:
    """Worker methods for file-system steps."""

    def _fresh(self) -> None:
        """A new bare drive (and a new log), keeping the plan being run."""
        plan, replaying, restore = self._plan, self._replaying, self._restore
        seg_no = self._seg_no
        self._reset_state(self._geometry, self._config, self._profile, self._settings)
        self._plan, self._replaying, self._restore = plan, replaying, restore
        self._seg_no = seg_no

    def _mount(self) -> None:
        """Put a file system on the drive (a fresh drive: mkfs writes its metadata)."""
        if self._settings is None or not self._settings.profile:
            raise ValueError("file-system workloads need a device profile")
        settings = self._settings
        if self._replaying and self._initial_mount:
            settings = replace(settings, **self._initial_mount)
        m = build_machine(settings)
        self._machine = m
        self._mount_seen = (m.fs.opt.atime, m.fs.opt.discard)
        self._recorder.follow(m)
        self.drive = m.drive
        self.animated = False
        self._marks = np.zeros(m.drive.geometry.blocks, dtype=np.int8)
        self._copied = []
        self._sim_s = m.clock
        self._schedule_fstrim()
        self._arm_breakpoints()

    def _remount(self) -> None:
        """New mount options on the mounted file system, logged as a step so a replay or a
        saved scenario remounts at the same point."""
        m = self._machine
        old = (m.fs.opt.atime, m.fs.opt.discard)
        try:
            remount(m, self._settings)
        except ValueError as e:
            self.failed.emit(str(e))
            return
        self._mount_seen = (m.fs.opt.atime, m.fs.opt.discard)  # asked for: not the run's
        if (m.fs.opt.atime, m.fs.opt.discard) != old and not self._replaying:
            # Logged after the step running now, if any: a replay remounts when it ends.
            step = FsStep("remount", {"atime": m.fs.opt.atime, "discard": m.fs.opt.discard},
                          total=1)
            self._log.append(step.as_dict() | {"done": 1, "from": {"atime": old[0],
                                                                   "discard": old[1]}})
            self._steps.append({"step": step.label, "host_mb": 0.0, "nand_mb": 0.0,
                                "wa": float("nan"), "trims": 0, "seconds": 0.0,
                                "mb_s": float("nan")})

    def _mount_now(self) -> tuple[str, bool] | None:
        """The mounted file system's options (atime, discard), None without one; a change
        this worker did not ask for (a scenario's remount step) is counted as the run's."""
        if self._machine is None:
            return None
        now = (self._machine.fs.opt.atime, self._machine.fs.opt.discard)
        if self._mount_seen is not None and now != self._mount_seen:
            self._run_remounts += 1
        self._mount_seen = now
        return now

    def _schedule_fstrim(self) -> None:
        every = self._settings.fstrim_every_min if self._settings is not None else 0
        if self._machine is None or every <= 0:
            self._next_fstrim = float("inf")
        else:
            self._next_fstrim = self._machine.clock + 60.0 * every

    def _start_job(self, step: FsStep, limit: int | None) -> None:
        if self._machine is None:
            if self.drive is not None and self.drive.counters()["host_writes"] > 0:
                self._fresh()
            self._mount()
        m = self._machine
        self._preparing = step.label
        self._publish(force=True)  # the window shows "preparing ..." meanwhile
        # untimed preparation; it asks cancelled() as it goes
        self._job = FsJob(m, step, self._context, limit=limit, cancel=self.cancelled)
        self._preparing = ""
        m.begin(step.label)
        self._message = ""
        self._job_entry = replace(step, total=self._job.total).as_dict() | {"done": 0}
        self._log.append(self._job_entry)

    def _tick_fs(self, single: bool = False) -> None:
        job, m = self._job, self._machine
        t0 = time.perf_counter()
        job.advance(t0 + (0.0 if single else BATCH_S), time.perf_counter)
        while m.clock >= self._next_fstrim:  # fstrim every N simulated minutes
            m.fstrim()
            self._next_fstrim += 60.0 * self._settings.fstrim_every_min
        self._sim_s = m.clock
        self._job_entry["done"] = job.done
        fired = self._check_breakpoints(f"a {1000 * BATCH_S:.0f} ms slice of {job.step.label}")
        if job.finished:
            self._end_job()
            self._next_segment()
            if self._stream is None and self._job is None:
                self._running = False
                self.segment_done.emit(job.step.do)
            self._publish(force=True)
        elif not single:
            self._publish(force=fired)

    def _end_job(self, failed: bool = False, why: str = "failed") -> None:
        """The file-system step running ends; a failed one is named so in the Steps table
        with why ("failed", or "stopped" when the other drive of a comparison failed)."""
        job, self._job = self._job, None
        if job is None:
            return
        # nothing queued after this step: the person starts the next one later, so modern
        # discard's worker finishes in between (a saved log replays it the same way)
        settle = not failed and not (self._plan and isinstance(self._plan[0], tuple))
        if settle and self._machine.fs.discard_queue:
            self._job_entry["settled"] = True
        r = self._machine.end(settle=settle)
        self._recorder.record(self.drive, self._sim_s, force=True)  # the step's last part
        self._message = job.message
        self._steps.append({
            "step": r.name + (f" ({why})" if failed else ""),
            "host_mb": r.device_written_mb, "nand_mb": r.nand_written_mb, "wa": r.wa,
            "trims": r.trims, "seconds": r.seconds,
            "mb_s": r.device_written_mb / r.seconds if r.seconds > 0 else float("nan")})
