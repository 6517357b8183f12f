"""The block map written to files for print: PNG (300 dpi), SVG, PDF and CSV with a JSON
sidecar, in the same print profile and with the same atomic writes as the charts
(app/chartexport.py).

Every erase block is one cell, row by row from the top left, coloured by state: free,
open and victim blocks in flat colours, full blocks by their valid fraction (viridis, as
in the window), with a legend and a colour bar. Up to VECTOR_MAX_BLOCKS blocks each cell is
its own vector rectangle; above that the cells are drawn as one embedded image (nearest
neighbour, one pixel per block), so SVG and PDF stay small and valid for real-size drives.
The sidecar says which was done. The CSV holds block, state, valid pages and erase count.
"""

from __future__ import annotations

import csv
import io
import json
import math

import matplotlib
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.colors import ListedColormap, Normalize, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from app.atomicfile import atomic_open
from app.chartexport import (
    PNG_DPI,
    PRINT_STYLE,
    WIDTHS_IN,
    Export,
    check_export,
    sidecar_path,
    version,
)
from app.palette import OKABE_ITO
from model.flash.state import BLOCK_FREE, BLOCK_FULL, BLOCK_OPEN, BLOCK_STATE_NAMES, BLOCK_VICTIM

VECTOR_MAX_BLOCKS = 4096  # above this, cells go into one embedded image
NAME = "blockmap"
TITLE = "Block map"
# Flat colours of the states that are not "full" (full blocks: viridis by valid share).
STATE_COLOURS = {BLOCK_FREE: "#c8c8c8", BLOCK_OPEN: OKABE_ITO["orange"],
                 BLOCK_VICTIM: OKABE_ITO["vermillion"]}
CSV_COLUMNS = ("block", "state", "valid_pages", "erase_count")


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


def figure(state, valid, erases, pages_per_block: int, width: str = "single"):
    """A matplotlib Figure of the block map in the print profile; returns (figure, how the
    cells were drawn: "rectangles" or "image")."""
    state, valid, erases = (np.asarray(a) for a in (state, valid, erases))
    _check(state, valid, erases)
    n = state.size
    w = WIDTHS_IN[width]
    h = w * (0.75 if width == "single" else 0.45)
    drawn = "rectangles" if n <= VECTOR_MAX_BLOCKS else "image"
    with matplotlib.rc_context(PRINT_STYLE):
        fig = Figure(figsize=(w, h), layout="constrained")
        ax = fig.add_subplot()
        ax.set_title(f"{TITLE}: {n:,} blocks")
        cols, rows = grid_shape(n, w / (h * 0.62))
        rgba = block_rgba(state, valid, pages_per_block)
        if drawn == "rectangles":
            gap = 0.1 if n <= 1024 else 0.0  # cells of a small map read apart on paper
            rects = [Rectangle((b % cols + gap / 2, b // cols + gap / 2), 1 - gap, 1 - gap)
                     for b in range(n)]
            coll = PatchCollection(rects, facecolors=rgba, edgecolors="none", linewidths=0)
            coll.set_gid("blocks")
            ax.add_collection(coll)
        else:
            img = np.ones((rows * cols, 4))
            img[:n] = rgba
            art = ax.imshow(img.reshape(rows, cols, 4), interpolation="nearest",
                            extent=(0, cols, rows, 0), resample=False)
            art.set_gid("blocks")
        ax.set_xlim(0, cols)
        ax.set_ylim(rows, 0)  # block 0 at the top left, as in the window
        ax.set_aspect("equal")
        ax.set_axis_off()
        counts = np.bincount(np.asarray(state, np.int64), minlength=len(BLOCK_STATE_NAMES))
        handles = [Patch(color=STATE_COLOURS[s], label=f"{BLOCK_STATE_NAMES[s]} ({counts[s]:,})")
                   for s in (BLOCK_FREE, BLOCK_OPEN, BLOCK_VICTIM) if counts[s]]
        fig.legend(handles=handles, loc="outside lower left", ncols=3, frameon=False)
        bar = fig.colorbar(matplotlib.cm.ScalarMappable(
            Normalize(0, 100), ListedColormap(matplotlib.colormaps["viridis"](
                np.linspace(0, 1, 256)))), ax=ax, location="right", shrink=0.8, aspect=25)
        bar.set_label(f"full blocks ({counts[BLOCK_FULL]:,}): valid pages (%)")
        fig.canvas.draw()
    return fig, drawn


def render(state, valid, erases, pages_per_block: int, fmt: str, width: str = "single"
           ) -> tuple[bytes, str]:
    fig, drawn = figure(state, valid, erases, pages_per_block, width)
    buf = io.BytesIO()
    creator = f"SSD Lab {version()}"
    with matplotlib.rc_context(PRINT_STYLE):
        fig.savefig(buf, format=fmt, dpi=PNG_DPI,
                    metadata={"Software": creator} if fmt == "png" else {"Creator": creator})
    return buf.getvalue(), drawn


def csv_text(state, valid, erases) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for b, (s, v, e) in enumerate(zip(state.tolist(), valid.tolist(), erases.tolist(),
                                      strict=True)):
        writer.writerow((b, BLOCK_STATE_NAMES[s], v, e))
    return out.getvalue()


def sidecar(state, pages_per_block: int, drawn: str, provenance: dict | None) -> dict:
    """What the data is and what reproduces it."""
    counts = np.bincount(np.asarray(state, np.int64), minlength=len(BLOCK_STATE_NAMES))
    return {"chart": NAME, "title": TITLE, "ssdlab_version": version(),
            "blocks": int(state.size), "pages_per_block": pages_per_block,
            "states": {BLOCK_STATE_NAMES[s]: int(c) for s, c in enumerate(counts)},
            "columns": list(CSV_COLUMNS),
            "figure_cells": drawn,
            "figure_cells_note": (f"one vector rectangle per block (at most "
                                  f"{VECTOR_MAX_BLOCKS:,} blocks)" if drawn == "rectangles"
                                  else f"more than {VECTOR_MAX_BLOCKS:,} blocks: the cells "
                                  "are one embedded image, one pixel per block"),
            "colours": {"free": STATE_COLOURS[BLOCK_FREE], "open": STATE_COLOURS[BLOCK_OPEN],
                        "victim": STATE_COLOURS[BLOCK_VICTIM],
                        "full": "viridis by valid pages / pages per block"},
            **(provenance or {})}


def write(path: str, state, valid, erases, pages_per_block: int, spec: Export) -> list[str]:
    """Write the block map to `path` (and the sidecar for CSV); returns the paths written.
    OutputFileError (one line naming the path) leaves every existing file as it was."""
    state, valid, erases = (np.asarray(a) for a in (state, valid, erases))
    _check(state, valid, erases)
    check_export(path, spec.format, spec.width)
    if spec.format == "csv":
        drawn = "rectangles" if state.size <= VECTOR_MAX_BLOCKS else "image"
        text = csv_text(state, valid, erases)
        side = json.dumps(sidecar(state, pages_per_block, drawn, spec.provenance),
                          indent=2) + "\n"
        with atomic_open(path, newline="") as f:
            f.write(text)
        with atomic_open(sidecar_path(path)) as f:
            f.write(side)
        return [path, sidecar_path(path)]
    data, _ = render(state, valid, erases, pages_per_block, spec.format, spec.width)
    with atomic_open(path, "wb") as f:
        f.write(data)
    return [path]
