"""The sentences under the WA chart: what the number on screen is, in plain words first, the
term second and the number third; a simulated number says it is simulated, and the one
analytic figure the window draws (ssdlab/app/session/settings.py theory_wa) is named, with why it
differs from the simulated one. No Qt.

The analytic models (ssdlab/model/flash/theory/) count every spare page as room for GC; the window's
figure is the model at the spare GC can really use (ssdlab/model/flash/heldback.py), which on a
drive of a few hundred blocks is a visible share less.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ssdlab.model.flash.heldback import held_back_blocks
from ssdlab.model.flash.theory.names import model_name
from ssdlab.model.host.profiles import load_profile

from .settings import Settings, analytic_spare, run_modelled, theory_wa

RECENT_DRIVE_WRITES = 1.0  # "recent" WA: over the last drive write, once there is one


@dataclass(frozen=True)
class WaReading:
    """What a run shows of its WA: cumulative (flash / host since the drive was built, NaN
    before any write), recent (over the last drive write, NaN until one has been written
    after the fill), full (the drive holds every logical page)."""

    cumulative: float
    recent: float = math.nan
    full: bool = False


def recent_wa(drive_writes: np.ndarray, cumulative: np.ndarray,
              span: float = RECENT_DRIVE_WRITES) -> float:
    """WA over the last `span` drive writes of a run's series (host writes in drive
    capacities, cumulative WA at each point), NaN until the run has written span more than
    one drive write (the fill is not recent)."""
    if drive_writes.size < 2 or drive_writes[-1] < 1.0 + span:
        return math.nan
    k = int(np.searchsorted(drive_writes, drive_writes[-1] - span, side="right")) - 1
    k = max(k, 0)
    host = drive_writes[-1] - drive_writes[k]
    if host <= 0:
        return math.nan
    return float((cumulative[-1] * drive_writes[-1] - cumulative[k] * drive_writes[k]) / host)


def reading_of(series: dict, full: bool, at: tuple[float, float] | None = None
               ) -> WaReading:
    """A run's WaReading from its recorded series ("drive_writes", "wa"; empty before any
    write); full: the drive holds every logical page. at: (drive writes of host pages,
    cumulative WA) of the moment the map shows when that is not the series' end (a
    breakpoint's GC, a GC stepped through after it): the reading is of that moment, the
    series cut there, so the note says the tally's figure (the rehearsal's note said 1.02
    beside a tally of 1.000)."""
    wa, dw = series.get("wa"), series.get("drive_writes")
    if wa is None or dw is None or not wa.size:
        return WaReading(math.nan if at is None else at[1], full=full)
    dw, wa = np.asarray(dw, float), np.asarray(wa, float)
    if at is not None:
        k = int(np.searchsorted(dw, at[0], side="left"))
        dw, wa = np.append(dw[:k], at[0]), np.append(wa[:k], at[1])
    return WaReading(float(wa[-1]), recent_wa(dw, wa), full)


def stored_share(s: Settings) -> float:
    """Flash bytes programmed per host byte: the chosen data compression, else the
    profile's, else 1 (no compression)."""
    if s.data_compression:
        return s.data_compression
    return load_profile(s.profile).compression_ratio if s.profile else 1.0


def spare_detail(s: Settings) -> str:
    """Why the analytic figure's spare is less than the drive's, for the note's tooltip
    ("" where no figure is drawn or nothing is held back)."""
    if theory_wa(s) is None:
        return ""
    g = s.geometry()
    blocks = held_back_blocks(s.gc_low_blocks)
    return (f"Of the {100 * g.spare_of_physical:.1f} % spare flash, cleaning can use "
            f"{100 * analytic_spare(s):.1f} %: the drive keeps {blocks} of its {g.blocks:,} "
            f"blocks free or half-written (ssdlab/model/flash/heldback.py), and the model is "
            f"computed at that spare.")


def theory_source(s: Settings, log: list[dict]) -> dict:
    """What a figure's file says of its analytic line (the sidecar's "analytic"): the model,
    the workload and spare it assumes, and its WA; {"model": None} and why, where no model
    describes the run (settings.run_modelled): the file then has no analytic line."""
    wa = theory_wa(s) if run_modelled(s, log) else None
    if wa is None:
        return {"model": None, "why": "no analytic model describes this run: the models are "
                "for random or hot/cold rewrites of a page-mapped drive under greedy, FIFO or "
                "d-choices GC, run with the settings shown"}
    hot = s.workload == "hotcold"
    workload = (f"{s.hot_write_pct:g} % of the writes to {s.hot_lba_pct:g} % of the pages, "
                "uniformly at random within each" if hot else
                "uniformly random rewrites of the whole drive")
    return {"model": model_name(s.gc, hot_cold=hot), "gc": s.gc, "workload": workload,
            "spare_pct_of_physical": round(100 * analytic_spare(s), 2),
            "name": analytic_name(s),
            "blocks": "endless (a real drive's finite blocks make it differ)",
            "wa": wa}


def analytic_name(s: Settings) -> str:
    """The analytic line's name, the same words in the window's legend and a file's: the
    model, the workload it assumes and the spare it is computed at (analytic_spare), e.g.
    "Van Houdt's greedy model (2013): random rewrites, 6.5 % spare"; "" where no model
    exists for these settings."""
    name = model_name(s.gc, hot_cold=s.workload == "hotcold")
    if name is None or theory_wa(s) is None:
        return ""
    assumes = ([f"d = {s.d}"] if s.gc == "random-d" else []) + [
        f"{s.hot_write_pct:g} % of writes to {s.hot_lba_pct:g} % of pages"
        if s.workload == "hotcold" else "random rewrites",
        f"{100 * analytic_spare(s):.1f} % spare"]
    # no-break spaces keep "6.5 %" whole where a legend wraps the name
    return f"{name}: {', '.join(assumes)}".replace(" %", "\u00a0%")


def _model_sentence(s: Settings, model: float, simulated: float) -> str:
    """The analytic figure, named, and why the simulation is off it (the spare it is
    computed at is spare_detail's, the note's tooltip: the note must fit under the chart
    in presentation type at 1024 px)."""
    name = model_name(s.gc, hot_cold=s.workload == "hotcold") or "The analytic model"
    text = f"{name}: {model:.2f} (dotted)"
    if not math.isfinite(simulated):
        return text + " for random rewrites of the full drive."
    gap = 100 * (simulated - model) / model
    if abs(gap) < 0.5:
        return text + "; the simulation is within 0.5\u00a0% of it."
    # a no-break space keeps "2 %" on one line
    return (text + f", for endless blocks; this {s.geometry().blocks:,}-block run is "
            f"{abs(gap):.0f}\u00a0% {'above' if gap > 0 else 'below'}.")


def wa_note(s: Settings, reading: WaReading | float, modelled: bool = True) -> str:
    """Two sentences on the WA shown, or "" when there is nothing to explain. reading: the
    run's WA (a bare float is its cumulative WA); modelled: whether the analytic model
    describes the run (settings.run_modelled): a scenario's file-system steps get no word
    on random rewrites and no model's figure."""
    if not isinstance(reading, WaReading):
        reading = WaReading(float(reading))
    measured, notes = reading.cumulative, []
    stored = stored_share(s)
    if stored < 1:
        simulated = f", simulated {wa_figure(measured)}" if math.isfinite(measured) else ""
        notes.append(f"This drive compresses data and programs about {100 * stored:.0f} % "
                     f"of what it is sent (SandForce-style): write amplification (WA) can "
                     f"fall below 1{simulated}.")
    model = theory_wa(s) if modelled else None
    if model is None:
        return " ".join(notes)
    recent = math.nan
    copies = "Rewriting a full drive makes it copy pages still in use"
    if not math.isfinite(measured):
        # no figure before the drive is written: the model's figure for the first screen's
        # drive is the answer lesson 1 asks the student to predict
        notes.append(f"{copies}: write amplification (WA). Run it to see how much, beside "
                     "a published model's figure.")
        return " ".join(notes)
    elif not reading.full:
        notes.append(f"Filling an empty drive copies nothing: write amplification (WA), "
                     f"simulated {wa_figure(measured)}.")
    else:
        recent = reading.recent
        # the tally's and status bar's rounding (wa_figure): one figure, written one way
        simulated = (f"simulated {wa_figure(recent)} in the last drive write, "
                     f"{wa_figure(measured)} with the fill" if math.isfinite(recent) else
                     f"simulated {wa_figure(measured)} so far, held down by the fill")
        notes.append(f"{copies}: write amplification (WA), {simulated}.")
    notes.append(_model_sentence(s, model, recent))
    return " ".join(notes)


def wa_figure(measured: float) -> str:
    """A WA as the window writes it, in the status bar and the tally alike ("-": none)."""
    return f"{measured:.3f}" if math.isfinite(measured) else "-"


def wa_status(s: Settings, measured: float) -> str:
    """The status bar's WA: the number, and a word when compression explains it."""
    if not math.isfinite(measured):
        return "WA -"
    return f"WA {wa_figure(measured)}" + (" (compressed)" if stored_share(s) < 1 else "")
