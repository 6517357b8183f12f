"""File-system steps for the workbench: scenario steps, run a slice at a time.

A workbench file-system step is a scenario step (ssdlab/model/lab/scenario.py: `do` and its checked
fields, exactly as a [[steps]] entry of a scenario file), run by ssdlab/model/lab/steps.py, which
yields after every file, MiB or request. The worker runs it for a few milliseconds at a time so it
can publish snapshots, pause and cancel between slices. Nothing here computes physics: it
only turns the controls into steps and steps into log entries.

Steps are recorded as plain dicts (`FsStep.as_dict`) so a session file can record them,
replaying the same steps to the same unit counts rebuilds the same drive, and a run can be
saved as a scenario file that `ssdlab run` plays to the same result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from ssdlab.model.host.filesystem import FsOptions
from ssdlab.model.host.filetree import KERNEL_DISK_BYTES
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.profiles import load_host_profile, load_profile
from ssdlab.model.host.traces import DETECT_LINES, parse
from ssdlab.model.lab.scenario import Step, make_step
from ssdlab.model.lab.steps import Context, StepRun

HOST_PROFILE = "host_phenom2_x4_965"

FS_KINDS = {
    "unpack": "Kernel tree unpack",
    "rmrf": "rm -rf of the tree",
    "seqwrite": "Sequential write (MB)",
    "trace": "Replay trace file…",
    "fillfiles": "Fill with many files (to Fill %)",
    "deletehalf": "Delete half of those files",
    "gitclone": "git clone of the tree",
    "make": "make (whole tree)",
    "makeclean": "make clean",
    "symlink": "Symbolic link",
    "umount": "umount",
}


@dataclass(frozen=True)
class FsStep:
    """One file-system step of a workbench run: a scenario step (`do` and its fields), then
    a sync when the control that made it implies one (unpack, rm -rf and replay each end
    with one in the workbench). index numbers steps within a run; total: units the step
    has (files, MiB, requests)."""

    do: str
    args: dict = field(default_factory=dict)
    index: int = 0
    sync_after: bool = False
    total: int = 0

    @classmethod
    def from_control(cls, kind: str, settings, index: int) -> FsStep:
        """The step a workload control asks for (kind: unpack, rmrf, seqwrite, trace or
        fstrim), with the settings' values."""
        s = settings
        if kind == "unpack":
            return cls("unpack", make_step("unpack", scale=s.kernel_scale).args, index, True)
        if kind == "rmrf":
            return cls("rm", {}, index, True)
        if kind == "seqwrite":
            return cls("write", make_step("write", name=f"seq-{index}.bin",
                                          mb=float(s.seq_mb)).args, index)
        if kind == "trace":
            return cls("replay", make_step("replay", trace=s.trace_path).args, index, True)
        if kind == "fstrim":
            return cls("fstrim", {}, index)
        if kind == "fillfiles":
            return cls("fill_files", make_step("fill_files", percent=float(s.fill_pct),
                                               seed=s.seed).args, index, True)
        if kind == "deletehalf":
            return cls("delete_files", make_step("delete_files", percent=50.0).args, index,
                       True)
        if kind == "gitclone":
            return cls("git_clone", make_step("git_clone", scale=s.kernel_scale).args, index,
                       True)
        if kind in ("make", "makeclean", "umount"):
            do = {"makeclean": "make_clean"}.get(kind, kind)
            return cls(do, make_step(do).args, index, kind != "umount")
        if kind == "symlink":
            return cls("symlink", make_step("symlink", name=f"link-{index}").args, index)
        raise ValueError(f"file-system step must be one of {', '.join(FS_KINDS)}, fstrim; "
                         f"got {kind!r}")

    @classmethod
    def from_dict(cls, d: dict) -> FsStep:
        """A step from a session log; logs written before steps were scenario steps name
        a control `kind` instead."""
        if "kind" in d:
            step = cls.from_control(d["kind"], _Legacy(d), d.get("index", 0))
            return replace(step, total=d.get("total", 0))
        step = make_step(d["do"], **d.get("args", {}))
        return cls(step.do, step.args, d.get("index", 0), bool(d.get("sync_after")),
                   d.get("total", 0))

    def as_dict(self) -> dict:
        return {"fs": True, "do": self.do, "args": dict(self.args), "index": self.index,
                "sync_after": self.sync_after, "total": self.total}

    def scenario_steps(self) -> list[Step]:
        """The step as a scenario file writes it (its sync as a step of its own)."""
        steps = [Step(self.do, dict(self.args))]
        return steps + [Step("sync", {})] if self.sync_after else steps

    @property
    def label(self) -> str:
        a = self.args
        if self.do == "unpack":
            what = a["tar"].rsplit("/", 1)[-1] if a.get("tar") else f"kernel tree x{a['scale']:g}"
            return f"unpack {what}"
        if self.do == "rm":
            return "rm -rf tree"
        if self.do == "write":
            return f"write {a['mb']:g} MB"
        if self.do == "replay":
            return "replay " + a["trace"].rsplit("/", 1)[-1]
        if self.do == "fill":
            return f"fill to {a['percent']:g} %"
        if self.do == "fill_files":
            return f"fill to {a['percent']:g} % with files"
        if self.do == "delete_files":
            return f"delete {a['percent']:g} % of the files"
        if self.do == "make" and a.get("targets"):
            return f"make {a['targets']}"
        if self.do == "random_writes":
            return f"sysbench {a['requests']:,} x 4 KiB"
        if self.do == "user_mix":
            skew = f", {a['hot_writes_pct']:g} % to {a['hot_pct']:g} %" if a["hot_pct"] else ""
            return f"user mix {a['drive_writes']:g} drive writes{skew}"
        if self.do == "idle":
            return f"idle {a['seconds']:g} s"
        if self.do == "remount":
            # read as a person would say it, not Python's repr: "discard: off"
            options = [f"{k}: {({True: 'on', False: 'off'}).get(v, v)}"
                       for k, v in a.items() if v is not None]
            return f"remount ({', '.join(options)})" if options else "remount"
        what = self.do.replace("_", " ")
        return f"{what} {a['name']}" if a.get("name") else what


@dataclass(frozen=True)
class _Legacy:
    """The control values an old log entry carried."""

    d: dict

    def __getattr__(self, name):
        key = {"kernel_scale": "scale", "seq_mb": "megabytes", "trace_path": "path"}[name]
        return self.d.get(key, {"scale": 0.1, "megabytes": 100.0, "path": ""}[key])


def kernel_tree_mb(scale: float) -> float:
    return KERNEL_DISK_BYTES * scale / 1e6


def build_machine(settings) -> Machine:
    """A Machine whose drive has exactly the workbench's geometry and FTL settings."""
    s = settings
    g = s.geometry()
    profile = replace(load_profile(s.profile), spare=g.spare, page_bytes=g.page_bytes,
                      pages_per_block=g.pages_per_block, mapping=s.mapping, gc_policy=s.gc)
    options = fs_options(s)
    return Machine(profile, load_host_profile(HOST_PROFILE), options, s.partition(),
                   user_pages=g.user_pages, d=s.d, gc_low_blocks=s.gc_low_blocks, seed=s.seed,
                   data_compression=s.data_compression or None, slc_cache=s.slc_cache,
                   wear_leveling_gap=s.wear_leveling_gap, placement=s.placement,
                   tag_errors=s.tag_errors_pct / 100 if s.placement != "none" else 0.0,
                   **({"handle_gc": s.handle_gc} if s.placement != "none" else {}))


def fs_options(s, atime: str | None = None, discard: bool | None = None) -> FsOptions:
    """The file system's format and mount options from the workbench's settings (atime and
    discard: other mount options than the settings', as a scenario's first mount)."""
    return FsOptions(journal=s.journal, atime=s.atime if atime is None else atime,
                     discard=s.discard if discard is None else discard, kernel=s.kernel,
                     extents=s.extents, commit_interval_s=s.commit_interval_s,
                     stripe_width_blocks=s.stripe_width_blocks,
                     max_request_bytes=s.max_request_kib * 1024)


def remount(m: Machine, settings) -> None:
    """Apply the mount options (atime, discard) to a mounted file system."""
    m.fs.remount(replace(m.fs.opt, atime=settings.atime, discard=settings.discard))


class FsJob:
    """A running step: `advance(until)` runs slices until the wall clock passes `until` or
    the step is done (or reaches `limit` units, for replays). Constructing it does the
    step's untimed preparation, which asks cancel() as it goes and stops (raising) when it
    says so; a step that cannot run raises ValueError."""

    def __init__(self, m: Machine, step: FsStep, context: Context, limit: int | None = None,
                 cancel: Callable[[], bool] | None = None):
        self.m = m
        self.step = step
        self.run = StepRun(m, Step(step.do, dict(step.args)), context, cancel=cancel)
        self.total = self.run.total
        self.done = 0
        # a step saved as finished runs to its end (its sync included), not to its last unit
        self.limit = None if limit is not None and limit >= self.total else limit
        self.message = ""
        self.finished = False
        self._gen = self._slices()

    def _slices(self) -> Iterator[int | None]:
        yield from self.run
        if self.step.sync_after:
            yield from self.m.sync_steps()
        self.message = self.run.message
        yield self.total

    def advance(self, until: float, clock) -> None:
        while not self.finished and (self.limit is None or self.done < self.limit):
            try:
                done = next(self._gen)
            except StopIteration:
                self.finished = True
                break
            if done is not None:  # a sync slice yields None: progress stays where it was
                self.done = done
            if clock() >= until:
                break
        if self.limit is not None and self.done >= self.limit:
            self.finished = True


CHECK_LINES = 20 * DETECT_LINES  # a quick look: milliseconds, whatever the file's size


def check_trace(path: str) -> str:
    """Read a trace file's first CHECK_LINES lines now (it runs on the GUI thread), so a bad
    one is reported at the control (ValueError names the file and the first unreadable
    line). The whole file is read by the worker when the step runs."""
    if not path:
        raise ValueError("trace file: choose a file (tracefs, blkparse, fio iolog or "
                         "MSR-Cambridge CSV)")
    trace = parse(path, max_lines=CHECK_LINES)
    n = len(trace.requests)
    msg = (f"{n:,} requests ({trace.fmt})" if trace.complete else
           f"{trace.fmt}: {n:,} requests in the first {trace.lines:,} lines; the rest is read "
           "when the step runs")
    if trace.problems:
        p = trace.problems[0]
        msg += f"; {trace.unreadable:,} lines unreadable, first at line {p.line}: {p.reason}"
    return msg
