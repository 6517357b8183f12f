"""The cause of the hang of test_reopening_a_session_replays_it_past_the_breakpoints (issue 20):
the window took the worker's newest snapshot and cleared it in two steps without the lock,
so a snapshot published in between was lost. When it was the last of a run (the worker then
waits idle), the window showed a running drive for ever and the test waited 300 s."""

from __future__ import annotations

import threading

from ssdlab.model.flash.geometry import FtlConfig, Geometry


def test_a_snapshot_published_while_the_window_takes_one_is_never_lost(qapp):
    from ssdlab.app.gui.run.worker import Worker

    class Racing(Worker):
        """At the window's first read of the newest snapshot, the worker publishes again."""

        race = False

        @property
        def _latest(self):
            snap = self.__dict__.get("_held")
            if self.race:
                self.race = False
                publisher = threading.Thread(target=self._publish, kwargs={"force": True})
                publisher.start()
                publisher.join(0.5)  # done, unless the window holds the lock (then it waits)
                self.publisher = publisher
            return snap

        @_latest.setter
        def _latest(self, snap) -> None:
            self.__dict__["_held"] = snap

    w = Racing()
    w._reset_state(Geometry(user_pages=4096, pages_per_block=32, spare=0.1), FtlConfig(),
                   None)
    w._publish(force=True)
    first_seq = w._seq
    w.race = True
    first = w.take_snapshot()
    w.publisher.join()
    second = w.take_snapshot()  # the snapshot published meanwhile is still there
    assert first is not None and second is not None and second.seq == first_seq + 1
