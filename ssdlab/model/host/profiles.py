"""Device and host profiles: the data the timing model turns counters into time with.

A profile is a TOML file in ``ssdlab/assets/profiles/`` (never code). Device profiles describe one
drive (flash geometry, NAND timings, host link, TRIM behaviour, background GC, compression);
host profiles (``host_*.toml``) describe the CPU and page-cache side of the machine the
documented experiments ran on. Every file carries ``version = 1``, a ``[calibration]`` table
saying which documented figure set which parameter (with the arithmetic written out), and a
``[[predictions]]`` list of documented figures the profile was *not* fitted to.

Loading checks every field: unknown fields, missing fields, wrong types and values outside the
allowed range are refused with a message naming the file, the field and the range.

Units are in the field names: ``_us`` microseconds, ``_s`` seconds, ``_mb_s`` decimal MB/s
(10^6 bytes per second), ``_gb`` decimal GB (10^9 bytes, as drives are marketed),
``_gib`` binary GiB (2^30 bytes).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from ssdlab.model.flash.geometry import (
    GC_FRONTIERS,
    GC_POLICIES,
    MAPPINGS,
    SLC_CACHES,
    VICTIM_ORDERS,
    FtlConfig,
    Geometry,
    check_buildable,
)
from ssdlab.model.inputfile import InputFileError, read_text_input

PROFILE_VERSION = 1
PROFILES_DIR = Path(__file__).resolve().parents[2] / "assets" / "profiles"
HOST_PREFIX = "host_"


class ProfileError(ValueError):
    """A profile file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Calibration:
    """Which documented figure set one parameter, and how."""

    parameter: str
    figure: str  # the documented figure (with its seed number) or the datasheet value used
    arithmetic: str  # the calculation from figure to value, written out


@dataclass(frozen=True)
class Prediction:
    """A documented figure the profile was not fitted to, which an experiment checks."""

    figure: str  # what was measured, and where (seed number)
    documented: str  # the documented value
    expect: str  # what the model should produce, and why


# Field specifications: name -> (kind, low, high, what it means). kind is "int", "float",
# "bool", "str" or a tuple of allowed strings. Ranges are inclusive.
_DEVICE_FIELDS: dict[str, tuple] = {
    "name": ("str", None, None, "display name"),
    "description": ("str", None, None, "what the drive is and what it models"),
    "capacity_gb": ("float", 0.001, 100_000.0, "user capacity in decimal GB"),
    "page_bytes": ((512, 1024, 2048, 4096, 8192, 16384), None, None, "mapping page size"),
    "pages_per_block": ("int", 2, 4096, "pages per erase block"),
    "spare": ("float", 0.0, 0.9, "spare flash as a fraction of physical capacity"),
    "mapping": (MAPPINGS, None, None, "FTL mapping scheme"),
    "gc_policy": (GC_POLICIES, None, None, "GC victim policy"),
    "gc_frontier": (GC_FRONTIERS, None, None, "where GC copies go: their own open block "
                    "(separate) or the host's (shared)"),
    "victim_order": (VICTIM_ORDERS, None, None, "which block greedy GC takes among equally "
                     "empty ones: the one emptied last (newest) or first (oldest)"),
    "channels": ("int", 1, 64, "flash channels"),
    "dies_per_channel": ("int", 1, 64, "dies per channel that program in parallel"),
    "channel_mb_s": ("float", 1.0, 10_000.0, "data rate of one channel bus, MB/s"),
    "read_us": ("float", 1.0, 10_000.0, "die time to read one page, us"),
    "program_us": ("float", 1.0, 100_000.0, "die time to program one page, us"),
    "erase_us": ("float", 1.0, 1_000_000.0, "die time to erase one block, us"),
    "host_link_mb_s": ("float", 1.0, 100_000.0, "host link payload limit, MB/s"),
    "command_overhead_us": ("float", 0.0, 100_000.0, "controller time per command, us"),
    "flush_us": ("float", 0.0, 1_000_000.0, "time a cache flush holds the drive, us"),
    "trim_honoured": ("bool", None, None, "whether the firmware acts on TRIM"),
    "trim_queued": ("bool", None, None, "queued TRIM (SATA 3.1 / NVMe) vs non-queued"),
    "trim_command_us": ("float", 0.0, 1_000_000.0, "time per TRIM command, us"),
    "trim_s_per_gib": ("float", 0.0, 10_000.0, "TRIM time per GiB trimmed, s"),
    "background_gc": ("bool", None, None, "garbage collection in idle time"),
    "idle_gc_threshold_s": ("float", 0.0, 86_400.0, "idle seconds before background GC"),
    "compression_ratio": ("float", 0.05, 1.0, "NAND bytes per host byte (1.0 = none)"),
}

# The SLC cache (model/flash/slccache.py): fields a profile may leave out; a drive without
# them has no cache. name -> (spec as above, value when absent).
_DEVICE_OPTIONAL: dict[str, tuple[tuple, object]] = {
    "slc_cache": ((SLC_CACHES, None, None, "an SLC write cache in front of the dense flash: "
                   "none, static (blocks kept in SLC mode) or dynamic (static blocks plus "
                   "free dense blocks borrowed)"), "none"),
    "cell_bits": (("int", 2, 4, "bits per cell of the dense flash: 2 MLC, 3 TLC, 4 QLC"), 3),
    "slc_static_fraction": (("float", 0.0, 0.5, "share of the erase blocks kept in SLC "
                             "mode for good, out of the spare (the static cache)"), 0.0),
    "slc_dynamic_share": (("float", 0.0, 1.0, "dynamic cache: the share of the free user "
                           "capacity's blocks it may borrow"), 0.0),
    "slc_program_us": (("float", 0.0, 100_000.0, "die time to program one page into a block "
                        "in SLC mode, us (0 without a cache)"), 0.0),
}

_HOST_FIELDS: dict[str, tuple] = {
    "name": ("str", None, None, "display name"),
    "description": ("str", None, None, "the machine and what it models"),
    "per_file_create_us": ("float", 0.0, 1_000_000.0, "CPU time to create one file, us"),
    "per_dir_us": ("float", 0.0, 1_000_000.0, "CPU time to create one directory, us"),
    "per_file_delete_us": ("float", 0.0, 1_000_000.0, "CPU time to unlink one file or dir, us"),
    "copy_mb_s": ("float", 1.0, 1_000_000.0, "rate of copying file data into page cache, MB/s"),
    "ram_gib": ("float", 0.0625, 65_536.0, "installed RAM, GiB"),
    "available_ram_fraction": ("float", 0.01, 1.0, "share of RAM free or page cache (what "
                               "the dirty thresholds are a share of)"),
    "dirty_background_ratio_pct": ("float", 0.0, 100.0, "vm.dirty_background_ratio: "
                                   "background writeback starts above this % of it"),
    "dirty_ratio_pct": ("float", 1.0, 100.0, "vm.dirty_ratio: writers wait above this % of it"),
    "dirty_expire_s": ("float", 0.1, 3600.0, "vm.dirty_expire_centisecs / 100: age at which "
                       "dirty data is written, s"),
    "dirty_writeback_s": ("float", 0.1, 3600.0, "vm.dirty_writeback_centisecs / 100: the "
                          "flusher's period, s"),
}

_META_FIELDS = ("version", "calibration", "predictions")


def _where(path: Path | str) -> str:
    p = Path(path)
    try:
        return str(p.resolve().relative_to(PROFILES_DIR.parent.parent))
    except ValueError:
        return str(p)


def _check_value(where: str, key: str, spec: tuple, value: object) -> object:
    kind, low, high, meaning = spec
    if isinstance(kind, tuple):
        if value not in kind:
            allowed = ", ".join(repr(k) for k in kind)
            raise ProfileError(f"{where}: field '{key}' ({meaning}) must be one of {allowed}; "
                               f"got {value!r}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ProfileError(f"{where}: field '{key}' ({meaning}) must be true or false; "
                               f"got {value!r}")
        return value
    if kind == "str":
        if not isinstance(value, str) or not value.strip():
            raise ProfileError(f"{where}: field '{key}' ({meaning}) must be a non-empty "
                               f"string; got {value!r}")
        return value
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or not (low <= value <= high):
        what = "a whole number" if kind == "int" else "a number"
        raise ProfileError(f"{where}: field '{key}' ({meaning}) must be {what} from {low} to "
                           f"{high}; got {value!r}")
    return float(value) if kind == "float" else value


def _text(path: Path) -> str:
    try:
        return read_text_input(path, what="a profile (TOML)")
    except InputFileError as e:
        raise ProfileError(f"{_where(path)}: cannot read profile: "
                           f"{str(e).split(': ', 1)[-1]}") from None


def _read(path: Path, text: str | None = None) -> dict:
    where = _where(path)
    text = _text(path) if text is None else text
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{where}: not valid TOML: {e}") from e
    except RecursionError:
        raise ProfileError(f"{where}: arrays or tables nested too deeply") from None


def _parse(path: Path, spec: dict[str, tuple], text: str | None = None,
           optional: dict[str, tuple[tuple, object]] | None = None) -> dict:
    where = _where(path)
    optional = optional or {}
    data = _read(path, text)
    if "version" not in data:
        raise ProfileError(f"{where}: field 'version' is missing; this program reads "
                           f"version = {PROFILE_VERSION}")
    if type(data["version"]) is not int or data["version"] != PROFILE_VERSION:
        raise ProfileError(f"{where}: field 'version' must be {PROFILE_VERSION} (the only "
                           f"profile version this program reads); got {data['version']!r}")
    unknown = sorted(set(data) - set(spec) - set(optional) - set(_META_FIELDS))
    if unknown:
        raise ProfileError(f"{where}: unknown field '{unknown[0]}'; allowed fields are "
                           f"{', '.join([*spec, *optional, *_META_FIELDS])}")
    missing = [k for k in spec if k not in data]
    if missing:
        raise ProfileError(f"{where}: field '{missing[0]}' is missing ({spec[missing[0]][3]})")
    values = {k: _check_value(where, k, spec[k], data[k]) for k in spec}
    for k, (kspec, absent) in optional.items():
        values[k] = _check_value(where, k, kspec, data[k]) if k in data else absent
    values["calibration"] = _calibration(where, data.get("calibration"),
                                         {**spec, **optional})
    values["predictions"] = _predictions(where, data.get("predictions"))
    return values


def _calibration(where: str, table: object, spec: dict) -> tuple[Calibration, ...]:
    if not isinstance(table, dict) or not table:
        raise ProfileError(f"{where}: field 'calibration' must be a table with one entry per "
                           "calibrated parameter (figure = ..., arithmetic = ...)")
    out = []
    for param, entry in table.items():
        if param not in spec:
            raise ProfileError(f"{where}: field 'calibration.{param}' names no profile "
                               f"parameter; allowed: {', '.join(spec)}")
        if not isinstance(entry, dict) or set(entry) != {"figure", "arithmetic"} or not all(
                isinstance(v, str) and v.strip() for v in entry.values()):
            raise ProfileError(f"{where}: field 'calibration.{param}' must have exactly two "
                               "non-empty strings, figure and arithmetic")
        out.append(Calibration(param, entry["figure"], entry["arithmetic"]))
    return tuple(out)


def _predictions(where: str, items: object) -> tuple[Prediction, ...]:
    if not isinstance(items, list) or not items:
        raise ProfileError(f"{where}: field 'predictions' must list at least one documented "
                           "figure the profile was not fitted to ([[predictions]] with figure, "
                           "documented, expect)")
    out = []
    for i, entry in enumerate(items):
        keys = {"figure", "documented", "expect"}
        if not isinstance(entry, dict) or set(entry) != keys or not all(
                isinstance(v, str) and v.strip() for v in entry.values()):
            raise ProfileError(f"{where}: field 'predictions[{i}]' must have exactly three "
                               "non-empty strings, figure, documented and expect")
        out.append(Prediction(entry["figure"], entry["documented"], entry["expect"]))
    return tuple(out)


@dataclass(frozen=True)
class DeviceProfile:
    """One drive, as the timing model and the simulator see it.

    Times are per die: read_us and program_us per page of page_bytes, erase_us per erase
    block. For NAND whose physical page is larger than page_bytes, or which programs several
    planes at once, program_us is the die time per page_bytes of data (tPROG divided by the
    mapping pages one program operation stores); each profile's calibration says which.
    """

    key: str  # file stem, what load_profile takes
    name: str
    description: str
    capacity_gb: float
    page_bytes: int
    pages_per_block: int
    spare: float
    mapping: str
    gc_policy: str
    gc_frontier: str
    victim_order: str
    channels: int
    dies_per_channel: int
    channel_mb_s: float
    read_us: float
    program_us: float
    erase_us: float
    host_link_mb_s: float
    command_overhead_us: float
    flush_us: float
    trim_honoured: bool
    trim_queued: bool
    trim_command_us: float
    trim_s_per_gib: float
    background_gc: bool
    idle_gc_threshold_s: float
    compression_ratio: float
    slc_cache: str = "none"
    cell_bits: int = 3
    slc_static_fraction: float = 0.0
    slc_dynamic_share: float = 0.0
    slc_program_us: float = 0.0
    calibration: tuple[Calibration, ...] = ()
    predictions: tuple[Prediction, ...] = ()

    @property
    def erase_block_bytes(self) -> int:
        return self.page_bytes * self.pages_per_block

    @property
    def parallel_units(self) -> int:
        """Dies that work at once: channels x dies per channel."""
        return self.channels * self.dies_per_channel

    @property
    def user_bytes(self) -> int:
        return int(round(self.capacity_gb * 1e9))

    @property
    def user_pages(self) -> int:
        """User capacity in pages (what Geometry calls user_pages) at full size."""
        return self.user_bytes // self.page_bytes

    def geometry(self, user_pages: int | None = None) -> Geometry:
        """A Geometry for this drive; user_pages scales it down (same spare and layout)."""
        return Geometry(user_pages=self.user_pages if user_pages is None else user_pages,
                        pages_per_block=self.pages_per_block, spare=self.spare,
                        page_bytes=self.page_bytes, channels=self.channels,
                        dies_per_channel=self.dies_per_channel)

    def ftl_config(self, geometry: Geometry | None = None, **overrides) -> FtlConfig:
        """An FtlConfig with this drive's mapping, GC policy, TRIM behaviour and SLC cache,
        for `geometry` (default: the full-size drive; the static cache is a share of its
        blocks); a drive that compresses stores each page in compression_ratio of a flash
        page, in the engine."""
        kwargs = {"mapping": self.mapping, "gc": self.gc_policy,
                  "gc_frontier": self.gc_frontier, "victim_order": self.victim_order,
                  "honour_trim": self.trim_honoured, "stored_fraction": self.compression_ratio}
        mode = overrides.pop("slc_cache", self.slc_cache)  # a scenario may change the mode
        if mode != "none":
            kwargs.update(self.slc_fields(mode, (geometry or self.geometry()).blocks))
        kwargs.update(overrides)
        return FtlConfig(**kwargs)

    def slc_fields(self, mode: str, blocks: int) -> dict:
        """FtlConfig's SLC cache fields from this profile's figures, in cache mode `mode`
        ("static" or "dynamic"), on a drive of `blocks` erase blocks."""
        return {"slc_cache": mode, "cell_bits": self.cell_bits,
                "slc_blocks": slc_static_blocks(self.slc_static_fraction, blocks),
                "slc_dynamic_share": self.slc_dynamic_share if mode == "dynamic" else 0.0}

    def calibrated(self, parameter: str) -> Calibration | None:
        return next((c for c in self.calibration if c.parameter == parameter), None)


@dataclass(frozen=True)
class HostProfile:
    """The CPU and page-cache side of a machine: what file operations cost before any I/O,
    and how much RAM holds dirty data before writeback starts (ssdlab/model/host/writeback.py)."""

    key: str
    name: str
    description: str
    per_file_create_us: float
    per_dir_us: float
    per_file_delete_us: float
    copy_mb_s: float
    ram_gib: float
    available_ram_fraction: float
    dirty_background_ratio_pct: float
    dirty_ratio_pct: float
    dirty_expire_s: float
    dirty_writeback_s: float
    calibration: tuple[Calibration, ...] = ()
    predictions: tuple[Prediction, ...] = ()

    def calibrated(self, parameter: str) -> Calibration | None:
        return next((c for c in self.calibration if c.parameter == parameter), None)


# Profiles checked already, by path and text: a window opening reads every lesson's and
# scenario's profile, a hundred files, and parsing them took a quarter of a second. A file
# whose text changed is read and checked again.
_CHECKED: dict[tuple[str, str], DeviceProfile] = {}


def profile_from_file(path: str | Path) -> DeviceProfile:
    """Load and check one device profile file."""
    path = Path(path)
    text = _text(path)
    known = _CHECKED.get((str(path), text))
    if known is not None:
        return known
    values = _parse(path, _DEVICE_FIELDS, text, _DEVICE_OPTIONAL)
    _check_slc(_where(path), values)
    profile = DeviceProfile(key=path.stem, **values)
    try:  # the simulator must be able to build this drive (checked at 1024 blocks' size)
        small = profile.geometry(user_pages=profile.pages_per_block * 1024)
        check_buildable(small, profile.ftl_config(small), memory_limit_bytes=2**62)
    except ValueError as e:
        raise ProfileError(f"{_where(path)}: impossible geometry: {e}") from e
    if len(_CHECKED) >= 256:
        _CHECKED.clear()
    _CHECKED[(str(path), text)] = profile
    return profile


def slc_static_blocks(fraction: float, blocks: int) -> int:
    """Erase blocks a static cache of `fraction` of the drive's blocks takes: at least one
    when the fraction is above 0, so a scaled-down drive keeps its cache."""
    return max(1, round(fraction * blocks)) if fraction > 0 else 0


def _check_slc(where: str, v: dict) -> None:
    """The cache fields agree with each other and with the drive's FTL."""
    if v["slc_cache"] == "none":
        return
    need = [(v["slc_program_us"] >= 1.0, "slc_program_us", "from 1 to 100000 us with a cache"),
            (v["mapping"] == "page", "mapping", "'page' with a cache"),
            (v["gc_policy"] == "greedy", "gc_policy", "'greedy' with a cache"),
            (v["compression_ratio"] == 1.0, "compression_ratio", "1.0 with a cache"),
            (v["slc_cache"] == "dynamic" or v["slc_static_fraction"] > 0,
             "slc_static_fraction", "above 0 for a static cache"),
            (v["slc_cache"] == "static" or v["slc_dynamic_share"] > 0,
             "slc_dynamic_share", "above 0 for a dynamic cache")]
    for ok, key, allowed in need:
        if not ok:
            raise ProfileError(f"{where}: field '{key}' must be {allowed}; got {v[key]!r}")


def host_profile_from_file(path: str | Path) -> HostProfile:
    """Load and check one host profile file."""
    path = Path(path)
    return HostProfile(key=path.stem, **_parse(path, _HOST_FIELDS))


def _names(host: bool, directory: Path | None) -> list[str]:
    d = PROFILES_DIR if directory is None else Path(directory)
    return sorted(p.stem for p in d.glob("*.toml") if p.stem.startswith(HOST_PREFIX) == host)


def list_profiles(directory: str | Path | None = None) -> list[str]:
    """Names of the device profiles shipped (file stems, without host_* files)."""
    return _names(False, directory)


def list_host_profiles(directory: str | Path | None = None) -> list[str]:
    return _names(True, directory)


def _path_for(name: str, host: bool, directory: str | Path | None) -> Path:
    d = PROFILES_DIR if directory is None else Path(directory)
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ProfileError(f"profile name must be a plain file stem; got {name!r}")
    path = d / f"{name}.toml"
    if not path.is_file():
        known = _names(host, d)
        raise ProfileError(f"no {'host' if host else 'device'} profile named {name!r}; "
                           f"known: {', '.join(known) or '(none)'}")
    return path


def load_profile(name: str, directory: str | Path | None = None) -> DeviceProfile:
    """Load the device profile ssdlab/assets/profiles/<name>.toml."""
    if name.startswith(HOST_PREFIX):
        raise ProfileError(f"{name!r} is a host profile; use load_host_profile")
    return profile_from_file(_path_for(name, False, directory))


def load_host_profile(name: str, directory: str | Path | None = None) -> HostProfile:
    """Load the host profile ssdlab/assets/profiles/<name>.toml (names start with host_)."""
    if not name.startswith(HOST_PREFIX):
        name = HOST_PREFIX + name
    return host_profile_from_file(_path_for(name, True, directory))


def field_names(host: bool = False) -> tuple[str, ...]:
    """The parameters a profile file sets (besides version, calibration, predictions)."""
    return tuple(_HOST_FIELDS if host else (*_DEVICE_FIELDS, *_DEVICE_OPTIONAL))


assert {f.name for f in fields(DeviceProfile)} == {"key", *_DEVICE_FIELDS, *_DEVICE_OPTIONAL,
                                                   *_META_FIELDS[1:]}
assert {f.name for f in fields(HostProfile)} == {"key", *_HOST_FIELDS, *_META_FIELDS[1:]}
