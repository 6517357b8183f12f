"""An analytic WA is shown and written only beside a run its model describes (issue 37):
random or hot/cold rewrites of a page-mapped drive, run with the settings shown; never
beside a scenario's file-system steps, a fill, TRIMs, or a run made before the settings
changed. ssdlab/app/session/settings.py run_modelled, wanotes.theory_source."""

from __future__ import annotations

from dataclasses import replace

from ssdlab.app.session.settings import Settings, run_modelled, run_theory_wa, theory_wa
from ssdlab.app.session.streams import Segment
from ssdlab.app.session.wanotes import theory_source, wa_note

S = Settings()


def seg(kind: str, **kw) -> dict:
    return Segment(kind, 1000, **kw).as_dict()


def test_only_runs_the_model_describes_get_its_figure():
    assert S.workload == "steady" and theory_wa(S) is not None
    assert run_modelled(S, [seg("steady")])
    assert run_theory_wa(S, [seg("steady")]) == theory_wa(S)
    fs_step = {"fs": True, "do": "unpack", "args": {}, "index": 0, "sync_after": False,
               "total": 10}
    assert run_modelled(replace(S, workload="random"), [seg("fill"), seg("random")])
    for log in ([], [fs_step], [seg("steady"), fs_step], [seg("fill")], [seg("trim")],
                [seg("steady"), seg("trim")],
                [seg("random")]):  # the last: run as random, the settings now say steady
        assert not run_modelled(S, log), log
        assert run_theory_wa(S, log) is None
    hot = replace(S, workload="hotcold", hot_lba_pct=20.0, hot_write_pct=80.0)
    assert run_modelled(hot, [seg("hotcold", hot_lba_fraction=0.2, hot_write_fraction=0.8)])
    assert not run_modelled(hot, [seg("hotcold", hot_lba_fraction=0.1,
                                      hot_write_fraction=0.9)])


def test_the_files_name_the_model_and_what_it_assumes():
    said = theory_source(S, [seg("steady")])
    assert said["model"] == "Van Houdt's greedy model (2013)"
    assert said["wa"] == theory_wa(S) and "random rewrites" in said["workload"]
    assert 0 < said["spare_pct_of_physical"] < 100
    none = theory_source(S, [{"fs": True, "do": "dd", "args": {}, "total": 1}])
    assert none["model"] is None and "no analytic model" in none["why"]


def test_the_note_under_the_chart_names_no_model_beside_a_scenario():
    assert "greedy model" in wa_note(S, 2.0)
    assert "greedy model" not in wa_note(S, 0.3, modelled=False)
    assert "random" not in wa_note(S, 0.3, modelled=False)
