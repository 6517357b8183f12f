"""The PySide6 window, in component packages (each one job; the frame on top):

- frame/: the workbench window and what works on it (buttons, keys, status, compare, files,
  export, the docked lesson panel);
- ssdlab/lessons/: the lesson player (panel, run thread, results, glossary window);
- drive/: one drive on screen (view, block map, zoom, heat maps, breakpoints);
- charts/: the time-series charts, axes and run legend;
- settings/: the Session, the control panel and scenario files;
- run/: the simulation thread and its snapshots;
- appearance/: themes, presentation mode and widgets that fit narrow screens.

launch.py opens the window. pyproject.toml's import-linter contracts keep these layers."""
