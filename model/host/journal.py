"""A JBD2-like journal in ordered mode: what a transaction commit writes, and where.

A transaction gathers the metadata blocks dirtied while it runs (each counted once however
often it changes) and the extents freed in it. Committing writes one descriptor block per
`tags_per_block` metadata blocks plus the blocks themselves into the circular journal area,
then a commit block (a separate, flushed request), plus a revoke block when metadata blocks
were freed. The blocks still have to reach their home locations afterwards (checkpoint);
the file system decides when. Data blocks are never journaled in ordered mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A JBD2 v2 block tag with 64-bit block numbers and checksums is 16 bytes; the descriptor
# header is 12 bytes.
TAGS_PER_BLOCK = (4096 - 12) // 16


@dataclass
class Transaction:
    """The running transaction: dirty metadata blocks and freed extents since it started."""

    tid: int
    started_s: float
    metadata: set[int] = field(default_factory=set)
    freed: list[tuple[int, int]] = field(default_factory=list)  # (first block, blocks)
    revoked: int = 0  # metadata blocks freed in this transaction

    @property
    def empty(self) -> bool:
        return not self.metadata and not self.freed


@dataclass(frozen=True)
class CommitWrites:
    """Journal writes of one commit, as (first block, blocks) runs in journal order."""

    runs: list[tuple[int, int]]
    commit_block: int
    journal_blocks: int  # descriptor + metadata + revoke + commit blocks written


class Journal:
    """The circular journal area [start, start + blocks)."""

    def __init__(self, start: int, blocks: int, tags_per_block: int = TAGS_PER_BLOCK,
                 max_transaction_share: float = 0.25):
        if blocks < 8:
            raise ValueError(f"journal must have at least 8 blocks; got {blocks}")
        self.start = start
        self.blocks = blocks
        self.tags_per_block = tags_per_block
        self.max_transaction_share = max_transaction_share
        self.head = 1  # block 0 of the area is the journal superblock
        self.used_since_checkpoint = 0

    def _append(self, n: int) -> list[tuple[int, int]]:
        """Reserve n consecutive journal blocks (wrapping), as runs of absolute blocks."""
        runs = []
        while n > 0:
            room = self.blocks - self.head
            take = min(n, room)
            runs.append((self.start + self.head, take))
            self.head += take
            n -= take
            if self.head == self.blocks:
                self.head = 1
        return runs

    def commit(self, tx: Transaction) -> CommitWrites:
        n = len(tx.metadata)
        descriptors = -(-n // self.tags_per_block)
        body = descriptors + n + (1 if tx.revoked else 0)
        runs = self._append(body) if body else []
        (commit_block, _), = self._append(1)
        total = body + 1
        self.used_since_checkpoint += total
        return CommitWrites(runs, commit_block, total)

    @property
    def max_transaction_blocks(self) -> int:
        """jbd2 commits a transaction early when it holds this many blocks
        (j_max_transaction_buffers): a quarter of the journal in 2.6.39, a third in modern
        kernels (measured on 6.18: commits of 5,392 blocks in a 16,384-block journal)."""
        return max(1, int(self.blocks * self.max_transaction_share))

    @property
    def needs_checkpoint(self) -> bool:
        """JBD2 forces a checkpoint when the log is about three quarters full."""
        return self.used_since_checkpoint >= 3 * self.blocks // 4

    def checkpointed(self) -> None:
        self.used_since_checkpoint = 0
