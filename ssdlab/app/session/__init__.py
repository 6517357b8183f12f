"""The workbench's session, Qt-free: its settings and their schema, the workloads and
file-system steps its log holds, the recorder of its time series, and session files. The
window (ssdlab/app/gui) and the command line (`ssdlab chart SESSION.json`) both read these."""
