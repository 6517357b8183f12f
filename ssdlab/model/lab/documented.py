"""A compare row: a documented figure beside the simulated one, and where the documented
figure is written.

Every documented figure carries its citations (Cite): the article (the seed file's
number, ../shared/seeds/NNN_*.txt) and the figure exactly as the article writes it, with
its unit as written; a claim the article makes in words carries a short verbatim quote
instead. derive says how the row's documented value follows from the cited figures when it
is not simply the first one ("mean of the four runs", "40.41 / 0.17", "six minutes =
360 s"). tests/test_lesson_sources.py checks every citation against the article's text.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Cite:
    article: str  # "000": the seed file's number
    figure: str = ""  # as written in the article ("40.41", "334.67", "six")
    unit: str = ""  # as written ("s", "MB/s", "Requests/sec", "%", "megabytes")
    quote: str = ""  # a verbatim phrase, for a claim made in words


@dataclass(frozen=True)
class Row:
    source: str  # seed article(s): "000", "000/001", "000 reader" (a reader's comment)
    experiment: str
    quantity: str
    unit: str
    documented: float
    simulated: float
    basis: str  # "calibrated": this figure set a parameter; "predicted": it did not
    check: str  # the agreement rule, in words
    agrees: bool
    why: str
    cites: tuple[Cite, ...] = ()  # where the documented figure is written
    derive: str = ""  # how documented follows from the cited figures, when not the first

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Row:
        """A row as as_dict wrote it (the experiment cache), its citations rebuilt."""
        return cls(**{**d, "cites": tuple(Cite(**c) for c in d.get("cites", ()))})
