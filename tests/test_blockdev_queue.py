"""The block device's queue: requests one at a time and arrays of block writes reach the
drive in the order they came, in one batch a submit, and the batch's figures are the
drive's counters as they moved (the host stack's speed work keeps a queue of array chunks
and reads the counters in one go)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import Geometry
from ssdlab.model.flash.state import FtlConfig
from ssdlab.model.host import blockdev
from ssdlab.model.host.blockdev import BatchStats, BlockDevice
from ssdlab.model.host.partition import Partition

REQUEST = st.one_of(
    st.tuples(st.just("write"), st.integers(0, 200), st.integers(1, 3)),
    st.tuples(st.just("trim"), st.integers(0, 200), st.integers(1, 3)),
    st.tuples(st.just("read"), st.integers(0, 200), st.integers(1, 3)),
    st.tuples(st.just("blocks"), st.lists(st.integers(0, 255), min_size=0, max_size=40),
              st.just(0)),
    st.tuples(st.just("submit"), st.just(0), st.just(0)),
)


def test_batch_stats_fields_are_the_host_counts_then_the_drive_counters():
    names = tuple(f.name for f in blockdev.fields(BatchStats))
    assert names == (*blockdev._HOST_COUNTS, *blockdev._DRIVE_COUNTERS)
    a, b = BatchStats(*range(15)), BatchStats(*range(100, 115))
    assert a + b == BatchStats(*(x + y for x, y in zip(range(15), range(100, 115), strict=True)))


def _device(track: bool) -> BlockDevice:
    drive = Drive(Geometry(user_pages=256, pages_per_block=16, spare=0.4),
                  FtlConfig(track_versions=track))
    return BlockDevice(drive, Partition(start_sector=0), track_versions=track)


def _send(dev: BlockDevice, op: str, at, n: int) -> None:
    if op == "blocks":
        dev.write_blocks(np.array(at, dtype=np.int64))
    else:
        getattr(dev, op)(at * 4096, min(n, 256 - at) * 4096)


@settings(max_examples=40, deadline=None)
@given(requests=st.lists(REQUEST, max_size=30))
def test_chunked_and_one_at_a_time_requests_give_the_same_batches(requests):
    fast, slow = _device(False), _device(True)  # track_versions: write_blocks one at a time
    for op, at, n in requests:
        if op == "submit":
            assert fast.submit() == slow.submit()
        else:
            _send(fast, op, at, n)
            _send(slow, op, at, n)
    assert fast.submit() == slow.submit()
    assert fast.drive.counters() == slow.drive.counters()
    assert fast.drive.arrays.l2p.tolist() == slow.drive.arrays.l2p.tolist()


def test_a_submit_with_only_a_flush_leaves_the_drive_counters_alone():
    dev = _device(False)
    dev.write(0, 8192)
    dev.submit()
    dev.flush()
    assert dev.submit() == BatchStats(flush_requests=1)


EXTENT = st.tuples(st.integers(0, 250), st.integers(1, 40))


@settings(max_examples=60, deadline=None)
@given(calls=st.lists(st.lists(EXTENT, max_size=12), min_size=1, max_size=8),
       per_request=st.sampled_from([1, 3, 8]), sector=st.sampled_from([0, 63]),
       auto=st.sampled_from([7, 40, blockdev._AUTO_SUBMIT_COMMANDS]))
def test_write_extents_is_a_loop_of_writes(calls, per_request, sector, auto):
    """The same requests, the same read-modify-writes, the same batches (the queue's
    automatic submits included) as write called request by request."""
    saved = blockdev._AUTO_SUBMIT_COMMANDS
    blockdev._AUTO_SUBMIT_COMMANDS = auto
    try:
        devs = [BlockDevice(Drive(Geometry(user_pages=256, pages_per_block=16, spare=0.4),
                                  FtlConfig()), Partition(start_sector=sector))
                for _ in range(2)]
        room = devs[0].size_bytes // 4096
        for extents in calls:
            extents = [(s, min(n, room - s)) for s, n in extents if s < room]
            devs[0].write_extents(extents, per_request)
            for first, blocks in extents:
                for at in range(first, first + blocks, per_request):
                    devs[1].write(at * 4096, min(per_request, first + blocks - at) * 4096)
            assert devs[0]._done == devs[1]._done
            assert devs[0]._ops == devs[1]._ops and devs[0]._lpns == devs[1]._lpns
            assert devs[0]._counts == devs[1]._counts
            assert devs[0]._chunks == devs[1]._chunks == []
        assert devs[0].submit() == devs[1].submit()
    finally:
        blockdev._AUTO_SUBMIT_COMMANDS = saved


def test_an_extent_past_the_partition_is_refused_as_write_refuses_it():
    dev = _device(False)
    with pytest.raises(ValueError, match="must lie inside the partition"):
        dev.write_extents([(0, 2), (250, 10)], 4)
