"""Checking the command line's arguments: one line naming the flag and its allowed range.

Two sources of rules, one way of reporting them:
- arguments only the command line knows (repeats, job counts, lists, file paths) are checked
  while parsing, by the argparse types below ("--repeat must be a whole number from 1 to
  100; got 0");
- arguments that become model parameters are checked by the model's own frozen dataclasses
  (their ranges live there, once), and `flagged` renames the model's field to the flag.
Either way the message reads "--flag must be ...; got ...", one line, and the status is 2.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable, Iterable

# Model field names as the command line spells them, for the model's error messages.
_FLAG_NAMES = {
    "user_pages": "--user-pages",
    "pages_per_block": "--pages-per-block",
    "spare": "--spare",
    "gc_low_blocks": "--gc-low-blocks",
    "d ": "--d ",
    "hot_lbas": "--hot-lbas",
    "hot_lba_fraction": "--hot-lbas",
    "hot_write_fraction": "--hot-writes",
    "hot_writes": "--hot-writes",
    "active_fraction": "--active-fraction",
    "warmup-drive-writes": "--warmup-drive-writes",
    "measure-drive-writes": "--measure-drive-writes",
    "seed": "--seed",
    "stored_fraction": "--data-compression",
    "slc_cache": "--slc-cache",
    "cell_bits": "--cell-bits",
    "slc_blocks": "--slc-blocks",
    "slc_dynamic_share": "--slc-dynamic-share",
    "fold_every_pages": "--slc-idle-every",
    "wear_leveling_gap": "--wear-leveling",
    "handle_gc": "--handle-gc",
    "tag_errors": "--tag-errors",
    "placement '": "--placement '",
    "mapping": "--mapping",
    "gc ": "--gc ",
    "gc_frontier": "--gc-frontier",
    "victim_order": "--victim-order",
    "zone_blocks": "--zone-blocks",
    "open_zones": "--open-zones",
}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        # "argument --repeat: must be ..." reads as the model's messages do: "--repeat must be"
        message = re.sub(r"^argument (-[^:/ ]+)(?:/\S+)?: must ", r"\1 must ", message)
        self.exit(2, f"{self.prog}: error: {message.splitlines()[0]}\n")


def flagged(message: str) -> str:
    """A model error message with its leading field name replaced by the flag."""
    for field, flag in _FLAG_NAMES.items():
        if message.startswith(field):
            return flag + message[len(field):]
    return message


def _bound(value: int | float) -> str:
    """A range bound as people read it: 2^63-1 rather than nineteen digits."""
    if isinstance(value, int) and value >= 2**20:
        for minus in (0, 1):
            if ((value + minus) & (value + minus - 1)) == 0:
                return f"2^{(value + minus).bit_length() - 1}" + ("-1" if minus else "")
    return f"{value:g}" if isinstance(value, float) else str(value)


def whole(lo: int, hi: int) -> Callable[[str], int]:
    """A whole number from lo to hi, both included."""
    rule = f"must be a whole number from {_bound(lo)} to {_bound(hi)}"

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{rule}; got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{rule}; got {value}")
        return value

    parse.__name__ = "whole number"
    return parse


def positive_real(text: str) -> float:
    """A finite number above 0 (inf and nan are refused)."""
    rule = "must be above 0 and finite"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{rule}; got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{rule}; got {value:g}")
    return value


def real_between(lo: float, hi: float) -> Callable[[str], float]:
    """A number from lo to hi, both included (inf and nan are refused)."""
    rule = f"must be a number from {_bound(lo)} to {_bound(hi)}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{rule}; got {text!r}") from None
        if not (math.isfinite(value) and lo <= value <= hi):
            raise argparse.ArgumentTypeError(f"{rule}; got {value:g}")
        return value

    parse.__name__ = "number"
    return parse


def whole_list(lo: int, hi: int) -> Callable[[str], list[int]]:
    """Comma-separated whole numbers from lo to hi; at least one."""
    one = whole(lo, hi)
    rule = f"must be comma-separated whole numbers from {_bound(lo)} to {_bound(hi)}"

    def parse(text: str) -> list[int]:
        parts = [p.strip() for p in text.split(",")]
        if not any(parts):
            raise argparse.ArgumentTypeError(f"{rule}; got {text!r}")
        values = []
        for p in parts:
            if not p:
                raise argparse.ArgumentTypeError(f"{rule}; got an empty item in {text!r}")
            try:
                values.append(one(p))
            except argparse.ArgumentTypeError:
                raise argparse.ArgumentTypeError(f"{rule}; got {p!r}") from None
        return values

    parse.__name__ = "list"
    return parse


def names(choices: Callable[[], Iterable[str]]) -> Callable[[str], list[str]]:
    """Comma-separated names, each among `choices()` (called only when the flag is given),
    at least one and no empty item; repeats are dropped."""

    def parse(text: str) -> list[str]:
        allowed = tuple(choices())
        rule = f"must name one or more of {', '.join(allowed)}, comma separated"
        given = [p.strip() for p in text.split(",")]
        if not any(given) or "" in given:
            raise argparse.ArgumentTypeError(f"{rule}; got {text!r}")
        unknown = [g for g in given if g not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(f"{rule}; got {', '.join(map(repr, unknown))}")
        return list(dict.fromkeys(given))

    parse.__name__ = "names"
    return parse


def existing_file(text: str) -> str:
    """A path to a readable regular file."""
    if not os.path.isfile(text):
        why = "is not a file" if os.path.exists(text) else "does not exist"
        raise argparse.ArgumentTypeError(f"must be an existing file; {text} {why}")
    if not os.access(text, os.R_OK):
        raise argparse.ArgumentTypeError(f"must be a readable file; {text} cannot be read")
    return text
