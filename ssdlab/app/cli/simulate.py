"""`ssdlab simulate`: one whole-drive experiment (geometry, GC policy, workload, data
compression) run headless through the compiled engine, printed as a table or as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from ssdlab.app.cli.args import flagged


def _progress_printer():
    """A progress callback that redraws one stderr line, or None when stderr is no
    terminal (so logs and pipes stay clean)."""
    if not sys.stderr.isatty():
        return None
    last = {"text": ""}

    def show(phase: str, fraction: float) -> None:
        text = f"\r{phase:8s} {100 * fraction:5.1f} %"
        if text != last["text"]:
            sys.stderr.write(text)
            sys.stderr.flush()
            last["text"] = text

    return show


def simulate(args: argparse.Namespace) -> int:
    """`ssdlab simulate`: one whole-drive run headless, as a table or JSON; 2 on bad input."""
    from ssdlab.model.flash.geometry import FtlConfig, Geometry, check_buildable
    from ssdlab.model.flash.runner import RunSpec, run
    from ssdlab.model.flash.workloads import Workload

    problem = _zoned_flags(args)
    if problem:
        print(f"ssdlab simulate: error: {problem}", file=sys.stderr)
        return 2
    try:
        geometry = Geometry(user_pages=args.user_pages, pages_per_block=args.pages_per_block,
                            spare=args.spare)
        config = FtlConfig(mapping=args.mapping, gc=args.gc, d=args.d,
                           gc_low_blocks=args.gc_low_blocks, seed=args.seed,
                           gc_frontier=args.gc_frontier, victim_order=args.victim_order,
                           stored_fraction=args.data_compression,
                           slc_cache=args.slc_cache, cell_bits=args.cell_bits,
                           slc_blocks=args.slc_blocks,
                           slc_dynamic_share=args.slc_dynamic_share,
                           wear_leveling_gap=args.wear_leveling,
                           placement_handles=2 if args.placement != "none"
                           and not args.zoned else 1,
                           handle_gc=args.handle_gc)
        workload = Workload(kind=args.workload, hot_lba_fraction=args.hot_lbas,
                            hot_write_fraction=args.hot_writes,
                            active_fraction=args.active_fraction)
        spec = RunSpec(geometry, config, workload, args.warmup_drive_writes,
                       args.measure_drive_writes, seed=args.seed,
                       fold_every_pages=args.slc_idle_every, placement=args.placement,
                       tag_errors=args.tag_errors, zoned=args.zoned,
                       zone_blocks=1 if args.zone_blocks is None else args.zone_blocks,
                       open_zones=2 if args.open_zones is None else args.open_zones)
        if not args.zoned:  # a zoned spec was checked whole when it was made
            check_buildable(geometry, config)
    except ValueError as e:
        print(f"ssdlab simulate: error: {flagged(str(e))}", file=sys.stderr)
        return 2
    progress = _progress_printer()
    try:
        result = run(spec, progress)
    finally:
        if progress is not None:
            sys.stderr.write("\r" + " " * 24 + "\r")
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        print(zoned_table(result) if result.zoned else table(result))
    return 0


def _zoned_flags(args: argparse.Namespace) -> str:
    """The first flag that cannot go with (or without) --zoned, as a message; "" if none."""
    if not args.zoned:
        for flag, value in (("--zone-blocks", args.zone_blocks),
                            ("--open-zones", args.open_zones)):
            if value is not None:
                return f"{flag} needs --zoned; got {flag} {value} without it"
        return ""
    if args.slc_cache != "none":
        return (f"--slc-cache must be none with --zoned (no SLC cache is modelled on a zoned "
                f"drive); got {args.slc_cache}")
    return ""


def zoned_table(r) -> str:
    """A zoned run's result as the lines `simulate` prints (name, value)."""
    theory = "no model" if r.theory_wa is None else (
        f"greedy with a zone as its block {r.theory_wa:.4f}; {r.theory_wa_usable:.4f} "
        f"counting the {r.reserve_blocks // r.zone_blocks} free zone(s) the host holds back")
    rows = [
        ("drive", f"zoned: {r.zones} zones of {r.zone_blocks} erase block(s) = "
                  f"{r.zone_pages} pages, at most {r.open_zones} open; {r.blocks} blocks of "
                  f"{r.pages_per_block} in all"),
        ("host's store", f"{r.user_pages} application pages; host spare "
                         f"{100 * r.spare:.2f} % of the zones = {100 * r.extra_of_user:.2f} % "
                         "of the application's capacity"),
        ("host GC", f"greedy over zones, {r.workload} writes, copies to "
                    + ("a zone of their own" if r.gc_frontier == "separate"
                       else "the zone taking new writes")
                    + ("; hot and cold pages in zones apart, copies with their kind, "
                       f"{100 * r.tag_errors:g} % of the pages put with the wrong kind"
                       if r.placement != "none" else "")),
        ("application writes", f"{r.host_writes} pages"),
        ("host copies", f"{r.host_copies} pages ({r.zone_resets} zones reset)"),
        ("drive GC copies", f"{r.gc_copies} pages ({r.erases} erases)"),
        ("host WA", f"{r.host_wa:.4f}  ((application + host copies) / application; "
                    f"analytic: {theory})"),
        ("drive WA", f"{r.drive_wa:.4f}  (flash pages / pages the host sent)"),
        ("total WA", f"{r.wa:.4f}  (flash pages per application page = host x drive)"),
        ("per window", " ".join(f"{w:.3f}" for w in r.wa_windows)),
        ("engine speed", f"{r.host_writes_per_second / 1e6:.2f} M application writes/s "
                  f"({r.seconds:.2f} s measured)"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _slc_rows(r) -> list[tuple[str, str]]:
    """The SLC cache's lines, when the drive has one."""
    if r.slc_cache == "none":
        return []
    idle = (f"the host paused after every {r.fold_every_pages} pages and the drive folded "
            "then" if r.fold_every_pages else "never idle: folded only when GC needed blocks")
    return [("SLC cache", f"{r.slc_cache}; {idle}"),
            ("cached / folded", f"{r.slc_writes} host pages written into the cache, "
             f"{r.folded_pages} folded into dense flash (in the GC copies)")]


def table(r) -> str:
    """A run's result as the lines `simulate` prints (name, value)."""
    theory = "no model" if r.theory_wa is None else (
        f"{r.theory_wa:.4f}; {r.theory_wa_usable:.4f} counting the {r.reserve_blocks} blocks "
        "GC holds back")
    rows = [
        ("drive", f"{r.user_pages} user pages, {r.physical_pages} physical, "
                  f"{r.blocks} blocks of {r.pages_per_block}"),
        ("over-provisioning", f"{100 * r.spare:.2f} % of physical = "
                              f"{100 * r.extra_of_user:.2f} % of user capacity"),
        ("policy", f"{r.gc}" + (f" (d={r.d})" if r.gc == "random-d" else "")
         + f", {r.mapping}-mapped, {r.workload} writes, {r.gc_frontier} GC frontier"
         + (f", {r.victim_order} victim among equals" if r.gc == "greedy" else "")),
        ("write amplification", f"{r.wa:.4f}  (flash bytes / host bytes; analytic: {theory})"),
        ("per window", " ".join(f"{w:.3f}" for w in r.wa_windows)),
        ("data compression", "none: each page takes a whole flash page"
         if r.stored_fraction == 1 else f"each page stored in {r.stored_fraction:g} of a "
         f"flash page (--data-compression {r.stored_fraction:g})"),
        ("host / NAND writes", f"{r.host_writes} / {r.nand_writes} pages"
         + ("" if r.stored_fraction == 1 else f" stored = {r.flash_pages:.1f} flash pages")),
        ("GC copies, erases", f"{r.gc_copies}, {r.erases}"),
        *_slc_rows(r),
        *([("placement", f"hot pages tagged to handle 1, the rest to handle 0, "
            f"{100 * r.tag_errors:g} % tagged wrongly; {r.handle_gc} GC "
            + ("(each handle's copies in blocks of their own)" if r.handle_gc == "isolated"
               else "(one GC block for all handles)"))] if r.placement != "none" else []),
        *([("wear levelling", f"a block moved when the wear gap passes "
            f"{r.wear_leveling_gap} erases: {r.wl_moves} moves copied {r.wl_copies} pages "
            f"(in the GC copies); erases per block now {r.erase_count_min} to "
            f"{r.erase_count_max}")] if r.wear_leveling_gap else []),
        ("engine speed", f"{r.host_writes_per_second / 1e6:.2f} M host writes/s "
                         f"({r.seconds:.2f} s measured)"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
