"""The PySide6 window: workbench, controls, block map, charts, and the worker that runs the
model off the GUI thread and hands back snapshots."""
