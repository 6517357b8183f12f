"""The numbers the start-up window shows: a small drive run to steady state."""

from __future__ import annotations

from .geometry import FtlConfig, Geometry
from .runner import RunSpec, run
from .workloads import Workload


def _mib(pages: int, page_bytes: int) -> str:
    return f"{pages * page_bytes / 2**20:,.0f} MiB"


def default_summary(user_pages: int = 1 << 18, spare: float = 0.07) -> dict[str, str]:
    """Fill a 1 GiB drive, write it over three times at random, report what happened."""
    geometry = Geometry(user_pages=user_pages, pages_per_block=256, spare=spare)
    r = run(RunSpec(geometry, FtlConfig(gc="greedy"), Workload("random"),
                    warmup_drive_writes=1.0, measure_drive_writes=2.0))
    theory = "no model" if r.theory_wa is None else (
        f"{r.theory_wa:.3f} analytic for an unbounded drive, {r.theory_wa_usable:.3f} counting "
        f"the {r.reserve_blocks} blocks GC holds back")
    return {
        "User capacity": _mib(geometry.user_pages, geometry.page_bytes),
        "Physical flash": _mib(geometry.physical_pages, geometry.page_bytes)
        + f" in {geometry.blocks} erase blocks of {geometry.pages_per_block} pages",
        "Over-provisioning": f"{100 * geometry.spare_of_physical:.1f} % of physical = "
        f"{100 * geometry.extra_of_user:.1f} % of user capacity",
        "Workload": "uniform random 4 KiB writes, greedy garbage collection",
        "Write amplification": f"{r.wa:.3f} simulated",
        "Analytic model": theory,
        "Host page writes (measured)": f"{r.host_writes:,}",
        "NAND page writes (measured)": f"{r.nand_writes:,}",
        "Pages copied by GC": f"{r.gc_copies:,}",
        "Blocks erased": f"{r.erases:,}",
        "Erase count, max / mean": f"{r.erase_count_max} / {r.erase_count_mean:.1f}",
    }
