"""The processes `ssdlab prepare` compiles in: the longest chains start first, and a worker
that fails or dies names the function and the compiler's last word instead of hanging."""

import pytest

from ssdlab.model.flash import warm


def test_the_longest_chain_starts_first_and_callees_come_before_callers():
    order = sorted((e.name for e in warm.ENTRY_POINTS), key=warm._chain_s, reverse=True)
    assert order[0] == "collect_block"  # under collect, foreground_gc and both host loops
    for entry in warm.ENTRY_POINTS:
        for callee in entry.calls:
            assert order.index(callee) < order.index(entry.name)
            assert warm._chain_s(callee) > warm._chain_s(entry.name)


def test_a_failed_compile_names_the_function_and_the_error():
    worker = warm._Worker()
    try:
        worker.give("no_such_function")
        with pytest.raises(RuntimeError,
                           match=r"compiling the simulator \(no_such_function\) failed: "
                                 r"'no_such_function'"):
            worker.answer()
    finally:
        worker.close()


def test_a_worker_that_dies_is_reported_not_waited_for():
    worker = warm._Worker()
    try:
        worker.proc.kill()
        worker.name = "collect"
        with pytest.raises(RuntimeError, match=r"\(collect\) failed: exit -9"):
            worker.answer()
    finally:
        worker.close()
