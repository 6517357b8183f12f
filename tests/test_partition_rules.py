"""Partition offsets and the block device's page arithmetic, exact values: where the file
system starts, which writes cost a read-modify-write of a partial page (head, tail, both,
one page), and which TRIMs unmap nothing because they hold no whole page."""

from __future__ import annotations

import pytest

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.partition import (
    CYLINDER_START_SECTOR,
    DOS_START_SECTOR,
    LVM_ALIGNED_PE_START_BYTES,
    LVM_DEFAULT_PE_START_BYTES,
    MIB_START_SECTOR,
    Partition,
)

KIB = 1024


@pytest.mark.parametrize("start, lvm, offset", [
    (DOS_START_SECTOR, 0, 32256),
    (MIB_START_SECTOR, 0, 1048576),
    (CYLINDER_START_SECTOR, 0, 6422528),
    (MIB_START_SECTOR, LVM_DEFAULT_PE_START_BYTES, 1048576 + 196608),
    (MIB_START_SECTOR, LVM_ALIGNED_PE_START_BYTES, 1048576 + 262144),
    (0, 0, 0),
])
def test_offset_bytes(start, lvm, offset):
    assert Partition(start, lvm).offset_bytes == offset


@pytest.mark.parametrize("part, unit, miss", [
    (Partition(63), 4 * KIB, 3584),
    (Partition(63), 128 * KIB, 32256),
    (Partition(2048, 192 * KIB), 4 * KIB, 0),
    (Partition(2048, 192 * KIB), 128 * KIB, 64 * KIB),
    (Partition(2048, 256 * KIB), 128 * KIB, 0),
    (Partition(CYLINDER_START_SECTOR), 128 * KIB, 0),  # why fdisk -H 224 -S 56 was advised
    (Partition(CYLINDER_START_SECTOR), 512 * KIB, 128 * KIB),
])
def test_misalignment(part, unit, miss):
    assert part.misalignment(unit) == miss


def test_describe_names_the_unit_it_misses():
    assert Partition(63).describe(4096, 128 * KIB) == (
        "misaligned by 3.5 KiB to 4 KiB flash pages: every file-system block straddles "
        "two pages")
    assert Partition(2048, 192 * KIB).describe(4096, 128 * KIB) == (
        "aligned to pages, misaligned by 64 KiB to 128 KiB erase blocks")
    assert Partition(2048).describe(4096, 512 * KIB) == "aligned to 512 KiB erase blocks"


@pytest.mark.parametrize("kwargs, field", [
    ({"start_sector": -1}, "start_sector"), ({"start_sector": 2**32 + 1}, "start_sector"),
    ({"start_sector": 1.5}, "start_sector"), ({"lvm_pe_start_bytes": 100}, "lvm_pe_start"),
    ({"lvm_pe_start_bytes": 64 * 2**20 + 512}, "lvm_pe_start"),
])
def test_bad_partition_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Partition(**kwargs)


def test_partition_limits_are_inclusive_and_messages_exact():
    assert Partition(2**32).start_sector == 2**32
    assert Partition(0, 64 * 2**20).offset_bytes == 64 * 2**20
    with pytest.raises(ValueError, match=r"^start_sector must be a whole number from 0 to "
                       r"2\^32; got -1$"):
        Partition(-1)
    with pytest.raises(ValueError, match=r"^lvm_pe_start_bytes must be a multiple of 512 "
                       r"from 0 to 64 MiB; got 100$"):
        Partition(2048, 100)


def test_one_byte_requests_are_allowed():
    dev = _dos_device()
    dev.write(0, 1)
    dev.read(0, 1)
    dev.trim(0, 1)
    s = dev.submit()
    assert (s.write_requests, s.read_requests, s.trim_requests) == (1, 1, 1)


def test_partition_must_start_inside_the_drive():
    drive = Drive(Geometry(user_pages=64, pages_per_block=4, spare=0.5))
    with pytest.raises(ValueError, match="must lie inside the drive"):
        BlockDevice(drive, Partition(512))  # 256 KiB = exactly the drive's size
    assert BlockDevice(drive, Partition(504)).size_bytes == 4096


# --- read-modify-write --------------------------------------------------------------------


def _dos_device() -> BlockDevice:
    """A page-mapped drive with every page written once, under a DOS partition (sector 63:
    each file-system byte b sits at drive byte 32256 + b, 3584 bytes into page 7)."""
    drive = Drive(Geometry(user_pages=1024, pages_per_block=32, spare=0.2), FtlConfig())
    drive.write(0, 1024)
    return BlockDevice(drive, Partition(DOS_START_SECTOR))


@pytest.mark.parametrize("offset, length, rmw, pages", [
    (0, 4096, 2, 2),  # a 4 KiB block straddles pages 7 and 8: head and tail are partial
    (512, 4096, 0, 1),  # fs byte 512 is drive byte 32768, a page boundary
    (0, 512, 1, 1),  # head partial, ends on a boundary
    (512, 100, 1, 1),  # starts on a boundary, tail partial
    (600, 100, 1, 1),  # inside one page: one read, not two
    (0, 8704, 1, 3),  # head partial, then two whole pages
    (512, 8292, 1, 3),  # two whole pages, then a partial tail
    (100, 40960, 2, 11),
    (512, 4097, 1, 2),  # ends one byte into a page: that page is written, after a read
])
def test_partial_pages_cost_one_read_each(offset, length, rmw, pages):
    dev = _dos_device()
    dev.write(offset, length)
    s = dev.submit()
    assert (s.rmw_pages, s.nand_reads, s.host_pages_written, s.nand_writes) == (
        rmw, rmw, pages, pages)
    assert (s.write_requests, s.write_bytes) == (1, length)
    assert s.wa(4096) == pytest.approx(pages * 4096 / length)


def test_rmw_reads_add_up_over_a_batch():
    dev = _dos_device()
    for b in range(5):
        dev.write(b * 8192, 4096)  # each straddles two pages: head and tail read
    s = dev.submit()
    assert (s.rmw_pages, s.nand_reads, s.write_requests) == (10, 10, 5)


def test_aligned_partition_never_reads_for_whole_blocks():
    drive = Drive(Geometry(user_pages=1024, pages_per_block=32, spare=0.2), FtlConfig())
    drive.write(0, 1024)
    dev = BlockDevice(drive, Partition(MIB_START_SECTOR))
    for b in range(0, 40, 3):
        dev.write(b * 4096, 4096)
    s = dev.submit()
    assert (s.rmw_pages, s.nand_reads, s.host_pages_written) == (0, 0, 14)


@pytest.mark.parametrize("offset, length, first, count", [
    (0, 4096, None, 0),  # drive bytes 32256..36352 hold no whole page
    (0, 8192, 8, 1),
    (512, 4096, 8, 1),
    (512, 4095, None, 0),
    (100, 3 * 4096, 8, 2),
])
def test_trim_covers_whole_pages_only(offset, length, first, count):
    dev = _dos_device()
    drive = dev.drive
    dev.trim(offset, length)
    s = dev.submit()
    assert (s.trim_requests, s.trim_bytes, s.trimmed_pages) == (1, length, count)
    mapped = drive.arrays.l2p[6:12] >= 0
    expect = [not (first is not None and first <= p < first + count) for p in range(6, 12)]
    assert mapped.tolist() == expect


def test_requests_outside_the_partition_are_refused():
    dev = _dos_device()
    size = dev.size_bytes
    for op in (dev.write, dev.read, dev.trim):
        with pytest.raises(ValueError, match=rf"^{op.__name__} of 11 bytes at {size - 10} "
                           rf"must lie inside the partition \(0 to {size} bytes\)$"):
            op(size - 10, 11)
        with pytest.raises(ValueError, match="inside the partition"):
            op(-1, 4096)
        with pytest.raises(ValueError, match="inside the partition"):
            op(0, 0)
    assert not dev.pending
