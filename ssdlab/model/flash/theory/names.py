"""Which published model `wa_for` uses, named for a sentence a class reads ("Van Houdt's
greedy model (2013)") by the policy names the window's GC control uses, and in a word where
there is little room ("greedy model"). The equations and their sources are in the modules
beside this one; this only names them."""

from __future__ import annotations

# (policy, hot_cold): (whose, what, year)
_MODELS = {
    ("greedy", False): ("Van Houdt's", "greedy model", 2013),
    ("greedy", True): ("Desnoyers'", "hot/cold greedy model", 2012),
    ("fifo", False): ("Desnoyers'", "FIFO model", 2012),
    ("fifo", True): ("Desnoyers'", "hot/cold FIFO model", 2012),
    ("random-d", False): ("Van Houdt's", "d-choices model", 2013),
}


def model_name(policy: str, hot_cold: bool = False) -> str | None:
    """The model wa_for(policy, ...) evaluates, in plain words with author and year, or None
    where it has none."""
    found = _MODELS.get((policy, hot_cold))
    return None if found is None else f"{found[0]} {found[1]} ({found[2]})"


def short_model_name(name: str) -> str:
    """The model a model_name names, without its author and year ("greedy model"), for a
    label on a chart's line or a projector's legend where the whole name does not fit;
    any other text as it is."""
    for (policy, hot_cold), (_whose, what, _year) in _MODELS.items():
        if name == model_name(policy, hot_cold):
            return what
    return name
