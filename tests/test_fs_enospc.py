"""Running out of space: the file system refuses the write that cannot fit (ENOSPC), loses no
other file, and carries on; a small file still fits in a nearly full file system. (The
drives, partitions and file systems are made as in tests/test_filesystem.py.)
"""

from __future__ import annotations

import pytest

from ssdlab.model.host import fsverify
from ssdlab.model.host.filesystem import ROOT_INO
from tests.test_filesystem import KIB, make_fs, settle


@pytest.mark.parametrize("journal", [True, False])
def test_enospc_raises_and_leaves_fs_consistent(journal):
    fs = make_fs(user_pages=1 << 13, journal=journal)  # 32 MiB
    keep = fs.create(ROOT_INO, "keep", 256 * KIB)
    settle(fs)
    free = fs.alloc.free_blocks
    with pytest.raises(OSError) as err:
        fs.create(ROOT_INO, "huge", (free + 10) * 4096)
        settle(fs)
    assert err.value.errno == 28
    assert fsverify.bookkeeping(fs) == []
    # The file system carries on: the rest can still be synced and checked.
    fs.write(keep, 0, 4096)
    settle(fs)
    assert fsverify.verify(fs) == []
    fs.dev.drive.check_invariants()


def test_small_file_fits_in_a_nearly_full_fs():
    """Fewer free blocks than one small-file stream chunk (512) must not mean ENOSPC."""
    fs = make_fs(user_pages=1 << 13)
    fs.create(ROOT_INO, "big", (fs.alloc.free_blocks - 300) * 4096)
    settle(fs)
    ino = fs.create(ROOT_INO, "small", 4096)
    settle(fs)
    assert fs.inodes[ino].allocated_blocks == 1
    assert fsverify.verify(fs) == []


def test_enospc_at_writeback_loses_no_other_file():
    """Space for delayed allocation is reserved at write time, so a write that cannot fit
    fails there, and writeback never strands another file's data."""
    fs = make_fs(user_pages=1 << 13)
    settle(fs)
    free = fs.alloc.free_blocks
    fs.create(ROOT_INO, "a", 64 * KIB)
    with pytest.raises(OSError):
        fs.create(ROOT_INO, "huge", (free + 10) * 4096)
    fs.unlink(ROOT_INO, "huge")
    settle(fs)
    assert fsverify.verify(fs) == []
