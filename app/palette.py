"""Colour values for the chart tokens, Qt-free, shared by the window's themes (app/gui/
theme.py) and the file exporter (app/chartexport.py).

Data series use the Okabe-Ito palette, which survives the common colour blindnesses and
grey-scale printing. A token names a series' role (model/lab/charts.py); this module gives
its colour.
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

# Series colour by token, the same on screen and on paper.
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

# The print profile's page: white, black type, a light grid.
PRINT_PAGE = {"background": "#ffffff", "text": "#000000", "grid": "#d9d9d9"}


def series_colour(token: str) -> str:
    """The hex colour of a series token; KeyError names an unknown one."""
    return SERIES[token]
