"""The file system's journal commits and TRIM: when a transaction must commit (jbd2's
credit rule on modern kernels, the 2.6.39-era size rule), the commit itself, the discard
that follows it (per extent in the 2.6.39 era, the queued discard worker in modern ext4:
discard.py) and fstrim.

`FsCommit` is mixed into `FileSystem` (filesystem.py), whose state it uses.
"""

from __future__ import annotations

from . import discard as dc
from .journal import CREATE_CREDITS


class FsCommit:
    """Journal commits, discard and fstrim for FileSystem."""

    def _tx_full(self, handle_credits: int = CREATE_CREDITS, reserved: int = 0) -> bool:
        return (self.tx is not None and self.journal is not None
                and self.journal.must_commit_before(len(self.tx.metadata), handle_credits,
                                                    reserved))

    @property
    def journal_credits(self) -> bool:
        """Whether the journal commits early by jbd2's credit rule (modern kernels)."""
        return self.journal is not None and self.journal.credits

    def _handle_start(self, credits: int = CREATE_CREDITS, reserved: int = 0,
                      data: list | None = None) -> bool:
        """A modern jbd2 handle starts: it commits the running transaction first if it
        would overflow it (journal.py); in ordered mode the data allocated so far goes out
        before. True when it committed. (The 2.6.39-era rule runs after the blocks are
        added and with the timers: _commit_if_full.)"""
        journal, tx = self.journal, self.tx  # _tx_full inline: a handle starts per file
        if journal is None or not journal.credits or tx is None \
                or not journal.must_commit_before(len(tx.metadata), credits, reserved):
            return False
        if data:
            self._write_extents(data, "data_blocks")
        self.commit()
        return True

    def _commit_if_full(self) -> None:
        """jbd2 commits a transaction early when the next handle would overflow it
        (journal.py), so a large sync commits several times and metadata that allocation
        dirties again after a commit is journaled again in the next one."""
        if self._tx_full():
            self.commit()

    def commit(self) -> None:
        """Commit the running transaction: journal its metadata, then trim what it freed."""
        tx, self.tx = self.tx, None
        if tx is None or tx.empty:
            return
        if self.journal is not None:
            writes = self.journal.commit(tx)
            for s, n in writes.runs:
                self.dev.write(s * 4096, n * 4096)
            self.dev.flush()
            self.dev.write(writes.commit_block * 4096, 4096)
            self.dev.flush()
            self.count.journal_blocks += writes.journal_blocks
            self.count.commits += 1
            self.count.flushes += 2
            if tx.metadata:  # _home of each block, in one set update
                if not self.home_dirty:
                    self.home_dirty_since = self.now
                self.home_dirty.update(tx.metadata)
            if self.journal.needs_checkpoint:
                self._write_home()
        if self.opt.discard and tx.freed:
            if self.opt.kernel == "modern":
                if not self.discard_queue:
                    self.discard_worker_s = max(self.discard_worker_s, self.now)
                self.discard_queue += dc.freed_entries(tx.freed, self.layout)
                if self.discard_request_s is None:
                    self.issue_queued_discards()
            else:
                self._discard(dc.still_free(tx.freed, self.alloc))

    def run_discard_worker(self, until_s: float) -> None:
        """Modern ext4's discard worker up to until_s (s): it takes its entries in order,
        each against the bitmap of the moment it reaches it (discard.entry_runs), and waits
        for each request it sends before the next."""
        limit = self.opt.max_discard_bytes // 4096
        while self.discard_queue and self.discard_worker_s <= until_s:
            for s, ln in dc.entry_runs(self.discard_queue.popleft(), self.alloc, self.layout):
                self._trim_run(s, ln)
                if self.discard_request_s is not None:
                    full, last = divmod(ln, limit)
                    self.discard_worker_s += (full * self.discard_request_s(limit * 4096)
                                              + (self.discard_request_s(last * 4096)
                                                 if last else 0.0))

    def issue_queued_discards(self) -> None:
        """Let the discard worker finish its queue now (umount waits for it: the kernel's
        ext4_mb_release flushes the work)."""
        self.run_discard_worker(float("inf"))

    def _discard(self, extents) -> None:
        """One TRIM per freed extent, as ext4 of the 2.6.39 era sent them. Merging adjacent
        extents first would turn the 36,706 per-file TRIMs of seed 001's rm -rf into a few,
        and no single TRIM cost could then explain both its 40 s and fstrim's 6 minutes."""
        for s, ln in extents:
            self._trim_run(s, ln)

    def _trim_run(self, s: int, ln: int) -> None:
        limit = self.opt.max_discard_bytes // 4096
        while ln > 0:
            n = min(ln, limit)
            self.dev.trim(s * 4096, n * 4096)
            self.count.discard_requests += 1
            self.count.discard_blocks += n
            s += n
            ln -= n

    def forget_trimmed(self) -> None:
        """Forget which groups fstrim trimmed (the kernel keeps that in memory only, so
        after a remount fstrim walks every group again)."""
        self._trimmed_groups.clear()

    def fstrim(self, minimum_blocks: int = 1) -> int:
        """TRIM every free range of at least minimum_blocks in groups not trimmed since their
        last free; returns blocks trimmed. Like ext4, a group trimmed once is skipped until
        something in it is freed (allocating in it does not bring it back)."""
        trimmed = 0
        layout = self.layout
        # ext4 skips a trimmed group only if this minimum is no smaller than the last one:
        # otherwise runs the last fstrim thought too short would never be trimmed.
        if minimum_blocks < self._last_trim_minimum:
            self._trimmed_groups.clear()
        self._last_trim_minimum = minimum_blocks
        for g in range(layout.groups):
            if g in self._trimmed_groups:
                continue
            lo = layout.group_start(g)
            hi = min(lo + layout.blocks_per_group, layout.total_blocks)
            starts, lengths = self.alloc.free_runs(lo, hi)
            for s, ln in zip(starts.tolist(), lengths.tolist(), strict=True):
                if ln >= minimum_blocks:
                    self._trim_run(s, ln)
                    trimmed += ln
            self._trimmed_groups.add(g)
        return trimmed
