"""The quiz: two states of a tiny drive and the operations between them.

The drive has 8 erase blocks of 8 pages; the engine's rule of at least five spare blocks
for GC leaves the host 24 logical pages. A seed makes everything: the same seed gives every
student the same question. The truth is never worked out here: it is read from the engine's
own event log (host pages programmed, GC victims, TRIM commands), and the student's answer
is checked against that.

An answer names operations separated by ";" or new lines, in any order:
    write 3 5 7      host writes of logical pages 3, 5 and 7 (ranges such as 3-5 allowed)
    trim 10-12       a TRIM of logical pages 10 to 12
    gc 4             garbage collection of erase block 4
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ssdlab.model.flash.drive import Drive, event_capacity_for
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.state import EV_PROGRAM, EV_TRIM, EV_VICTIM

BLOCKS, PAGES_PER_BLOCK, USER_PAGES = 8, 8, 24
OPERATIONS = ("write", "trim", "gc")
FREE, STALE = -1, -2  # cell values in a state: a logical page, or one of these


class QuizAnswerError(ValueError):
    """An answer that cannot be read; the message says the expected form."""


@dataclass(frozen=True)
class Operations:
    """What happened, as sets: pages the host wrote, blocks GC collected, pages trimmed."""

    write: frozenset[int]
    gc: frozenset[int]
    trim: frozenset[int]

    def text(self) -> str:
        parts = []
        for name in OPERATIONS:
            values = sorted(getattr(self, name))
            if values:
                parts.append(f"{name} {' '.join(map(str, values))}")
        return "; ".join(parts) or "nothing"


@dataclass(frozen=True)
class Quiz:
    """before, after: per erase block, per page, the logical page it holds, FREE or STALE."""

    seed: int
    before: tuple[tuple[int, ...], ...]
    after: tuple[tuple[int, ...], ...]
    truth: Operations
    events: int  # rows of the engine's event log between the two states

    placeholder = "write 3 5; trim 10-12; gc 4"

    def panels(self) -> list[tuple[str, str]]:
        """Blocks of monospaced text with a heading each: the two drive states."""
        return [("Before", state_text(self.before)), ("After", state_text(self.after))]


@dataclass(frozen=True)
class Verdict:
    correct: bool
    feedback: tuple[str, ...]  # one line per kind of operation the answer got wrong


def _state(drive: Drive) -> tuple[tuple[int, ...], ...]:
    p2l = drive.arrays.p2l.reshape(BLOCKS, PAGES_PER_BLOCK)
    return tuple(tuple(int(v) if v >= 0 else (FREE if v == -1 else STALE) for v in row)
                 for row in p2l)


def make_quiz(seed: int, operations: int = 3, frontier: str = "shared") -> Quiz:
    """A seeded quiz: fill the drive, overwrite some pages, snapshot, run `operations`
    operations on pages no other operation touches, snapshot again. frontier: "shared"
    (GC copies go into the host's open block, the one write frontier lesson 1 teaches) or
    "separate" (a block of their own, lesson 3)."""
    if not (0 <= seed < 2**31 and 1 <= operations <= 6):
        raise ValueError(f"seed must be from 0 to {2**31 - 1} and operations from 1 to 6; "
                         f"got {seed} and {operations}")
    g = Geometry(USER_PAGES, PAGES_PER_BLOCK, spare=1 - USER_PAGES / (BLOCKS * PAGES_PER_BLOCK))
    config = FtlConfig(gc="greedy", gc_low_blocks=1, gc_frontier=frontier, seed=seed)
    drive = Drive(g, config, event_capacity=8 * event_capacity_for(g, config, 4))
    rng = np.random.default_rng(seed)
    drive.write(0, USER_PAGES)
    for lpn in rng.choice(USER_PAGES, size=int(rng.integers(5, 10)), replace=False):
        drive.write(int(lpn))
    drive.take_events()
    before = _state(drive)
    used: set[int] = set()
    kinds = list(rng.permutation(OPERATIONS))  # each kind once first, then any
    for i in range(operations):
        kind = kinds[i] if i < len(kinds) else OPERATIONS[int(rng.integers(0, 3))]
        if kind == "gc" and drive.collect_one() >= 0:
            continue
        free = [p for p in range(USER_PAGES) if p not in used]
        if kind == "trim":
            mapped = [p for p in free if drive.arrays.l2p[p] >= 0]
            first = int(rng.choice(mapped))
            n = 1
            while n < 3 and first + n in mapped and rng.random() < 0.6:
                n += 1
            drive.trim(first, n)
            used.update(range(first, first + n))
        else:  # a write, or a GC that found nothing to collect
            pages = rng.choice(free, size=int(rng.integers(1, 4)), replace=False)
            for p in sorted(int(x) for x in pages):
                drive.write(p)
            used.update(int(x) for x in pages)
    events = drive.take_events()
    drive.check_invariants()
    return Quiz(seed, before, _state(drive), truth_from_events(events), len(events))


def truth_from_events(events: np.ndarray) -> Operations:
    """The operations the engine's event log records (rows of kind, a, b, c)."""
    write, gc, trim = set(), set(), set()
    for kind, a, b, _ in events.tolist():
        if kind == EV_PROGRAM:
            write.add(b)
        elif kind == EV_VICTIM:
            gc.add(a)
        elif kind == EV_TRIM:
            trim.update(range(a, a + b))
    return Operations(frozenset(write), frozenset(gc), frozenset(trim))


def parse_answer(text: str) -> Operations:
    """A student's answer as Operations; QuizAnswerError names the part it cannot read."""
    found: dict[str, set[int]] = {name: set() for name in OPERATIONS}
    for part in re.split(r"[;\n]", text):
        words = part.replace(",", " ").split()
        if not words:
            continue
        name = words[0].lower()
        if name not in found:
            raise QuizAnswerError(f"each operation starts with one of {', '.join(OPERATIONS)}"
                                  f"; got {part.strip()!r}")
        if len(words) == 1:
            raise QuizAnswerError(f"{name} needs numbers, such as '{name} 3' or '{name} 3-5'")
        high = BLOCKS - 1 if name == "gc" else USER_PAGES - 1
        for word in words[1:]:
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", word)
            if not m:
                raise QuizAnswerError(f"{name}: numbers or ranges like 3-5; got {word!r}")
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            if not (0 <= lo <= hi <= high):
                what = "erase blocks" if name == "gc" else "logical pages"
                raise QuizAnswerError(f"{name}: {what} are 0 to {high}; got {word!r}")
            found[name].update(range(lo, hi + 1))
    return Operations(**{n: frozenset(found[n]) for n in OPERATIONS})


WHAT = {"write": ("page", "pages", "wrote"), "trim": ("page", "pages", "trimmed"),
        "gc": ("block", "blocks", "cleaned")}


def _count(n: int, name: str) -> str:
    one, many, _ = WHAT[name]
    return f"{n} {one if n == 1 else many}"


def check_answer(quiz: Quiz, text: str) -> Verdict:
    """Compare the answer with the engine's log, kind by kind. A wrong answer is told how
    many it missed or named wrongly, kind by kind, never which: the student looks again
    (Show answer gives the engine's log)."""
    answer = parse_answer(text)
    feedback = []
    for name in OPERATIONS:
        said, did = getattr(answer, name), getattr(quiz.truth, name)
        missing, extra = len(did - said), len(said - did)
        verb = WHAT[name][2]
        if missing:
            feedback.append(f"{name}: the drive {verb} {_count(missing, name)} more")
        if extra:
            feedback.append(f"{name}: {_count(extra, name)} you named the drive never {verb}")
    return Verdict(not feedback, tuple(feedback))


def state_text(state) -> str:
    """A state as text, one erase block a line: logical page numbers, '.' free, 'x' stale."""
    lines = []
    for b, row in enumerate(state):
        cells = " ".join(f"{v:>2d}" if v >= 0 else (" ." if v == FREE else " x") for v in row)
        lines.append(f"block {b}: {cells}")
    return "\n".join(lines)
