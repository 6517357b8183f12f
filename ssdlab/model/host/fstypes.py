"""The ext4-like file system's plain data: mount options, counters and inodes.

Sizes are bytes unless a name says blocks (4 KiB); times are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ATIME_MODES = ("strict", "relatime", "noatime")
KERNEL_ERAS = ("2.6.39", "modern")  # how `discard` behaves (ssdlab/model/host/discard.py)
ROOT_INO = 2
FIRST_INO = 11
EXTENTS_IN_INODE = 4
EXTENTS_PER_BLOCK = 340
POINTERS_PER_BLOCK = 1024  # ext2/3 indirect block: 4 KiB of 4-byte block numbers
DIRECT_BLOCKS = 12
SMALL_FILE_BLOCKS = 16  # ext4's mb_stream_req: smaller files share a stream of blocks
STREAM_CHUNK_BLOCKS = 512
DAY_S = 86400.0


@dataclass(frozen=True)
class FsOptions:
    """Mount and format options. Times in seconds, sizes in bytes unless named otherwise."""

    journal: bool = True
    atime: str = "relatime"
    discard: bool = False
    kernel: str = "2.6.39"  # discard behaviour: "2.6.39" (one TRIM per extent) or "modern"
    extents: bool = True  # False: ext2/ext3 indirect block maps
    commit_interval_s: float = 5.0
    stripe_width_blocks: int = 0
    max_request_bytes: int = 512 * 1024
    max_discard_bytes: int = 2**32
    blocks_per_group: int = 32768
    inodes_per_group: int = 8192
    journal_blocks: int | None = None  # None: as mke2fs chooses for the size

    def __post_init__(self) -> None:
        if self.kernel not in KERNEL_ERAS:
            raise ValueError(f"kernel must be one of {', '.join(KERNEL_ERAS)}; got "
                             f"{self.kernel!r}")
        if self.atime not in ATIME_MODES:
            raise ValueError(f"atime must be one of {', '.join(ATIME_MODES)}; got "
                             f"{self.atime!r}")
        if not (0.1 <= self.commit_interval_s <= 3600):
            raise ValueError(f"commit_interval_s must be between 0.1 and 3600 seconds; got "
                             f"{self.commit_interval_s}")
        if not (0 <= self.stripe_width_blocks <= 4096):
            raise ValueError(f"stripe_width_blocks must be from 0 to 4096; got "
                             f"{self.stripe_width_blocks}")
        if self.max_request_bytes < 4096 or self.max_request_bytes % 4096:
            raise ValueError("max_request_bytes must be a multiple of 4096, at least 4096; "
                             f"got {self.max_request_bytes}")


@dataclass
class FsCounters:
    """Blocks (4 KiB) the file system wrote or trimmed, by kind."""

    data_blocks: int = 0
    metadata_blocks: int = 0  # written to their home location
    journal_blocks: int = 0
    read_blocks: int = 0
    discard_requests: int = 0
    discard_blocks: int = 0
    commits: int = 0
    flushes: int = 0

    @property
    def written_blocks(self) -> int:
        """What ext4's lifetime_write_kbytes counts, in blocks."""
        return self.data_blocks + self.metadata_blocks + self.journal_blocks

    def copy(self) -> FsCounters:
        return FsCounters(**vars(self))


@dataclass(eq=False, slots=True)  # slots: quicker to make and read, tens of thousands a run
class Inode:
    ino: int
    is_dir: bool
    parent: int
    size: int = 0  # bytes
    extents: list = field(default_factory=list)  # [first block, blocks]
    map_blocks: list = field(default_factory=list)  # extent-tree or indirect blocks
    pending_blocks: int = 0  # delayed allocation: blocks written but not yet placed
    dirty_blocks: set = field(default_factory=set)  # file-relative blocks to rewrite
    dirty_since: float | None = None
    atime: float = 0.0
    mtime: float = 0.0
    entries: dict = field(default_factory=dict)  # directories: name -> (ino, dir block idx)
    fill: list = field(default_factory=list)  # directories: bytes used per dir block
    # blocks in extents, kept as they change (fsalloc._place, truncate): asked for on every
    # write and placement, summing the extents each time cost more than the rest of a write
    allocated_blocks: int = 0


def _dirty_pages(f: Inode) -> int:
    """Pages of f in the page cache that still have to be written."""
    return f.pending_blocks + len(f.dirty_blocks)


def _entry_bytes(name: str) -> int:
    return 8 + (len(name.encode()) + 3) // 4 * 4
