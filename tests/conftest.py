"""Test-wide configuration.

Qt reads ``QT_QPA_PLATFORM`` when the first application object is created; without a
display and without this setting it aborts the whole process, so no pytest summary is
printed. Setting it here, at import time and before any Qt import, keeps every test run
headless without anyone exporting it by hand. A value already in the environment wins.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
