"""Every legend's colours stay apart for normal vision, the common red-green deficiencies and
the blue-yellow one (tritanopia), in both screen profiles (ssdlab/app/palette.py; differences
in CIEDE2000 after the Machado 2009 simulation, ssdlab/app/colourvision.py). Plain tests: the
palette is Qt-free."""

import itertools
import math

import pytest

from ssdlab.app.colourvision import (
    VISIONS,
    ciede2000,
    closest_pair,
    contrast,
    difference,
    hex_rgb,
    lab,
    simulate,
    to_linear,
)
from ssdlab.app.palette import (
    CHART_PAGE,
    COMPARE_SERIES,
    MAP,
    PROFILES,
    faded,
    map_legend_colours,
    profile_series,
    run_colour,
)
from ssdlab.model.lab.charts import CHARTS

# Side by side, entries of one legend must differ by at least this much (CIEDE2000) for
# every viewer; 1 is a just-noticeable difference, 10 and more read as different colours.
LEGEND_MIN = 12.0
# A line or a "just erased" block against the page it is drawn on.
ON_PAGE_MIN = 20.0


@pytest.mark.parametrize(("lab1", "lab2", "expected"), [
    # Sharma, Wu & Dalal (2005), table 1: pairs 1, 7, 17 and 34
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
])
def test_ciede2000_matches_the_published_test_data(lab1, lab2, expected):
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


def test_simulation_folds_red_and_green_together():
    # red and green, far apart for normal vision, come close for a dichromat
    red, green = "#d00000", "#5a8a00"
    assert difference(red, green) > 50
    for vision in ("protanopia", "deuteranopia"):
        assert difference(red, green, vision) < difference(red, green) / 2
    assert lab(simulate("#ffffff", "deuteranopia"))[0] == pytest.approx(100, abs=0.5)


@pytest.mark.parametrize("profile", PROFILES)
def test_block_map_legend_entries_are_distinct_for_every_viewer(profile):
    d, a, b, vision = closest_pair(map_legend_colours(profile))
    assert d >= LEGEND_MIN, f"{profile}: {a!r} and {b!r} differ by {d:.1f} for {vision}"


def test_every_vision_is_simulated_blue_yellow_too():
    assert set(VISIONS) == {"normal", "protanopia", "deuteranopia", "tritanopia"}
    # a tritanope loses blue against green: sky blue and a green of its lightness fold
    sky, green = "#56b4e9", "#6fba7a"
    assert difference(sky, green, "tritanopia") < difference(sky, green) / 2


@pytest.mark.parametrize("profile", PROFILES)
def test_pages_gc_copied_stand_apart_from_free_ones_for_every_viewer(profile):
    """Issue 38: under deuteranopia the copied pages' pink turned a light grey beside the
    free blocks' grey (13.5). Apart by hue and by lightness, so no viewer needs the hue."""
    m = MAP[profile]
    for other in ("page_free", "block_free", "page_valid", "page_invalid"):
        for vision in VISIONS:
            assert difference(m["page_copied"], m[other], vision) >= 16, (other, vision)
    for vision in VISIONS:
        assert contrast(m["page_copied"], m["page_free"], vision) >= 3, vision


@pytest.mark.parametrize("profile", PROFILES)
def test_open_block_and_valid_page_are_not_the_same_blue(profile):
    m = MAP[profile]
    assert m["block_open"] != m["page_valid"]
    for vision in VISIONS:
        assert difference(m["block_open"], m["page_valid"], vision) >= LEGEND_MIN


@pytest.mark.parametrize("profile", PROFILES)
def test_just_erased_shows_on_the_map_and_beside_free_blocks(profile):
    m = MAP[profile]
    for other in ("map_background", "block_free"):
        for vision in VISIONS:
            assert difference(m["block_erased"], m[other], vision) >= ON_PAGE_MIN, other


@pytest.mark.parametrize(("profile", "chart"), list(itertools.product(
    PROFILES, [name for name, c in CHARTS.items() if len({ln.token for ln in c.lines}) > 1])))
def test_chart_legend_entries_are_distinct_for_every_viewer(profile, chart):
    series = profile_series(profile)
    colours = {ln.token: series[ln.token] for ln in CHARTS[chart].lines}
    d, a, b, vision = closest_pair(colours)
    assert d >= LEGEND_MIN, f"{profile} {chart}: {a} and {b} differ by {d:.1f} for {vision}"


@pytest.mark.parametrize("profile", PROFILES)
def test_every_line_stands_out_from_its_chart_page(profile):
    page = CHART_PAGE[profile]
    for token, colour in profile_series(profile).items():
        for vision in VISIONS:
            d = difference(colour, page, vision)
            assert d >= ON_PAGE_MIN, f"{profile}: {token} on the page: {d:.1f} ({vision})"


@pytest.mark.parametrize(("profile", "chart"), list(itertools.product(
    PROFILES, [name for name, c in CHARTS.items() if c.source == "run"])))
def test_compare_legend_entries_are_distinct_for_every_viewer(profile, chart):
    """Two drives on one chart: A's lines and B's (ssdlab/app/palette.COMPARE_SERIES) all differ."""
    colours = {f"A {ln.token}": run_colour(profile, ln.token, "main")
               for ln in CHARTS[chart].lines}
    colours |= {f"B {ln.token}": run_colour(profile, ln.token, "second")
                for ln in CHARTS[chart].lines}
    d, a, b, vision = closest_pair(colours)
    assert d >= LEGEND_MIN, f"{profile} {chart}: {a} and {b} differ by {d:.1f} for {vision}"


@pytest.mark.parametrize("profile", PROFILES)
def test_second_drive_and_reference_lines_stand_out_from_the_page(profile):
    page = CHART_PAGE[profile]
    for token in COMPARE_SERIES[profile]:
        for vision in VISIONS:
            assert difference(run_colour(profile, token, "second"), page,
                              vision) >= ON_PAGE_MIN, token
            # faded, yet still a line on the page; on the projector's black page a dim line
            # is lost from the back of the room, so there it must stand out as fully as B's
            least = ON_PAGE_MIN if profile == "projector" else 8
            assert difference(run_colour(profile, token, "ref"), page, vision) >= least, token


@pytest.mark.parametrize("profile", PROFILES)
def test_a_reference_reads_as_duller_than_its_run(profile):
    """Faded means less colourful than A's own line (CIELAB chroma), on either page."""
    for token in COMPARE_SERIES[profile]:
        main = lab(to_linear(hex_rgb(run_colour(profile, token, "main"))))
        ref = lab(to_linear(hex_rgb(run_colour(profile, token, "ref"))))
        if math.hypot(main[1], main[2]) > 5:  # a grey line (analytic) has no colour to lose
            assert math.hypot(ref[1], ref[2]) < 0.8 * math.hypot(main[1], main[2]), token


def test_faded_mixes_towards_the_page():
    assert faded("#000000", "#ffffff", 0.5) == "#808080"
    assert faded("#123456", "#000000", 1.0) == "#123456"
