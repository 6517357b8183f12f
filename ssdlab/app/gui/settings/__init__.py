"""A drive's settings in the window: the Session that owns them and announces changes
(session.py), the control panel that edits them (controls.py, its words in
controltips.py), and scenario files read as settings and steps or written from a run
(scenariofiles.py)."""
