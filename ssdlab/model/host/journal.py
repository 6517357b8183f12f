"""A JBD2-like journal in ordered mode: what a transaction commit writes, and where.

A transaction gathers the metadata blocks dirtied while it runs (each counted once however
often it changes) and the extents freed in it. Committing writes one descriptor block per
`tags_per_block` metadata blocks plus the blocks themselves into the circular journal area,
then a commit block (a separate, flushed request), plus a revoke block when metadata blocks
were freed. The blocks still have to reach their home locations afterwards (checkpoint);
the file system decides when. Data blocks are never journaled in ordered mode.

When a transaction commits early (modern kernels, fs/jbd2/transaction.c
add_transaction_credits): a handle that would push the running transaction's outstanding
credits past j_max_transaction_buffers makes it commit first. Outstanding credits are the
descriptor blocks jbd2 reserves per transaction, the metadata buffers already in it, the
credits of the handle starting, and the credits reserved for handles that convert unwritten
extents once a writeback I/O completes (dioread_nolock, the default since Linux 5.6). These
stay reserved while the I/O is in flight, across commits, up to half the maximum
("We allow at most half of a transaction to be reserved"). So a transaction of 4,620 blocks
from an untar commits as soon as sync starts writing back (the reservations of the first
43 files push it over 5,461), and while a sync writes many small files, each transaction
commits at about 2,680 blocks (measured on 6.18: jbd2_run_stats, jbd2_handle_stats).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A JBD2 v2 block tag with 64-bit block numbers and checksums is 16 bytes; the descriptor
# header is 12 bytes.
TAGS_PER_BLOCK = (4096 - 12) // 16
# jbd2_descriptor_blocks_per_trans reserves descriptor blocks for a full transaction counting
# (4096 - 12 header - 16 UUID - 4 tail - 16 slack) // 16 tags per block, plus the commit block.
_RESERVED_TAGS_PER_BLOCK = (4096 - 12 - 16 - 4 - 16) // 16
# Handle credits ext4 asks for, read from jbd2_handle_start / jbd2_handle_stats on Linux 6.18
# during an untar and its sync (tests/recordings/probe_jbd2_credits.txt).
CREATE_CREDITS = 47  # creating a file or directory (EXT4_HT_DIR)
WRITEPAGES_CREDITS = 31  # one ext4_writepages handle (EXT4_HT_WRITE_PAGE)
CONVERSION_CREDITS = 18  # reserved per writepages for the unwritten-extent conversion


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
                 max_transaction_share: float = 0.25, credits: bool = False):
        """credits: commit early by jbd2's credit accounting (modern kernels); otherwise
        once the metadata blocks reach the maximum (the 2.6.39-era rule the documented
        experiments were checked with)."""
        if blocks < 8:
            raise ValueError(f"journal must have at least 8 blocks; got {blocks}")
        self.start = start
        self.blocks = blocks
        self.tags_per_block = tags_per_block
        self.max_transaction_share = max_transaction_share
        self.credits = credits
        self.head = 1  # block 0 of the area is the journal superblock
        self.used_since_checkpoint = 0
        # Asked before every file operation (must_commit_before): worked out once.
        self._max_transaction_blocks = max(1, int(blocks * max_transaction_share))
        self._descriptor_credits = 1 + -(-self._max_transaction_blocks
                                         // _RESERVED_TAGS_PER_BLOCK)

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
        """j_max_transaction_buffers: a quarter of the journal in 2.6.39, a third in modern
        kernels (jbd2_journal_get_max_txn_bufs; 5,461 of 16,384 blocks, so an untar's
        transactions commit at 5,392 blocks: 5,461 - 23 descriptor credits - 47 for the
        next create, as measured on 6.18)."""
        return self._max_transaction_blocks

    @property
    def descriptor_credits(self) -> int:
        """Credits jbd2 reserves in each new transaction for its descriptor and commit
        blocks (jbd2_descriptor_blocks_per_trans)."""
        return self._descriptor_credits

    def must_commit_before(self, metadata_blocks: int, handle_credits: int,
                           reserved_credits: int = 0) -> bool:
        """Whether a handle asking handle_credits commits the running transaction (holding
        metadata_blocks) before it starts, with reserved_credits held for I/O in flight."""
        limit = self._max_transaction_blocks
        if not self.credits:
            return metadata_blocks >= limit
        reserved = min(reserved_credits, limit // 2)
        return self._descriptor_credits + metadata_blocks + reserved + handle_credits > limit

    def commit_at(self, handle_credits: int) -> int:
        """The fewest metadata blocks in the running transaction at which a handle asking
        handle_credits, with nothing reserved, commits it first: must_commit_before(n,
        handle_credits) is n >= commit_at(handle_credits), one comparison for callers
        that ask after every file."""
        limit = self._max_transaction_blocks
        if not self.credits:
            return limit
        return limit - self._descriptor_credits - handle_credits + 1

    @property
    def needs_checkpoint(self) -> bool:
        """JBD2 forces a checkpoint when the log is about three quarters full."""
        return self.used_since_checkpoint >= 3 * self.blocks // 4

    def checkpointed(self) -> None:
        self.used_since_checkpoint = 0
