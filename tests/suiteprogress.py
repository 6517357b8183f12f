"""How far the suite is, said once a minute: tests done of the total, the time so far and
an estimate of what is left, so that a long run on a busy machine never looks stuck.
Loaded by tests/conftest.py; only the process that reports (the xdist controller, or
pytest itself with -n 0) says anything.

The tests are far from alike (a window test costs a hundred model tests), so the share of
work done is weighed by each test's time in the previous run of this checkout, kept in
pytest's cache; a first run, with nothing kept, counts tests. Either way the pace so far is
carried forward, so a busier machine is allowed for; it remains an estimate."""

from __future__ import annotations

import math
import time

import pytest

EVERY_S = 60.0  # one line a minute: often enough to see it move, rarely enough to read
CACHE_KEY = "ssdlab/test-seconds"
MAX_KEPT = 100_000  # more tests than the suite will ever have: a bigger entry is not ours


def minutes_words(seconds: float) -> str:
    """"45 s", "3 min 05 s": the run's own clock, rounded to the second."""
    s = max(0, round(seconds))
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"


def estimate_line(done: int, total: int, elapsed_s: float, share: float | None = None) -> str:
    """The progress line: tests done of the total, time so far, and what is left at the
    pace so far. share is the part of the work done (0..1) when known by weight; otherwise
    the count of tests stands for it. No estimate before the first test ends."""
    line = f"suite: {done} of {total} tests done in {minutes_words(elapsed_s)}"
    if share is None:
        share = done / total if total else 0.0
    if 0 < done < total and share > 0:
        left = elapsed_s * (1 - share) / share
        line += f"; about {minutes_words(left)} left at this pace"
    return line


def kept_seconds(value) -> dict[str, float]:
    """The previous run's seconds per test, from the cache entry as read (any JSON: the
    cache is a file anybody may have changed); anything unexpected keeps nothing."""
    if not isinstance(value, dict) or len(value) > MAX_KEPT:
        return {}
    kept = {}
    for name, seconds in value.items():
        if not isinstance(name, str) or isinstance(seconds, bool) \
                or not isinstance(seconds, int | float) \
                or not math.isfinite(seconds) or seconds < 0:
            return {}
        kept[name] = float(seconds)
    return kept


class SuiteProgress:
    def __init__(self, config: pytest.Config | None, clock=time.monotonic,
                 kept: dict[str, float] | None = None):
        self.config = config
        self.clock = clock
        self.start = clock()
        self.last = self.start
        self.ids: list[str] = []
        self.kept = kept or {}
        self.seconds: dict[str, float] = {}  # this run's, kept for the next run
        self.finished: list[str] = []

    @property
    def total(self) -> int:
        return len(self.ids)

    @property
    def done(self) -> int:
        return len(self.finished)

    def set_ids(self, ids) -> None:
        if len(ids) > len(self.ids):
            self.ids = list(ids)

    def share(self) -> float | None:
        """The part of the work done, weighed by the previous run's times; None when the
        previous run knew fewer than half of today's tests (a count is as good then)."""
        known = [i for i in self.ids if i in self.kept]
        if not self.ids or len(known) * 2 < len(self.ids):
            return None
        typical = sum(self.kept[i] for i in known) / len(known)  # for a test new today
        whole = sum(self.kept.get(i, typical) for i in self.ids)
        done = sum(self.kept.get(i, typical) for i in self.finished)
        return done / whole if whole > 0 else None

    def _write(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("")  # off the line of dots
            reporter.write_line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.set_ids([item.nodeid for item in session.items])  # -n 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration
        if report.when != "teardown":
            return
        self.finished.append(report.nodeid)
        now = self.clock()
        if now - self.last >= EVERY_S and self.total:
            self.last = now
            self._write(estimate_line(self.done, self.total, now - self.start, self.share()))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is not None and self.seconds and self.done == self.total:
            cache.set(CACHE_KEY, {k: round(v, 3) for k, v in self.seconds.items()})


class _XdistTotal:
    """The total as the controller learns it: each worker's collection (all alike)."""

    def __init__(self, progress: SuiteProgress):
        self.progress = progress

    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        self.progress.set_ids(ids)


def register(config: pytest.Config) -> None:
    """Only where results are reported: not inside an xdist worker."""
    if hasattr(config, "workerinput"):
        return
    cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
    kept = kept_seconds(cache.get(CACHE_KEY, None)) if cache is not None else {}
    progress = SuiteProgress(config, kept=kept)
    config.pluginmanager.register(progress, "ssdlab-suite-progress")
    if config.pluginmanager.hasplugin("xdist"):  # its hook exists only with xdist loaded
        config.pluginmanager.register(_XdistTotal(progress), "ssdlab-suite-progress-xdist")
