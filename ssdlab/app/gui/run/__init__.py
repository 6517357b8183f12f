"""The run behind one drive view: the simulation thread that owns the Drive (worker.py, its
file-system steps in fssteps.py and block batches in batches.py), what a snapshot holds
(snapshot.py) and the run put into words for the status line (runstatus.py). Imports no
other part of the window."""
