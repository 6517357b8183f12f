"""The workbench window, the frame that holds the components together: the window itself
(workbench.py, its widgets laid out in windowlayout.py, the workload it sends in
workloads.py), its button bar, keys and menus (buttonbar.py, shortcuts.py), status line, two
drives side by side and kept references (compare.py), its files (runfiles.py), the export
dialog and the docked lesson panel (dockedlessons.py). Every module here works on the
workbench; the components below never import it."""
