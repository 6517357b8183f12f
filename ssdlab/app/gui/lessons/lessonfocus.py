"""Which workbench controls a lesson's run uses: each configuration as the settings the
controls would show, and the names of the settings the configurations differ in (what the
run varies), so the window can show the drive being run, highlight what varies and fold
away the rest. Plain mapping, no physics.
"""

from __future__ import annotations

from dataclasses import fields, replace

from ssdlab.app.session.fsjobs import HOST_PROFILE
from ssdlab.lessons.lesson import RunConfig, RunStep
from ssdlab.model.host.filesystem import FsOptions

from ..settings.scenariofiles import settings_for
from ..settings.session import Settings

# Settings a run's own configuration never sets: how the window plays, not what runs.
NOT_SHOWN = ("speed", "trace_path", "fill_pct", "kernel_scale", "seq_mb", "amount",
             "trim_max_pages", "fstrim_every_min")


def config_settings(config: RunConfig, base: Settings | None = None) -> Settings:
    """The settings a configuration amounts to (the others as base, or the defaults)."""
    base = base or Settings()
    if config.spec is not None:
        spec = config.spec
        g, c, w = spec.geometry, spec.config, spec.workload
        return replace(base, profile="", capacity_mib=g.user_pages * g.page_bytes / 2**20,
                       spare_pct=round(100 * g.spare, 2), page_kib=g.page_bytes // 1024,
                       pages_per_block=g.pages_per_block, mapping=c.mapping, gc=c.gc, d=c.d,
                       gc_low_blocks=c.gc_low_blocks, gc_frontier=c.gc_frontier,
                       victim_order=c.victim_order,
                       data_compression=c.stored_fraction if c.stored_fraction < 1 else 0.0,
                       wear_leveling_gap=c.wear_leveling_gap,
                       seed=spec.seed,
                       # a zoned drive's classes are the host's zones, not the drive's
                       # handles (beyond_panel says so)
                       placement="none" if spec.zoned else spec.placement,
                       handle_gc=c.handle_gc,
                       tag_errors_pct=0.0 if spec.zoned else 100 * spec.tag_errors,
                       workload=w.kind, hot_lba_pct=100 * w.hot_lba_fraction,
                       hot_write_pct=100 * w.hot_write_fraction)
    sc = config.scenario
    try:
        return settings_for(sc, base)
    except ValueError:
        # a host or file-system option the workbench does not offer (a stripe width, another
        # host): the controls still show the drive, partition and mount options it has
        fs = replace(FsOptions(), journal=sc.fs.journal, atime=sc.fs.atime,
                     discard=sc.fs.discard, kernel=sc.fs.kernel)
        return settings_for(replace(sc, host=HOST_PROFILE, fs=fs), base)


def beyond_panel(config: RunConfig) -> str:
    """What a block-level configuration sets that the control panel has no control for, in
    words ("" when nothing): how much of a flash page its data takes, a zoned drive."""
    spec = config.spec
    if spec is None:
        return ""
    said = []
    if spec.config.stored_fraction < 1.0:
        said.append(f"its data stored in {spec.config.stored_fraction:g} of a flash page "
                    "(compressed)")
    if spec.zoned:
        kinds = "; busy and quiet pages in zones apart" if spec.placement == "hotcold" else ""
        said.append(f"a zoned drive, zones of {spec.zone_blocks} erase block"
                    f"{'s' if spec.zone_blocks != 1 else ''}, up to {spec.open_zones} open; "
                    f"the computer does the garbage collection, greedy over zones{kinds}")
    return "; ".join(said)


def used_settings(step: RunStep) -> tuple[list[Settings], set[str]]:
    """Each configuration's settings, and the names of the settings that differ between
    them (none when what varies is not a setting, such as a step's fill level); a run of
    one configuration uses the settings that differ from the defaults."""
    shown = [config_settings(c) for c in step.configs]
    names = [f.name for f in fields(Settings) if f.name not in NOT_SHOWN]
    varies = {n for n in names if len({getattr(s, n) for s in shown}) > 1}
    if len(shown) == 1:  # nothing varies: what the lesson chose differently from a new drive
        default = Settings()
        varies = {n for n in names if getattr(shown[0], n) != getattr(default, n)}
    if "spare_pct" in varies or "capacity_mib" in varies:
        varies |= {"spare_pct"}
    return shown, varies
