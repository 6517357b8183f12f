"""How the window looks and fits the screen: the colour tokens and type sizes (theme.py) and
the style sheet drawn from them (stylesheet.py), the person's preferences (preferences.py,
prefsdialog.py), presentation mode (presentation.py, F11), and the widgets that keep a
narrow or short screen usable (a drop-down that elides, a row that wraps, a part that
scrolls). Imports no other part of the window."""
