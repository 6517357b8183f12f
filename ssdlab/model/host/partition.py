"""Where the file system starts on the drive: partition start and LVM data offset.

A file system block that does not start on a flash page boundary straddles two pages, and
each partial page costs the drive a read-modify-write; on a block-mapped drive a write that
crosses an erase-block boundary rewrites both erase blocks. The offsets here decide that.
"""

from __future__ import annotations

from dataclasses import dataclass

SECTOR_BYTES = 512
DOS_START_SECTOR = 63  # the old DOS default: 31.5 KiB, aligned to nothing useful
MIB_START_SECTOR = 2048  # 1 MiB, the modern default
CYLINDER_START_SECTOR = 224 * 56  # one cylinder of fdisk -H 224 -S 56: 6 MiB + 128 KiB
LVM_DEFAULT_PE_START_BYTES = 192 * 1024  # LVM2's old default metadata area
LVM_ALIGNED_PE_START_BYTES = 256 * 1024  # --metadatasize 250k rounds up to this


@dataclass(frozen=True)
class Partition:
    """start_sector: partition start in 512-byte sectors from the start of the drive.
    lvm_pe_start_bytes: bytes from the partition start to LVM's first physical extent, or 0
    when there is no LVM."""

    start_sector: int = MIB_START_SECTOR
    lvm_pe_start_bytes: int = 0

    def __post_init__(self) -> None:
        if not (isinstance(self.start_sector, int) and 0 <= self.start_sector <= 2**32):
            raise ValueError(f"start_sector must be a whole number from 0 to 2^32; got "
                             f"{self.start_sector}")
        if not (isinstance(self.lvm_pe_start_bytes, int)
                and 0 <= self.lvm_pe_start_bytes <= 64 * 2**20
                and self.lvm_pe_start_bytes % SECTOR_BYTES == 0):
            raise ValueError("lvm_pe_start_bytes must be a multiple of 512 from 0 to 64 MiB; "
                             f"got {self.lvm_pe_start_bytes}")

    @property
    def offset_bytes(self) -> int:
        """Byte address on the drive of the file system's byte 0."""
        return self.start_sector * SECTOR_BYTES + self.lvm_pe_start_bytes

    def misalignment(self, unit_bytes: int) -> int:
        """Bytes by which the file system start misses a multiple of unit_bytes."""
        return self.offset_bytes % unit_bytes

    def describe(self, page_bytes: int, erase_block_bytes: int) -> str:
        """A one-line note for people: aligned, or misaligned by how much, to what."""
        page_off = self.misalignment(page_bytes)
        block_off = self.misalignment(erase_block_bytes)
        if page_off:
            return (f"misaligned by {page_off / 1024:g} KiB to {page_bytes // 1024} KiB flash "
                    "pages: every file-system block straddles two pages")
        if block_off:
            return (f"aligned to pages, misaligned by {block_off / 1024:g} KiB to "
                    f"{erase_block_bytes // 1024} KiB erase blocks")
        return f"aligned to {erase_block_bytes // 1024} KiB erase blocks"
