"""The window's voice keeps a listener's pace (issue 25): garbage collections summarised at
most one sentence every GC_GAP_S, a run's end said at once with its WA, descriptions changed
at most every DESCRIBE_GAP_S; on a clock the test moves. No Qt, no drive."""

from __future__ import annotations

import numpy as np

from ssdlab.app.gui.frame.announcer import DESCRIBE_GAP_S, GC_GAP_S, Announcer
from ssdlab.app.gui.run.snapshot import Snapshot
from ssdlab.app.gui.run.spoken import chart_description, map_description
from ssdlab.model.flash.state import BLOCK_FREE, BLOCK_FULL, BLOCK_OPEN
from ssdlab.model.lab.charts import CHARTS, chart_table

BLOCKS, PPB = 8, 4


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def snap(victims: int = 0, copies: int = 0, running: bool = True, segment: str = "random",
         progress: float = float("nan"), victim: int = -1, valid: int = 0,
         wa: float | None = None) -> Snapshot:
    state = np.array([BLOCK_FREE] * 3 + [BLOCK_OPEN] + [BLOCK_FULL] * 4, dtype=np.int8)
    counts = np.array([0, 0, 0, 1, 4, 4, 2, 1], dtype=np.int32)
    host = 100
    return Snapshot(
        seq=0, blocks=BLOCKS, pages_per_block=PPB, user_pages=24, state=state, valid=counts,
        erases=np.zeros(BLOCKS, np.int32), close_seq=np.zeros(BLOCKS, np.int64),
        marks=np.zeros(BLOCKS, np.int8), codes=np.zeros(BLOCKS, np.uint16), pages=None,
        counters={"gc_victims": victims, "gc_copies": copies, "host_writes": host,
                  "nand_writes": host + copies},
        free_blocks=3, series={} if wa is None else {"wa": np.array([1.0, wa])},
        running=running, segment=segment, progress=progress, engine_pages_per_s=0.0,
        sim_s=0.0, animated=False, gc_victim=victim, gc_valid=valid)


def texts(said) -> list[str]:
    return [a.text for a in said]


def test_garbage_collections_are_summarised_at_most_once_a_gap():
    clock = Clock()
    an = Announcer(clock)
    assert an.follow(snap()) == []  # the drive as it was: nothing happened yet
    assert texts(an.follow(snap(1, 26, victim=40, valid=26))) == [
        "GC 1: block 40 cleaned, 26 valid pages moved."]
    said = []
    for k in range(2, 60):  # 58 GCs in the next GC_GAP_S, a frame each 1/60 s
        clock.now += GC_GAP_S / 60
        said += an.follow(snap(k, 26 * k))
    assert texts(said) == [], "nothing more is said before the gap has passed"
    assert an.pending
    clock.now += GC_GAP_S
    assert texts(an.due()) == ["GC 2 to 59: 58 blocks cleaned, 1,508 valid pages moved."]
    assert not an.pending and an.due() == []


def test_a_run_end_is_said_at_once_after_the_gcs_it_did():
    clock = Clock()
    an = Announcer(clock)
    an.follow(snap())
    an.follow(snap(1, 3, victim=2, valid=3))
    clock.now += 0.1
    end = an.follow(snap(2, 5, running=False, segment="", wa=1.25))
    assert texts(end) == ["GC 2: a block cleaned, 2 valid pages moved.",
                          "Run finished: write amplification since the drive was new "
                          "1.25 (simulated)."]
    clock.now += 0.1
    an.follow(snap(2, 5, running=True))
    paused = an.follow(snap(2, 5, running=False, progress=0.4), theory=1.5)
    assert texts(paused) == ["Paused, random 40 % done: write amplification since the drive "
                             "was new 1.05 (simulated), analytic level 1.50."]


def test_a_new_drive_starts_the_count_again():
    clock = Clock()
    an = Announcer(clock)
    an.follow(snap(30, 300))
    clock.now += GC_GAP_S
    assert texts(an.follow(snap(1, 2, victim=5, valid=2))) == [
        "GC 1: block 5 cleaned, 2 valid pages moved."]


def test_a_description_changes_at_most_once_a_gap_or_when_a_run_starts_or_stops():
    clock = Clock()
    an = Announcer(clock)
    assert an.describe("map", "a")
    clock.now += DESCRIBE_GAP_S / 2
    assert not an.describe("map", "b")
    assert an.describe("charts", "b"), "each description has its own pace"
    assert an.describe("map", "c", changed_now=True)
    assert not an.describe("map", "c", changed_now=True), "the same words are not said again"
    assert not an.may_describe("map")  # the caller need not even put its words together
    clock.now += DESCRIBE_GAP_S
    assert an.may_describe("map") and an.describe("map", "d")


def test_the_map_and_charts_say_what_the_snapshot_holds():
    s = snap(victim=5, valid=2)
    assert map_description(s) == ("8 blocks: 3 free, 1 open, 4 full; 38 % of the flash "
                                   "holds valid data. Garbage collection victim: block 5, "
                                   "2 valid pages.")
    assert chart_description("Free blocks", None) == "Free blocks. No run yet."


def test_each_chart_describes_its_own_data():
    """Issue 38: every chart's description said the WA ("Free blocks: Now write
    amplification ... 7.12"); each now says what it draws, from its own table."""
    series = {"drive_writes": np.array([0.5, 1.0, 1.5]), "wa": np.array([1.0, 2.1, 2.5]),
              "wa_window": np.array([1.0, 3.0, 3.2]), "free": np.array([40.0, 12, 9]),
              "host_rate": np.array([1000.0, 420, 400]), "nand_rate": np.array([1000.0] * 3),
              "gc_rate": np.array([0.0, 580, 600])}

    def said(name: str) -> str:
        table = chart_table(name, series, timed=False, erases=np.array([0, 1, 1, 1, 3]),
                            theory=2.25, victims=np.array([0, 4, 1.0]), steps=[])
        return chart_description(CHARTS[name].title, table)

    assert said("wa") == ("Write amplification (simulated), at 1.50 drive capacities: "
                          "cumulative 2.50, per window 3.20, analytic 2.25 "
                          "(write amplification (NAND/host)).")
    assert said("free") == ("Free blocks (simulated), at 1.50 drive capacities: free blocks "
                            "9 (free blocks).")
    assert said("throughput").endswith("host 400, NAND 1,000 (pages (per 1,000 NAND pages)).")
    assert said("gc").endswith("GC copies 600 (GC copies (per 1,000 NAND pages)).")
    assert said("wear") == ("Erase counts (simulated): 5 blocks over erase count 0 to 3; "
                            "the most, 3, at 1.")
    assert said("victims") == ("Valid pages in GC victims (simulated): 5 victims over valid "
                               "pages in the victim 1 to 2; the most, 4, at 1.")
    assert said("steps") == "File-system steps. No file-system steps yet."
    assert all("write amplification" not in said(n).lower() for n in CHARTS if n != "wa"
               and n in ("free", "throughput", "gc", "wear", "victims", "steps"))
