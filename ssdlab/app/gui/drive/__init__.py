"""One drive on screen: its view (driveview.py: worker, map, settings, newest snapshot), the
block map with its zoom (blockmap.py, mapview.py), heat maps and legend (heatmap.py,
legend.py), and the breakpoints dialog with the wiring that installs zoom, heat maps and
breakpoints on every view (breakpointdialog.py, mapwiring.py)."""
