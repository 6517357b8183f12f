"""The block map written to files for print: PNG (300 dpi), SVG, PDF and CSV with a JSON
sidecar, in the same print profile and with the same atomic writes as the charts
(ssdlab/app/chartexport.py).

Every erase block is one cell, row by row from the top left, coloured by state: free,
open and victim blocks in flat colours, full blocks by their valid fraction (viridis, as
in the window), with a legend and a colour bar. Up to VECTOR_MAX_BLOCKS blocks each cell is
its own vector rectangle; above that the cells are drawn as one embedded image (nearest
neighbour, one pixel per block), so SVG and PDF stay small and valid for real-size drives.
The sidecar says which was done. The CSV holds block, state, valid pages and erase count.

With two drives side by side, both maps are drawn beside each other on one scale, each titled
with its label ("A: spare 7 %"), and the CSV gains a first column naming the drive.
"""

from __future__ import annotations

import csv
import io
import json
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.colors import ListedColormap, Normalize, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ssdlab.app.atomicfile import atomic_open, write_together
from ssdlab.app.chartexport import (
    PNG_DPI,
    PRINT_STYLE,
    WIDTHS_IN,
    Export,
    check_export,
    sidecar_path,
    version,
)
from ssdlab.app.chartprovenance import provenance, save
from ssdlab.app.palette import OKABE_ITO
from ssdlab.model.flash.state import (
    BLOCK_FREE,
    BLOCK_FULL,
    BLOCK_OPEN,
    BLOCK_STATE_NAMES,
    BLOCK_VICTIM,
)

VECTOR_MAX_BLOCKS = 4096  # above this, cells go into one embedded image
NAME = "blockmap"
TITLE = "Block map"
# Flat colours of the states that are not "full" (full blocks: viridis by valid share).
STATE_COLOURS = {BLOCK_FREE: "#c8c8c8", BLOCK_OPEN: OKABE_ITO["orange"],
                 BLOCK_VICTIM: OKABE_ITO["vermillion"]}
CSV_COLUMNS = ("block", "state", "valid_pages", "erase_count")
COLOUR_BAR_IN = 0.6  # width the colour bar and its label take, inches
DRIVE_COLUMN = "drive"  # several maps: the CSV's column naming each row's drive


def _check(state: np.ndarray, valid: np.ndarray, erases: np.ndarray) -> None:
    if not (state.shape == valid.shape == erases.shape) or state.ndim != 1 or not state.size:
        raise ValueError("state, valid and erases must be equal-length, non-empty arrays "
                         "(one value per block)")


def block_rgba(state: np.ndarray, valid: np.ndarray, pages_per_block: int) -> np.ndarray:
    """float[blocks, 4]: each block's print colour."""
    share = np.clip(np.asarray(valid, float) / pages_per_block, 0.0, 1.0)
    rgba = matplotlib.colormaps["viridis"](share)
    for s, colour in STATE_COLOURS.items():
        rgba[state == s] = to_rgba(colour)
    return rgba


def grid_shape(blocks: int, aspect: float) -> tuple[int, int]:
    """(columns, rows) of square cells filling a panel of width/height `aspect`."""
    cols = max(1, math.ceil(math.sqrt(blocks * aspect)))
    return cols, -(-blocks // cols)


@dataclass(frozen=True)
class DriveMap:
    """One drive's block map to draw: label ("A: spare 7 %"; "" for the only drive), per
    block its state, valid pages and erase count, the drive's pages per block, and what
    reproduces it (its settings, seed)."""

    label: str
    state: np.ndarray
    valid: np.ndarray
    erases: np.ndarray
    pages_per_block: int
    provenance: dict | None = None

    def __post_init__(self) -> None:
        arrays = [np.asarray(a) for a in (self.state, self.valid, self.erases)]
        _check(*arrays)
        for name, a in zip(("state", "valid", "erases"), arrays, strict=True):
            object.__setattr__(self, name, a)

    def drawn(self) -> str:
        """How its cells are drawn: "rectangles", or "image" for a big drive."""
        return "rectangles" if self.state.size <= VECTOR_MAX_BLOCKS else "image"

    def counts(self) -> np.ndarray:
        """Blocks in each state, by state number."""
        return np.bincount(np.asarray(self.state, np.int64), minlength=len(BLOCK_STATE_NAMES))


def _cells(ax, m: DriveMap, cols: int, rows: int) -> None:
    """m's blocks as cells, row by row from the top left, on a grid of cols x rows."""
    n = m.state.size
    rgba = block_rgba(m.state, m.valid, m.pages_per_block)
    if m.drawn() == "rectangles":
        gap = 0.1 if n <= 1024 else 0.0  # cells of a small map read apart on paper
        rects = [Rectangle((b % cols + gap / 2, b // cols + gap / 2), 1 - gap, 1 - gap)
                 for b in range(n)]
        coll = PatchCollection(rects, facecolors=rgba, edgecolors="none", linewidths=0)
        coll.set_gid("blocks")
        ax.add_collection(coll)
    else:
        img = np.ones((-(-n // cols) * cols, 4))
        img[:n] = rgba
        art = ax.imshow(img.reshape(-1, cols, 4), interpolation="nearest",
                        extent=(0, cols, -(-n // cols), 0), resample=False)
        art.set_gid("blocks")
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)  # block 0 at the top left, as in the window
    ax.set_aspect("equal")
    ax.set_axis_off()


def figure(state, valid, erases, pages_per_block: int, width: str = "single"):
    """A matplotlib Figure of the block map in the print profile; returns (figure, how the
    cells were drawn: "rectangles" or "image")."""
    m = DriveMap("", state, valid, erases, pages_per_block)
    return maps_figure([m], width), m.drawn()


def maps_figure(maps: Sequence[DriveMap], width: str = "single"):
    """A matplotlib Figure of one or more drives' block maps side by side, each titled
    with its label, on one scale (a drive with more blocks fills more rows)."""
    if not maps:
        raise ValueError("at least one block map is needed")
    w = WIDTHS_IN[width]
    h = w * (0.75 if width == "single" else 0.45)
    big = max(m.state.size for m in maps)
    with matplotlib.rc_context(PRINT_STYLE):
        fig = Figure(figsize=(w, h), layout="constrained")
        axes = fig.subplots(1, len(maps), squeeze=False)[0]
        cols, rows = grid_shape(big, w / len(maps) / (h * 0.62))
        counts = [m.counts() for m in maps]
        # characters of title type a panel holds (a DejaVu Sans character: about 0.55 em)
        chars = max(12, int((w - COLOUR_BAR_IN) / len(maps) * 72
                            / (0.55 * PRINT_STYLE["font.size"])))
        for ax, m, c in zip(axes, maps, counts, strict=True):
            n = m.state.size
            if len(maps) == 1:
                ax.set_title(f"{TITLE}: {n:,} blocks")
            else:  # the drive's label, then its size, wrapped to the panel's width
                ax.set_title("\n".join([*textwrap.wrap(m.label, chars),
                                        f"{n:,} blocks, {c[BLOCK_FREE]:,} free"]),
                             fontsize=PRINT_STYLE["font.size"])
            _cells(ax, m, cols, rows)
        if len(maps) > 1:
            fig.suptitle(TITLE, fontsize=PRINT_STYLE["axes.titlesize"])
        shown = [s for s in (BLOCK_FREE, BLOCK_OPEN, BLOCK_VICTIM) if any(c[s] for c in counts)]
        if len(maps) == 1:  # each state's blocks counted; with several maps, in the titles
            handles = [Patch(color=STATE_COLOURS[s],
                             label=f"{BLOCK_STATE_NAMES[s]} ({counts[0][s]:,})") for s in shown]
        else:
            handles = [Patch(color=STATE_COLOURS[s], label=BLOCK_STATE_NAMES[s]) for s in shown]
        fig.legend(handles=handles, loc="outside lower left", ncols=3, frameon=False)
        bar = fig.colorbar(matplotlib.cm.ScalarMappable(
            Normalize(0, 100), ListedColormap(matplotlib.colormaps["viridis"](
                np.linspace(0, 1, 256)))), ax=list(axes), location="right", shrink=0.8,
            aspect=25)
        full = f" ({counts[0][BLOCK_FULL]:,})" if len(maps) == 1 else ""
        bar.set_label(f"full blocks{full}: valid pages (%)")
        fig.canvas.draw()
    return fig


def render(state, valid, erases, pages_per_block: int, fmt: str, width: str = "single"
           ) -> tuple[bytes, str]:
    m = DriveMap("", state, valid, erases, pages_per_block)
    return render_maps([m], fmt, width), m.drawn()


def render_maps(maps: Sequence[DriveMap], fmt: str, width: str = "single") -> bytes:
    # provenance inside and no creation date: the same map gives the same bytes
    return save(maps_figure(maps, width), fmt, PNG_DPI, PRINT_STYLE, provenance(NAME, None))


def csv_text(maps: Sequence[DriveMap]) -> str:
    """block, state, valid pages, erase count per block; several maps: a first column
    naming each row's drive (long format)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    several = len(maps) > 1
    writer.writerow((DRIVE_COLUMN, *CSV_COLUMNS) if several else CSV_COLUMNS)
    for m in maps:
        lead = (m.label,) if several else ()
        for b, (s, v, e) in enumerate(zip(m.state.tolist(), m.valid.tolist(),
                                          m.erases.tolist(), strict=True)):
            writer.writerow((*lead, b, BLOCK_STATE_NAMES[s], v, e))
    return out.getvalue()


def _about(m: DriveMap) -> dict:
    """One map's size, states and how its cells are drawn."""
    drawn = m.drawn()
    return {"blocks": int(m.state.size), "pages_per_block": m.pages_per_block,
            "states": {BLOCK_STATE_NAMES[s]: int(c) for s, c in enumerate(m.counts())},
            "figure_cells": drawn,
            "figure_cells_note": (f"one vector rectangle per block (at most "
                                  f"{VECTOR_MAX_BLOCKS:,} blocks)" if drawn == "rectangles"
                                  else f"more than {VECTOR_MAX_BLOCKS:,} blocks: the cells "
                                  "are one embedded image, one pixel per block")}


def sidecar(maps: Sequence[DriveMap], provenance: dict | None) -> dict:
    """What the data is and what reproduces it; several maps: each one's label, size,
    states and provenance."""
    out = {"chart": NAME, "title": TITLE, "ssdlab_version": version()}
    if len(maps) == 1:
        about = _about(maps[0])
        out |= {k: about[k] for k in ("blocks", "pages_per_block", "states")}
        out["columns"] = list(CSV_COLUMNS)
        out |= {k: about[k] for k in ("figure_cells", "figure_cells_note")}
    else:
        out["columns"] = [DRIVE_COLUMN, *CSV_COLUMNS]
        out["drive_column"] = DRIVE_COLUMN
        out["maps"] = [{"label": m.label, **_about(m), **(m.provenance or {})} for m in maps]
    out["colours"] = {"free": STATE_COLOURS[BLOCK_FREE], "open": STATE_COLOURS[BLOCK_OPEN],
                      "victim": STATE_COLOURS[BLOCK_VICTIM],
                      "full": "viridis by valid pages / pages per block"}
    return {**out, **(provenance or {})}


def write(path: str, state, valid, erases, pages_per_block: int, spec: Export) -> list[str]:
    """Write the block map to `path` (and the sidecar for CSV); returns the paths written.
    OutputFileError (one line naming the path) leaves every existing file as it was."""
    return write_maps(path, [DriveMap("", state, valid, erases, pages_per_block)], spec)


def write_maps(path: str, maps: Sequence[DriveMap], spec: Export) -> list[str]:
    """Write one or more drives' block maps (side by side) to `path`, and the sidecar for
    CSV; returns the paths written. OutputFileError (one line naming the path) leaves every
    existing file as it was."""
    if not maps:
        raise ValueError("at least one block map is needed")
    check_export(path, spec.format, spec.width)
    if spec.format == "csv":
        text = csv_text(maps)
        side = json.dumps(sidecar(maps, spec.provenance), indent=2) + "\n"
        write_together([(path, text), (sidecar_path(path), side)])  # both or neither
        return [path, sidecar_path(path)]
    data = render_maps(maps, spec.format, spec.width)
    with atomic_open(path, "wb") as f:
        f.write(data)
    return [path]
