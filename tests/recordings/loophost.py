"""The machine side of a recording (for record_ext4.py and probe_jbd2_credits.py; run as
root, not a test): syncing one file system, dropping caches, reading a file back, where the
journal lies, the host's memory settings, and waiting until the device has gone quiet.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from ext4trace import EXTENT_RE, run

QUIET_S = 3.0  # a settling step ends when the device has done nothing for this long
SETTLE_MAX_S = 180.0


def syncfs(mnt: Path) -> None:
    """sync of this file system only (syncfs(2), as `sync -f`): what sync does for it,
    without making other file systems on the machine write (recorders running side by
    side would otherwise see each other's syncs; writeback_start reason=sync events in a
    command phase show when that happened)."""
    run("sync", "-f", str(mnt))


def drop_caches(mnt: Path) -> None:
    syncfs(mnt)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def read_file(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def journal_range(loop: str) -> tuple[int, int] | None:
    """The journal inode's blocks as a sector range [first, end), from debugfs."""
    text = subprocess.run(["debugfs", "-R", "stat <8>", loop], capture_output=True,
                          text=True).stdout
    ranges = [(int(a or c), int(b or c)) for a, b, c in EXTENT_RE.findall(
        text.split("EXTENTS:", 1)[-1])]
    if not ranges:
        return None
    first, last = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if sum(b - a + 1 for a, b in ranges) != last - first + 1:
        raise RuntimeError(f"journal of {loop} is not contiguous: {ranges}")
    return first * 8, (last + 1) * 8


def host_memory() -> dict:
    """RAM and the dirty-page settings the writeback timing follows."""
    info = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        key, value = line.split(":", 1)
        if key in ("MemTotal", "MemAvailable", "MemFree", "Cached"):
            info[key + "_kib"] = int(value.split()[0])
    for key in ("dirty_background_ratio", "dirty_ratio", "dirty_background_bytes",
                "dirty_bytes", "dirty_expire_centisecs", "dirty_writeback_centisecs"):
        info[key] = int(Path(f"/proc/sys/vm/{key}").read_text())
    return info


def wait_quiet(disk: str) -> None:
    """Wait until the device has issued nothing for QUIET_S seconds (or SETTLE_MAX_S)."""
    stat = Path(f"/sys/block/{disk}/stat")
    last, quiet_since = stat.read_text(), time.monotonic()
    deadline = quiet_since + SETTLE_MAX_S
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = stat.read_text()
        if now != last:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= QUIET_S:
            return
