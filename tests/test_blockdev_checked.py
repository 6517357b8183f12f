"""The block device runs its batches with Drive.run(checked=True), which neither checks nor
converts the commands: so every batch it sends must pass Commands.check and be C-contiguous
int8/int64 arrays, whatever mix of requests (and partition start, and strided block arrays)
made it. And the records it makes for batches are the BatchStats the dataclass makes."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import Geometry
from ssdlab.model.flash.state import FtlConfig
from ssdlab.model.host import blockdev
from ssdlab.model.host.blockdev import BatchStats, BlockDevice
from ssdlab.model.host.partition import Partition

PAGE = 4096
REQUEST = st.one_of(
    st.tuples(st.just("write"), st.integers(0, 250 * PAGE), st.integers(1, 3 * PAGE)),
    st.tuples(st.just("trim"), st.integers(0, 250 * PAGE), st.integers(1, 3 * PAGE)),
    st.tuples(st.just("read"), st.integers(0, 250 * PAGE), st.integers(1, 3 * PAGE)),
    st.tuples(st.just("blocks"), st.lists(st.integers(0, 240), max_size=30), st.booleans()),
    st.tuples(st.just("extents"), st.lists(st.tuples(st.integers(0, 240), st.integers(1, 9)),
                                           max_size=5), st.integers(1, 4)),
    st.tuples(st.just("flush"), st.just(0), st.just(0)),
    st.tuples(st.just("submit"), st.just(0), st.just(0)),
)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([0, 1, 8, 63]), st.lists(REQUEST, max_size=25))
def test_every_batch_passes_the_check_it_skips(start_sector, requests):
    drive = Drive(Geometry(user_pages=256, pages_per_block=16, spare=0.4), FtlConfig())
    dev = BlockDevice(drive, Partition(start_sector=start_sector))
    sent: list[Commands] = []
    run = drive.run

    def seen(commands, start=0, checked=False):
        sent.append(commands)
        return run(commands, start, checked)

    drive.run = seen
    for kind, a, b in requests:
        if kind == "blocks":
            blocks = np.array([x for x in a for _ in range(2)], dtype=np.int64)[::2] if b \
                else np.array(a, dtype=np.int64)  # a strided view, or a plain array
            blocks = blocks[blocks * PAGE + PAGE <= dev.size_bytes]
            dev.write_blocks(blocks)
        elif kind == "extents":
            limit = dev.size_bytes // PAGE
            dev.write_extents([[s, n] for s, n in a if s + n <= limit], b)
        elif kind == "flush":
            dev.flush()
        elif kind == "submit":
            dev.submit()
        elif a + b <= dev.size_bytes:
            getattr(dev, kind)(a, b)
    dev.submit()
    for commands in sent:
        commands.check(drive.geometry.user_pages)
        for column, dtype in ((commands.ops, np.int8), (commands.lpns, np.int64),
                              (commands.counts, np.int64)):
            assert column.dtype == dtype and column.flags.c_contiguous


def test_batch_records_are_the_dataclass_s_own():
    values = tuple(range(3, 18))
    made = blockdev._stats(values)
    assert made == BatchStats(*values) and hash(made) == hash(BatchStats(*values))
    assert repr(made) == repr(BatchStats(*values))
    assert blockdev._stats(values[:8]) == BatchStats(*values[:8])  # the drive's figures 0
    assert BatchStats(*values) + BatchStats(*values) == BatchStats(*(2 * v for v in values))
