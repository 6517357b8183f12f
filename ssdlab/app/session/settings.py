"""The workbench's settings (a frozen dataclass, units in the names) and their checks, with
no Qt: the window's Session (ssdlab/app/gui/settings/session.py) owns one, and session files
(ssdlab/app/session/sessionfile.py) hold one, so the command line can read them too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import lru_cache

from ssdlab.model.flash.geometry import FtlConfig, Geometry, check_buildable
from ssdlab.model.flash.heldback import usable_spare
from ssdlab.model.flash.theory import compressed_greedy_wa, wa_for
from ssdlab.model.host.partition import Partition
from ssdlab.model.host.profiles import load_profile

from .fsjobs import FS_KINDS
from .schema import SETTINGS, check_record

# Fields that change the drive itself: changing one mid-run discards the run.
DRIVE_FIELDS = ("profile", "capacity_mib", "spare_pct", "page_kib", "pages_per_block",
                "mapping", "gc", "d", "gc_low_blocks", "gc_frontier", "victim_order", "seed",
                "slc_cache", "wear_leveling_gap", "placement", "handle_gc", "tag_errors_pct",
                "partition_start",
                "lvm_kib", "journal", "kernel", "data_compression", "extents",
                "commit_interval_s", "stripe_width_blocks", "max_request_kib")
# Mount options: applied to a mounted file system at once (remount), no new drive.
MOUNT_FIELDS = ("atime", "discard")

# Control labels, for messages ("Spare (%): spare must be ...").
LABELS = {name: f.label for name, f in SETTINGS.items()}


@dataclass(frozen=True)
class Settings:
    """Everything the controls set. Units are in the names."""

    profile: str = ""  # "" = no device profile (no timing model)
    capacity_mib: float = 64.0
    spare_pct: float = 7.0  # of physical capacity
    page_kib: int = 4
    pages_per_block: int = 64
    mapping: str = "page"
    gc: str = "greedy"
    d: int = 2
    gc_low_blocks: int = 2
    gc_frontier: str = "separate"  # GC copies in their own open block, or the host's
    victim_order: str = "oldest"  # greedy, among equally empty blocks: emptied first/last
    seed: int = 1
    partition_start: int = 2048  # sectors of 512 bytes
    lvm_kib: int = 0  # LVM pe_start, KiB from the partition start (0 = no LVM)
    workload: str = "steady"  # fill in order, then random overwrites: a steady state
    fill_pct: float = 100.0
    amount: float = 2.0  # drive writes (0 = until paused)
    hot_lba_pct: float = 20.0
    hot_write_pct: float = 80.0
    trim_max_pages: int = 64
    speed: str = "normal"
    journal: bool = True  # file system: JBD2-like journal (a format option)
    atime: str = "relatime"  # strict, relatime or noatime (mount option)
    discard: bool = False  # TRIM freed extents at each commit (mount option)
    # how discard behaves: "2.6.39" or "modern" (ssdlab/model/host/discard.py)
    kernel: str = "2.6.39"
    fstrim_every_min: float = 0.0  # simulated minutes between fstrims (0 = never)
    kernel_scale: float = 0.1  # kernel tree: share of the 36,706 files, 493 MB
    seq_mb: float = 100.0  # sequential write through the file system
    trace_path: str = ""
    # SandForce drives: the share of its size the data keeps when compressed (0 = the
    # profile's rated data). Set by a scenario file or a lesson's block-level run (a drive of
    # no profile then compresses too); no control of its own.
    data_compression: float = 0.0
    # ext4 format and block-layer options a scenario file may set; no controls of their own
    extents: bool = True  # False: ext2/ext3 indirect block maps
    commit_interval_s: float = 5.0  # journal commit, simulated seconds
    stripe_width_blocks: int = 0  # mkfs stripe_width, blocks of 4 KiB (0: none)
    max_request_kib: int = 512  # the largest request the block layer sends, KiB
    heatmap: str = "state"  # how the block map colours blocks: state, valid, erases, age
    # an SLC write cache (model/flash/slccache.py), sized by the profile's figures: none,
    # static or dynamic; only a profile that has those figures allows another than none
    slc_cache: str = "none"
    # static wear levelling (FtlConfig.wear_leveling_gap): erases between the most and the
    # least worn full block that make the drive move cold data; 0 = off
    wear_leveling_gap: int = 0
    # placement handles: how the host tags its writes (none, or hotcold: the hot/cold
    # workload's hot pages, and a scenario's user mix's hot rewrites, with a handle of their
    # own), where GC copies the handles' pages, and the share of the tags that are wrong
    placement: str = "none"
    handle_gc: str = "mixed"
    tag_errors_pct: float = 0.0

    @property
    def user_pages(self) -> int:
        return int(round(self.capacity_mib * 1024 / self.page_kib))

    def geometry(self) -> Geometry:
        """The drive's geometry (made once for these settings: the window asks it at each
        snapshot, and a profile's is read from its file)."""
        return _geometry(self)

    def config(self) -> FtlConfig:
        """The FTL's configuration (made once for these settings, as geometry)."""
        return _config(self)

    def partition(self) -> Partition:
        return Partition(start_sector=self.partition_start,
                         lvm_pe_start_bytes=self.lvm_kib * 1024)


@lru_cache(maxsize=64)
def _geometry(s: Settings) -> Geometry:
    g = Geometry(user_pages=s.user_pages, pages_per_block=s.pages_per_block,
                 spare=s.spare_pct / 100.0, page_bytes=s.page_kib * 1024)
    if s.profile:
        p = load_profile(s.profile)
        g = replace(g, channels=p.channels, dies_per_channel=p.dies_per_channel)
        if s.spare_pct in profile_spare_pcts(p.spare, g):
            # the control shows two decimals: keep the profile's own spare, so the drive
            # is bit for bit the one a scenario of this profile builds
            g = replace(g, spare=p.spare)
    return g


@lru_cache(maxsize=64)
def _config(s: Settings) -> FtlConfig:
    p = load_profile(s.profile) if s.profile else None
    honour = p.trim_honoured if p is not None else True
    # a compressing drive stores the data at the chosen fraction, else its profile's; a
    # drive of no profile compresses when a fraction is chosen (a lesson's block-level run)
    stored = 1.0
    if s.mapping == "page":
        if p is not None and p.compression_ratio < 1.0:
            stored = s.data_compression or p.compression_ratio
        elif p is None and s.data_compression:
            stored = s.data_compression
    return FtlConfig(mapping=s.mapping, gc=s.gc, d=s.d,
                     gc_low_blocks=s.gc_low_blocks, seed=s.seed, honour_trim=honour,
                     gc_frontier=s.gc_frontier, victim_order=s.victim_order,
                     stored_fraction=stored, wear_leveling_gap=s.wear_leveling_gap,
                     **_slc(s, p), **placement_fields(s))


def placement_fields(s: Settings) -> dict:
    """The placement handles' FtlConfig fields: two handles when the host tags hot data."""
    if s.placement == "none":
        return {}
    return {"placement_handles": 2, "handle_gc": s.handle_gc}


def _slc(s: Settings, p) -> dict:
    """The cache's FtlConfig fields: the profile's figures, in the mode the settings name."""
    if s.slc_cache == "none":
        return {}
    if p is None or p.slc_cache == "none":
        raise ValueError(f"slc_cache {s.slc_cache!r} needs a profile with an SLC cache's "
                         f"figures (tlc_slc_cache_1tb, qlc_slc_cache_1tb); got "
                         f"{s.profile or 'no profile'}: choose none")
    return p.slc_fields(s.slc_cache, s.geometry().blocks)


FS_WORKLOADS = tuple(FS_KINDS)  # the workload choices that are file-system steps
FS_SHARE = 0.85  # of the capacity a single file-system step may fill (journal, metadata)


def check_fs(s: Settings) -> None:
    """File-system settings: ValueError names the field and the allowed range."""
    if s.atime not in ("strict", "relatime", "noatime"):
        raise ValueError(f"atime must be strict, relatime or noatime; got {s.atime!r}")
    if not 0 <= s.fstrim_every_min <= 10000:
        raise ValueError(f"fstrim_every_min must be from 0 (never) to 10000 simulated minutes; "
                         f"got {s.fstrim_every_min}")
    room_mb = s.capacity_mib * 2**20 * FS_SHARE / 1e6
    tree_mb = 493.0 * s.kernel_scale
    if not 0.005 <= s.kernel_scale <= 1 or (s.workload == "unpack" and tree_mb > room_mb):
        top = min(1.0, room_mb / 493.0)
        raise ValueError(f"kernel_scale must be from 0.005 to {max(0.005, top):.3g} on this "
                         f"drive (the tree takes {tree_mb:,.0f} MB of {room_mb:,.0f} MB "
                         f"usable); got {s.kernel_scale:g}")
    if not 1 <= s.seq_mb <= 1e7 or (s.workload == "seqwrite" and s.seq_mb > room_mb):
        raise ValueError(f"seq_mb must be from 1 to {room_mb:,.0f} MB on this drive; "
                         f"got {s.seq_mb:g}")
    if s.data_compression and not 0.05 <= s.data_compression <= 1:
        raise ValueError(f"data_compression must be 0 (the profile's) or from 0.05 to 1; got "
                         f"{s.data_compression}")
    if s.workload in FS_WORKLOADS and not s.profile:
        raise ValueError("file-system workloads need a device profile (for its timing and "
                         "host model); choose one under Drive > Profile")


def _field_of(message: str, changed: dict) -> str:
    """The control a model message is about (model names -> our field names)."""
    model_names = {"user_pages": "capacity_mib", "spare": "spare_pct",
                   "pages_per_block": "pages_per_block", "page_bytes": "page_kib",
                   "d ": "d", "gc_low_blocks": "gc_low_blocks", "start_sector": "partition_start",
                   "lvm_pe_start_bytes": "lvm_kib", "seed": "seed", "profile": "profile",
                   "atime": "atime", "fstrim_every_min": "fstrim_every_min",
                   "kernel_scale": "kernel_scale", "seq_mb": "seq_mb",
                   "trace file": "trace_path", "fill": "fill_pct", "hot LBA": "hot_lba_pct",
                   "hot write": "hot_write_pct", "amount": "amount", "slc_cache": "slc_cache",
                   "a static SLC cache": "slc_cache", "a dynamic SLC cache": "slc_cache",
                   "an SLC cache": "slc_cache", "wear_leveling_gap": "wear_leveling_gap",
                   "wear levelling": "wear_leveling_gap", "placement": "placement",
                   "handle_gc": "handle_gc", "tag_errors": "tag_errors_pct"}
    for prefix, name in model_names.items():
        if message.startswith(prefix):
            return name
    return next(iter(changed), "")


def check_settings(s: Settings) -> None:
    """Raise ValueError for settings the controls cannot show (FieldError, from the
    schema) or the model cannot build (the model's message)."""

    check_record(asdict(s), SETTINGS, "settings")
    check_buildable(s.geometry(), s.config())
    s.partition()
    for name, value in (("fill", s.fill_pct), ("hot LBA share", s.hot_lba_pct),
                        ("hot write share", s.hot_write_pct)):
        if not 0 < value <= 100 or (name.startswith("hot") and value >= 100):
            raise ValueError(f"{name} must be between 0 and 100 %; got {value}")
    if not 0 <= s.amount <= 1000:
        raise ValueError(f"amount must be from 0 to 1000 drive writes; got {s.amount}")
    check_fs(s)


MODELLED = ("steady", "random", "hotcold")  # workloads an analytic model describes


def analytic_spare(s: Settings) -> float:
    """The spare (a fraction of physical flash) the analytic figure is computed at: the
    drive's, less the blocks its GC holds back (ssdlab/model/flash/heldback.py)."""
    g = s.geometry()
    return usable_spare(g.spare_of_physical, s.gc_low_blocks, g.pages_per_block,
                        g.physical_pages)


def theory_wa(s: Settings) -> float | None:
    """The one analytic WA the window shows for these settings, where a model exists: the
    published model at the spare GC can really use (analytic_spare), which on a drive of a
    few hundred blocks is what a simulation comes close to."""

    if s.mapping != "page" or s.workload not in MODELLED or s.slc_cache != "none":
        return None  # (no published model of an SLC cache)
    g = s.geometry()
    spare = analytic_spare(s)
    stored = s.config().stored_fraction
    if stored < 1.0:
        # a compressing drive: greedy under uniform writes at its effective spare
        if s.gc != "greedy" or s.workload == "hotcold" or spare <= 0:
            return None
        return compressed_greedy_wa(spare, g.pages_per_block, stored)
    kwargs = {}
    if s.workload == "hotcold":
        kwargs = {"hot_lba_fraction": s.hot_lba_pct / 100,
                  "hot_write_fraction": s.hot_write_pct / 100}
    try:
        return wa_for(s.gc, spare, g.pages_per_block, d=s.d, frontier=s.gc_frontier, **kwargs)
    except ValueError:  # no spare left once the held-back blocks are counted, or no model
        return None


def run_modelled(s: Settings, log: list[dict]) -> bool:
    """Whether the analytic model theory_wa(s) describes the run a worker's log records: a
    block workload of the kind the settings name and the model describes, with the settings'
    hot/cold shares, after nothing but fills (which only precondition the drive). A
    file-system step (a scenario), TRIMs, or a workload run before the settings changed: no
    model applies, and none is drawn or written."""
    if s.workload not in MODELLED or not any(d.get("kind") == s.workload for d in log):
        return False
    for d in log:
        if d.get("kind") in ("fill", "sequential") and not d.get("fs"):
            continue
        if d.get("fs") or d.get("kind") != s.workload:
            return False
        if s.workload == "hotcold" and (
                abs(d.get("hot_lba_fraction", -1) - s.hot_lba_pct / 100) > 1e-9
                or abs(d.get("hot_write_fraction", -1) - s.hot_write_pct / 100) > 1e-9):
            return False
    return True


def run_theory_wa(s: Settings, log: list[dict]) -> float | None:
    """The analytic WA to show beside a run whose worker's log is `log`: theory_wa(s) where
    the model describes that run (run_modelled), else None."""
    return theory_wa(s) if run_modelled(s, log) else None


def drive_spare_pct(spare: float, g: Geometry) -> float:
    """The spare (% of physical, two decimals) a drive of geometry g built with the nominal
    `spare` really has: whole erase blocks round it up, most on a small drive of big blocks
    (a 1 GiB drive of 16 MiB blocks with a profile's 9.05 % has 9.86 %)."""
    return round(100 * replace(g, spare=spare).spare_of_physical, 2)


def profile_spare_pcts(spare: float, g: Geometry) -> tuple[float, float]:
    """The Spare values that mean "the profile's own spare" on geometry g: the profile's
    figure as written, and what the drive built with it really has."""
    return round(100 * spare, 2), drive_spare_pct(spare, g)
