"""Scenario files in the workbench: a scenario as workbench settings and steps, and a
workbench run as a scenario.

Opening a scenario sets the drive, partition and file system the file names and queues its
steps, which the worker runs through ssdlab/model/lab/steps.py exactly as `ssdlab run` does. Saving
a file-system run as a scenario writes the drive and mount options it started with and every
step it finished, so `ssdlab run` plays it to the same counters. What a scenario cannot
express (a drive that differs from its profile, block workloads, periodic fstrim) is refused
with the reason.
"""

from __future__ import annotations

from dataclasses import replace

from ssdlab.app.session.fsjobs import HOST_PROFILE, FsStep, fs_options
from ssdlab.app.session.settings import drive_spare_pct, profile_spare_pcts
from ssdlab.model.flash.geometry import FtlConfig
from ssdlab.model.host.profiles import load_profile
from ssdlab.model.lab.scenario import Scenario

from .session import LABELS, Settings

# Workbench fields that must match the profile for the drive to be the scenario's.
PROFILE_FIELDS = ("page_kib", "pages_per_block", "spare_pct", "mapping", "gc")
# Engine settings a scenario leaves at FtlConfig's defaults.
ENGINE_DEFAULTS = {k: getattr(FtlConfig(), k) for k in ("d", "gc_low_blocks", "seed")}


def profile_settings(profile: str) -> dict:
    """The workbench fields a device profile sets."""
    p = load_profile(profile)
    return {"page_kib": p.page_bytes // 1024, "pages_per_block": p.pages_per_block,
            "spare_pct": round(100 * p.spare, 2), "mapping": p.mapping, "gc": p.gc_policy}


def settings_for(sc: Scenario, current: Settings) -> Settings:
    """Workbench settings for the scenario's drive, partition and file system (the
    controls' other values stay). ValueError says what the workbench cannot set."""
    if sc.host != HOST_PROFILE:
        raise ValueError(f"host.profile: the workbench runs {HOST_PROFILE}; got {sc.host!r}")
    p = load_profile(sc.profile)
    user_pages = sc.user_pages if sc.user_pages is not None else p.user_pages
    # Spare shows what the scenario's drive really has: a scenario cannot set spare, and
    # whole erase blocks round the profile's figure up (the "% of physical" beside it)
    spare = drive_spare_pct(p.spare, p.geometry(user_pages))
    return replace(current, profile=sc.profile, **profile_settings(sc.profile) | {
                       "spare_pct": spare},
                   **ENGINE_DEFAULTS, gc_frontier=sc.gc_frontier or p.gc_frontier,
                   victim_order=sc.victim_order or p.victim_order,
                   slc_cache=sc.slc_cache or p.slc_cache,
                   wear_leveling_gap=sc.wear_leveling_gap or 0,
                   placement=sc.placement or "none", handle_gc=sc.handle_gc or "mixed",
                   tag_errors_pct=100 * (sc.tag_errors or 0.0),
                   capacity_mib=user_pages * p.page_bytes / 2**20,
                   partition_start=sc.partition.start_sector,
                   lvm_kib=sc.partition.lvm_pe_start_bytes // 1024, journal=sc.fs.journal,
                   atime=sc.fs.atime, discard=sc.fs.discard, kernel=sc.fs.kernel,
                   data_compression=sc.data_compression or 0.0, fstrim_every_min=0.0,
                   extents=sc.fs.extents, commit_interval_s=sc.fs.commit_interval_s,
                   stripe_width_blocks=sc.fs.stripe_width_blocks,
                   max_request_kib=sc.fs.max_request_bytes // 1024)


def steps_for(sc: Scenario) -> list[FsStep]:
    return [FsStep(step.do, dict(step.args), index=i) for i, step in enumerate(sc.steps, 1)]


def scenario_for(s: Settings, log: list[dict], name: str) -> Scenario:
    """The run recorded in log, on a drive with settings s, as a Scenario. ValueError
    names what a scenario cannot hold."""
    if not s.profile:
        raise ValueError("a scenario names a device profile; choose one under Drive > Profile")
    expected = profile_settings(s.profile) | ENGINE_DEFAULTS
    p = load_profile(s.profile)
    for key, value in expected.items():
        if key == "spare_pct" and s.spare_pct in profile_spare_pcts(p.spare, s.geometry()):
            continue  # the profile's figure, or what it comes to on this drive
        if getattr(s, key) != value:
            raise ValueError(f"{LABELS[key]} is {getattr(s, key)}, not the profile's "
                             f"{value}: a scenario takes the drive as its profile describes it")
    if s.fstrim_every_min > 0:
        raise ValueError("fstrim every N minutes has no scenario step; set it to 0, or save "
                         "a session instead")
    if any(not d.get("fs") for d in log):
        raise ValueError("this run has block workloads, which scenario files do not hold; "
                         "save a session instead")
    if not log:
        raise ValueError("nothing has run yet: run a file-system workload first")
    if log[-1].get("done", 0) < log[-1].get("total", 0):
        raise ValueError("the last step is unfinished: let it finish, then save")
    first_remount = next((d for d in log if d.get("do") == "remount" and "from" in d), None)
    mount = first_remount["from"] if first_remount else {"atime": s.atime,
                                                          "discard": s.discard}
    steps = [step for d in log for step in FsStep.from_dict(d).scenario_steps()]
    return Scenario(name=name, profile=s.profile, host=HOST_PROFILE, user_pages=s.user_pages,
                    data_compression=s.data_compression or None, partition=s.partition(),
                    fs=fs_options(s, mount["atime"], mount["discard"]),
                    steps=tuple(steps),
                    gc_frontier=None if s.gc_frontier == load_profile(s.profile).gc_frontier
                    else s.gc_frontier,
                    victim_order=None
                    if s.victim_order == load_profile(s.profile).victim_order
                    else s.victim_order,
                    slc_cache=None if s.slc_cache == p.slc_cache else s.slc_cache,
                    wear_leveling_gap=s.wear_leveling_gap or None,
                    **_placement(s))


def _placement(s: Settings) -> dict:
    """The scenario's placement fields for the workbench's (none of them without tags)."""
    if s.placement == "none":
        return {}
    return {"placement": s.placement, "handle_gc": None if s.handle_gc == "mixed" else
            s.handle_gc, "tag_errors": s.tag_errors_pct / 100 or None}
