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
from ssdlab.model.flash.state import EV_COPY, EV_ERASE, EV_PROGRAM, EV_TRIM, EV_VICTIM

from .mistakes import message

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
    # GC's moves: (logical page, the block it left, the block it went to), from the log
    copies: tuple[tuple[int, int, int], ...] = ()
    working: tuple[str, ...] = ()  # what happened, in order, a line an operation

    placeholder = "write 3 5; trim 10-12; gc 4"

    def shown_answer(self) -> str:
        return "\n".join((f"the simulated drive: {self.truth.text()}:", *self.working))

    def panels(self) -> list[tuple[str, str]]:
        """Blocks of monospaced text with a heading each: the two drive states."""
        return [("Before", state_text(self.before)), ("After", state_text(self.after))]


@dataclass(frozen=True)
class Verdict:
    correct: bool
    feedback: tuple[str, ...]  # one line per kind of operation the answer got wrong
    mistakes: tuple[str, ...] = ()  # the kinds of mistake recognised (lessons/mistakes.py)
    # when correct, what the student got right, no more (after "Right: "): a figure worked
    # out from a run is not "what the drive did"
    right: str = ""


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
    ppb = PAGES_PER_BLOCK
    copies = tuple((lpn, a // ppb, b // ppb) for kind, a, b, lpn in events.tolist()
                   if kind == EV_COPY)
    return Quiz(seed, before, _state(drive), truth_from_events(events), len(events), copies,
                working_from_events(events))


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


def _pages(values: list[int]) -> str:
    """"3", "3 and 5", "3, 5 and 7"."""
    words = [str(v) for v in sorted(values)]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def working_from_events(events: np.ndarray) -> tuple[str, ...]:
    """The engine's log in words, an operation a line, in the order it happened: the host's
    writes, each TRIM, each GC with the pages it copied and where to."""
    lines: list[str] = []
    written: list[int] = []
    gc: list = []  # [victim, [(lpn, to block)], erased]

    def flush_writes() -> None:
        if written:
            lines.append(f"write {' '.join(map(str, sorted(written)))}: the computer wrote "
                         f"{'page' if len(written) == 1 else 'pages'} {_pages(written)} into "
                         "the open block (a page written again leaves its old place stale, "
                         "x)")
            written.clear()

    for kind, a, b, c in events.tolist():
        if kind == EV_PROGRAM:
            written.append(b)
        elif kind == EV_TRIM:
            flush_writes()
            pages = list(range(a, a + b))
            lines.append(f"trim {a}{f'-{a + b - 1}' if b > 1 else ''}: the computer trimmed "
                         f"{'page' if b == 1 else 'pages'} {_pages(pages)}: stale (x) where "
                         f"{'it was' if b == 1 else 'they were'} and nowhere else")
        elif kind == EV_VICTIM:
            flush_writes()
            gc[:] = [a, [], False]
        elif kind == EV_COPY and gc:
            gc[1].append((c, b // PAGES_PER_BLOCK))
        elif kind == EV_ERASE and gc:
            victim, moved = gc[0], gc[1]
            if moved:
                to = sorted({t for _, t in moved})
                what = (f"copied its valid {'page' if len(moved) == 1 else 'pages'} "
                        f"{_pages([p for p, _ in moved])} into "
                        f"{'block' if len(to) == 1 else 'blocks'} {_pages(to)}, then erased "
                        "it")
            else:
                what = "found no valid page in it to copy and erased it"
            lines.append(f"gc {victim}: garbage collection chose block {victim}, {what} "
                         "(all dots)")
            gc.clear()
    flush_writes()
    return tuple(lines)


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


def _mistaken(quiz: Quiz) -> dict[str, tuple[str, frozenset[int]]]:
    """For each tiny-drive mistake: the operation it mislabels and the numbers that, named
    there wrongly, show it (pages GC copied named as written; pages written again named as
    trimmed; blocks that only received GC's copies named as cleaned)."""
    moved = frozenset(lpn for lpn, _, _ in quiz.copies)
    into = frozenset(to for _, _, to in quiz.copies) - quiz.truth.gc
    return {"copies-as-writes": ("write", moved - quiz.truth.write),
            "overwrite-as-trim": ("trim", quiz.truth.write),
            "gc-destination": ("gc", into)}


def check_answer(quiz: Quiz, text: str, mistakes=()) -> Verdict:
    """Compare the answer with the engine's log, kind by kind. A wrong answer is told how
    many it missed or named wrongly, kind by kind, never which: the student looks again
    (Show answer gives the engine's log). Names that fit one of the mistakes declared
    (ssdlab/lessons/lesson.py Mistake: copies-as-writes, overwrite-as-trim, gc-destination)
    are told that mistake instead, with how many, still never which."""
    answer = parse_answer(text)
    feedback, recognised = [], []
    table = _mistaken(quiz)
    for name in OPERATIONS:
        said, did = getattr(answer, name), getattr(quiz.truth, name)
        missing, extra = len(did - said), said - did
        verb = WHAT[name][2]
        if missing:
            feedback.append(f"{name}: the drive {verb} {_count(missing, name)} more")
        for m in mistakes:
            where, numbers = table.get(m.kind, ("", frozenset()))
            hit = extra & numbers if where == name else frozenset()
            if hit:
                one = len(hit) == 1
                feedback.append(message(m, "operations", count=_count(len(hit), name),
                                        was="was" if one else "were",
                                        it="it" if one else "them",
                                        holds="holds" if one else "hold"))
                recognised.append(m.kind)
                extra = extra - hit
        if extra:
            feedback.append(f"{name}: {_count(len(extra), name)} you named the drive never "
                            f"{verb}")
    return Verdict(not feedback, tuple(feedback), tuple(recognised),
                   "" if feedback else "that is what the drive did")


def state_text(state) -> str:
    """A state as text, one erase block a line: logical page numbers, '.' free, 'x' stale."""
    lines = []
    for b, row in enumerate(state):
        cells = " ".join(f"{v:>2d}" if v >= 0 else (" ." if v == FREE else " x") for v in row)
        lines.append(f"block {b}: {cells}")
    return "\n".join(lines)
