"""`ssdlab bench --physics` closing lines: the shared rows held to Eq. 16's 2 %, the separate
rows printed beside them as what keeping GC copies apart changes, with its sign."""

from ssdlab.app.cli.physics import _physics_line, _physics_summary


def _row(policy: str, frontier: str, spare: float, wa: float, model: float,
         tolerance: float | None) -> dict:
    return {"policy": policy, "spare": spare, "active_fraction": 1.0, "gc_frontier": frontier,
            "effective_spare": spare, "wa": wa, "theory_wa": model,
            "error": wa / model - 1.0, "tolerance": tolerance,
            "window_min": wa, "window_max": wa}


ROWS = [
    _row("greedy hot/cold 90/5 shared", "shared", 0.07, 9.18, 9.03, 0.02),
    _row("greedy hot/cold 90/5 shared", "shared", 0.28, 3.10, 2.99, 0.02),
    _row("greedy hot/cold 90/5 separate", "separate", 0.07, 8.20, 9.03, None),
    _row("greedy hot/cold 90/5 separate", "separate", 0.28, 3.20, 2.99, None),
]


def test_the_summary_counts_only_the_rows_held_to_the_bar():
    lines = _physics_summary(ROWS)
    assert lines[0] == "1 of 2 within 2 % of the analytic model; largest error 3.68 %"


def test_the_separate_frontier_is_printed_beside_the_shared_with_its_sign():
    lines = _physics_summary(ROWS)
    assert lines[1] == ("greedy hot/cold 90/5 spare 0.070: separate GC frontier WA 8.2000 vs "
                        "shared 9.1800: -10.68 % (less flash written when separate)")
    assert lines[2].endswith("+3.23 % (more flash written when separate)")


def test_rows_beyond_the_bar_are_flagged_and_separate_rows_are_not():
    assert _physics_line(ROWS[1]).endswith("! beyond 2 %")
    assert "! beyond" not in _physics_line(ROWS[2])
    assert _physics_line(ROWS[2]).endswith("separate GC copies, beside the shared-frontier "
                                           "model")
