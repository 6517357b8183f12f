"""The note under the WA chart: plain words first, the term second, the number third; the
simulated number labelled simulated, and one analytic figure, named, with why the simulation
is off it. The figure is the model at the spare GC really has (model code computes it)."""

import math

import numpy as np

from ssdlab.app.session.settings import Settings, analytic_spare, theory_wa
from ssdlab.app.session.wanotes import (
    WaReading,
    reading_of,
    recent_wa,
    spare_detail,
    wa_figure,
    wa_note,
    wa_status,
)
from ssdlab.model.flash.heldback import held_back_blocks, usable_spare
from ssdlab.model.flash.theory import wa_for


def test_a_compressing_drive_says_so_beside_the_number():
    s = Settings(profile="ocz_vertex_le_100")
    assert wa_status(s, 0.3) == "WA 0.300 (compressed)"
    note = wa_note(s, 0.3)
    assert "compresses" in note and "write amplification (WA)" in note
    assert note.index("compresses") < note.index("(WA)") < note.index("simulated 0.300")
    plain = Settings(workload="fill")
    assert wa_status(plain, 1.0) == "WA 1.000"
    assert wa_note(plain, 1.0) == ""  # no model for a fill, nothing compressed: no note
    assert wa_status(plain, float("nan")) == "WA -"


def test_the_default_drive_shows_one_analytic_figure_the_model_at_the_usable_spare():
    s = Settings()  # 64 MiB, 276 blocks, greedy, fill then random
    assert s.workload == "steady"
    g = s.geometry()
    usable = usable_spare(g.spare_of_physical, 2, 64, g.physical_pages)
    assert held_back_blocks(2) == 3 and math.isclose(analytic_spare(s), usable)
    model = theory_wa(s)
    assert math.isclose(model, wa_for("greedy", usable, 64))
    assert 7.0 < model < 7.6  # the 64 MiB drive's own spare would give 6.40: not shown
    note = wa_note(s, WaReading(5.1, 7.25, full=True))
    assert f"{model:.2f}" in note and "6.40" not in note
    assert f"Van Houdt's greedy model (2013): {model:.2f} (dotted)" in note
    assert "simulated 7.250 in the last drive write" in note and "5.100 with the fill" in note
    assert "3 of its 276 blocks free" in spare_detail(s) and "7.2 % spare" in spare_detail(s)
    assert "for endless blocks; this 276-block run is 2\u00a0% below" in note  # why
    # plain words, then the term, then the number
    assert note.index("copy pages still in use") < note.index("(WA)") < note.index("7.25")
    assert len(note) < 250  # three lines at 1024 px, four in presentation type
    for jargon in ("Analytic", "GC room", "free reserve", "model 7"):
        assert jargon not in note


def test_the_note_follows_the_run_from_empty_to_full():
    s = Settings()
    before = wa_note(s, WaReading(math.nan))
    assert "Rewriting a full drive" in before and "simulated" not in before
    # no model figure before a write: on the first screen's drive it is lesson 1's answer
    assert "Run it to see how much" in before and not any(c.isdigit() for c in before)
    filling = wa_note(s, WaReading(1.0, full=False))
    assert "Filling an empty drive" in filling and "simulated 1.000" in filling
    early = wa_note(s, WaReading(2.0, full=True))
    assert "held down by the fill" in early and "% below it" not in early


def test_recent_wa_is_the_last_drive_write_alone():
    dw = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    nand = np.array([0.5, 1.0, 4.0, 7.0, 10.0, 13.0])  # WA 1 filling, then 6
    assert math.isclose(recent_wa(dw, nand / dw), 6.0)
    assert math.isnan(recent_wa(dw[:3], (nand / dw)[:3]))  # not a drive write past the fill
    r = reading_of({"drive_writes": dw, "wa": nand / dw}, full=True)
    assert math.isclose(r.cumulative, 13 / 3) and math.isclose(r.recent, 6.0)
    assert math.isnan(reading_of({}, full=False).cumulative)


def test_the_reading_of_a_moment_before_the_series_end_is_that_moment_s():
    """A breakpoint's GC is shown as it found the drive, before the batch's end the series
    has: the note reads that moment, cut there, as the tally does."""
    dw = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    nand = np.array([0.5, 1.0, 4.0, 7.0, 10.0, 13.0])
    r = reading_of({"drive_writes": dw, "wa": nand / dw}, True, at=(2.5, 9.9 / 2.5))
    assert math.isclose(r.cumulative, 9.9 / 2.5)  # the moment's, not the end's 13 / 3
    assert math.isclose(r.recent, (9.9 - 4.0) / 1.0)  # the drive write before the moment
    s = Settings()
    note = wa_note(s, r)
    assert f"{wa_figure(r.cumulative)} with the fill" in note  # as the tally writes it


def test_a_large_drive_names_no_held_back_blocks_and_a_workload_without_a_model_no_note():
    big = Settings(workload="random", capacity_mib=65536.0, pages_per_block=256)
    note = wa_note(big, WaReading(4.0, 4.0, full=True))
    assert "(dotted)" in note and "4.00" in note
    assert wa_note(Settings(workload="sequential"), 1.0) == ""
    assert spare_detail(Settings(workload="sequential")) == ""
