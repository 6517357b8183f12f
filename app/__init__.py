"""SSD Lab's PySide6 front end: windows, widgets, charts and the simulation worker."""
