"""The lockstep gate of compare mode (ssdlab/model/lab/lockstep.py), without Qt: the member behind
may always run, one ahead waits until woken, batches are the smallest any member asked for, and
two threads driven through it never drift apart by more than one batch."""

import threading

from hypothesis import given
from hypothesis import strategies as st

from ssdlab.model.lab.lockstep import END, Lockstep


class Member:
    def __init__(self, gate):
        self.woken = threading.Event()
        self.gate = gate
        gate.join(self)

    def go(self, position, wants=True):
        return self.gate.go(self, position, wants, self.woken.set)


def test_a_member_that_has_not_reported_holds_the_other_back():
    gate = Lockstep()
    a, b = Member(gate), Member(gate)
    assert not a.go((1, 0.0))
    assert b.go((0, END), wants=False)  # b has not started segment 1 yet: a waits
    assert not a.woken.is_set()
    assert b.go((1, 0.0), wants=False)  # level now: a may go, and was woken
    assert a.woken.is_set()
    assert a.go((1, 0.0))


def test_the_one_ahead_waits_and_is_woken_when_the_other_catches_up():
    gate = Lockstep()
    a, b = Member(gate), Member(gate)
    b.go((1, 0.0), wants=False)
    assert a.go((1, 0.0))  # level: both may run
    assert not a.go((1, 100.0))  # ahead
    assert not a.woken.is_set()
    assert b.go((1, 50.0))  # still behind: b runs, a keeps waiting
    assert not a.woken.is_set()
    assert b.go((1, 100.0))
    assert a.woken.is_set()


def test_leaving_frees_the_other():
    gate = Lockstep()
    a, b = Member(gate), Member(gate)
    assert not a.go((2, 0.0))
    gate.leave(b)
    assert a.woken.is_set() and a.go((2, 0.0))
    gate.leave(a)
    assert gate.positions() == []


@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=6),
       st.lists(st.integers(1, 10_000), min_size=1, max_size=6))
def test_batches_are_the_smallest_asked_for(wishes_a, wishes_b):
    gate = Lockstep()
    a, b = Member(gate), Member(gate)
    last = {}
    for wa, wb in zip(wishes_a, wishes_b, strict=False):
        last["a"] = wa
        assert gate.batch(a, wa) == min(last.values())
        last["b"] = wb
        assert gate.batch(b, wb) == min(last.values())
    assert gate.largest_batch <= max(wishes_a + wishes_b)


def test_two_threads_never_drift_more_than_one_batch():
    gate = Lockstep()
    total = 200_000
    done = {"a": 0, "b": 0}
    drift = []
    lock = threading.Lock()

    members = {"a": Member(gate), "b": Member(gate)}

    def run(name, wish):
        me = members[name]
        while done[name] < total:
            if not me.go((1, float(done[name]))):
                me.woken.wait()
                me.woken.clear()
                continue
            n = gate.batch(me, wish)
            with lock:
                done[name] = min(total, done[name] + n)
                drift.append(abs(done["a"] - done["b"]))
        me.go((1, END), wants=False)

    threads = [threading.Thread(target=run, args=("a", 97)),
               threading.Thread(target=run, args=("b", 1000))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert done == {"a": total, "b": total}
    assert max(drift) <= gate.largest_batch <= 1000
