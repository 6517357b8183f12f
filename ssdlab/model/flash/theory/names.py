"""Which published model `wa_for` uses, named for a sentence a class reads ("Van Houdt's
greedy model (2013)") by the policy names the window's GC control uses. The equations and
their sources are in the modules beside this one; this only names them."""

from __future__ import annotations


def model_name(policy: str, hot_cold: bool = False) -> str | None:
    """The model wa_for(policy, ...) evaluates, in plain words with author and year, or None
    where it has none."""
    if policy == "greedy":
        return ("Desnoyers' hot/cold greedy model (2012)" if hot_cold
                else "Van Houdt's greedy model (2013)")
    if policy == "fifo":
        return ("Desnoyers' hot/cold FIFO model (2012)" if hot_cold
                else "Desnoyers' FIFO model (2012)")
    if policy == "random-d" and not hot_cold:
        return "Van Houdt's d-choices model (2013)"
    return None
