"""Colour values, Qt-free, shared by the window's themes (ssdlab/app/gui/appearance/theme.py), the
file exporter (ssdlab/app/chartexport.py) and the palette test.

Data series use the Okabe-Ito palette, which survives the common colour blindnesses and
grey-scale printing. A token names a series' role (ssdlab/model/lab/charts.py); this module gives
its colour. The block map's colours are here too, one set per presentation profile, with
the legends that show them side by side: tests/test_palette.py proves every legend's entries
stay apart (CIEDE2000, for normal vision, protanopia, deuteranopia and tritanopia;
ssdlab/app/colourvision.py).
"""

from __future__ import annotations

# Okabe & Ito (2008), "Color Universal Design": eight colours told apart by most viewers.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

# Series colour by token, the same on screen (desk profile) and on paper.
SERIES = {
    "host": OKABE_ITO["blue"],
    "nand": OKABE_ITO["vermillion"],
    "wa": OKABE_ITO["blue"],
    "wa_window": OKABE_ITO["orange"],
    "theory": OKABE_ITO["black"],
    "gc": OKABE_ITO["reddish_purple"],
    "free": OKABE_ITO["bluish_green"],
    "erase": OKABE_ITO["sky_blue"],
    # a sweep's GC policies
    "greedy": OKABE_ITO["blue"],
    "fifo": OKABE_ITO["vermillion"],
    "random-d": OKABE_ITO["bluish_green"],
    "cost-benefit": OKABE_ITO["reddish_purple"],
}

# On the projector's black page the dark blue and black lines would vanish: the lighter
# blue and white take their place.
PROJECTOR_SERIES = SERIES | {
    "host": OKABE_ITO["sky_blue"],
    "wa": OKABE_ITO["sky_blue"],
    "greedy": OKABE_ITO["sky_blue"],
    "theory": "#ffffff",
}

# The second drive of a comparison (B), drawn dashed beside A: its own colour for each
# token, chosen so that every chart's legend with both runs (A's colours and these) stays
# apart for every viewer (tests/test_palette.py). Single-line charts draw B in the page's
# text colour.
# B's purple is deeper than Okabe-Ito's reddish purple: to a tritanope that one came within
# 10.9 (CIEDE2000) of A's orange window curve on the WA chart.
B_PURPLE = "#BB1188"
COMPARE_SERIES = {
    "normal": {"wa": OKABE_ITO["bluish_green"], "wa_window": B_PURPLE,
               "theory": "#555555", "host": OKABE_ITO["bluish_green"],
               "nand": B_PURPLE, "gc": "#000000", "free": "#000000",
               "erase": "#000000"},
    "projector": {"wa": OKABE_ITO["bluish_green"], "wa_window": B_PURPLE,
                  "theory": "#c0c0c0", "host": OKABE_ITO["bluish_green"],
                  "nand": B_PURPLE, "gc": "#ffffff", "free": "#ffffff",
                  "erase": "#ffffff"},
}
REFERENCE_SHARE = 0.45  # a pinned reference's lines: this much of A's colour, the rest page
# What a reference fades toward: the page itself on white; on the projector's black page a
# line faded toward black sinks into it, so there it fades toward a mid grey (still clearly
# duller than A's line, and drawn thinner and dash-dotted).
REFERENCE_FADE = {"normal": "#ffffff", "projector": "#9a9a9a"}

# Each kind of line has its own dash pattern, so a grey-scale print, a colour-blind viewer and
# the back row tell them apart without colour: a run's measured lines are A solid, B long
# dashes, a reference dash-dotted; an analytic level is dotted (B's dots sparser than A's), so
# it never looks like B. Patterns are (on, off, ...) in line widths, as both Qt's
# QPen.setDashPattern and matplotlib's scaled dashes read them; None: solid.
DASHES: dict[tuple[str, bool], tuple[float, ...] | None] = {
    ("main", False): None, ("main", True): (1.0, 1.6),
    ("second", False): (6.0, 2.5), ("second", True): (1.0, 3.5),
    ("ref", False): (6.0, 1.5, 1.5, 1.5), ("ref", True): (1.0, 1.6),
}


def dash(role: str, analytic: bool) -> tuple[float, ...] | None:
    """The dash pattern of a line: role "main" (A or the only run), "second" (B) or "ref";
    analytic: the line is a model's level, not a measurement."""
    return DASHES[(role, analytic)]

# viridis' ends: a full block with no valid page (0 %) and with every page valid (100 %)
VIRIDIS_ENDS = ("#440154", "#fde725")

# The block map, per profile. An open block (sky blue) and a valid page (blue) differ in
# lightness, so they stay apart for every viewer; "just erased" is white, far from the grey
# of a free block and from the map's dark background. A page GC just copied is a pale green,
# lighter than every other page: Okabe-Ito's reddish purple, used before, turned a light grey
# next to the free blocks' grey under deuteranopia and came within 10.9 (CIEDE2000) of the
# invalid pages' orange under tritanopia; the pale green stays 16 and more from every entry
# of the legend for all four visions (tests/test_palette.py).
_MAP_COMMON = {
    "block_open": OKABE_ITO["sky_blue"],
    "block_victim": OKABE_ITO["vermillion"],
    "block_erased": "#ffffff",
    "page_valid": OKABE_ITO["blue"],
    "page_invalid": OKABE_ITO["orange"],
    "page_copied": "#B4F6B4",
}
# The background is dark enough for the valid pages' blue to reach 3:1 against it (WCAG
# 2.1 1.4.11; a block full of valid pages on the former #2b2b2b was 2.73:1).
MAP = {
    "normal": _MAP_COMMON | {"map_background": "#1a1a1a", "block_free": "#777777",
                             "page_free": "#777777"},
    "projector": _MAP_COMMON | {"map_background": "#000000", "block_free": "#606060",
                                "page_free": "#606060"},
}

# Shapes that say what a colour says, for a viewer who cannot tell the hues apart (under
# deuteranopia the victim's vermillion turns an olive close to viridis' greens): a GC victim
# is crossed out (an X, a black stroke on a white halo, so it shows on any fill), and at
# page level, where a cross would hide the pages, outlined in black and white dashes.
VICTIM_MARK = {"stroke": "#000000", "halo": "#ffffff"}
# A lesson's answers: the right one in a solid outline, labelled; the chosen one dashed.
RIGHT_ANSWER_LABEL = "\N{CHECK MARK} right answer"
CHOSEN_ANSWER_LABEL = "your answer"
ANSWER_DASHES = {"right": None, "chosen": (4.0, 2.0)}  # pen dash pattern, in pen widths

# The block map's legend, in order: (token, text). A full block's valid share is a viridis
# gradient shown between these entries; its two ends are checked with them.
MAP_LEGEND = (("block_free", "free block"), ("block_open", "open block"),
              ("block_victim", "GC victim"), ("block_erased", "just erased"),
              ("page_valid", "valid page"), ("page_invalid", "invalid page"),
              ("page_copied", "copied by GC"))

# The chart page of each profile on screen
CHART_PAGE = {"normal": "#ffffff", "projector": "#000000"}

# The print profile's page: white, black type, a light grid.
PRINT_PAGE = {"background": "#ffffff", "text": "#000000", "grid": "#d9d9d9"}

PROFILES = ("normal", "projector")


def profile_series(profile: str) -> dict[str, str]:
    """Series colours by token for one screen profile."""
    return PROJECTOR_SERIES if profile == "projector" else SERIES


def map_legend_colours(profile: str) -> dict[str, str]:
    """Every colour the block map's legend shows side by side, and the map's background
    they are drawn on, by name."""
    colours = {text: MAP[profile][token] for token, text in MAP_LEGEND}
    colours |= {"full block, 0 % valid": VIRIDIS_ENDS[0],
                "full block, 100 % valid": VIRIDIS_ENDS[1],
                "map background": MAP[profile]["map_background"]}
    return colours


def faded(colour: str, page: str, share: float = REFERENCE_SHARE) -> str:
    """colour mixed with the page it is drawn on: `share` of colour, the rest page."""
    a = [int(colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]
    b = [int(page.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]
    return "#" + "".join(f"{round(share * x + (1 - share) * y):02x}" for x, y in zip(a, b,
                                                                                     strict=True))


def run_colour(profile: str, token: str, role: str) -> str:
    """A series' colour on screen by the run it belongs to: "main" (A, or the only run),
    "second" (B of a comparison) or "ref" (a pinned reference: A's colour, faded)."""
    if role == "second":
        return COMPARE_SERIES[profile][token]
    colour = profile_series(profile)[token]
    return faded(colour, REFERENCE_FADE[profile]) if role == "ref" else colour


def series_colour(token: str) -> str:
    """The hex colour of a series token on paper; KeyError names an unknown one."""
    return SERIES[token]
