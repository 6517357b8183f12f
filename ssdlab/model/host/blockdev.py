"""The block device a file system sees: byte ranges in, flash page commands out.

BlockDevice sits between a file system (or a trace replay) and a Drive. It shifts addresses
by the partition offset, turns byte ranges into page ranges, and charges a read of the old
page for every partially written page (read-modify-write). TRIM covers whole pages only, as
a drive can unmap nothing smaller. Requests are buffered and run through the engine in
batches by `submit`, which returns what the batch cost as a `BatchStats`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, fields

import numpy as np

from ssdlab.model.flash.amplification import page_wa, write_amplification
from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.state import COUNTER_NAMES, OP_READ, OP_TRIM, OP_WRITE

from .partition import Partition

_AUTO_SUBMIT_COMMANDS = 1 << 16


@dataclass(frozen=True)
class BatchStats:
    """What a batch of host requests did. Request sizes are the host's, in bytes; the rest
    are the drive's counters for the batch, in pages."""

    write_requests: int = 0
    write_bytes: int = 0
    read_requests: int = 0
    read_bytes: int = 0
    trim_requests: int = 0
    trim_bytes: int = 0
    flush_requests: int = 0
    rmw_pages: int = 0  # partially written pages whose old contents had to be read
    host_pages_written: int = 0
    nand_writes: int = 0
    nand_reads: int = 0
    gc_copies: int = 0
    erases: int = 0
    trimmed_pages: int = 0
    merges: int = 0
    slc_writes: int = 0  # host pages programmed into an SLC cache (in nand_writes too)

    def __add__(self, other: BatchStats) -> BatchStats:
        # field by field, in order (a few thousand sums per run: fields() each time cost
        # more than the sums)
        return _stats(tuple(map(operator.add, astuple(self), astuple(other))))

    @property
    def page_wa(self) -> float:
        """Pages programmed per page the drive was asked to write (nan if none); not WA:
        it hides the read-modify-write of partly written pages."""
        return page_wa(self.nand_writes, self.host_pages_written)

    def wa(self, page_bytes: int, stored_fraction: float = 1.0) -> float:
        """Write amplification, flash bytes programmed / bytes the host wrote: the
        read-modify-write of misaligned pages on top of the drive's own (nan if none)."""
        return write_amplification(self.nand_writes, page_bytes, self.write_bytes,
                                   stored_fraction)


# a BatchStats' figures as a tuple, in field order (dataclasses' own astuple copies each
# value deeply: slow for a few thousand batches a run)
astuple = operator.attrgetter(*(f.name for f in fields(BatchStats)))
_FIELDS = tuple(f.name for f in fields(BatchStats))
_ZEROS = (0,) * len(_FIELDS)
_new = object.__new__


def _stats(values: tuple[int, ...]) -> BatchStats:
    """BatchStats(*values) (the fields in order, the rest 0) without the frozen dataclass's
    field-by-field __init__: the same record, equal and hashed alike, in about half the time
    (the block device makes one per batch: 12,835 in sysbench_vertex60)."""
    stats = _new(BatchStats)
    stats.__dict__.update(zip(_FIELDS, values + _ZEROS, strict=False))  # pads with 0
    return stats


# BatchStats' fields, in order: the host's counts, then the drive's (what _run passes)
_HOST_COUNTS = ("write_requests", "write_bytes", "read_requests", "read_bytes",
                "trim_requests", "trim_bytes", "flush_requests", "rmw_pages")
_DRIVE_COUNTERS = {"host_pages_written": "host_writes", "nand_writes": "nand_writes",
                   "nand_reads": "nand_reads", "gc_copies": "gc_copies", "erases": "erases",
                   "trimmed_pages": "trimmed_pages", "merges": "merges",
                   "slc_writes": "slc_writes"}
# the drive's registers holding those counters, read in one go before and after a batch
_COUNTER_REGS = np.array([COUNTER_NAMES[v] for v in _DRIVE_COUNTERS.values()],
                         dtype=np.intp)


_NOTHING = BatchStats()  # an empty batch (BatchStats is frozen: one serves every test)
# batches without drive work by their host counts (frozen: one record serves them all)
_HOST_ONLY: dict[tuple[int, ...], BatchStats] = {}


class BlockDevice:
    """A partition on a Drive, addressed in bytes from the partition's start.

    track_versions: keep a shadow of the version every drive page should read back, for
    tests (see `expected_version`). Off by default; when off it costs nothing but one test
    per queued write or TRIM.
    """

    def __init__(self, drive: Drive, partition: Partition | None = None,
                 track_versions: bool = False):
        self.drive = drive
        self.partition = partition or Partition()
        self.page_bytes = drive.geometry.page_bytes
        offset = self.partition.offset_bytes
        if offset >= drive.geometry.user_bytes:
            raise ValueError(f"partition start ({offset} bytes) must lie inside the drive "
                             f"({drive.geometry.user_bytes} bytes)")
        self.size_bytes = drive.geometry.user_bytes - offset
        self._offset = offset  # the partition's offset_bytes (it is frozen), at hand
        # the queue: requests one at a time in three lists, and before them, in order,
        # what came as arrays (write_blocks) or was sealed to make way for such a chunk
        self._ops: list[int] = []
        self._lpns: list[int] = []
        self._counts: list[int] = []
        self._chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._chunked = 0  # commands in _chunks
        self._host = dict.fromkeys(_HOST_COUNTS, 0)
        self._done = _NOTHING
        # a request came since the last submit: what `pending` says, asked after every host
        # step, kept as a flag instead of looking through the queue and the host counts
        self._requested = False
        self._shadow: np.ndarray | None = None
        if track_versions:
            self._start_shadow()

    # --- expected versions (tests) ----------------------------------------------------------

    def _start_shadow(self) -> None:
        """The engine numbers host page writes consecutively in command order, for page and
        block mapping alike: a write command of pages first..last gives them stamps n, n+1,
        ... where n is the drive's host_writes counter when it runs. So the stamp of every
        queued page is known at queue time: counter now plus pages queued before it. Pages
        already mapped start at the stamp the drive holds for them (needs a drive with
        FtlConfig(track_versions=True)); otherwise every page starts unmapped."""
        drive = self.drive
        shadow = np.full(drive.geometry.user_pages, -1, dtype=np.int64)
        if drive.config.track_versions:
            l2p = drive.arrays.l2p
            mapped = l2p >= 0
            shadow[mapped] = drive.arrays.stamp[l2p[mapped]]
        self._shadow = shadow
        self._next_stamp = drive.counters()["host_writes"]

    def _shadow_write(self, first: int, count: int) -> None:
        n = self._next_stamp
        self._shadow[first:first + count] = np.arange(n, n + count, dtype=np.int64)
        self._next_stamp = n + count

    def _shadow_trim(self, first: int, count: int) -> None:
        if self.drive.config.honour_trim:
            self._shadow[first:first + count] = -1

    @property
    def tracks_versions(self) -> bool:
        return self._shadow is not None

    def expected_version(self, page: int) -> int | None:
        """The host write number drive page `page` (a page of the whole drive, not of the
        partition) should read back once everything queued has run, or None if it should be
        unmapped. Only writes and TRIMs queued through this BlockDevice since it was built
        are known; needs BlockDevice(..., track_versions=True)."""
        if self._shadow is None:
            raise ValueError("expected_version needs BlockDevice(..., track_versions=True)")
        v = int(self._shadow[page])
        return None if v < 0 else v

    def _check(self, what: str, offset: int, length: int) -> None:
        if offset < 0 or length <= 0 or offset + length > self.size_bytes:
            raise ValueError(f"{what} of {length} bytes at {offset} must lie inside the "
                             f"partition (0 to {self.size_bytes} bytes)")

    def _queue(self, op: int, lpn: int, count: int) -> None:
        self._ops.append(op)
        self._lpns.append(lpn)
        self._counts.append(count)
        if len(self._ops) + self._chunked >= _AUTO_SUBMIT_COMMANDS:
            self._finished(self._run())

    def write(self, offset: int, length: int) -> None:
        """Write length bytes at byte offset of the partition."""
        self._check("write", offset, length)
        page = self.page_bytes
        start = offset + self._offset
        end = start + length
        first, last = start // page, (end - 1) // page
        self._requested = True
        host = self._host
        host["write_requests"] += 1
        host["write_bytes"] += length
        # A partly covered page must be read first so its other bytes survive.
        if start % page:
            self._queue(OP_READ, first, 1)
            self._host["rmw_pages"] += 1  # a new batch's counts if _queue submitted
        if end % page and (last != first or not start % page):
            self._queue(OP_READ, last, 1)
            self._host["rmw_pages"] += 1
        self._queue(OP_WRITE, first, last - first + 1)
        if self._shadow is not None:
            self._shadow_write(first, last - first + 1)

    def _watched(self) -> bool:
        """Whether a caller replaced this device's write to see each request (the ext4
        phase replay times every write outside the journal): then the batched paths send
        request by request through it. Batched, the paced untar's first data write went
        unseen until 36 s instead of 30.7 s."""
        return "write" in vars(self)

    def write_extents(self, extents, request_blocks: int, block_bytes: int = 4096) -> None:
        """Write each (first block, blocks) extent of the partition, in order, as requests
        of at most request_blocks blocks: what writeback sends. Queued in one go when the
        blocks are whole, aligned pages and the queue does not fill on the way (thousands
        of extents a sync); otherwise request by request, as write does."""
        page = self.page_bytes
        shift, rest = divmod(self._offset, page)
        if block_bytes == page and not rest and self._shadow is None and not self._watched():
            lpns, counts = [], []
            limit = self.size_bytes // block_bytes
            for first, blocks in extents:
                if first < 0 or blocks < 1 or first + blocks > limit:
                    break  # request by request below: write says what is wrong
                first += shift
                while blocks > request_blocks:
                    lpns.append(first)
                    counts.append(request_blocks)
                    first += request_blocks
                    blocks -= request_blocks
                lpns.append(first)
                counts.append(blocks)
            else:
                if len(self._ops) + self._chunked + len(lpns) < _AUTO_SUBMIT_COMMANDS:
                    self._requested = True
                    self._host["write_requests"] += len(lpns)
                    self._host["write_bytes"] += sum(counts) * block_bytes
                    self._ops.extend([OP_WRITE] * len(lpns))
                    self._lpns.extend(lpns)
                    self._counts.extend(counts)
                    return
        for first, blocks in extents:
            while blocks > 0:
                n = min(blocks, request_blocks)
                self.write(first * block_bytes, n * block_bytes)
                first += n
                blocks -= n

    def write_blocks(self, blocks: np.ndarray, block_bytes: int = 4096) -> None:
        """One write request of block_bytes per entry of blocks (block numbers from the
        partition's start), in order: what many small in-place writes send. Queued as
        arrays when blocks are whole, aligned pages; otherwise request by request."""
        blocks = np.asarray(blocks, dtype=np.int64)
        if blocks.size == 0:
            return
        offset = self.partition.offset_bytes
        if (block_bytes != self.page_bytes or offset % self.page_bytes
                or self._shadow is not None or self._watched()):
            for b in blocks.tolist():
                self.write(b * block_bytes, block_bytes)
            return
        self._check("write", int(blocks.min()) * block_bytes, block_bytes)
        self._check("write", int(blocks.max()) * block_bytes, block_bytes)
        self._requested = True
        n = int(blocks.size)
        self._host["write_requests"] += n
        self._host["write_bytes"] += n * block_bytes
        self._seal()
        self._chunks.append((np.full(n, OP_WRITE, dtype=np.int8),
                             blocks + offset // self.page_bytes, np.ones(n, dtype=np.int64)))
        self._chunked += n
        if self._chunked >= _AUTO_SUBMIT_COMMANDS:
            self._finished(self._run())

    def tag_blocks(self, blocks: np.ndarray, tags, block_bytes: int = 4096) -> None:
        """Give the drive pages that hold these blocks (block numbers from the partition's
        start) placement handle tags (one for all, or one a block): what a host that
        places its data says before it writes them. What is queued runs first, under the
        tags it was written with."""
        blocks = np.asarray(blocks, dtype=np.int64)
        tags = np.broadcast_to(np.asarray(tags, dtype=np.int64), blocks.shape)
        if self._ops or self._chunks:
            self._finished(self._run())
        start = blocks * block_bytes + self._offset
        first, last = start // self.page_bytes, (start + block_bytes - 1) // self.page_bytes
        self.drive.tag_pages(first, tags)
        self.drive.tag_pages(last, tags)  # a block that straddles two pages tags both

    def read(self, offset: int, length: int) -> None:
        self._check("read", offset, length)
        start = offset + self.partition.offset_bytes
        first, last = start // self.page_bytes, (start + length - 1) // self.page_bytes
        self._requested = True
        self._host["read_requests"] += 1
        self._host["read_bytes"] += length
        self._queue(OP_READ, first, last - first + 1)

    def trim(self, offset: int, length: int) -> None:
        """TRIM (discard) a byte range; only the whole pages inside it are unmapped."""
        self._check("trim", offset, length)
        start = offset + self.partition.offset_bytes
        first = -(-start // self.page_bytes)
        end_page = (start + length) // self.page_bytes
        self._requested = True
        self._host["trim_requests"] += 1
        self._host["trim_bytes"] += length
        # A range with no whole page in it unmaps nothing; the host still sent (and the
        # timing model still charges) the request.
        if end_page > first:
            self._queue(OP_TRIM, first, end_page - first)
            if self._shadow is not None:
                self._shadow_trim(first, end_page - first)

    def flush(self) -> None:
        """A cache flush (FUA/flush request): no flash work here, counted for timing."""
        self._requested = True
        self._host["flush_requests"] += 1

    def _seal(self) -> None:
        """Turn the requests queued one at a time into a chunk of arrays."""
        if self._ops:
            self._chunks.append((np.array(self._ops, dtype=np.int8),
                                 np.array(self._lpns, dtype=np.int64),
                                 np.array(self._counts, dtype=np.int64)))
            self._chunked += len(self._ops)
            self._ops.clear()
            self._lpns.clear()
            self._counts.clear()

    def _run(self) -> BatchStats:
        host = self._host.values()
        if not self._ops and not self._chunks:  # nothing for the drive: its counters stay
            key = tuple(host)  # such batches repeat (a flush alone): one record each
            stats = _HOST_ONLY.get(key)
            if stats is None:
                if len(_HOST_ONLY) >= 256:
                    _HOST_ONLY.clear()
                stats = _HOST_ONLY[key] = _stats(key)
        else:
            self._seal()
            chunks = self._chunks
            cmds = (Commands(*chunks[0]) if len(chunks) == 1 else
                    Commands(*(np.concatenate(column) for column in zip(*chunks, strict=True))))
            self._chunks = []
            self._chunked = 0
            regs = self.drive.arrays.regs
            before = regs[_COUNTER_REGS]
            # every request was checked against the partition as it was queued (_check,
            # write_extents' bounds), the partition lies inside the drive, and the queue's
            # arrays are C-contiguous int8/int64 (np.array, np.full/ones, sums, concatenate)
            self.drive.run_all(cmds, checked=True)
            stats = _stats((*host, *(regs[_COUNTER_REGS] - before).tolist()))
        self._host = dict.fromkeys(_HOST_COUNTS, 0)
        return stats

    @property
    def pending(self) -> bool:
        """Whether requests are queued (or were run) since the last submit."""
        return self._requested

    def _finished(self, stats: BatchStats) -> None:
        """Add a batch run early to what the next submit returns."""
        self._done = self._done + stats

    def submit(self) -> BatchStats:
        """Run everything queued since the last submit; return what it cost."""
        stats = self._run()
        if self._done is not _NOTHING:
            stats = self._done + stats
            self._done = _NOTHING
        self._requested = False
        return stats
