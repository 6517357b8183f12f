"""The file system's writeback: requests for metadata and data blocks, the page cache's
flusher and background writeback (thresholds in writeback.py), checkpoints, fsync and sync,
and the clock (`advance`) that runs the commit timer and the flusher when due.

`FsWriteback` is mixed into `FileSystem` (filesystem.py), whose state it uses.
"""

from __future__ import annotations

from .fstypes import _dirty_pages
from .journal import CONVERSION_CREDITS, WRITEPAGES_CREDITS
from .writeback import timer_fire_s

WRITEBACK_CHUNK_BYTES = 4 * 2**20  # what one background writeback pass writes at least
_NEVER = float("inf")


class FsWriteback:
    """Writeback, timers and sync for FileSystem."""

    def _write_runs(self, blocks, counter: str) -> None:
        """Write sorted block numbers as merged requests no longer than max_request."""
        limit = self.opt.max_request_bytes // 4096
        start = prev = None
        n = 0
        for b in blocks:
            if start is not None and b == prev + 1 and n < limit:
                prev, n = b, n + 1
                continue
            if start is not None:
                self.dev.write(start * 4096, n * 4096)
            start = prev = b
            n = 1
        if start is not None:
            self.dev.write(start * 4096, n * 4096)
        setattr(self.count, counter, getattr(self.count, counter) + len(blocks))

    def _write_extents(self, extents, counter: str) -> None:
        limit = self.opt.max_request_bytes // 4096
        merged: list[list[int]] = []
        total = 0
        for s, ln in sorted(extents):
            total += ln
            if merged and merged[-1][0] + merged[-1][1] == s:
                merged[-1][1] += ln
            else:
                merged.append([s, ln])
        self.dev.write_extents(merged, limit)
        setattr(self.count, counter, getattr(self.count, counter) + total)

    def _writeback_inodes(self, inos) -> None:
        """One writeback pass. Each file's writepages handle may commit the running
        transaction first (journal.py); the conversion credits it reserves stay held until
        the pass's I/O is done, across commits."""
        out: list[tuple[int, int]] = []
        reserved = 0
        old_rule = not self.journal_credits  # the journal stays as it is during a pass
        for ino in inos:
            f = self.inodes.get(ino)
            self._dirty_inodes.pop(ino, None)
            if f is None:
                continue
            self.dirty_bytes -= (f.pending_blocks + len(f.dirty_blocks)) * 4096
            if self._handle_start(WRITEPAGES_CREDITS + CONVERSION_CREDITS, reserved, out):
                out = []
            if f.pending_blocks:
                self.reserved_blocks -= f.pending_blocks
                out += self._place(f, f.pending_blocks)
                f.pending_blocks = 0
            if f.dirty_blocks:
                out += [(self._block_of(f, b), 1) for b in sorted(f.dirty_blocks)]
                f.dirty_blocks.clear()
            reserved += CONVERSION_CREDITS
            if old_rule and self._tx_full():
                # 2.6.39 era: commit once the metadata reached the maximum
                self._write_extents(out, "data_blocks")
                out = []
                self.commit()
        if out:
            self._write_extents(out, "data_blocks")

    def _write_home(self) -> None:
        """Write every dirty metadata block to its home location (checkpoint)."""
        if self.home_dirty:
            self._write_runs(sorted(self.home_dirty), "metadata_blocks")
        self.home_dirty.clear()
        self.home_dirty_since = None
        if self.journal is not None:
            self.journal.checkpointed()

    def advance(self, now_s: float) -> None:
        """Move the clock to now_s, running the commit timer and the flusher when due."""
        while True:
            tx = self.tx
            due_commit = (tx.started_s + self.opt.commit_interval_s if tx is not None
                          else _NEVER)
            due = self._next_flusher if self._next_flusher < due_commit else due_commit
            if due > now_s:
                break
            self.now = max(self.now, due)
            if due == due_commit:
                self.commit()
            else:
                self._flusher()
                self._next_flusher = self._flusher_due(self._next_flusher)
        if now_s > self.now:
            self.now = now_s
        if self.dirty_bytes > self.wb.background_bytes:
            self._writeback_oldest()
        tx = self.tx  # _commit_if_full inline: the clock moves after every file
        if tx is not None and len(tx.metadata) >= self._create_commit_blocks:
            self.commit()

    def _flusher_due(self, armed_s: float) -> float:
        """When the flusher armed at armed_s wakes: the interval later in 2.6.39, on the
        timer wheel's next step after it in modern kernels (writeback.py)."""
        if self.opt.kernel == "2.6.39":
            return armed_s + self.wb.interval_s
        return timer_fire_s(armed_s, self.wb.interval_s)

    def _flusher(self) -> None:
        expire = self.now - self.wb.expire_s
        old = [i for i, t in self._dirty_inodes.items() if t <= expire]
        if old:
            self._writeback_inodes(old)
        if self.home_dirty and self.home_dirty_since is not None \
                and self.home_dirty_since <= expire:
            self._write_home()

    def _writeback_oldest(self) -> None:
        """Background writeback: the oldest dirty files until under the threshold, at least
        one 4 MiB chunk (the kernel's MAX_WRITEBACK_PAGES) per pass."""
        target = self.wb.background_bytes
        batch = []
        freed = 0
        # _dirty_inodes is in the order files first became dirty: oldest first
        for ino in self._dirty_inodes:
            batch.append(ino)
            freed += _dirty_pages(self.inodes[ino]) * 4096
            if self.dirty_bytes - freed <= target and freed >= WRITEBACK_CHUNK_BYTES:
                break
        self._writeback_inodes(batch)

    def fsync(self, ino: int) -> None:
        """Write back one file's data and commit the journal (its metadata is then safe in
        the journal; home locations are written later)."""
        if ino in self._dirty_inodes:
            self._writeback_inodes([ino])
        self.commit()
        if self.journal is None:
            self._write_home()
        self.dev.flush()
        self.count.flushes += 1

    def sync_steps(self, inodes_per_step: int = 2048):
        """sync as a generator: write back dirty files a few thousand at a time (yielding
        after each group, so a caller can pause), then commit and checkpoint."""
        pending = list(self._dirty_inodes)
        for i in range(0, len(pending), inodes_per_step):
            self._writeback_inodes(pending[i:i + inodes_per_step])
            yield
        self.commit()
        self._write_home()
        self.dev.flush()
        self.count.flushes += 1

    def sync(self) -> None:
        """Write back all dirty data, commit, and checkpoint: everything reaches the drive."""
        for _ in self.sync_steps():
            pass
