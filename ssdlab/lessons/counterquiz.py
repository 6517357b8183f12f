"""The counter quiz: write amplification from two readings of a drive's counters.

Some drives count, among their SMART attributes, what the host has written and what was
programmed into flash, each since the drive was made and in coarse whole units. WA over a
stretch of use is the growth of the flash counter divided by the growth of the host
counter. A seed picks a simulated drive (spare and traffic), fills it, ages it, reads both
counters, writes some more and reads them again; the readings are the engine's own page
counters in whole MiB, rounded down as a real counter is. The answer is checked against the
engine's exact page counts between the readings, never worked out here from a formula.

The mistakes it recognises are those its step declares (ssdlab/lessons/mistakes.py; by
default both of these): dividing the lifetime totals (the first fill, written once, pulls
that ratio down) and dividing host by flash (the inverse). Show answer gives the working:
each counter's growth between the readings, then the division.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ssdlab.model.flash.drive import Drive, window_wa
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.workloads import Workload, sequential_fill

from .lesson import Mistake
from .mistakes import DEFAULTS, Spotted, first_fit, message
from .quiz import QuizAnswerError, Verdict
from .runquiz import number
from .runquiz import parse_number as parse_any_number

PAGE_BYTES = 4096
MIB = 2**20
USER_PAGES, PAGES_PER_BLOCK = 16384, 64  # a 64 MiB drive: a fraction of a second to run
SPARES = (0.07, 0.12, 0.2, 0.28)
TRAFFIC = (("random", "random 4 KiB rewrites"),
           ("hotcold", "4 KiB rewrites, 80 % of them to a fifth of the data"))
TOLERANCE = 0.03  # the readings are rounded to whole MiB: a right answer lands within 1 %


@dataclass(frozen=True)
class Reading:
    """Both counters at one moment, in whole MiB since the drive was made."""

    host_mib: int
    nand_mib: int


@dataclass(frozen=True)
class CounterTruth:
    """The engine's exact page counts between the two readings."""

    host_pages: int
    nand_pages: int
    wa: float

    def text(self) -> str:
        return (f"between the readings the host wrote {self.host_pages} pages and the flash "
                f"was programmed {self.nand_pages} times: WA = {self.nand_pages} / "
                f"{self.host_pages} = {self.wa:.2f}")


@dataclass(frozen=True)
class CounterQuiz:
    seed: int
    spare: float  # of physical capacity
    traffic: str  # in words
    first: Reading
    second: Reading
    truth: CounterTruth
    lifetime_ratio: float  # second.nand / second.host: the mistake of dividing the totals

    placeholder = "a number, such as 2.5"

    def working(self) -> tuple[str, ...]:
        """The working with the readings shown, then the engine's exact page counts."""
        a, b = self.first, self.second
        host, nand = b.host_mib - a.host_mib, b.nand_mib - a.nand_mib
        return (f"host writes grew {b.host_mib} − {a.host_mib} = {host} MiB",
                f"flash writes grew {b.nand_mib} − {a.nand_mib} = {nand} MiB",
                f"WA = flash growth ÷ host growth = {nand} ÷ {host} = {number(nand / host)}",
                f"(whole MiB round a little; the engine's exact page counts between the "
                f"readings: WA = {self.truth.nand_pages} / {self.truth.host_pages} = "
                f"{self.truth.wa:.2f})")

    def shown_answer(self) -> str:
        return "\n".join((f"WA {self.truth.wa:.2f} (simulated):", *self.working()))

    def panels(self) -> list[tuple[str, str]]:
        """Blocks of monospaced text with a heading each, as a SMART report lays them out."""
        def table(r: Reading) -> str:
            return (f"{'counter':<26}{'raw value':>10}\n"
                    f"{'Host writes (MiB)':<26}{r.host_mib:>10}\n"
                    f"{'Flash (NAND) writes (MiB)':<26}{r.nand_mib:>10}")
        drive = (f"A simulated 64 MiB drive, {100 * self.spare:.0f} % spare, "
                 f"{self.traffic}.\n")
        return [("First reading", drive + table(self.first)),
                ("Second reading", table(self.second))]


def make_counter_quiz(seed: int) -> CounterQuiz:
    """The seeded question (cached: the window asks for it several times)."""
    if not (isinstance(seed, int) and 0 <= seed < 2**31):
        raise ValueError(f"seed must be a whole number from 0 to {2**31 - 1}; got {seed!r}")
    return _make(seed)


@cache
def _make(seed: int) -> CounterQuiz:
    rng = np.random.default_rng(seed)
    spare = float(SPARES[int(rng.integers(len(SPARES)))])
    kind, words = TRAFFIC[int(rng.integers(len(TRAFFIC)))]
    drive = Drive(Geometry(USER_PAGES, PAGES_PER_BLOCK, spare=spare), FtlConfig(seed=seed))
    drive.run(sequential_fill(USER_PAGES))
    workload = Workload(kind)

    def write(drive_writes: float) -> None:
        pages = int(drive_writes * USER_PAGES)
        for lpns in workload.page_chunks(USER_PAGES, pages, rng):
            drive.write_pages(lpns)

    write(float(rng.uniform(1.0, 3.0)))  # the drive's life before the first reading
    before = drive.counters()
    write(float(rng.uniform(2.0, 4.0)))
    after = drive.counters()

    def reading(c: dict) -> Reading:
        return Reading(c["host_writes"] * PAGE_BYTES // MIB, c["nand_writes"] * PAGE_BYTES // MIB)

    host = after["host_writes"] - before["host_writes"]
    nand = after["nand_writes"] - before["nand_writes"]
    second = reading(after)
    return CounterQuiz(seed, spare, words, reading(before), second,
                       CounterTruth(host, nand, window_wa(before, after)),
                       second.nand_mib / second.host_mib)


def parse_number(text: str) -> float:
    """The student's WA (the forms runquiz.parse_number reads); QuizAnswerError says the
    expected range."""
    try:
        value = parse_any_number(text)
    except QuizAnswerError:
        raise QuizAnswerError(f"the answer is one number, a write amplification such as 2.5; "
                              f"got {text.strip()!r}") from None
    if not 0 < value < 1000:
        raise QuizAnswerError(f"a write amplification is a number above 0 (below 1000); got "
                              f"{text.strip()!r}")
    return value


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * b


COUNTER_DEFAULTS = tuple(Mistake(k) for k in DEFAULTS["counter"])


def spotted(quiz: CounterQuiz, mistakes: tuple[Mistake, ...]) -> tuple[Spotted, ...]:
    """The declared mistakes with the answers they give for these readings."""
    a, b = quiz.first, quiz.second
    values = {"counted-fill": (b.nand_mib / b.host_mib, a.nand_mib / a.host_mib),
              "inverted": (1 / quiz.truth.wa,), "below-one": ()}
    return tuple(Spotted(m.kind, message(m, "counter"), values[m.kind],
                         1.0 if m.kind == "below-one" else None) for m in mistakes)


def check_counter_answer(quiz: CounterQuiz, text: str,
                         mistakes: tuple[Mistake, ...] = COUNTER_DEFAULTS) -> Verdict:
    """Right within 3 % of the engine's exact WA between the readings; a wrong answer that
    fits a declared mistake hears it named, another a hint at the method, never the
    number."""
    value = parse_number(text)
    if _close(value, quiz.truth.wa):
        return Verdict(True, (), right="that is the drive's write amplification between "
                       "the two readings")
    found = first_fit(spotted(quiz, mistakes), value, TOLERANCE)
    if found is not None:
        return Verdict(False, (found.says,), (found.kind,))
    return Verdict(False, ("subtract the first reading from the second for each counter, "
                           "then divide the flash growth by the host growth",))
