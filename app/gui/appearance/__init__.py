"""How the window looks and fits the screen: the colour tokens and type sizes of the two
themes (theme.py), presentation mode (presentation.py, F11), and the widgets that keep a
narrow screen usable (a drop-down that elides, a row that wraps). Imports no other part of
the window."""
